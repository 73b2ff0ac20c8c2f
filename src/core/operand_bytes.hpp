// Validation helpers in bytes for operands of any element size (the low-precision and the
// weight-quantized calls): spans, address-range overflow and overlap.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore {

inline bool valid_layout(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
inline bool valid_trans(Trans t) {
  return t == Trans::No || t == Trans::Yes || t == Trans::ConjYes;
}

// A stored operand: rows x cols with element strides and an element size in bytes.
struct ByteOperand {
  const void* ptr;
  int64_t rows, cols, rs, cs, eb;
};

// Bytes spanned from the first element to the end of the last, or -1 on overflow.
inline int64_t span_bytes(const ByteOperand& o) {
  if (o.rows == 0 || o.cols == 0) return 0;
  int64_t r = 0, c = 0, s = 0;
  if (__builtin_mul_overflow(o.rows - 1, o.rs, &r)) return -1;
  if (__builtin_mul_overflow(o.cols - 1, o.cs, &c)) return -1;
  if (__builtin_add_overflow(r, c, &s)) return -1;
  if (__builtin_add_overflow(s, int64_t{1}, &s)) return -1;
  if (__builtin_mul_overflow(s, o.eb, &s)) return -1;
  return s;
}

inline bool range_fits(const void* p, int64_t bytes) {
  std::uintptr_t end = 0;
  return !__builtin_add_overflow(reinterpret_cast<std::uintptr_t>(p),
                                 static_cast<std::uintptr_t>(bytes), &end);
}

// Overlap of two operands. Exact when both lie on one grid (same element size, same unit
// stride, same leading dimension), as in make_problem; otherwise any intersection of the
// byte footprints counts (conservative).
inline bool overlaps(const ByteOperand& x, int64_t xb_len, const ByteOperand& y, int64_t yb_len) {
  if (xb_len == 0 || yb_len == 0) return false;
  const auto xb = reinterpret_cast<std::uintptr_t>(x.ptr);
  const auto yb = reinterpret_cast<std::uintptr_t>(y.ptr);
  if (xb + static_cast<std::uintptr_t>(xb_len) <= yb ||
      yb + static_cast<std::uintptr_t>(yb_len) <= xb)
    return false;
  if (x.eb != y.eb) return true;
  auto as_grid = [](const ByteOperand& o, int64_t& ld, int64_t& lines, int64_t& width) {
    if (o.cs == 1 && o.rs >= o.cols) {
      ld = o.rs, lines = o.rows, width = o.cols;
      return true;
    }
    if (o.rs == 1 && o.cs >= o.rows) {
      ld = o.cs, lines = o.cols, width = o.rows;
      return true;
    }
    return false;
  };
  int64_t xl = 0, xn = 0, xw = 0, yl = 0, yn = 0, yw = 0;
  if (!as_grid(x, xl, xn, xw) || !as_grid(y, yl, yn, yw) || xl != yl) return true;
  const int64_t diff = static_cast<int64_t>(yb - xb);
  if (diff % x.eb != 0) return true;
  const int64_t d = diff / x.eb, ld = xl;
  const int64_t line = d >= 0 ? d / ld : -((-d + ld - 1) / ld);
  const int64_t col = d - line * ld;
  if (col + yw > ld) return true;
  return line < xn && line + yn > 0 && col < xw && col + yw > 0;
}

}  // namespace adaptcore
