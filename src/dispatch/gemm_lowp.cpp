// Public low-precision entry points: validate and normalise, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore {
namespace {

Status run(const LowpCall& call, Context& ctx) noexcept {
  LowpProblem prob;
  const Status s = make_lowp_problem(call, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  return ctx.impl().run_lowp(prob);
}

LowpCall bf16_call(LowpKind kind, Layout layout, Trans ta, Trans tb, int64_t m, int64_t n,
                   int64_t k, float alpha, const void* a, int64_t lda, const void* b,
                   int64_t ldb, float beta, void* c, int64_t ldc) {
  LowpCall x;
  x.kind = kind;
  x.layout = layout, x.transa = ta, x.transb = tb;
  x.m = m, x.n = n, x.k = k;
  x.alpha = alpha, x.beta = beta;
  x.a = a, x.lda = lda, x.b = b, x.ldb = ldb, x.c = c, x.ldc = ldc;
  return x;
}

LowpCall int8_call(LowpKind kind, Layout layout, Trans ta, Trans tb, int64_t m, int64_t n,
                   int64_t k, const void* a, int64_t lda, ZeroPoints a_zp, const void* b,
                   int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c,
                   int64_t ldc) {
  LowpCall x;
  x.kind = kind;
  x.layout = layout, x.transa = ta, x.transb = tb;
  x.m = m, x.n = n, x.k = k;
  x.ibeta = beta;
  x.a = a, x.lda = lda, x.b = b, x.ldb = ldb, x.c = c, x.ldc = ldc;
  x.a_zp = a_zp, x.b_zp = b_zp;
  return x;
}

}  // namespace

Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const std::uint16_t* a, int64_t lda, const std::uint16_t* b,
                 int64_t ldb, float beta, float* c, int64_t ldc, Context& ctx) noexcept {
  return run(bf16_call(LowpKind::Bf16F32, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                       beta, c, ldc),
             ctx);
}

Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                 float alpha, const std::uint16_t* a, int64_t lda, const std::uint16_t* b,
                 int64_t ldb, float beta, std::uint16_t* c, int64_t ldc, Context& ctx) noexcept {
  return run(bf16_call(LowpKind::Bf16Bf16, layout, transa, transb, m, n, k, alpha, a, lda, b,
                       ldb, beta, c, ldc),
             ctx);
}

Status gemm_u8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::uint8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c,
                    int64_t ldc, Context& ctx) noexcept {
  return run(int8_call(LowpKind::U8S8S32, layout, transa, transb, m, n, k, a, lda, a_zp, b, ldb,
                       b_zp, beta, c, ldc),
             ctx);
}

Status gemm_s8s8s32(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
                    const std::int8_t* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b,
                    int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c,
                    int64_t ldc, Context& ctx) noexcept {
  return run(int8_call(LowpKind::S8S8S32, layout, transa, transb, m, n, k, a, lda, a_zp, b, ldb,
                       b_zp, beta, c, ldc),
             ctx);
}

}  // namespace adaptcore
