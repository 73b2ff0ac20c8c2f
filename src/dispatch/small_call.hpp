// The tiny-call path of the fp32 BLAS-style entry (adaptcore::gemm with layout and leading
// dimensions; the C API and cblas_sgemm call it): for m, n, k <= kTinyMaxDim, the call's raw
// arguments packed into one word are looked up in the context's tiny-call table
// (small_call_table.hpp), and a hit runs the plan's kernels on the calling thread
// (exec/executor_small.hpp) after argument checks of its own (tiny_operands_valid: cheaper than
// make_problem's, and passing only calls make_problem accepts). Nothing else: no plan-cache
// probe, no plan copy, no pool, no workspace, no reclaimer section (the table and the kernel
// tables live as long as the context).
//
// The word holds every argument the shape key is made from (dimensions, layout, transposes,
// the leading dimensions' alignment classes) and the context's thread count and ISA, so equal
// words always have equal keys, and a word's payload is what the full path ran for that key.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"
#include "core/normalise.hpp"
#include "core/operand_bytes.hpp"
#include "core/shape_key.hpp"
#include "dispatch/context_impl.hpp"
#include "exec/executor_small.hpp"

namespace adaptcore::detail {

// Dimensions up to this take the path (11 bits each in the word). Past a few hundred the
// whole-call saving (~50-80 ns: validation, key, plan-cache probe, executor set-up) matters
// only on calls of a few hundred nanoseconds, which at 2048 means a depth of a few steps over
// one or two rows (docs/EVIDENCE.md, E7).
inline constexpr int64_t kTinyMaxDim = 2048;

struct TinyArgs {
  Layout layout;
  Trans transa, transb;
  int64_t m, n, k;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float beta;
  float* c;
  int64_t ldc;
};

namespace tiny_detail {
// A leading dimension's class in 4 bits: the power of two dividing its bytes (the key's
// alignment class, 2..16 for 4-byte elements) less 2, or 15 for a leading dimension of 1,
// which makes that operand's other stride a unit one too and so changes the key (a k = 1
// operand stored with ld = 1 is both row- and column-contiguous).
inline std::uint64_t ld_class(int64_t ld) noexcept {
  return ld == 1 ? 15u : std::uint64_t{stride_log2(ld)} - 2u;
}

// The packed word of a tiny call: bits 0-32 dimensions - 1, 33 column-major, 34-35 transposes,
// 36-39 / 40-43 the classes of lda / ldb, 44-45 the level of the fp32 table the call runs
// (ContextImpl::tiny_isa; never 0, so the word is never 0), 46 the
// operands in memory, 47-55 threads; 56 bits, so the table keeps a slot's key and payload in
// one word. 0 when the call is not tiny, its thread count is 512 or more, or its layout or
// transposes are not plain values.
inline constexpr int kTinyIsaShift = 44;
// The word of a call on `threads` threads and the ISA path `isa_path`.
inline std::uint64_t tiny_word(int thread_count, Isa isa_path, const TinyArgs& x,
                               bool cold) noexcept {
  // In unsigned arithmetic, where a negative or enormous value wraps to a large one (no signed
  // overflow for m = INT64_MIN or a layout of INT_MIN): such calls are not tiny.
  const std::uint64_t m1 = static_cast<std::uint64_t>(x.m) - 1,
                      n1 = static_cast<std::uint64_t>(x.n) - 1,
                      k1 = static_cast<std::uint64_t>(x.k) - 1;
  const std::uint64_t dims = m1 | n1 | k1;
  const auto layout = static_cast<unsigned>(static_cast<int>(x.layout)) - 101u;
  const auto ta = static_cast<unsigned>(static_cast<int>(x.transa)) - 111u;
  const auto tb = static_cast<unsigned>(static_cast<int>(x.transb)) - 111u;
  const auto threads = static_cast<unsigned>(thread_count);
  const auto isa = static_cast<unsigned>(isa_path);
  if (dims >= static_cast<std::uint64_t>(kTinyMaxDim) || layout > 1 || ta > 2 || tb > 2 ||
      threads >= (1u << 9) || isa >= 4)
    return 0;
  return m1 | n1 << 11 | k1 << 22 | std::uint64_t{layout} << 33 | std::uint64_t{ta != 0} << 34 |
         std::uint64_t{tb != 0} << 35 | ld_class(x.lda) << 36 | ld_class(x.ldb) << 40 |
         std::uint64_t{isa} << kTinyIsaShift | std::uint64_t{cold} << 46 |
         std::uint64_t{threads} << 47;
}

// make_problem's checks for a call whose word was found (layout, transposes and dimensions
// 1..kTinyMaxDim already checked by tiny_word), done the cheap way: leading dimensions under
// 2^32 make every extent fit without overflow checks, and C may share no byte with A or B.
// True only where make_problem would accept the call; anything else (a leading dimension of
// 2^32 or more, C interleaved with A on one grid) goes to the full path, which decides.
inline bool tiny_operands_valid(const TinyArgs& x, bool row, bool ta, bool tb) noexcept {
  // Each operand as stored: `lines` lines of `len` elements, `ld` apart.
  const int64_t a_len = row != ta ? x.k : x.m, a_lines = row != ta ? x.m : x.k;
  const int64_t b_len = row != tb ? x.n : x.k, b_lines = row != tb ? x.k : x.n;
  const int64_t c_len = row ? x.n : x.m, c_lines = row ? x.m : x.n;
  if (x.lda < a_len || x.ldb < b_len || x.ldc < c_len) return false;
  if ((static_cast<std::uint64_t>(x.lda) | static_cast<std::uint64_t>(x.ldb) |
       static_cast<std::uint64_t>(x.ldc)) >>
          32 !=
      0)
    return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(x.a);
  const auto b0 = reinterpret_cast<std::uintptr_t>(x.b);
  const auto c0 = reinterpret_cast<std::uintptr_t>(x.c);
  const auto end = [](std::uintptr_t p, int64_t lines, int64_t ld, int64_t len) {
    return p + static_cast<std::uintptr_t>(4 * ((lines - 1) * ld + len));
  };
  const std::uintptr_t a1 = end(a0, a_lines, x.lda, a_len);
  const std::uintptr_t b1 = end(b0, b_lines, x.ldb, b_len);
  const std::uintptr_t c1 = end(c0, c_lines, x.ldc, c_len);
  // Null pointers and ranges that wrap around the address space fail here too.
  if (a0 == 0 || b0 == 0 || c0 == 0 || a1 < a0 || b1 < b0 || c1 < c0) return false;
  return (c1 <= a0 || a1 <= c0) && (c1 <= b0 || b1 <= c0);
}

}  // namespace tiny_detail

// True when the call is done (status Ok). False leaves everything untouched for the full path:
// a call that is not tiny, a word the table does not hold yet, or any argument that is not
// plainly valid (the full path then reports the error its documented order gives). Inline: it
// is the whole of a tiny call, so nothing of it should go through memory.
// `residency` is the call's own (CallOptions; Auto: the context's). A parameter, not a member
// of TinyArgs: a constant zero member makes GCC clear the whole struct before filling it (a
// rep stosq, about a sixth of a 1x1x1 call).
[[gnu::always_inline]] inline bool small_call(ContextImpl& ctx, const TinyArgs& x,
                                              Residency residency = Residency::Auto) noexcept {
  using namespace tiny_detail;
  if (x.alpha == 0.0f || ctx.verbose()) return false;  // trivial calls: the full path
  const bool cold = ctx.cold_call(x.a, x.b, x.c, residency);
  // The word holds the ISA and threads it was looked up with: the payload found under it is
  // for that path, whatever set_isa does meanwhile.
  const std::uint64_t word = tiny_word(ctx.threads(), ctx.tiny_isa(ctx.isa()), x, cold);
  if (word == 0) return false;
  const std::uint8_t payload = ctx.small_calls().find(word);
  if (payload == 0) return false;

  const bool row = x.layout == Layout::RowMajor;
  const bool ta = x.transa != Trans::No, tb = x.transb != Trans::No;
  if (!tiny_operands_valid(x, row, ta, tb)) return false;
  const ByteOperand A = stored_operand(x.a, x.m, x.k, row, ta, x.lda, 4);
  const ByteOperand B = stored_operand(x.b, x.k, x.n, row, tb, x.ldb, 4);
  const ByteOperand C = stored_operand(x.c, x.m, x.n, row, false, x.ldc, 4);

  const GemmProblem p = normalised_problem(x.m, x.n, x.k, x.alpha, A, B, C, !row, x.beta);
  // The fp32 table's level the word was made with (read once: set_isa may run meanwhile, and
  // the payload's tile index is into that table).
  const kernels::IsaKernels* ks = ctx.kernels_of_isa_bits((word >> kTinyIsaShift) & 3);
  if (ks == nullptr) return false;
  ctx.remember_call(x.a, x.b, x.c);
  run_small(SmallPlan::decode(payload), p, *ks);
  return true;
}

// After the full path ran a tiny call on the small-problem path: remembers its payload.
void remember_small_call(ContextImpl& ctx, const TinyArgs& args,
                         ContextImpl::SmallRun run) noexcept;

}  // namespace adaptcore::detail
