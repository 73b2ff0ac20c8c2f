// The C API's context handles against the C++ API they wrap (libadaptcore.so alone): the
// options mean what ContextOptions means (the read-environment flag included, a plan file
// preloaded), a handle's context is independent of the default one and of other handles, and
// every `_ctx` entry point gives bit-identical results to the C++ call on an equally
// configured Context. (tests/c_api_context_test.c checks the same API from a C program.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"

namespace adaptcore {
namespace {

struct ContextDeleter {
  void operator()(ac_context* c) const noexcept { ac_context_destroy(c); }
};
using ContextHandle = std::unique_ptr<ac_context, ContextDeleter>;

ContextHandle make(const ac_context_options& o) {
  ac_context* c = nullptr;
  EXPECT_EQ(ac_context_create(&o, &c), AC_STATUS_OK);
  return ContextHandle(c);
}

ac_context_options options(int threads, bool read_environment) {
  ac_context_options o;
  ac_context_options_init(&o);
  o.threads = threads;
  o.read_environment = read_environment ? 1 : 0;
  return o;
}

int threads_of(const ac_context* c) {
  int t = -1;
  EXPECT_EQ(ac_context_get_num_threads(c, &t), AC_STATUS_OK);
  return t;
}
ac_isa_t isa_of(const ac_context* c) {
  ac_isa_t isa = AC_ISA_AUTO;
  EXPECT_EQ(ac_context_get_isa(c, &isa), AC_STATUS_OK);
  return isa;
}

// Sets an environment variable for the scope, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) had_ = true, saved_ = v;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, saved_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string saved_;
};

TEST(CContext, OptionsMirrorContextOptions) {
  ScopedEnv threads("ADAPTCORE_NUM_THREADS", "7");
  ScopedEnv isa("ADAPTCORE_ISA", "generic");
  // Reading the environment: its thread count and ISA, like a C++ Context.
  ContextHandle with_env = make(options(0, true));
  EXPECT_EQ(threads_of(with_env.get()), 7);
  EXPECT_EQ(isa_of(with_env.get()), AC_ISA_GENERIC);
  // Not reading it: what a C++ Context with read_environment = false has.
  ContextOptions cpp_options;
  cpp_options.read_environment = false;
  const Context cpp(cpp_options);
  ContextHandle without_env = make(options(0, false));
  EXPECT_EQ(threads_of(without_env.get()), cpp.threads());
  EXPECT_EQ(isa_of(without_env.get()), static_cast<ac_isa_t>(cpp.isa()));
  // Explicit options win over the environment.
  ac_context_options o = options(3, true);
  o.isa = static_cast<ac_isa_t>(detected_hardware().best_isa());
  ContextHandle explicit_options = make(o);
  EXPECT_EQ(threads_of(explicit_options.get()), 3);
  EXPECT_EQ(isa_of(explicit_options.get()), o.isa);
  EXPECT_EQ(ac_context_init_status(explicit_options.get(), nullptr), AC_STATUS_OK);
}

TEST(CContext, PlanFileOptionPreloads) {
  ContextHandle source = make(options(2, false));
  std::vector<float> a(64 * 48, 1.0f), b(48 * 80, 1.0f), c(64 * 80);
  ASSERT_EQ(ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 64, 80, 48, 1.0f, a.data(), 48,
                         b.data(), 80, 0.0f, c.data(), 80, source.get()),
            AC_STATUS_OK);
  const std::string path = "/tmp/adaptcore_c_ctx_plans_" + std::to_string(::getpid());
  char error[256];
  ASSERT_EQ(ac_context_save_plan_file(source.get(), path.c_str(), error, sizeof error),
            AC_STATUS_OK)
      << error;
  ac_context_options o = options(2, false);
  o.plan_file = path.c_str();
  ContextHandle loaded = make(o);
  std::remove(path.c_str());
  const char* message = nullptr;
  EXPECT_EQ(ac_context_init_status(loaded.get(), &message), AC_STATUS_OK) << message;
  std::size_t plans = 0;
  ASSERT_EQ(ac_context_cached_plans(loaded.get(), &plans), AC_STATUS_OK);
  EXPECT_EQ(plans, 1u);
  // A missing plan file: a usable context that says why.
  ContextHandle missing = make(o);
  EXPECT_EQ(ac_context_init_status(missing.get(), &message), AC_STATUS_INVALID_PLAN_FILE);
  EXPECT_NE(std::string(message).find(path), std::string::npos);
}

