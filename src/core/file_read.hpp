// Reading a whole file named by a user or the environment (a hardware profile, a plan file)
// without trusting what the path is. A path can name a device that never ends (/dev/zero), a
// FIFO whose open blocks until a writer comes, a directory, or a huge file; each must fail
// quickly with a reason, in bounded memory, never hang:
//   - open with O_NONBLOCK (a FIFO opens at once instead of waiting for a writer), O_CLOEXEC;
//   - fstat the opened descriptor (not the path, which may change) and require a regular file;
//   - check the size against the caller's cap before allocating, and stop at the cap if the
//     file grows while it is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "adaptcore/types.hpp"

namespace adaptcore {

// Reads the regular file at `path` into `out`. Ok: `out` holds the file. Otherwise `out` is
// empty, `reason` (if given) says why without naming the path ("is a directory", "not a
// regular file", "file too large (N bytes, limit M)", "cannot open: ..."), and the status is
// OutOfMemory when an allocation failed, else InvalidArgument (callers map it to their own).
//
// `magic`, when not empty, is read before anything else and before the size is checked: when
// the file's first bytes differ from it (or the file is shorter and they differ from its
// start), reading stops there and the result is Ok with `out` holding only those bytes, so the
// caller's parser reports a wrong magic without the rest (up to max_bytes) ever being read.
Status read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string& out,
                         std::string* reason = nullptr, std::string_view magic = {}) noexcept;

}  // namespace adaptcore
