// Properties of the public API that the compiler checks, plus the bf16 type at run time:
// - bf16 is its own element type: a buffer of uint16_t, of another 16-bit float (an fp16 like
//   _Float16 or a struct of its bits) or of int16_t does not reach a bf16 entry point;
// - every entry point takes its context last, with the default context as default argument;
// - every function that promises never to throw is noexcept (C++ and C), listed one by one.
// Built against libadaptcore.so alone: the public headers and exported symbols are all it uses.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "adaptcore/hardware.hpp"

namespace adaptcore {
namespace {

// ---- bf16 is a distinct type.

struct Fp16Bits {  // how a program without a native fp16 type holds IEEE binary16 values
  std::uint16_t bits;
};

template <class A, class C>
concept Bf16GemmTakes = requires(const A* a, C* c) {
  gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, a, 1, a, 1, 0.0f, c, 1);
};
static_assert(Bf16GemmTakes<bf16, float>);
static_assert(Bf16GemmTakes<bf16, bf16>);
static_assert(!Bf16GemmTakes<std::uint16_t, float>);
static_assert(!Bf16GemmTakes<std::uint16_t, std::uint16_t>);
static_assert(!Bf16GemmTakes<bf16, std::uint16_t>);
static_assert(!Bf16GemmTakes<std::int16_t, float>);
static_assert(!Bf16GemmTakes<Fp16Bits, float>);
static_assert(!Bf16GemmTakes<_Float16, float>);
static_assert(!Bf16GemmTakes<_Float16, _Float16>);

template <class A>
concept QuantizedGemmTakes = requires(const A* a, const QuantizedWeights& w, float* c) {
  gemm_quantized(Layout::RowMajor, Trans::No, 1, a, 1, w, 0.0f, c, 1);
};
static_assert(QuantizedGemmTakes<float>);
static_assert(QuantizedGemmTakes<bf16>);
static_assert(!QuantizedGemmTakes<std::uint16_t>);
static_assert(!QuantizedGemmTakes<Fp16Bits>);
static_assert(!QuantizedGemmTakes<_Float16>);

// Conversions are explicit both ways; the layout is uint16_t's.
static_assert(!std::is_convertible_v<float, bf16> && !std::is_convertible_v<bf16, float>);
static_assert(!std::is_convertible_v<std::uint16_t, bf16> &&
              !std::is_convertible_v<bf16, std::uint16_t>);
static_assert(!std::is_convertible_v<const std::uint16_t*, const bf16*>);
static_assert(std::is_constructible_v<bf16, float> && std::is_constructible_v<float, bf16>);
static_assert(sizeof(bf16) == 2 && alignof(bf16) == alignof(std::uint16_t));
static_assert(std::is_trivially_copyable_v<bf16> && std::is_standard_layout_v<bf16>);

// Nothing internal is reachable through the public handles: no impl() accessor (the
// constructor of QuantizedWeights from its internal state is private).
template <class T>
concept HasImplAccessor = requires(T& t) {
  t.impl();
};
static_assert(!HasImplAccessor<Context> && !HasImplAccessor<const Context>);
static_assert(!HasImplAccessor<QuantizedWeights> && !HasImplAccessor<const QuantizedWeights>);
// Conversion is the round-to-nearest-even of float_to_bf16, and usable at compile time.
static_assert(bf16(1.0f).bits == 0x3f80);
static_assert(bf16(std::bit_cast<float>(0x3f808000u)).bits == 0x3f80);  // tie, even below
static_assert(bf16(std::bit_cast<float>(0x3f818000u)).bits == 0x3f82);  // tie, even above
static_assert(static_cast<float>(bf16::from_bits(0x4040)) == 3.0f);
static_assert(bf16{}.bits == 0);

// ---- The context is the last argument of every entry point, and may be left out.

template <class Ctx>
concept ContextLast = requires(Ctx& ctx, const float* f, float* c, const bf16* h, bf16* hc,
                               const std::uint8_t* u8, const std::int8_t* s8, std::int32_t* c32,
                               QuantizedWeights& out, const float* scales) {
  gemm(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, f, 1, f, 1, 0.0f, c, 1, ctx);
  gemm(Trans::No, Trans::No, 1.0f, row_major(f, 1, 1), row_major(f, 1, 1), 0.0f, row_major(c, 1, 1),
       ctx);
  gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, h, 1, h, 1, 0.0f, c, 1, ctx);
  gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, h, 1, h, 1, 0.0f, hc, 1, ctx);
  gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, u8, 1, ZeroPoints{}, s8, 1,
               ZeroPoints{}, 0, c32, 1, ctx);
  gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, u8, 1, ZeroPoints{}, s8, 1,
               ZeroPoints{}, 0, c32, 1, COffset{}, ctx);
  gemm_s8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, s8, 1, ZeroPoints{}, s8, 1,
               ZeroPoints{}, 0, c32, 1, ctx);
  gemm_s8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, s8, 1, ZeroPoints{}, s8, 1,
               ZeroPoints{}, 0, c32, 1, COffset{}, ctx);
  quantize_weights(Layout::RowMajor, Trans::No, 1, 1, f, 1, WeightQuantSpec{}, out, ctx);
  quantize_weights_s8(Layout::RowMajor, Trans::No, 1, 1, s8, 1, scales, WeightQuantSpec{}, out,
                      ctx);
  gemm_quantized(Layout::RowMajor, Trans::No, 1, f, 1, out, 0.0f, c, 1, ActivationParts::Two, ctx);
  gemm_quantized(Layout::RowMajor, Trans::No, 1, h, 1, out, 0.0f, c, 1, ActivationParts::Two, ctx);
};
static_assert(ContextLast<Context>);

