// Checks on a GemmCall shared by the adapters: whether its stored operands are consistent
// (a library given an invalid leading dimension prints an error or reads out of bounds, so
// such calls are reported as unsupported instead) and whether it fits 32-bit BLAS integers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "baselines/baseline.hpp"

namespace adaptcore::bench::detail {

// Columns of each operand as stored (row-major): A is m x k or, transposed, k x m.
inline int64_t stored_cols_a(const GemmCall& c) { return c.trans_a ? c.m : c.k; }
inline int64_t stored_cols_b(const GemmCall& c) { return c.trans_b ? c.k : c.n; }

inline bool valid_call(const GemmCall& c) {
  if (c.m < 0 || c.n < 0 || c.k < 0) return false;
  if (c.lda < std::max<int64_t>(1, stored_cols_a(c))) return false;
  if (c.ldb < std::max<int64_t>(1, stored_cols_b(c))) return false;
  if (c.ldc < std::max<int64_t>(1, c.n)) return false;
  return true;
}

inline bool fits_int32(const GemmCall& c) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  return c.m <= kMax && c.n <= kMax && c.k <= kMax && c.lda <= kMax && c.ldb <= kMax &&
         c.ldc <= kMax;
}

// The same checks on a low-precision call (leading dimensions in elements).
inline GemmCall dims_of(const LowpGemmCall& c) {
  return {c.m, c.n, c.k, c.trans_a, c.trans_b, nullptr, c.lda, nullptr, c.ldb, nullptr, c.ldc};
}
inline bool valid_call(const LowpGemmCall& c) { return valid_call(dims_of(c)); }
inline bool fits_int32(const LowpGemmCall& c) { return fits_int32(dims_of(c)); }

}  // namespace adaptcore::bench::detail
