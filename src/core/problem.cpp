#include "core/problem.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>

namespace adaptcore {
namespace {

bool valid_layout(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
bool valid_trans(Trans t) { return t == Trans::No || t == Trans::Yes || t == Trans::ConjYes; }
bool transposed(Trans t) { return t != Trans::No; }

// A stored operand: rows x cols with strides, its footprint [begin, end) in bytes.
struct Operand {
  const void* ptr;
  int64_t rows, cols, rs, cs;  // element (r, c) at ptr + (r * rs + c * cs) * 4
};

// Number of elements spanned by an operand, or -1 on overflow.
int64_t span_elements(const Operand& o) {
  if (o.rows == 0 || o.cols == 0) return 0;
  int64_t r = 0, c = 0, s = 0;
  if (__builtin_mul_overflow(o.rows - 1, o.rs, &r)) return -1;
  if (__builtin_mul_overflow(o.cols - 1, o.cs, &c)) return -1;
  if (__builtin_add_overflow(r, c, &s)) return -1;
  if (__builtin_add_overflow(s, int64_t{1}, &s)) return -1;
  if (s > std::numeric_limits<int64_t>::max() / 4) return -1;
  return s;
}

bool pointer_range_fits(const void* p, int64_t elems) {
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t end = 0;
  return !__builtin_add_overflow(base, static_cast<std::uintptr_t>(elems) * 4u, &end);
}

// Exact overlap test for two operands laid on the same grid (same unit stride and same leading
// dimension); conservative (reports overlap) when the grids differ.
bool overlaps(const Operand& x, int64_t x_elems, const Operand& y, int64_t y_elems) {
  if (x_elems == 0 || y_elems == 0) return false;
  const auto xb = reinterpret_cast<std::uintptr_t>(x.ptr);
  const auto yb = reinterpret_cast<std::uintptr_t>(y.ptr);
  const std::uintptr_t xe = xb + static_cast<std::uintptr_t>(x_elems) * 4u;
  const std::uintptr_t ye = yb + static_cast<std::uintptr_t>(y_elems) * 4u;
  if (xe <= yb || ye <= xb) return false;  // disjoint footprints
  // Same grid: both row-contiguous (cs == 1) or both column-contiguous (rs == 1) with one ld.
  auto as_grid = [](const Operand& o, int64_t& ld, int64_t& lines, int64_t& width) {
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
  const int64_t diff_bytes = static_cast<int64_t>(yb - xb);  // may wrap negative: handled below
  if (diff_bytes % 4 != 0) return true;
  const int64_t d = diff_bytes / 4;  // element offset of y relative to x
  const int64_t ld = xl;
  // Position of y's first element on x's grid, as (line, column within line).
  int64_t line = d >= 0 ? d / ld : -((-d + ld - 1) / ld);
  int64_t col = d - line * ld;
  if (col + yw > ld) return true;  // y wraps around the grid lines: be conservative
  const bool lines_overlap = line < xn && line + yn > 0;
  const bool cols_overlap = col < xw && col + yw > 0;
  return lines_overlap && cols_overlap;
}

Status finish(int64_t m, int64_t n, int64_t k, float alpha, Operand A, Operand B, Operand C,
              bool c_col_major, float beta, GemmProblem& out) {
  const int64_t a_elems = span_elements(A);
  const int64_t b_elems = span_elements(B);
  const int64_t c_elems = span_elements(C);
  if (a_elems < 0 || b_elems < 0 || c_elems < 0) return Status::SizeOverflow;

  const bool empty = m == 0 || n == 0;
  const bool reads_ab = !empty && k > 0 && alpha != 0.0f;
  if (!empty && C.ptr == nullptr) return Status::NullPointer;
  if (reads_ab && (A.ptr == nullptr || B.ptr == nullptr)) return Status::NullPointer;
  if (!empty && !pointer_range_fits(C.ptr, c_elems)) return Status::SizeOverflow;
  if (reads_ab && (!pointer_range_fits(A.ptr, a_elems) || !pointer_range_fits(B.ptr, b_elems)))
    return Status::SizeOverflow;
  if (reads_ab && (overlaps(C, c_elems, A, a_elems) || overlaps(C, c_elems, B, b_elems)))
    return Status::Aliasing;

  GemmProblem p;
  p.alpha = alpha;
  p.beta = beta;
  p.c = static_cast<float*>(const_cast<void*>(C.ptr));
  // op(A)(i, p) and op(B)(p, j) strides, from the stored operands (already op-applied by the
  // caller: A is m x k, B is k x n here).
  if (!c_col_major) {
    p.m = m, p.n = n, p.k = k;
    p.a = static_cast<const float*>(A.ptr), p.a_rs = A.rs, p.a_cs = A.cs;
    p.b = static_cast<const float*>(B.ptr), p.b_rs = B.rs, p.b_cs = B.cs;
    p.ldc = C.rs;
  } else {
    // C^T = op(B)^T op(A)^T with C^T row-major.
    p.m = n, p.n = m, p.k = k;
    p.a = static_cast<const float*>(B.ptr), p.a_rs = B.cs, p.a_cs = B.rs;
    p.b = static_cast<const float*>(A.ptr), p.b_rs = A.cs, p.b_cs = A.rs;
    p.ldc = C.cs;
  }
  // Strides of a dimension of extent 1 are never used; make them unit so the planner sees the
  // cheapest access mode (e.g. n == 1 makes any B readable in place).
  if (p.m == 1) p.a_rs = 1;
  if (p.k == 1) p.a_cs = 1, p.b_rs = 1;
  if (p.n == 1) p.b_cs = 1;
  out = p;
  return Status::Ok;
}

}  // namespace

Status make_problem(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float beta, float* c, int64_t ldc, GemmProblem& out) noexcept {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transa) || !valid_trans(transb)) return Status::InvalidTranspose;
  if (m < 0 || n < 0 || k < 0) return Status::InvalidDimension;
  const bool row = layout == Layout::RowMajor;
  const bool ta = transposed(transa), tb = transposed(transb);
  // Stored shapes: A is m x k (or k x m if transposed), B is k x n (or n x k).
  const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  auto need = [&](int64_t rows, int64_t cols) {
    const int64_t v = row ? cols : rows;
    return v > 1 ? v : 1;
  };
  if (lda < need(a_rows, a_cols) || ldb < need(b_rows, b_cols) || ldc < need(m, n))
    return Status::InvalidLeadingDimension;
  // Element strides of the stored matrices.
  auto strides = [&](int64_t ld, int64_t& rs, int64_t& cs) {
    rs = row ? ld : 1;
    cs = row ? 1 : ld;
  };
  int64_t ars = 0, acs = 0, brs = 0, bcs = 0, crs = 0, ccs = 0;
  strides(lda, ars, acs);
  strides(ldb, brs, bcs);
  strides(ldc, crs, ccs);
  // op(A) as m x k: transposing swaps the strides.
  Operand A{a, m, k, ta ? acs : ars, ta ? ars : acs};
  Operand B{b, k, n, tb ? bcs : brs, tb ? brs : bcs};
  Operand C{c, m, n, crs, ccs};
  return finish(m, n, k, alpha, A, B, C, !row, beta, out);
}

Status make_problem(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
                    MatrixView<const float> b, float beta, MatrixView<float> c,
                    GemmProblem& out) noexcept {
  if (!valid_layout(a.layout) || !valid_layout(b.layout) || !valid_layout(c.layout))
    return Status::InvalidLayout;
  if (!valid_trans(transa) || !valid_trans(transb)) return Status::InvalidTranspose;
  if (a.rows < 0 || a.cols < 0 || b.rows < 0 || b.cols < 0 || c.rows < 0 || c.cols < 0)
    return Status::InvalidDimension;
  const bool ta = transposed(transa), tb = transposed(transb);
  const int64_t m = c.rows, n = c.cols;
  const int64_t k = ta ? a.rows : a.cols;
  if ((ta ? a.cols : a.rows) != m || (tb ? b.cols : b.rows) != k || (tb ? b.rows : b.cols) != n)
    return Status::ShapeMismatch;
  auto ld_ok = [](const auto& v) {
    const int64_t need = v.layout == Layout::RowMajor ? v.cols : v.rows;
    return v.ld >= (need > 1 ? need : 1);
  };
  if (!ld_ok(a) || !ld_ok(b) || !ld_ok(c)) return Status::InvalidLeadingDimension;
  auto rs = [](const auto& v) { return v.layout == Layout::RowMajor ? v.ld : int64_t{1}; };
  auto cs = [](const auto& v) { return v.layout == Layout::RowMajor ? int64_t{1} : v.ld; };
  Operand A{a.data, m, k, ta ? cs(a) : rs(a), ta ? rs(a) : cs(a)};
  Operand B{b.data, k, n, tb ? cs(b) : rs(b), tb ? rs(b) : cs(b)};
  Operand C{c.data, m, n, rs(c), cs(c)};
  return finish(m, n, k, alpha, A, B, C, c.layout == Layout::ColMajor, beta, out);
}

}  // namespace adaptcore