// The order the weight-quantized functions had before (context first) is gone.
template <class Ctx>
concept ContextFirst = requires(Ctx& ctx, const float* f, float* c, QuantizedWeights& out) {
  quantize_weights(ctx, Layout::RowMajor, Trans::No, 1, 1, f, 1, WeightQuantSpec{}, out);
}
|| requires(Ctx& ctx, const float* f, float* c, const QuantizedWeights& w) {
  gemm_quantized(ctx, Layout::RowMajor, Trans::No, 1, f, 1, w, 0.0f, c, 1);
};
static_assert(!ContextFirst<Context>);

// ---- Everything that promises never to throw is noexcept.

template <class F>
inline constexpr bool nothrow_function = false;
template <class R, class... A>
inline constexpr bool nothrow_function<R(A...) noexcept> = true;

// The C API (C++ callers see AC_NOEXCEPT as noexcept).
static_assert(nothrow_function<decltype(ac_sgemm)>);
static_assert(nothrow_function<decltype(ac_sgemm_ctx)>);
static_assert(nothrow_function<decltype(ac_gemm_bf16bf16f32)>);
static_assert(nothrow_function<decltype(ac_gemm_bf16bf16f32_ctx)>);
static_assert(nothrow_function<decltype(ac_gemm_bf16bf16bf16)>);
static_assert(nothrow_function<decltype(ac_gemm_bf16bf16bf16_ctx)>);
static_assert(nothrow_function<decltype(ac_gemm_u8s8s32)>);
static_assert(nothrow_function<decltype(ac_gemm_u8s8s32_ctx)>);
static_assert(nothrow_function<decltype(ac_gemm_s8s8s32)>);
static_assert(nothrow_function<decltype(ac_gemm_s8s8s32_ctx)>);
static_assert(nothrow_function<decltype(ac_quantize_weights_f32)>);
static_assert(nothrow_function<decltype(ac_quantize_weights_f32_ctx)>);
static_assert(nothrow_function<decltype(ac_quantize_weights_s8)>);
static_assert(nothrow_function<decltype(ac_quantize_weights_s8_ctx)>);
static_assert(nothrow_function<decltype(ac_weights_destroy)>);
static_assert(nothrow_function<decltype(ac_gemm_wq_f32)>);
static_assert(nothrow_function<decltype(ac_gemm_wq_f32_ctx)>);
static_assert(nothrow_function<decltype(ac_gemm_wq_bf16)>);
static_assert(nothrow_function<decltype(ac_gemm_wq_bf16_ctx)>);
static_assert(nothrow_function<decltype(ac_status_string)>);
static_assert(nothrow_function<decltype(ac_set_num_threads)>);
static_assert(nothrow_function<decltype(ac_get_num_threads)>);
static_assert(nothrow_function<decltype(ac_set_isa)>);
static_assert(nothrow_function<decltype(ac_get_isa)>);
static_assert(nothrow_function<decltype(ac_load_plan_file)>);
static_assert(nothrow_function<decltype(ac_version)>);
static_assert(nothrow_function<decltype(ac_context_options_init)>);
static_assert(nothrow_function<decltype(ac_context_create)>);
static_assert(nothrow_function<decltype(ac_context_destroy)>);
static_assert(nothrow_function<decltype(ac_context_init_status)>);
static_assert(nothrow_function<decltype(ac_context_set_num_threads)>);
static_assert(nothrow_function<decltype(ac_context_get_num_threads)>);
static_assert(nothrow_function<decltype(ac_context_set_isa)>);
static_assert(nothrow_function<decltype(ac_context_get_isa)>);
static_assert(nothrow_function<decltype(ac_context_load_hardware_profile)>);
static_assert(nothrow_function<decltype(ac_context_load_plan_file)>);
static_assert(nothrow_function<decltype(ac_context_save_plan_file)>);
static_assert(nothrow_function<decltype(ac_context_cached_plans)>);
static_assert(nothrow_function<decltype(ac_context_clear_plan_cache)>);

