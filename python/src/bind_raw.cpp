// The hot path of adaptcore.torch's modules: one linear layer on row-major operands given by
// address, without reading array objects (a DLPack export costs a few microseconds per tensor,
// which a decode step pays for every layer). Private to the package (adaptcore._core._linear):
// the caller passes addresses of live tensors of the sizes it states; the library still checks
// dimensions, leading dimensions and aliasing.
#include <array>
#include <cstdint>

#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"

namespace adaptcore::python {

namespace {

// Element types by code: 0 fp32, 1 bf16.
template <class T>
T* at(std::uintptr_t address) noexcept {
  return reinterpret_cast<T*>(address);
}

void py_linear(std::uintptr_t a, int64_t m, int64_t lda, int a_type, const nb::handle& weights,
               std::uintptr_t c, int64_t ldc, int c_type, std::uintptr_t bias, int activation,
               std::uintptr_t out, int64_t ldo, int out_type, int parts, Context* ctx) {
  const bool packed = nb::isinstance<PackedWeights>(weights);
  if (!packed && !nb::isinstance<QuantizedWeights>(weights))
    throw nb::type_error("_linear: PackedWeights or QuantizedWeights");
  if ((a_type != 0 && a_type != 1) || (c_type != 0 && c_type != 1) ||
      (out_type != 0 && out_type != 1))
    throw nb::value_error("_linear: element type codes are 0 (fp32) and 1 (bf16)");
  if (a_type == 0 && c_type != 0)
    throw nb::value_error("_linear: fp32 activations write an fp32 C");
  if (parts != 1 && parts != 2) throw nb::value_error("_linear: parts is 1 or 2");
  if (activation != 0 && activation != static_cast<int>(PostOpKind::Relu) &&
      activation != static_cast<int>(PostOpKind::GeluTanh) &&
      activation != static_cast<int>(PostOpKind::GeluErf) &&
      activation != static_cast<int>(PostOpKind::Silu) &&
      activation != static_cast<int>(PostOpKind::SwiGlu))
    throw nb::value_error("_linear: activation is 0 or a post-op activation kind");
  if (a == 0 || c == 0) check(Status::NullPointer, "_linear");
  std::array<PostOp, 3> ops{};
  int count = 0;
  if (bias != 0) ops[count++] = PostOp{PostOpKind::Bias, at<const float>(bias), 0, nullptr, {}};
  if (activation != 0) {
    PostOp op;
    op.kind = static_cast<PostOpKind>(activation);
    if (op.kind == PostOpKind::SwiGlu) {
      op.out = at<void>(out);
      op.ld = ldo;
      op.out_type = out_type == 1 ? OutputType::Bf16 : OutputType::F32;
    }
    ops[count++] = op;
  }
  CallOptions options;
  options.post_ops = ops.data();
  options.post_op_count = count;
  Context& cx = context_or_default(ctx);
  Status s;
  const Layout L = Layout::RowMajor;
  const Trans N = Trans::No;
  if (packed) {
    const PackedWeights& w = *nb::inst_ptr<PackedWeights>(weights);
    GilRelease nogil;
    if (a_type == 0)
      s = gemm_packed(L, N, m, 1.0f, at<const float>(a), lda, w, 0.0f, at<float>(c), ldc, options,
                      cx);
    else if (c_type == 0)
      s = gemm_packed(L, N, m, 1.0f, at<const bf16>(a), lda, w, 0.0f, at<float>(c), ldc, options,
                      cx);
    else
      s = gemm_packed(L, N, m, 1.0f, at<const bf16>(a), lda, w, 0.0f, at<bf16>(c), ldc, options,
                      cx);
  } else {
    const QuantizedWeights& w = *nb::inst_ptr<QuantizedWeights>(weights);
    if (c_type != 0) throw nb::value_error("_linear: quantized weights write an fp32 C");
    const ActivationParts p = parts == 1 ? ActivationParts::One : ActivationParts::Two;
    GilRelease nogil;
    if (a_type == 0)
      s = gemm_quantized(L, N, m, at<const float>(a), lda, w, 0.0f, at<float>(c), ldc, options, p,
                         cx);
    else
      s = gemm_quantized(L, N, m, at<const bf16>(a), lda, w, 0.0f, at<float>(c), ldc, options, p,
                         cx);
  }
  check(s, "linear");
}

}  // namespace

void bind_raw(nb::module_& m) {
  using namespace nb::literals;
  m.def("_linear", &py_linear, "a"_a, "m"_a, "lda"_a, "a_type"_a, "weights"_a, "c"_a, "ldc"_a,
        "c_type"_a, "bias"_a, "activation"_a, "out"_a, "ldo"_a, "out_type"_a, "parts"_a,
        "context"_a = nb::none(),
        "Private: C (m x n, row-major at address c) = A (m x k at address a) @ W with a bias "
        "and an activation, for adaptcore.torch's modules.");
}

}  // namespace adaptcore::python
