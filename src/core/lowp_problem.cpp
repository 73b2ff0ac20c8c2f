#include "core/lowp_problem.hpp"

#include <cstdint>
#include <limits>

namespace adaptcore {
namespace {

bool valid_layout(Layout l) { return l == Layout::RowMajor || l == Layout::ColMajor; }
bool valid_trans(Trans t) { return t == Trans::No || t == Trans::Yes || t == Trans::ConjYes; }

// A stored operand: rows x cols with element strides and an element size in bytes.
struct Operand {
  const void* ptr;
  int64_t rows, cols, rs, cs, eb;
};

// Bytes spanned from the first element to the end of the last, or -1 on overflow.
int64_t span_bytes(const Operand& o) {
  if (o.rows == 0 || o.cols == 0) return 0;
  int64_t r = 0, c = 0, s = 0;
  if (__builtin_mul_overflow(o.rows - 1, o.rs, &r)) return -1;
  if (__builtin_mul_overflow(o.cols - 1, o.cs, &c)) return -1;
  if (__builtin_add_overflow(r, c, &s)) return -1;
  if (__builtin_add_overflow(s, int64_t{1}, &s)) return -1;
  if (__builtin_mul_overflow(s, o.eb, &s)) return -1;
  return s;
}

bool range_fits(const void* p, int64_t bytes) {
  std::uintptr_t end = 0;
  return !__builtin_add_overflow(reinterpret_cast<std::uintptr_t>(p),
                                 static_cast<std::uintptr_t>(bytes), &end);
}

// Overlap of two operands. Exact when both lie on one grid (same element size, same unit
// stride, same leading dimension), as in make_problem; otherwise any intersection of the
// byte footprints counts (conservative).
bool overlaps(const Operand& x, int64_t xb_len, const Operand& y, int64_t yb_len) {
  if (xb_len == 0 || yb_len == 0) return false;
  const auto xb = reinterpret_cast<std::uintptr_t>(x.ptr);
  const auto yb = reinterpret_cast<std::uintptr_t>(y.ptr);
  if (xb + static_cast<std::uintptr_t>(xb_len) <= yb ||
      yb + static_cast<std::uintptr_t>(yb_len) <= xb)
    return false;
  if (x.eb != y.eb) return true;
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
  const int64_t diff = static_cast<int64_t>(yb - xb);
  if (diff % x.eb != 0) return true;
  const int64_t d = diff / x.eb, ld = xl;
  const int64_t line = d >= 0 ? d / ld : -((-d + ld - 1) / ld);
  const int64_t col = d - line * ld;
  if (col + yw > ld) return true;
  return line < xn && line + yn > 0 && col < xw && col + yw > 0;
}

}  // namespace

Status make_lowp_problem(const LowpCall& x, LowpProblem& out) noexcept {
  if (!valid_layout(x.layout)) return Status::InvalidLayout;
  if (!valid_trans(x.transa) || !valid_trans(x.transb)) return Status::InvalidTranspose;
  if (x.m < 0 || x.n < 0 || x.k < 0) return Status::InvalidDimension;
  const bool row = x.layout == Layout::RowMajor;
  const bool ta = x.transa != Trans::No, tb = x.transb != Trans::No;
  const int64_t a_rows = ta ? x.k : x.m, a_cols = ta ? x.m : x.k;
  const int64_t b_rows = tb ? x.n : x.k, b_cols = tb ? x.k : x.n;
  auto need = [&](int64_t rows, int64_t cols) {
    const int64_t v = row ? cols : rows;
    return v > 1 ? v : 1;
  };
  if (x.lda < need(a_rows, a_cols) || x.ldb < need(b_rows, b_cols) || x.ldc < need(x.m, x.n))
    return Status::InvalidLeadingDimension;

  const bool bf16 = dtype_of(x.kind) == DType::Bf16;
  const int64_t in_eb = bf16 ? 2 : 1;
  const int64_t c_eb = x.kind == LowpKind::Bf16Bf16 ? 2 : 4;
  auto rs_of = [&](int64_t ld) { return row ? ld : int64_t{1}; };
  auto cs_of = [&](int64_t ld) { return row ? int64_t{1} : ld; };
  const Operand A{x.a, x.m, x.k, ta ? cs_of(x.lda) : rs_of(x.lda),
                  ta ? rs_of(x.lda) : cs_of(x.lda), in_eb};
  const Operand B{x.b, x.k, x.n, tb ? cs_of(x.ldb) : rs_of(x.ldb),
                  tb ? rs_of(x.ldb) : cs_of(x.ldb), in_eb};
  const Operand C{x.c, x.m, x.n, rs_of(x.ldc), cs_of(x.ldc), c_eb};

  const int64_t a_len = span_bytes(A), b_len = span_bytes(B), c_len = span_bytes(C);
  if (a_len < 0 || b_len < 0 || c_len < 0) return Status::SizeOverflow;
  const bool empty = x.m == 0 || x.n == 0;
  // bf16 follows BLAS (alpha == 0 reads neither A nor B); int8 has no alpha.
  const bool reads_ab = !empty && x.k > 0 && (!bf16 || x.alpha != 0.0f);
  if (!empty && x.c == nullptr) return Status::NullPointer;
  if (reads_ab && (x.a == nullptr || x.b == nullptr)) return Status::NullPointer;
  if (!empty && !range_fits(x.c, c_len)) return Status::SizeOverflow;
  if (reads_ab && (!range_fits(x.a, a_len) || !range_fits(x.b, b_len)))
    return Status::SizeOverflow;
  if (reads_ab && (overlaps(C, c_len, A, a_len) || overlaps(C, c_len, B, b_len)))
    return Status::Aliasing;
  if (!bf16) {
    auto zp_ok = [](const ZeroPoints& z, int64_t extent) {
      return z.count == 0 || z.count == 1 || z.count == extent;
    };
    if (!zp_ok(x.a_zp, x.m) || !zp_ok(x.b_zp, x.n)) return Status::InvalidArgument;
    if ((x.a_zp.count > 0 && x.a_zp.values == nullptr) ||
        (x.b_zp.count > 0 && x.b_zp.values == nullptr))
      return Status::NullPointer;
  }

  LowpProblem p;
  p.kind = x.kind;
  p.alpha = x.alpha;
  p.beta = x.beta;
  p.ibeta = x.ibeta;
  p.c = x.c;
  LowpSide sa, sb;
  sa.ptr = A.ptr, sa.rs = A.rs, sa.cs = A.cs;
  sb.ptr = B.ptr, sb.rs = B.rs, sb.cs = B.cs;
  if (!bf16) {
    sa.is_signed = false;  // u8, or s8 flipped to u8
    sa.flip = x.kind == LowpKind::S8S8S32;
    sa.zp_add = sa.flip ? 128 : 0;
    sa.zp = x.a_zp.values, sa.zp_count = x.a_zp.count;
    sb.is_signed = true;
    sb.zp = x.b_zp.values, sb.zp_count = x.b_zp.count;
  }
  if (row) {
    p.m = x.m, p.n = x.n, p.k = x.k;
    p.a = sa, p.b = sb;
    p.ldc = C.rs;
  } else {
    // C^T = op(B)^T op(A)^T, row-major: B becomes the left operand (its zero points per
    // column of op(B) are per row of the new A), A the right one.
    p.m = x.n, p.n = x.m, p.k = x.k;
    p.a = sb, p.a.rs = B.cs, p.a.cs = B.rs;
    p.b = sa, p.b.rs = A.cs, p.b.cs = A.rs;
    p.ldc = C.cs;
  }
  if (p.m == 1) p.a.rs = 1;
  if (p.k == 1) p.a.cs = 1, p.b.rs = 1;
  if (p.n == 1) p.b.cs = 1;
  out = p;
  return Status::Ok;
}

ShapeKey make_lowp_key(const LowpProblem& p, Isa isa, int threads) noexcept {
  const int64_t eb = p.dtype() == DType::Bf16 ? 2 : 1;
  auto log2_bytes = [&](int64_t elements) {
    const auto bytes = static_cast<std::uint64_t>(elements) * static_cast<std::uint64_t>(eb);
    const int tz = bytes == 0 ? 16 : __builtin_ctzll(bytes);
    return static_cast<std::uint8_t>(tz < 16 ? tz : 16);
  };
  ShapeKey key;
  key.m = p.m, key.n = p.n, key.k = p.k;
  key.a_row_unit = p.a_row_unit();
  key.b_row_unit = p.b_row_unit();
  key.a_k_unit = p.a.cs == 1;
  key.b_k_unit = p.b.rs == 1;
  key.a_ld_log2 = key.a_row_unit ? log2_bytes(p.a.rs) : log2_bytes(p.a.cs);
  key.b_ld_log2 = key.b_row_unit ? log2_bytes(p.b.rs) : log2_bytes(p.b.cs);
  key.isa = isa;
  key.threads = threads;
  key.dtype = p.dtype();
  return key;
}

}  // namespace adaptcore
