// The low-precision call path after validation, shared by the bf16 and int8 entry points and
// gemm_packed on bf16 weights: the post-op list checked against the caller's C and fused into
// the epilogue where its blocks allow (else run as a pass), the C offset, the context's run.
#pragma once

#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "dispatch/call_config.hpp"

namespace adaptcore {

// The caller's C: m x n of the kind's type in `layout`, leading dimension ldc.
struct CallerC {
  LowpKind kind = LowpKind::Bf16F32;
  Layout layout = Layout::RowMajor;
  int64_t m = 0, n = 0;
  void* c = nullptr;
  int64_t ldc = 0;
};

namespace detail {

// prob: the validated, normalised problem of a call whose C is `call`. The C offset: int8
// only (check_c_offset's statuses); the post-ops: docs/EPILOGUES.md.
// b_bytes: the bytes of B when it is prepacked (its handle's storage), else 0 (B as prob says).
// cfg: the caller's snapshot when it checked the call against the configuration (inside its
// reading section), else null (the call takes its own).
Status run_lowp(LowpProblem prob, const CallerC& call, const COffset& co,
                const CallOptions& options, Context& ctx, int64_t b_bytes = 0,
                const CallConfig* cfg = nullptr) noexcept;

}  // namespace detail
}  // namespace adaptcore