// The C++ API: every entry point, the context's and the weights handle's members, the
// vocabulary functions, bf16. Not noexcept, by design: the Context constructors (they allocate
// and report bad_alloc as C++ does; the C API and default_context() turn it into a status),
// detected_hardware() and to_json() (allocating queries of the hardware layer).
template <class Ctx>
concept NothrowEntryPoints = requires(Ctx& ctx, const Ctx& cctx, const float* f, float* c,
                                      const bf16* h, bf16* hc, const std::uint8_t* u8,
                                      const std::int8_t* s8, std::int32_t* c32, QuantizedWeights& w,
                                      const QuantizedWeights& cw, const HardwareProfile& hw,
                                      HardwareProfile& hw_out, const std::string& s,
                                      std::string* err, Isa& isa) {
  requires noexcept(
      gemm(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, f, 1, f, 1, 0.0f, c, 1));
  requires noexcept(gemm(Trans::No, Trans::No, 1.0f, row_major(f, 1, 1), col_major(f, 1, 1), 0.0f,
                         row_major(c, 1, 1)));
  requires noexcept(
      gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, h, 1, h, 1, 0.0f, c, 1));
  requires noexcept(
      gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, 1.0f, h, 1, h, 1, 0.0f, hc, 1));
  requires noexcept(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, u8, 1,
                                 ZeroPoints{}, s8, 1, ZeroPoints{}, 0, c32, 1));
  requires noexcept(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, u8, 1,
                                 ZeroPoints{}, s8, 1, ZeroPoints{}, 0, c32, 1, COffset{}));
  requires noexcept(gemm_s8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, s8, 1,
                                 ZeroPoints{}, s8, 1, ZeroPoints{}, 0, c32, 1));
  requires noexcept(gemm_s8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, s8, 1,
                                 ZeroPoints{}, s8, 1, ZeroPoints{}, 0, c32, 1, COffset{}));
  requires noexcept(
      quantize_weights(Layout::RowMajor, Trans::No, 1, 1, f, 1, WeightQuantSpec{}, w));
  requires noexcept(
      quantize_weights_s8(Layout::RowMajor, Trans::No, 1, 1, s8, 1, f, WeightQuantSpec{}, w));
  requires noexcept(gemm_quantized(Layout::RowMajor, Trans::No, 1, f, 1, cw, 0.0f, c, 1));
  requires noexcept(gemm_quantized(Layout::RowMajor, Trans::No, 1, h, 1, cw, 0.0f, c, 1));
  requires noexcept(default_context());
  requires noexcept(version());
  requires noexcept(to_string(Status::Ok));
  requires noexcept(to_string(Isa::Auto));
  requires noexcept(parse_isa("avx2", isa));
  requires noexcept(profile_from_json(s, hw, hw_out, err));
  requires noexcept(load_profile_file(s, hw, hw_out, err));
  // Context
  requires noexcept(cctx.init_status());
  requires noexcept(cctx.init_message());
  requires noexcept(ctx.set_threads(1));
  requires noexcept(cctx.threads());
  requires noexcept(ctx.set_isa(Isa::Auto));
  requires noexcept(cctx.isa());
  requires noexcept(cctx.hardware());
  requires noexcept(ctx.load_hardware_profile(s, err));
  requires noexcept(cctx.cached_plans());
  requires noexcept(ctx.clear_plan_cache());
  requires noexcept(ctx.load_plan_file(s, err));
  requires noexcept(ctx.save_plan_file(s, err));
  requires noexcept(cctx.usable());
  // QuantizedWeights
  requires noexcept(cw.valid());
  requires noexcept(cw.k());
  requires noexcept(cw.n());
  requires noexcept(cw.format());
  requires noexcept(cw.group_size());
  requires noexcept(cw.packed_bytes());
  // HardwareProfile
  requires noexcept(hw.best_isa());
  requires noexcept(hw.supports(Isa::Avx2));
  requires noexcept(HardwareProfile::fp32_lanes(Isa::Avx2));
  requires noexcept(hw.fma_per_cycle(Isa::Avx2));
  requires noexcept(hw.peak_gflops_per_core(Isa::Avx2));
  // bf16 and the view helpers
  requires noexcept(bf16(1.0f));
  requires noexcept(static_cast<float>(*h));
  requires noexcept(bf16::from_bits(0));
  requires noexcept(bf16_to_float(0));
  requires noexcept(float_to_bf16(1.0f));
  requires noexcept(row_major(f, 1, 1));
  requires noexcept(col_major(f, 1, 1));
};
static_assert(NothrowEntryPoints<Context>);
static_assert(std::is_nothrow_destructible_v<Context>);
static_assert(std::is_nothrow_default_constructible_v<QuantizedWeights>);
static_assert(std::is_nothrow_move_constructible_v<QuantizedWeights>);
static_assert(std::is_nothrow_move_assignable_v<QuantizedWeights>);
static_assert(std::is_nothrow_destructible_v<QuantizedWeights>);

