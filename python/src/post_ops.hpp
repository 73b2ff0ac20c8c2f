// A Python list of post-ops (adaptcore.post: objects with `kind`, `data`, `out_type`) as the
// library's PostOp array for a call whose C is m x n in `layout`.
#pragma once

#include <array>
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

// Checks each entry's arrays against the call (ValueError / TypeError) and fills `out`; the
// library checks the rest (order, aliasing). None or an empty list: no post-ops.
void build_post_ops(const nb::handle& list, Layout layout, int64_t m, int64_t n, PostOpList& out);

}  // namespace adaptcore::python