TEST(CContext, HandlesAreIndependent) {
  ContextHandle one = make(options(1, false)), two = make(options(2, false));
  const int default_threads = ac_get_num_threads();
  ASSERT_EQ(ac_context_set_num_threads(one.get(), 3), AC_STATUS_OK);
  EXPECT_EQ(threads_of(one.get()), 3);
  EXPECT_EQ(threads_of(two.get()), 2);
  EXPECT_EQ(ac_get_num_threads(), default_threads);
  ASSERT_EQ(ac_context_set_isa(two.get(), AC_ISA_GENERIC), AC_STATUS_OK);
  EXPECT_EQ(isa_of(one.get()), static_cast<ac_isa_t>(detected_hardware().best_isa()));
  std::vector<float> a(16, 1.0f), c(16);
  ASSERT_EQ(ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4,
                         a.data(), 4, 0.0f, c.data(), 4, one.get()),
            AC_STATUS_OK);
  std::size_t plans_one = 0, plans_two = 0;
  ASSERT_EQ(ac_context_cached_plans(one.get(), &plans_one), AC_STATUS_OK);
  ASSERT_EQ(ac_context_cached_plans(two.get(), &plans_two), AC_STATUS_OK);
  EXPECT_EQ(plans_one, 1u);
  EXPECT_EQ(plans_two, 0u);
}

