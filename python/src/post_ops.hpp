// A Python list of post-ops (adaptcore.post: objects with `kind` and `data`) as the library's
// PostOp array, and the CallOptions carrying it, for a call whose C is m x n in `layout`.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "arrays.hpp"

namespace adaptcore::python {

struct PostOpList {
  std::array<PostOp, kMaxPostOps> ops{};
  int count = 0;
  std::vector<std::vector<unsigned char>> copies;  // vectors or matrices copied to fit
  // The entries, their data objects and the arrays read from them, alive until the call ends
  // (an entry's `data` may be a property that makes a new array on every read).
  std::vector<nb::object> keep;
  std::vector<InArray> inputs;
  std::vector<OutArray> outputs;
};

// A call's options: its residency ("auto", "cached", "memory"; ValueError otherwise) and its
// post-op list (None or empty: none), each entry's arrays checked against the call's m x n C in
// `layout` (ValueError / TypeError) and held in `storage`; the library checks the rest (order,
// aliasing).
CallOptions call_options(const nb::handle& post_ops, const std::string& residency, Layout layout,
                         int64_t m, int64_t n, PostOpList& storage);

}  // namespace adaptcore::python
