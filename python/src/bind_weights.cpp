// Weights prepared once: PackedWeights (pack_weights: fp32, bf16 or int8 panels) with
// gemm_packed, and QuantizedWeights (quantize_weights: int8 / int4 with scales) with
// gemm_quantized.
#include <nanobind/stl/vector.h>

#include <string>

#include "arrays.hpp"
#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"
#include "int8_args.hpp"
#include "post_ops.hpp"

namespace adaptcore::python {

namespace {

const char* packed_dtype(const PackedWeights& w) {
  return !w.valid() ? "empty" : w.holds_bf16() ? "bfloat16" : w.holds_int8() ? "int8" : "float32";
}

PackedWeights py_pack_weights(const InArray& b, const std::vector<int64_t>& m_values,
                              const std::vector<double>& m_weights, Context* ctx) {
  std::vector<unsigned char> copy;
  const Mat w = input_matrix(b, "B", {Elem::F32, Elem::Bf16, Elem::S8}, copy);
  const Operand o = as_operand(w, Layout::RowMajor);
  PackOptions opt;
  opt.m_values = m_values;
  opt.m_weights = m_weights;
  Context& cx = context_or_default(ctx);
  PackedWeights out;
  Status s;
  {
    GilRelease nogil;
    if (w.elem == Elem::F32)
      s = pack_weights(Layout::RowMajor, o.trans, w.rows, w.cols, static_cast<const float*>(o.data),
                       o.ld, out, opt, cx);
    else if (w.elem == Elem::Bf16)
      s = pack_weights(Layout::RowMajor, o.trans, w.rows, w.cols, static_cast<const bf16*>(o.data),
                       o.ld, out, opt, cx);
    else
      s = pack_weights(Layout::RowMajor, o.trans, w.rows, w.cols,
                       static_cast<const std::int8_t*>(o.data), o.ld, out, opt, cx);
  }
  check(s, "pack_weights");
  return out;
}

// A m x k against the handle's k x n, C m x n row-major (gemm_packed's layout).
struct PackedCall {
  Mat a, c;
  Operand oa;
  std::vector<unsigned char> a_copy;
  PostOpList post;
  CallOptions options;
};

void prepare_packed(PackedCall& x, const InArray& a, const PackedWeights& w, const OutArray& c,
                    std::initializer_list<Elem> a_types, std::initializer_list<Elem> c_types,
                    const nb::handle& post_ops, const std::string& residency) {
  if (!w.valid()) check(Status::NullPointer, "gemm_packed (empty weights)");
  x.a = input_matrix(a, "A", a_types, x.a_copy);
  x.c = output_matrix(c, "C", c_types);
  if (x.a.rows != x.c.rows || x.a.cols != w.k() || x.c.cols != w.n())
    throw nb::value_error(("gemm_packed: shapes do not compose: A " + std::to_string(x.a.rows) +
                           " x " + std::to_string(x.a.cols) + ", weights " + std::to_string(w.k()) +
                           " x " + std::to_string(w.n()) + ", C " + std::to_string(x.c.rows) +
                           " x " + std::to_string(x.c.cols))
                              .c_str());
  if (x.c.layout != Layout::RowMajor)
    throw nb::value_error("gemm_packed: C must be row-major (C-ordered, or a slice of one)");
  x.oa = as_operand(x.a, Layout::RowMajor);
  x.options = call_options(post_ops, residency, Layout::RowMajor, x.c.rows, x.c.cols, x.post);
}

void py_gemm_packed(const InArray& a, const PackedWeights& w, const OutArray& c, float alpha,
                    float beta, const nb::handle& post_ops, const std::string& residency,
                    Context* ctx) {
  PackedCall x;
  const bool lowp = w.valid() && w.holds_bf16();
  prepare_packed(x, a, w, c, {lowp ? Elem::Bf16 : Elem::F32},
                 lowp ? std::initializer_list<Elem>{Elem::F32, Elem::Bf16}
                      : std::initializer_list<Elem>{Elem::F32},
                 post_ops, residency);
  Context& cx = context_or_default(ctx);
  void* pc = const_cast<void*>(x.c.data);
  Status s;
  {
    GilRelease nogil;
    if (!lowp)
      s = gemm_packed(Layout::RowMajor, x.oa.trans, x.a.rows, alpha,
                      static_cast<const float*>(x.oa.data), x.oa.ld, w, beta,
                      static_cast<float*>(pc), x.c.ld, x.options, cx);
    else if (x.c.elem == Elem::F32)
      s = gemm_packed(Layout::RowMajor, x.oa.trans, x.a.rows, alpha,
                      static_cast<const bf16*>(x.oa.data), x.oa.ld, w, beta,
                      static_cast<float*>(pc), x.c.ld, x.options, cx);
    else
      s = gemm_packed(Layout::RowMajor, x.oa.trans, x.a.rows, alpha,
                      static_cast<const bf16*>(x.oa.data), x.oa.ld, w, beta, static_cast<bf16*>(pc),
                      x.c.ld, x.options, cx);
  }
  check(s, "gemm_packed");
}

void py_gemm_packed_int8(const InArray& a, const PackedWeights& w, const OutArray& c,
                         const nb::handle& a_zp, const nb::handle& b_zp, std::int32_t beta,
                         const nb::handle& c_offset, const std::string& c_offset_kind,
                         const nb::handle& post_ops, const std::string& residency, Context* ctx) {
  PackedCall x;
  prepare_packed(x, a, w, c, {Elem::U8, Elem::S8}, {Elem::S32}, post_ops, residency);
  const Int8Extras e(a_zp, b_zp, c_offset, c_offset_kind, x.c.rows, x.c.cols);
  Context& cx = context_or_default(ctx);
  auto* pc = static_cast<std::int32_t*>(const_cast<void*>(x.c.data));
  Status s;
  {
    GilRelease nogil;
    if (x.a.elem == Elem::U8)
      s = gemm_packed(Layout::RowMajor, x.oa.trans, x.a.rows,
                      static_cast<const std::uint8_t*>(x.oa.data), x.oa.ld, e.a, w, e.b, beta, pc,
                      x.c.ld, e.offset, x.options, cx);
    else
      s = gemm_packed(Layout::RowMajor, x.oa.trans, x.a.rows,
                      static_cast<const std::int8_t*>(x.oa.data), x.oa.ld, e.a, w, e.b, beta, pc,
                      x.c.ld, e.offset, x.options, cx);
  }
  check(s, "gemm_packed (int8)");
}

// WeightQuantSpec's largest group (include/adaptcore/adaptcore.hpp), which the library checks
// too: checked here first because the scales' count is computed from it.
constexpr int64_t kWqMaxGroupSize = 256;

WeightQuantSpec spec_of(const std::string& format, int64_t group_size) {
  WeightQuantSpec spec;
  if (format == "int8")
    spec.format = WeightFormat::Int8;
  else if (format == "int4")
    spec.format = WeightFormat::Int4;
  else
    throw nb::value_error("format: expected 'int8' or 'int4'");
  if (group_size != 0 && (group_size < 32 || group_size > kWqMaxGroupSize || group_size % 32 != 0))
    throw nb::value_error(("group_size: expected 0 (per column) or a multiple of 32 in 32.." +
                           std::to_string(kWqMaxGroupSize) + ", got " + std::to_string(group_size))
                              .c_str());
  spec.group_size = group_size;
  return spec;
}

QuantizedWeights py_quantize_weights(const InArray& w, const std::string& format,
                                     int64_t group_size, const nb::handle& scales, Context* ctx) {
  std::vector<unsigned char> copy, scale_copy;
  const Mat m = input_matrix(w, "W", {Elem::F32, Elem::S8}, copy);
  const Operand o = as_operand(m, Layout::RowMajor);
  const WeightQuantSpec spec = spec_of(format, group_size);
  Context& cx = context_or_default(ctx);
  QuantizedWeights out;
  Status s;
  if (m.elem == Elem::F32) {
    if (!scales.is_none()) throw nb::value_error("scales: only for weights given as int8 values");
    GilRelease nogil;
    s = quantize_weights(Layout::RowMajor, o.trans, m.rows, m.cols,
                         static_cast<const float*>(o.data), o.ld, spec, out, cx);
  } else {
    if (scales.is_none()) throw nb::value_error("scales: required for int8 weights");
    const int64_t groups = group_size > 0 ? (m.rows + group_size - 1) / group_size : 1;
    const auto sv = nb::cast<InArray>(scales);
    const void* sp = nullptr;
    if (sv.ndim() == 2 && static_cast<int64_t>(sv.shape(0)) == groups &&
        static_cast<int64_t>(sv.shape(1)) == m.cols) {
      std::vector<unsigned char> dummy;
      const Mat sm = input_matrix(sv, "scales", {Elem::F32}, scale_copy);
      if (sm.layout != Layout::RowMajor || (groups > 1 && sm.ld != m.cols))
        throw nb::value_error("scales: a C-ordered (groups, n) array");
      sp = sm.data;
    } else {
      if (sv.ndim() != 1 || static_cast<int64_t>(sv.shape(0)) != groups * m.cols)
        throw nb::value_error(("scales: expected (" + std::to_string(groups) + ", " +
                               std::to_string(m.cols) + ") float32 values")
                                  .c_str());
      sp = input_vector(sv, "scales", Elem::F32, groups * m.cols, scale_copy);
    }
    GilRelease nogil;
    s = quantize_weights_s8(Layout::RowMajor, o.trans, m.rows, m.cols,
                            static_cast<const std::int8_t*>(o.data), o.ld,
                            static_cast<const float*>(sp), spec, out, cx);
  }
  check(s, "quantize_weights");
  return out;
}

void py_gemm_quantized(const InArray& a, const QuantizedWeights& w, const OutArray& c, float beta,
                       int parts, const nb::handle& post_ops, const std::string& residency,
                       Context* ctx) {
  if (!w.valid()) check(Status::NullPointer, "gemm_quantized (empty weights)");
  if (parts != 1 && parts != 2) throw nb::value_error("parts: expected 1 or 2");
  std::vector<unsigned char> a_copy;
  const Mat ma = input_matrix(a, "A", {Elem::F32, Elem::Bf16}, a_copy);
  const Mat mc = output_matrix(c, "C", {Elem::F32});
  if (ma.rows != mc.rows || ma.cols != w.k() || mc.cols != w.n())
    throw nb::value_error(("gemm_quantized: shapes do not compose: A " + std::to_string(ma.rows) +
                           " x " + std::to_string(ma.cols) + ", weights " + std::to_string(w.k()) +
                           " x " + std::to_string(w.n()) + ", C " + std::to_string(mc.rows) +
                           " x " + std::to_string(mc.cols))
                              .c_str());
  const Operand oa = as_operand(ma, mc.layout);
  PostOpList post;
  const CallOptions options = call_options(post_ops, residency, mc.layout, mc.rows, mc.cols, post);
  const ActivationParts p = parts == 1 ? ActivationParts::One : ActivationParts::Two;
  Context& cx = context_or_default(ctx);
  auto* pc = static_cast<float*>(const_cast<void*>(mc.data));
  Status s;
  {
    GilRelease nogil;
    if (ma.elem == Elem::F32)
      s = gemm_quantized(mc.layout, oa.trans, ma.rows, static_cast<const float*>(oa.data), oa.ld, w,
                         beta, pc, mc.ld, options, p, cx);
    else
      s = gemm_quantized(mc.layout, oa.trans, ma.rows, static_cast<const bf16*>(oa.data), oa.ld, w,
                         beta, pc, mc.ld, options, p, cx);
  }
  check(s, "gemm_quantized");
}

}  // namespace

void bind_weights(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<PackedWeights>(m, "PackedWeights",
                            "Weights op(B) (k x n) packed once for gemm_packed / gemm_grouped.")
      .def_prop_ro("k", &PackedWeights::k)
      .def_prop_ro("n", &PackedWeights::n)
      .def_prop_ro("shape", [](const PackedWeights& w) { return nb::make_tuple(w.k(), w.n()); })
      .def_prop_ro("panel_cols", &PackedWeights::panel_cols)
      .def_prop_ro("packed_bytes", &PackedWeights::packed_bytes)
      .def_prop_ro("dtype", [](const PackedWeights& w) { return std::string(packed_dtype(w)); })
      .def_prop_ro("isa", [](const PackedWeights& w) { return std::string(to_string(w.isa())); })
      .def("__repr__", [](const PackedWeights& w) {
        return "PackedWeights(k=" + std::to_string(w.k()) + ", n=" + std::to_string(w.n()) +
               ", dtype=" + packed_dtype(w) + ", panel_cols=" + std::to_string(w.panel_cols()) +
               ")";
      });
  nb::class_<QuantizedWeights>(m, "QuantizedWeights",
                               "Weights op(W) (k x n) quantized to int8 or int4 with scales.")
      .def_prop_ro("k", &QuantizedWeights::k)
      .def_prop_ro("n", &QuantizedWeights::n)
      .def_prop_ro("shape", [](const QuantizedWeights& w) { return nb::make_tuple(w.k(), w.n()); })
      .def_prop_ro("format",
                   [](const QuantizedWeights& w) {
                     return std::string(!w.valid()                         ? "empty"
                                        : w.format() == WeightFormat::Int4 ? "int4"
                                                                           : "int8");
                   })
      .def_prop_ro("group_size", &QuantizedWeights::group_size)
      .def_prop_ro("packed_bytes", &QuantizedWeights::packed_bytes)
      .def("__repr__", [](const QuantizedWeights& w) {
        return "QuantizedWeights(k=" + std::to_string(w.k()) + ", n=" + std::to_string(w.n()) +
               ", format=" + (w.format() == WeightFormat::Int4 ? "int4" : "int8") +
               ", group_size=" + std::to_string(w.group_size()) + ")";
      });

  m.def("pack_weights", &py_pack_weights, "b"_a, "m_values"_a = std::vector<int64_t>{},
        "m_weights"_a = std::vector<double>{}, "context"_a = nb::none(),
        "Packs op(B) (k x n; float32, bf16 or int8) for gemm_packed, planned for the rows "
        "m_values the caller expects (weights m_weights).");
  m.def("gemm_packed", &py_gemm_packed, "a"_a, "weights"_a, "c"_a, "alpha"_a = 1.0f,
        "beta"_a = 0.0f, "post_ops"_a = nb::none(), "residency"_a = "auto",
        "context"_a = nb::none(), "C = alpha * A @ W + beta * C on fp32 or bf16 packed weights.");
  m.def("gemm_packed_int8", &py_gemm_packed_int8, "a"_a, "weights"_a, "c"_a,
        "a_zero_point"_a = nb::none(), "b_zero_point"_a = nb::none(), "beta"_a = 0,
        "c_offset"_a = nb::none(), "c_offset_kind"_a = "fixed", "post_ops"_a = nb::none(),
        "residency"_a = "auto", "context"_a = nb::none(),
        "C = (A - a_zp) @ (W - b_zp) + beta * C [+ c_offset] in int32 on int8 packed weights.");
  m.def("quantize_weights", &py_quantize_weights, "w"_a, "format"_a = "int8", "group_size"_a = 0,
        "scales"_a = nb::none(), "context"_a = nb::none(),
        "Quantizes op(W) (k x n float32), or takes int8 values with their scales.");
  m.def("gemm_quantized", &py_gemm_quantized, "a"_a, "weights"_a, "c"_a, "beta"_a = 0.0f,
        "parts"_a = 2, "post_ops"_a = nb::none(), "residency"_a = "auto", "context"_a = nb::none(),
        "C = A @ dequant(W) + beta * C, A float32 or bf16 split into int8 parts.");
}

}  // namespace adaptcore::python
