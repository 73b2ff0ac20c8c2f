// gemm (fp32), gemm_bf16 and gemm_int8 (u8/s8 x s8 -> s32) on arrays: C's storage order picks
// the call's layout; A and B in the other order are passed as their transposes (no copy).
#include <string>

#include "arrays.hpp"
#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"
#include "int8_args.hpp"
#include "post_ops.hpp"

namespace adaptcore::python {

namespace {

// op(A) m x k and op(B) k x n against C m x n (ValueError when they do not compose).
void check_shapes(const Mat& a, const Mat& b, const Mat& c, const char* what) {
  if (a.rows != c.rows || b.cols != c.cols || a.cols != b.rows)
    throw nb::value_error((std::string(what) + ": shapes do not compose: A " +
                           std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", B " +
                           std::to_string(b.rows) + " x " + std::to_string(b.cols) + ", C " +
                           std::to_string(c.rows) + " x " + std::to_string(c.cols))
                              .c_str());
}

struct Call {
  Mat a, b, c;
  Operand oa, ob;
  Layout layout = Layout::RowMajor;
  std::vector<unsigned char> a_copy, b_copy;
  PostOpList post;
  CallOptions options;
};

void prepare(Call& x, const InArray& a, const InArray& b, const OutArray& c,
             std::initializer_list<Elem> a_types, std::initializer_list<Elem> b_types,
             std::initializer_list<Elem> c_types, const nb::handle& post_ops,
             const std::string& residency, const char* what) {
  x.a = input_matrix(a, "A", a_types, x.a_copy);
  x.b = input_matrix(b, "B", b_types, x.b_copy);
  x.c = output_matrix(c, "C", c_types);
  check_shapes(x.a, x.b, x.c, what);
  x.layout = x.c.layout;
  x.oa = as_operand(x.a, x.layout);
  x.ob = as_operand(x.b, x.layout);
  x.options = call_options(post_ops, residency, x.layout, x.c.rows, x.c.cols, x.post);
}

void py_gemm(const InArray& a, const InArray& b, const OutArray& c, float alpha, float beta,
             const nb::handle& post_ops, const std::string& residency, Context* ctx) {
  Call x;
  prepare(x, a, b, c, {Elem::F32}, {Elem::F32}, {Elem::F32}, post_ops, residency, "gemm");
  Context& cx = context_or_default(ctx);
  Status s;
  {
    GilRelease nogil;
    s = gemm(x.layout, x.oa.trans, x.ob.trans, x.c.rows, x.c.cols, x.a.cols, alpha,
             static_cast<const float*>(x.oa.data), x.oa.ld, static_cast<const float*>(x.ob.data),
             x.ob.ld, beta, static_cast<float*>(const_cast<void*>(x.c.data)), x.c.ld, x.options,
             cx);
  }
  check(s, "gemm");
}

void py_gemm_bf16(const InArray& a, const InArray& b, const OutArray& c, float alpha, float beta,
                  const nb::handle& post_ops, const std::string& residency, Context* ctx) {
  Call x;
  prepare(x, a, b, c, {Elem::Bf16}, {Elem::Bf16}, {Elem::F32, Elem::Bf16}, post_ops, residency,
          "gemm_bf16");
  Context& cx = context_or_default(ctx);
  const auto* pa = static_cast<const bf16*>(x.oa.data);
  const auto* pb = static_cast<const bf16*>(x.ob.data);
  void* pc = const_cast<void*>(x.c.data);
  Status s;
  {
    GilRelease nogil;
    if (x.c.elem == Elem::F32)
      s = gemm_bf16(x.layout, x.oa.trans, x.ob.trans, x.c.rows, x.c.cols, x.a.cols, alpha, pa,
                    x.oa.ld, pb, x.ob.ld, beta, static_cast<float*>(pc), x.c.ld, x.options, cx);
    else
      s = gemm_bf16(x.layout, x.oa.trans, x.ob.trans, x.c.rows, x.c.cols, x.a.cols, alpha, pa,
                    x.oa.ld, pb, x.ob.ld, beta, static_cast<bf16*>(pc), x.c.ld, x.options, cx);
  }
  check(s, "gemm_bf16");
}

}  // namespace

// Zero points: None, an int (one for the whole matrix) or an int32 vector (count values).
ZeroPoints zero_points(const nb::handle& zp, int64_t count, const char* what, std::int32_t& one,
                       std::vector<unsigned char>& copy) {
  if (zp.is_none()) return {};
  if (nb::isinstance<nb::int_>(zp)) {
    one = int32_arg(zp, what);
    return {&one, 1};
  }
  const auto v = nb::cast<InArray>(zp);
  const int64_t len = v.ndim() == 1 ? static_cast<int64_t>(v.shape(0)) : -1;
  if (len != 1 && len != count)
    throw nb::value_error((std::string(what) + ": expected an int, or 1 or " +
                           std::to_string(count) + " int32 values")
                              .c_str());
  return {static_cast<const std::int32_t*>(input_vector(v, what, Elem::S32, len, copy)), len};
}

// A C offset: None, an int (added to all of C), or int32 values with a kind: 'row' (m values,
// one per row of C) or 'column' (n values).
COffset c_offset_of(const nb::handle& values, const std::string& kind, int64_t m, int64_t n,
                    std::int32_t& one, std::vector<unsigned char>& copy) {
  if (values.is_none()) return {};
  if (nb::isinstance<nb::int_>(values)) {
    one = int32_arg(values, "c_offset");
    return {OffsetKind::Fixed, &one};
  }
  const auto v = nb::cast<InArray>(values);
  OffsetKind k = OffsetKind::Fixed;
  int64_t len = 1;
  if (kind == "row") {
    k = OffsetKind::PerRow;
    len = m;
  } else if (kind == "column") {
    k = OffsetKind::PerColumn;
    len = n;
  } else if (kind != "fixed") {
    throw nb::value_error("c_offset_kind: expected 'fixed', 'row' or 'column'");
  }
  return {k, static_cast<const std::int32_t*>(input_vector(v, "c_offset", Elem::S32, len, copy))};
}

namespace {

void py_gemm_int8(const InArray& a, const InArray& b, const OutArray& c, const nb::handle& a_zp,
                  const nb::handle& b_zp, std::int32_t beta, const nb::handle& c_offset,
                  const std::string& c_offset_kind, const nb::handle& post_ops,
                  const std::string& residency, Context* ctx) {
  Call x;
  prepare(x, a, b, c, {Elem::U8, Elem::S8}, {Elem::S8}, {Elem::S32}, post_ops, residency,
          "gemm_int8");
  const Int8Extras e(a_zp, b_zp, c_offset, c_offset_kind, x.c.rows, x.c.cols);
  Context& cx = context_or_default(ctx);
  auto* pc = static_cast<std::int32_t*>(const_cast<void*>(x.c.data));
  const auto* pb = static_cast<const std::int8_t*>(x.ob.data);
  Status s;
  {
    GilRelease nogil;
    if (x.a.elem == Elem::U8)
      s = gemm_u8s8s32(x.layout, x.oa.trans, x.ob.trans, x.c.rows, x.c.cols, x.a.cols,
                       static_cast<const std::uint8_t*>(x.oa.data), x.oa.ld, e.a, pb, x.ob.ld, e.b,
                       beta, pc, x.c.ld, e.offset, x.options, cx);
    else
      s = gemm_s8s8s32(x.layout, x.oa.trans, x.ob.trans, x.c.rows, x.c.cols, x.a.cols,
                       static_cast<const std::int8_t*>(x.oa.data), x.oa.ld, e.a, pb, x.ob.ld, e.b,
                       beta, pc, x.c.ld, e.offset, x.options, cx);
  }
  check(s, x.a.elem == Elem::U8 ? "gemm_u8s8s32" : "gemm_s8s8s32");
}

}  // namespace

void bind_gemm(nb::module_& m) {
  using namespace nb::literals;
  m.def("gemm", &py_gemm, "a"_a, "b"_a, "c"_a, "alpha"_a = 1.0f, "beta"_a = 0.0f,
        "post_ops"_a = nb::none(), "residency"_a = "auto", "context"_a = nb::none(),
        "C = alpha * A @ B + beta * C in fp32, C written in place (float32, 2-D).");
  m.def("gemm_bf16", &py_gemm_bf16, "a"_a, "b"_a, "c"_a, "alpha"_a = 1.0f, "beta"_a = 0.0f,
        "post_ops"_a = nb::none(), "residency"_a = "auto", "context"_a = nb::none(),
        "C = alpha * A @ B + beta * C, A and B bf16, fp32 accumulation, C float32 or bf16.");
  m.def("gemm_int8", &py_gemm_int8, "a"_a, "b"_a, "c"_a, "a_zero_point"_a = nb::none(),
        "b_zero_point"_a = nb::none(), "beta"_a = 0, "c_offset"_a = nb::none(),
        "c_offset_kind"_a = "fixed", "post_ops"_a = nb::none(), "residency"_a = "auto",
        "context"_a = nb::none(),
        "C = (A - a_zp) @ (B - b_zp) + beta * C [+ c_offset] in int32, A uint8 or int8, B "
        "int8.");
}

}  // namespace adaptcore::python