// Each _ctx entry point equals the C++ call on a Context configured the same way, bit for bit
// (same thread count and ISA path: the same plan, the same arithmetic).
TEST(CContext, EntryPointsMatchTheCppApi) {
  const int64_t m = 37, n = 29, k = 45;
  ContextHandle handle = make(options(2, false));
  ContextOptions cpp_options;
  cpp_options.threads = 2;
  cpp_options.read_environment = false;
  Context cpp(cpp_options);
  ASSERT_EQ(static_cast<ac_isa_t>(cpp.isa()), isa_of(handle.get()));

  std::vector<float> af(static_cast<std::size_t>(m * k)), bf(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>((i * 7) % 13) * 0.37f;
  for (std::size_t i = 0; i < bf.size(); ++i) bf[i] = static_cast<float>((i * 5) % 11) * -0.21f;
  const std::size_t mn = static_cast<std::size_t>(m * n);
  {
    std::vector<float> c1(mn, 1.0f), c2 = c1;
    ASSERT_EQ(ac_sgemm_ctx(AC_COL_MAJOR, AC_TRANS, AC_NO_TRANS, m, n, k, 0.5f, af.data(), k,
                           bf.data(), k, 2.0f, c1.data(), m, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm(Layout::ColMajor, Trans::Yes, Trans::No, m, n, k, 0.5f, af.data(), k, bf.data(),
                   k, 2.0f, c2.data(), m, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
  }
  std::vector<bf16> ah(af.size()), bh(bf.size());
  for (std::size_t i = 0; i < af.size(); ++i) ah[i] = bf16(af[i]);
  for (std::size_t i = 0; i < bf.size(); ++i) bh[i] = bf16(bf[i]);
  const auto* a16 = reinterpret_cast<const std::uint16_t*>(ah.data());
  const auto* b16 = reinterpret_cast<const std::uint16_t*>(bh.data());
  {
    std::vector<float> c1(mn, 1.0f), c2 = c1;
    ASSERT_EQ(ac_gemm_bf16bf16f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.5f, a16, k,
                                      b16, n, -1.0f, c1.data(), n, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.5f, ah.data(), k,
                        bh.data(), n, -1.0f, c2.data(), n, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
    std::vector<std::uint16_t> d1(mn, 0x3f80);
    std::vector<bf16> d2(mn, bf16(1.0f));
    ASSERT_EQ(ac_gemm_bf16bf16bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a16,
                                       k, b16, n, 0.5f, d1.data(), n, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, ah.data(), k,
                        bh.data(), n, 0.5f, d2.data(), n, cpp),
              Status::Ok);
    for (std::size_t i = 0; i < mn; ++i) ASSERT_EQ(d1[i], d2[i].bits) << i;
  }
  {
    std::vector<std::uint8_t> a8(af.size());
    std::vector<std::int8_t> b8(bf.size());
    for (std::size_t i = 0; i < a8.size(); ++i) a8[i] = static_cast<std::uint8_t>(i * 31);
    for (std::size_t i = 0; i < b8.size(); ++i) b8[i] = static_cast<std::int8_t>(i * 17);
    std::vector<std::int32_t> zp(static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < zp.size(); ++j) zp[j] = static_cast<std::int32_t>(j) - 9;
    const std::int32_t azp = 4;
    std::vector<std::int32_t> c1(mn, 3), c2 = c1;
    ASSERT_EQ(ac_gemm_u8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, a8.data(), k,
                                  &azp, 1, b8.data(), n, zp.data(), n, 2, c1.data(), n,
                                  AC_OFFSET_PER_COLUMN, zp.data(), handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, m, n, k, a8.data(), k,
                           ZeroPoints{&azp, 1}, b8.data(), n, ZeroPoints{zp.data(), n}, 2,
                           c2.data(), n, COffset{OffsetKind::PerColumn, zp.data()}, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
    const auto* s8 = reinterpret_cast<const std::int8_t*>(a8.data());
    ASSERT_EQ(ac_gemm_s8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_TRANS, m, n, k, s8, k, nullptr, 0,
                                  b8.data(), k, nullptr, 0, 0, c1.data(), n, AC_OFFSET_NONE,
                                  nullptr, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_s8s8s32(Layout::RowMajor, Trans::No, Trans::Yes, m, n, k, s8, k, {}, b8.data(),
                           k, {}, 0, c2.data(), n, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
  }
  {
    // op(W) is k x n; 4 rows of activations.
    ac_weights_t w = nullptr;
    ASSERT_EQ(ac_quantize_weights_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, k, n, bf.data(), n,
                                          AC_WEIGHTS_INT8, 0, &w, handle.get()),
              AC_STATUS_OK);
    QuantizedWeights qw;
    ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, bf.data(), n, WeightQuantSpec{},
                               qw, cpp),
              Status::Ok);
    std::vector<float> c1(static_cast<std::size_t>(4 * n), 0.0f), c2 = c1;
    ASSERT_EQ(ac_gemm_wq_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 4, af.data(), k, w, 0.0f, c1.data(), n,
                                 AC_WQ_TWO_PARTS, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 4, af.data(), k, qw, 0.0f, c2.data(), n,
                             ActivationParts::Two, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
    ASSERT_EQ(ac_gemm_wq_bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 4, a16, k, w, 1.0f, c1.data(), n,
                                  AC_WQ_ONE_PART, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 4, ah.data(), k, qw, 1.0f, c2.data(), n,
                             ActivationParts::One, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
    ac_weights_destroy(w);
    std::vector<std::int8_t> q(static_cast<std::size_t>(k * n), 3);
    std::vector<float> scales(static_cast<std::size_t>(n), 0.125f);
    ASSERT_EQ(ac_quantize_weights_s8_ctx(AC_ROW_MAJOR, AC_NO_TRANS, k, n, q.data(), n,
                                         scales.data(), AC_WEIGHTS_INT8, 0, &w, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(ac_gemm_wq_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 4, af.data(), k, w, 0.0f, c1.data(), n,
                                 AC_WQ_TWO_PARTS, handle.get()),
              AC_STATUS_OK);
    ASSERT_EQ(quantize_weights_s8(Layout::RowMajor, Trans::No, k, n, q.data(), n, scales.data(),
                                  WeightQuantSpec{}, qw, cpp),
              Status::Ok);
    ASSERT_EQ(gemm_quantized(Layout::RowMajor, Trans::No, 4, af.data(), k, qw, 0.0f, c2.data(), n,
                             ActivationParts::Two, cpp),
              Status::Ok);
    EXPECT_EQ(c1, c2);
    ac_weights_destroy(w);
  }
}

}  // namespace
}  // namespace adaptcore
