#include "core/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace adaptcore {
namespace {

// Closes the descriptor on every return path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads up to n bytes into dst; returns the count read (short only at end of file), or -1
// with errno set.
int64_t read_some(int fd, char* dst, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, dst + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  return static_cast<int64_t>(done);
}

}  // namespace

Status read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string& out,
                         std::string* reason, std::string_view magic) noexcept {
  out.clear();
  auto fail = [&](const char* why, const std::string& detail = {}) {
    out.clear();
    out.shrink_to_fit();
    if (reason != nullptr) {
      *reason = why;
      *reason += detail;
    }
    return Status::InvalidArgument;
  };
  try {
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (f.fd < 0) return fail("cannot open: ", std::strerror(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return fail("cannot stat: ", std::strerror(errno));
    if (S_ISDIR(st.st_mode)) return fail("is a directory");
    if (!S_ISREG(st.st_mode)) return fail("not a regular file (a device, FIFO or socket)");
    // O_NONBLOCK was for the open; reads of a regular file should block as usual (it would
    // only matter under mandatory locks, where a read could fail with EAGAIN).
    const int flags = ::fcntl(f.fd, F_GETFL);
    if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
    const auto size = static_cast<std::uint64_t>(st.st_size);

    std::size_t have = 0;
    if (!magic.empty()) {
      out.resize(magic.size());
      const int64_t r = read_some(f.fd, out.data(), magic.size());
      if (r < 0) return fail("cannot read: ", std::strerror(errno));
      have = static_cast<std::size_t>(r);
      out.resize(have);
      if (std::string_view(out) != magic.substr(0, have)) return Status::Ok;  // caller: bad magic
    }
    if (size > max_bytes)
      return fail("file too large (",
                  std::to_string(size) + " bytes, limit " + std::to_string(max_bytes) + ")");
    // The size fstat reported, plus one byte to notice a file that grew since; never past the
    // cap + 1, which is enough to tell "too large".
    const std::uint64_t want = std::min<std::uint64_t>(size, max_bytes) + 1;
    if (want > have) out.resize(static_cast<std::size_t>(want));
    for (;;) {
      const int64_t r = read_some(f.fd, out.data() + have, out.size() - have);
      if (r < 0) return fail("cannot read: ", std::strerror(errno));
      have += static_cast<std::size_t>(r);
      if (have < out.size()) break;  // end of file
      if (have > max_bytes)
        return fail("file too large (grew past the limit of ",
                    std::to_string(max_bytes) + " bytes while read)");
      // It grew but is still under the cap: read on, in steps that stay within it.
      const std::uint64_t next = std::min<std::uint64_t>(max_bytes + 1, have + have / 2 + 4096);
      out.resize(static_cast<std::size_t>(next));
    }
    out.resize(have);
    return Status::Ok;
  } catch (const std::bad_alloc&) {
    out.clear();
    out.shrink_to_fit();
    if (reason != nullptr) *reason = "out of memory";  // fits the small-string buffer
    return Status::OutOfMemory;
  } catch (...) {
    out.clear();
    if (reason != nullptr) *reason = "cannot read";
    return Status::InvalidArgument;
  }
}

}  // namespace adaptcore