// ---- bf16 at run time.

TEST(PublicApi, Bf16ConversionRoundsToNearestEven) {
  for (std::uint32_t bits : {0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f808001u, 0xc2f6e979u,
                             0x7f7fffffu, 0x00000001u, 0x80000000u, 0xff800000u}) {
    const float f = std::bit_cast<float>(bits);
    EXPECT_EQ(bf16(f).bits, float_to_bf16(f)) << std::hex << bits;
  }
  EXPECT_EQ(bf16(std::bit_cast<float>(0x7f7fffffu)).bits, 0x7f80);  // rounds up to infinity
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bf16(std::bit_cast<float>(0x7f800001u)))));
  // Every bf16 converts to a float and back unchanged (NaNs stay NaN).
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const bf16 v = bf16::from_bits(static_cast<std::uint16_t>(b));
    const float f = static_cast<float>(v);
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(static_cast<float>(bf16(f))));
    else
      ASSERT_EQ(bf16(f).bits, v.bits) << b;
  }
}

// A vector of bf16 is what a program hands to the bf16 GEMM, and uint16_t bit patterns (the C
// API's) view as bf16 with identical results.
TEST(PublicApi, Bf16BuffersAndBitPatternsAgree) {
  const int64_t m = 3, n = 5, k = 7;
  std::vector<bf16> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = bf16(static_cast<float>(i % 5) - 2.0f);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = bf16(static_cast<float>(i % 3) - 1.0f);
  std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f), c_ref(c.size(), 0.0f);
  ASSERT_EQ(gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(),
                      n, 0.0f, c.data(), n),
            Status::Ok);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c_ref[static_cast<std::size_t>(i * n + j)] +=
            static_cast<float>(a[static_cast<std::size_t>(i * k + p)]) *
            static_cast<float>(b[static_cast<std::size_t>(p * n + j)]);
  EXPECT_EQ(c, c_ref);
  std::vector<std::uint16_t> a16(a.size()), b16(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a16[i] = a[i].bits;
  for (std::size_t i = 0; i < b.size(); ++i) b16[i] = b[i].bits;
  std::vector<float> c16(c.size(), -1.0f);
  ASSERT_EQ(ac_gemm_bf16bf16f32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a16.data(),
                                k, b16.data(), n, 0.0f, c16.data(), n),
            AC_STATUS_OK);
  EXPECT_EQ(c16, c_ref);
}

}  // namespace
}  // namespace adaptcore
