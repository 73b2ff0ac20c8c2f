// Public low-precision entry points: validate and normalise, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "core/operand_bytes.hpp"
#include "core/post_ops.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/lowp_call.hpp"
#include "exec/post_op_pass.hpp"

namespace adaptcore {
namespace {

// After the checks of make_lowp_problem: a kind outside the enum is InvalidArgument, missing
// values NullPointer (even for an empty C, like the zero points).
Status check_c_offset(const COffset& co) noexcept {
  switch (co.kind) {
    case OffsetKind::None: return Status::Ok;
    case OffsetKind::Fixed:
    case OffsetKind::PerRow:
    case OffsetKind::PerColumn: return co.values == nullptr ? Status::NullPointer : Status::Ok;
  }
  return Status::InvalidArgument;
}

// a + b in two's complement modulo 2^32 (the int8 GEMM's arithmetic; no signed overflow).
std::int32_t wrapping_add(std::int32_t a, std::int32_t b) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// C(i, j) += offset, one pass over C in memory order; rows and columns are those of the
// caller's m x n C in its layout.
void add_c_offset(const CallerC& call, const COffset& co) noexcept {
  auto* c = static_cast<std::int32_t*>(call.c);
  const bool row_major = call.layout == Layout::RowMajor;
  const int64_t lines = row_major ? call.m : call.n, length = row_major ? call.n : call.m;
  // A per-row offset varies along a line of a column-major C, a per-column one along a line of
  // a row-major C; otherwise one value serves a whole line.
  const bool along_line =
      co.kind != OffsetKind::Fixed && (co.kind == OffsetKind::PerRow) != row_major;
  for (int64_t l = 0; l < lines; ++l) {
    std::int32_t* line = c + l * call.ldc;
    if (along_line) {
      for (int64_t x = 0; x < length; ++x) line[x] = wrapping_add(line[x], co.values[x]);
    } else {
      const std::int32_t add = co.values[co.kind == OffsetKind::Fixed ? 0 : l];
      for (int64_t x = 0; x < length; ++x) line[x] = wrapping_add(line[x], add);
    }
  }
}

CElement c_element(LowpKind k) noexcept {
  switch (k) {
    case LowpKind::Bf16F32: return CElement::F32;
    case LowpKind::Bf16Bf16: return CElement::Bf16;
    case LowpKind::U8S8S32:
    case LowpKind::S8S8S32: break;
  }
  return CElement::S32;
}

}  // namespace

Status detail::run_lowp(LowpProblem prob, const CallerC& call, const COffset& co,
                        const CallOptions& options, Context& ctx, int64_t b_bytes,
                        const CallConfig* cfg) noexcept {
  Status s = check_c_offset(co);
  if (s != Status::Ok) return s;
  PostOpChain chain;
  const bool row = call.layout == Layout::RowMajor;
  const CElement element = c_element(call.kind);
  const int64_t eb = element == CElement::Bf16 ? 2 : 4;
  const ByteOperand C = stored_operand(call.c, call.m, call.n, row, false, call.ldc, eb);
  // A and B as the normalised problem reads them, which an output must not overlap.
  const int64_t in_eb = input_bytes(prob.dtype());
  const ByteOperand reads[2] = {
      ByteOperand{prob.a.ptr, prob.m, prob.k, prob.a.rs, prob.a.cs, in_eb},
      b_bytes > 0 ? ByteOperand{prob.b.ptr, 1, b_bytes, b_bytes, 1, 1}
                  : ByteOperand{prob.b.ptr, prob.k, prob.n, prob.b.rs, prob.b.cs, in_eb}};
  if (s = make_post_op_chain(options, call.layout, call.m, call.n, C, !row, chain, reads);
      s != Status::Ok)
    return s;
  // An int32 C cannot hold the float results: the list must end in an output of its own.
  if (element == CElement::S32 && !chain.empty() && !chain.has_output())
    return Status::InvalidArgument;
  if (!ctx.usable()) return Status::OutOfMemory;
  const bool as_pass =
      element == CElement::S32 && (co.kind != OffsetKind::None || chain.deferred_last);
  prob.post = chain.empty() || as_pass ? nullptr : &chain;
  s = cfg != nullptr ? detail::impl_of(ctx).run(prob, *cfg, nullptr, options.residency)
                     : detail::impl_of(ctx).run(prob, nullptr, options.residency);
  if (s != Status::Ok) return s;
  if (co.kind != OffsetKind::None) add_c_offset(call, co);
  if (as_pass || chain.deferred_last)
    run_post_pass(chain, PostPass{.c = prob.c,
                                  .element = element,
                                  .ldc = prob.ldc,
                                  .m = prob.m,
                                  .n = prob.n,
                                  .front = as_pass,
                                  .last = true});
  return Status::Ok;
}

namespace {

// Validation, then the one low-precision call path.
Status run(const LowpCall& call, Context& ctx, const COffset& co = {},
           const CallOptions& options = {}) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  LowpProblem prob;
  if (const Status s = make_lowp_problem(call, prob); s != Status::Ok) return s;
  return detail::run_lowp(prob, CallerC{call.kind, call.layout, call.m, call.n, call.c, call.ldc},
                          co, options, ctx);
}

LowpCall bf16_call(LowpKind kind, Layout layout, Trans ta, Trans tb, int64_t m, int64_t n,
                   int64_t k, float alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                   float beta, void* c, int64_t ldc) {
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
                   int64_t ldb, ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc) {
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

// The entry points of one family differ only in a type: gemm_bf16 in C's (fp32 or bf16, each
// its own kind), gemm_u8s8s32 and gemm_s8s8s32 in A's (u8 or s8). Each macro defines one member
// of its family; an int8 one gets both overloads (with a C offset, and without: no offset).
#define ADAPTCORE_DEFINE_BF16_GEMM(CType, kind)                                                \
  Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, \
                   float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb,        \
                   float beta, CType* c, int64_t ldc, Context& ctx) noexcept {                 \
    return run(                                                                                \
        bf16_call(kind, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), \
        ctx);                                                                                  \
  }                                                                                            \
  Status gemm_bf16(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, \
                   float alpha, const bf16* a, int64_t lda, const bf16* b, int64_t ldb,        \
                   float beta, CType* c, int64_t ldc, const CallOptions& options,              \
                   Context& ctx) noexcept {                                                    \
    return run(                                                                                \
        bf16_call(kind, layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), \
        ctx, COffset{}, options);                                                              \
  }

#define ADAPTCORE_DEFINE_INT8_GEMM(name, AType, kind)                                             \
  Status name(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,         \
              const AType* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b, int64_t ldb,    \
              ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc, COffset c_offset, \
              const CallOptions& options, Context& ctx) noexcept {                                \
    return run(int8_call(kind, layout, transa, transb, m, n, k, a, lda, a_zp, b, ldb, b_zp, beta, \
                         c, ldc),                                                                 \
               ctx, c_offset, options);                                                           \
  }                                                                                               \
  Status name(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,         \
              const AType* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b, int64_t ldb,    \
              ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc, COffset c_offset, \
              Context& ctx) noexcept {                                                            \
    return name(layout, transa, transb, m, n, k, a, lda, a_zp, b, ldb, b_zp, beta, c, ldc,        \
                c_offset, CallOptions{}, ctx);                                                    \
  }                                                                                               \
  Status name(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,         \
              const AType* a, int64_t lda, ZeroPoints a_zp, const std::int8_t* b, int64_t ldb,    \
              ZeroPoints b_zp, std::int32_t beta, std::int32_t* c, int64_t ldc,                   \
              Context& ctx) noexcept {                                                            \
    return name(layout, transa, transb, m, n, k, a, lda, a_zp, b, ldb, b_zp, beta, c, ldc,        \
                COffset{}, ctx);                                                                  \
  }

ADAPTCORE_DEFINE_BF16_GEMM(float, LowpKind::Bf16F32)
ADAPTCORE_DEFINE_BF16_GEMM(bf16, LowpKind::Bf16Bf16)
ADAPTCORE_DEFINE_INT8_GEMM(gemm_u8s8s32, std::uint8_t, LowpKind::U8S8S32)
ADAPTCORE_DEFINE_INT8_GEMM(gemm_s8s8s32, std::int8_t, LowpKind::S8S8S32)

#undef ADAPTCORE_DEFINE_BF16_GEMM
#undef ADAPTCORE_DEFINE_INT8_GEMM

}  // namespace adaptcore
