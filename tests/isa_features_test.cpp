// What a context can execute is decided once, from its hardware profile and ISA path
// (dispatch/kernel_select.hpp), and the planner, the plan-file check and the executor agree:
// a profile that disclaims AVX512-BF16 / AVX512-VNNI reloads the plans it saved, rejects plan
// files holding the native tiles it does not run, and the executor refuses a plan made for
// another kernel table instead of writing part of C. A profile may not claim a feature the CPU
// lacks (any of them, not only the ones that pick the fp32 path).
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/plan_file.hpp"
#include "hw/detect_fallback.hpp"
#include "hw/feature_claims.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {
namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "adaptcore_isa_features_" + std::to_string(::getpid()) + "_" + name;
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// This CPU runs the native bf16 and int8 dot-product kernels (else there is nothing to disclaim).
bool cpu_has_dot_products() {
  const HardwareProfile& cpu = detected_hardware();
  return cpu.supports(Isa::Avx512Bf16);
}

// A one-thread context whose profile disclaims vdpbf16ps and vpdpbusd.
std::unique_ptr<Context> no_dot_context(const std::string& profile) {
  write_all(profile, R"({"avx512_bf16": false, "avx512_vnni": false})");
  ContextOptions o;
  o.threads = 1;
  o.read_environment = false;
  o.profile_path = profile;
  // One key per shape: with Auto residency a call whose buffers happen to repeat the previous
  // call's would be keyed warm, and a plan inserted under the first call's key never be met.
  o.residency = Residency::Cached;
  auto ctx = std::make_unique<Context>(o);
  EXPECT_EQ(ctx->init_status(), Status::Ok) << ctx->init_message();
  return ctx;
}

// Small integers: every product and sum is exact in fp32 and in bf16 inputs.
std::vector<bf16> bf16_values(std::size_t n, int seed) {
  std::vector<bf16> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = bf16(static_cast<float>(static_cast<int>((i * 7 + seed) % 5) - 2));
  return v;
}

// C = A B (row-major, m x k times k x n, or B stored n x k when tb) in exact arithmetic.
std::vector<float> reference(const std::vector<bf16>& a, const std::vector<bf16>& b, int64_t m,
                             int64_t n, int64_t k, bool tb) {
  std::vector<float> c(static_cast<std::size_t>(m * n), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<float>(a[static_cast<std::size_t>(i * k + p)]) *
             static_cast<float>(b[static_cast<std::size_t>(tb ? j * k + p : p * n + j)]);
      c[static_cast<std::size_t>(i * n + j)] = s;
    }
  return c;
}

struct Bf16Call {
  int64_t m, n, k;
  bool tb;
};

Status run_bf16(Context& ctx, const Bf16Call& s, std::vector<float>& c) {
  const auto a = bf16_values(static_cast<std::size_t>(s.m * s.k), 1);
  const auto b = bf16_values(static_cast<std::size_t>(s.k * s.n), 3);
  return gemm_bf16(Layout::RowMajor, Trans::No, s.tb ? Trans::Yes : Trans::No, s.m, s.n, s.k, 1.0f,
                   a.data(), s.k, b.data(), s.tb ? s.k : s.n, 0.0f, c.data(), s.n, ctx);
}

// Runs the call and checks it exactly.
void run_bf16_checked(Context& ctx, const Bf16Call& s) {
  std::vector<float> c(static_cast<std::size_t>(s.m * s.n), -1234.0f);
  ASSERT_EQ(run_bf16(ctx, s, c), Status::Ok) << s.m << "x" << s.n << "x" << s.k;
  const auto a = bf16_values(static_cast<std::size_t>(s.m * s.k), 1);
  const auto b = bf16_values(static_cast<std::size_t>(s.k * s.n), 3);
  EXPECT_EQ(c, reference(a, b, s.m, s.n, s.k, s.tb)) << s.m << "x" << s.n << "x" << s.k;
}

void run_int8(Context& ctx, int64_t m, int64_t n, int64_t k, bool tb) {
  std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k));
  std::vector<std::int8_t> b(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 13 % 251);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int8_t>(i * 7 % 255 - 127);
  std::vector<std::int32_t> c(static_cast<std::size_t>(m * n), 0);
  ASSERT_EQ(gemm_u8s8s32(Layout::RowMajor, Trans::No, tb ? Trans::Yes : Trans::No, m, n, k,
                         a.data(), k, {}, b.data(), tb ? k : n, {}, 0, c.data(), n, ctx),
            Status::Ok);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += a[static_cast<std::size_t>(i * k + p)] *
             b[static_cast<std::size_t>(tb ? j * k + p : p * n + j)];
      ASSERT_EQ(c[static_cast<std::size_t>(i * n + j)], s) << i << "," << j;
    }
}

// The key of the one plan a fresh call put in the cache.
ShapeKey only_key(Context& ctx) {
  const auto entries = ::adaptcore::detail::impl_of(ctx).cache().snapshot();
  EXPECT_EQ(entries.size(), 1u);
  return entries.empty() ? ShapeKey{} : entries.front().first;
}

// The index of a tile of this shape in a table, or -1.
int tile_index(const kernels::LowpKernels& ks, int mr, int nr) {
  for (std::size_t i = 0; i < ks.tiles.size(); ++i)
    if (ks.tiles[i].mr == mr && ks.tiles[i].nr == nr) return static_cast<int>(i);
  return -1;
}

// A packed plan on a native tile of the dtype, valid for the key on a context that has it.
Plan native_packed_plan(const ShapeKey& key, int tile, int mr, int nr) {
  Plan p;
  p.isa = key.isa;
  p.tile = tile;
  p.mr = mr;
  p.nr = nr;
  p.pack_a = p.pack_b = true;
  p.mc = key.m;
  p.nc = key.n;
  p.kc = key.k;
  p.predicted_us = 1.0;
  return p;
}

Plan dot_plan(const ShapeKey& key) {
  Plan p;
  p.isa = key.isa;
  p.kind = PlanKind::Dot;
  p.mr = kernels::kLowpDotMr;
  p.nr = kernels::kLowpDotNr;
  p.mc = key.m;
  p.nc = key.n;
  p.kc = key.k;
  p.predicted_us = 1.0;
  return p;
}

TEST(IsaFeatures, ProfileDisablingDotProductsSelectsFallbackKernels) {
  const std::string profile = temp_path("nodot.json");
  auto ctx = no_dot_context(profile);
  EXPECT_FALSE(ctx->hardware().features.has(Feature::Avx512Bf16));
  EXPECT_FALSE(ctx->hardware().features.has(Feature::Avx512Vnni));
  // The level the low-precision kernels come from needs neither feature.
  const FeatureSet needs = kernels::lattice_row(lowp_level(ctx->hardware(), ctx->isa()))->needs;
  EXPECT_FALSE(needs.has(Feature::Avx512Bf16));
  EXPECT_FALSE(needs.has(Feature::Avx512Vnni));
  EXPECT_STREQ(::adaptcore::detail::impl_of(*ctx).lowp_kernels(DType::Bf16, ctx->isa())->name,
               "fp32-convert");
  EXPECT_STREQ(::adaptcore::detail::impl_of(*ctx).lowp_kernels(DType::U8S8, ctx->isa())->name,
               "int32-generic");
  EXPECT_STREQ(::adaptcore::detail::impl_of(*ctx).wq_kernels(ctx->isa()).name, "int32-generic");
  std::remove(profile.c_str());
}

// Plans saved by a context whose profile disclaims the dot-product instructions load back
// into that context (and one configured the same way) and give the same results.
TEST(IsaFeatures, SaveThenReloadWithProfileDisablingDotProducts) {
  const std::string profile = temp_path("reload.json");
  const std::string plans = temp_path("reload.plan");
  auto ctx = no_dot_context(profile);
  const std::vector<Bf16Call> calls = {
      {64, 64, 64, false}, {1, 512, 256, false}, {4, 64, 128, true}, {37, 200, 70, false}};
  for (const Bf16Call& s : calls) run_bf16_checked(*ctx, s);
  run_int8(*ctx, 64, 64, 64, false);
  run_int8(*ctx, 1, 256, 128, false);
  run_int8(*ctx, 4, 64, 128, true);
  const std::size_t cached = ctx->cached_plans();
  ASSERT_EQ(cached, calls.size() + 3);
  std::string err;
  ASSERT_EQ(ctx->save_plan_file(plans, &err), Status::Ok) << err;

  ctx->clear_plan_cache();
  ASSERT_EQ(ctx->load_plan_file(plans, &err), Status::Ok) << err;
  EXPECT_EQ(ctx->cached_plans(), cached);
  for (const Bf16Call& s : calls) run_bf16_checked(*ctx, s);
  run_int8(*ctx, 4, 64, 128, true);

  auto other = no_dot_context(profile);
  ASSERT_EQ(other->load_plan_file(plans, &err), Status::Ok) << err;
  EXPECT_EQ(other->cached_plans(), cached);
  for (const Bf16Call& s : calls) run_bf16_checked(*other, s);
  std::remove(profile.c_str());
  std::remove(plans.c_str());
}

// A file holding a native tile (or a dot plan) is valid for a context with the instructions and
// rejected by one whose profile disclaims them; that context's calls stay correct.
TEST(IsaFeatures, NativeTilePlanFileRejectedWhenProfileDisablesIt) {
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx512Bf16, cpu_has_dot_products());
  const std::string profile = temp_path("native.json");
  const std::string plans = temp_path("native.plan");
  auto ctx = no_dot_context(profile);
  // Auto takes the best level the profile allows (avx512); set explicitly, the dot-product level
  // runs (the CPU has it) with the tables the profile allows: the keys say avx512_bf16, the
  // kernels are the fallbacks.
  ASSERT_EQ(ctx->isa(), Isa::Avx512);
  ASSERT_EQ(ctx->set_isa(Isa::Avx512Bf16), Status::Ok);

  struct Case {
    const char* name;
    DType dtype;
    bool dot;
  };
  for (const Case& c :
       {Case{"bf16 6x64", DType::Bf16, false}, Case{"int8 6x64", DType::U8S8, false},
        Case{"bf16 dot", DType::Bf16, true}, Case{"int8 dot", DType::U8S8, true}}) {
    SCOPED_TRACE(c.name);
    ctx->clear_plan_cache();
    // The key a real call makes: 64 x 64 x 64, B stored N x K for the dot plans.
    if (c.dtype == DType::Bf16)
      run_bf16_checked(*ctx, {c.dot ? 4 : 64, 64, 64, c.dot});
    else
      run_int8(*ctx, c.dot ? 4 : 64, 64, 64, c.dot);
    const ShapeKey key = only_key(*ctx);
    const kernels::LowpKernels* native =
        c.dtype == DType::Bf16 ? kernels::lowp_kernels_for(DType::Bf16, Isa::Avx512Bf16)
                               : kernels::lowp_kernels_for(DType::U8S8, Isa::Avx512Vnni);
    const int tile = tile_index(*native, 6, 64);
    ASSERT_GE(tile, 0);
    const Plan plan = c.dot ? dot_plan(key) : native_packed_plan(key, tile, 6, 64);
    // Valid where the instructions are used, invalid for this context.
    EXPECT_EQ(check_plan_entry(key, plan, detected_hardware()), "");
    EXPECT_NE(check_plan_entry(key, plan, ctx->hardware()), "");

    ASSERT_EQ(write_plan_file(plans, {{key, plan}}, ctx->hardware(), ctx->isa()), Status::Ok);
    ctx->clear_plan_cache();
    std::string err;
    testing::internal::CaptureStderr();
    EXPECT_EQ(ctx->load_plan_file(plans, &err), Status::InvalidPlanFile);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(ctx->cached_plans(), 0u) << err;
    if (c.dtype == DType::Bf16)
      run_bf16_checked(*ctx, {c.dot ? 4 : 64, 64, 64, c.dot});
    else
      run_int8(*ctx, c.dot ? 4 : 64, 64, 64, c.dot);
  }
  std::remove(profile.c_str());
  std::remove(plans.c_str());
}

// The executor checks that a plan's tile is one of the table it runs with, with that tile's
// mr x nr, and reports an error without writing C when it is not (a cache filled for other
// kernels, e.g. a profile change racing a call).
TEST(IsaFeatures, ExecutorRejectsPlanForAnotherTable) {
  ContextOptions o;
  o.threads = 1;
  o.read_environment = false;
  o.residency = Residency::Cached;  // the calls use key_for(problem)
  Context ctx(o);

  // fp32: the planner's plan with a wider nr than its tile writes.
  {
    std::vector<float> a(64 * 64, 1.0f), b(64 * 64, 1.0f), c(64 * 64, 0.0f);
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 64, 64, 64, 1.0f, a.data(), 64, b.data(),
                   64, 0.0f, c.data(), 64, ctx),
              Status::Ok);
    const ShapeKey key = only_key(ctx);
    Plan bad = *::adaptcore::detail::impl_of(ctx).cache().find(key);
    ASSERT_FALSE(bad.is_dot());
    bad.nr *= 2;
    ctx.clear_plan_cache();
    ::adaptcore::detail::impl_of(ctx).cache().insert(key, bad);
    std::fill(c.begin(), c.end(), -7.0f);
    EXPECT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 64, 64, 64, 1.0f, a.data(), 64, b.data(),
                   64, 0.0f, c.data(), 64, ctx),
              Status::InternalError);
    EXPECT_EQ(c, std::vector<float>(64 * 64, -7.0f)) << "C written by a rejected plan";
  }

  // bf16: a tile index of this table with another tile's mr x nr.
  {
    ctx.clear_plan_cache();
    const Bf16Call s{64, 64, 64, false};
    run_bf16_checked(ctx, s);
    const ShapeKey key = only_key(ctx);
    const kernels::LowpKernels& ks =
        *::adaptcore::detail::impl_of(ctx).lowp_kernels(DType::Bf16, ctx.isa());
    ASSERT_GE(ks.tiles.size(), 1u);
    const Plan bad =
        native_packed_plan(key, 0, ks.tiles[0].mr == 6 ? 14 : 6, ks.tiles[0].nr == 64 ? 32 : 64);
    ctx.clear_plan_cache();
    ::adaptcore::detail::impl_of(ctx).cache().insert(key, bad);
    std::vector<float> c(64 * 64, -7.0f);
    EXPECT_EQ(run_bf16(ctx, s, c), Status::InternalError);
    EXPECT_EQ(c, std::vector<float>(64 * 64, -7.0f)) << "C written by a rejected plan";
  }
}

// Same through the profile: the native 6x64 bf16 tile cached in a context that runs the fp32
// fallback (where tile 1 is 8x48) returned Ok with a quarter of C unwritten.
TEST(IsaFeatures, ExecutorRejectsNativeTileOnFallbackContext) {
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx512Bf16, cpu_has_dot_products());
  const std::string profile = temp_path("exec.json");
  auto ctx = no_dot_context(profile);
  const Bf16Call s{64, 64, 64, false};
  run_bf16_checked(*ctx, s);
  const ShapeKey key = only_key(*ctx);
  const int tile = tile_index(*kernels::lowp_kernels_for(DType::Bf16, Isa::Avx512Bf16), 6, 64);
  ASSERT_GE(tile, 0);
  ctx->clear_plan_cache();
  ::adaptcore::detail::impl_of(*ctx).cache().insert(key, native_packed_plan(key, tile, 6, 64));
  std::vector<float> c(64 * 64, -7.0f);
  EXPECT_EQ(run_bf16(*ctx, s, c), Status::InternalError);
  EXPECT_EQ(c, std::vector<float>(64 * 64, -7.0f)) << "C written by a rejected plan";
  std::remove(profile.c_str());
}

// Every feature a profile claims is compared with the CPU's. Tested with made-up CPUs, so the
// rule is checked on machines that have every feature too.
TEST(IsaFeatures, FeatureClaimsCheckedAgainstTheCpu) {
  HardwareProfile all;
  all.features = FeatureSet((1u << kFeatureCount) - 1);  // every feature
  EXPECT_EQ(unsupported_feature_claims(all, all), "");
  EXPECT_EQ(unsupported_feature_claims(HardwareProfile{}, HardwareProfile{}), "");

  struct Missing {
    Feature feature;
    const char* name;
  };
  for (const Missing& m :
       {Missing{Feature::Fma3, "fma3"}, Missing{Feature::Avx2, "avx2"},
        Missing{Feature::Avx512F, "avx512f"}, Missing{Feature::Avx512BW, "avx512bw"},
        Missing{Feature::Avx512DQ, "avx512dq"}, Missing{Feature::Avx512VL, "avx512vl"},
        Missing{Feature::Avx512Bf16, "avx512_bf16"}, Missing{Feature::Avx512Vnni, "avx512_vnni"}}) {
    HardwareProfile cpu = all;
    cpu.features.set(m.feature, false);
    EXPECT_EQ(unsupported_feature_claims(all, cpu), m.name);
    // Disclaiming a feature the CPU has is fine.
    HardwareProfile less = all;
    less.features.set(m.feature, false);
    EXPECT_EQ(unsupported_feature_claims(less, all), "");
    // The name round-trips.
    Feature back{};
    EXPECT_TRUE(parse_feature(m.name, back));
    EXPECT_EQ(back, m.feature);
  }
  HardwareProfile old_cpu = all;
  old_cpu.features.set(Feature::Avx512Bf16, false);
  old_cpu.features.set(Feature::Avx512Vnni, false);
  EXPECT_EQ(unsupported_feature_claims(all, old_cpu), "avx512_bf16, avx512_vnni");
}

// On this CPU: a profile claiming every feature loads exactly when the CPU has them all.
TEST(IsaFeatures, ProfileClaimingEveryFeatureMatchesTheCpu) {
  std::string text = "{";
  for (int i = 0; i < kFeatureCount; ++i)
    text += std::string(i == 0 ? "" : ", ") + "\"" + to_string(static_cast<Feature>(1u << i)) +
            "\": true";
  text += "}";
  HardwareProfile all = detected_hardware();
  all.features = FeatureSet((1u << kFeatureCount) - 1);  // every feature
  const std::string missing = unsupported_feature_claims(all, detected_hardware());
  HardwareProfile out;
  std::string err;
  const Status s = profile_from_json(text, detected_hardware(), out, &err);
  if (missing.empty()) {
    EXPECT_EQ(s, Status::Ok) << err;
  } else {
    EXPECT_EQ(s, Status::InvalidProfile);
    EXPECT_NE(err.find(missing), std::string::npos) << err;
  }
}

// Where cpuinfo cannot be opened, detection falls back to the compiler's CPUID reader and
// sysconf (hw/detect_fallback.hpp): the same ISA flags and first-level caches as cpuinfo's.
TEST(IsaFeatures, DetectionWithoutCpuinfoAgrees) {
  const HardwareProfile& hw = detected_hardware();
  if (hw.name.rfind("unknown", 0) == 0) GTEST_SKIP() << "cpuinfo not available here";
  HardwareProfile fb;
  detect_without_cpuinfo(fb);
  EXPECT_EQ(fb.features.has(Feature::Fma3), hw.features.has(Feature::Fma3));
  EXPECT_EQ(fb.features.has(Feature::Avx2), hw.features.has(Feature::Avx2));
  EXPECT_EQ(fb.features.has(Feature::Avx512F), hw.features.has(Feature::Avx512F));
  EXPECT_EQ(fb.features.has(Feature::Avx512BW), hw.features.has(Feature::Avx512BW));
  EXPECT_EQ(fb.features.has(Feature::Avx512DQ), hw.features.has(Feature::Avx512DQ));
  EXPECT_EQ(fb.features.has(Feature::Avx512VL), hw.features.has(Feature::Avx512VL));
  EXPECT_EQ(fb.features.has(Feature::Avx512Bf16), hw.features.has(Feature::Avx512Bf16));
  EXPECT_EQ(fb.features.has(Feature::Avx512Vnni), hw.features.has(Feature::Avx512Vnni));
  EXPECT_EQ(fb.l1d_bytes, hw.l1d_bytes);
  EXPECT_EQ(fb.l2_bytes, hw.l2_bytes);
  EXPECT_GT(fb.l3_bytes, 0);
  EXPECT_LE(fb.l3_bytes, 4LL * 1024 * 1024);
}

}  // namespace
}  // namespace adaptcore

namespace adaptcore::test {
namespace {

// The lattice: each level after the one below it, containing its needs; names round-trip.
TEST(Registry, LatticeIsOrderedAndNamed) {
  std::vector<Isa> seen;
  for (const kernels::LatticeRow& row : kernels::lattice()) {
    if (row.below != Isa::Auto) {
      ASSERT_NE(std::find(seen.begin(), seen.end(), row.below), seen.end()) << row.name;
      EXPECT_TRUE(row.needs.contains(kernels::lattice_row(row.below)->needs)) << row.name;
      EXPECT_NE(row.needs, kernels::lattice_row(row.below)->needs) << row.name;
    }
    seen.push_back(row.id);
    Isa parsed = Isa::Auto;
    EXPECT_TRUE(parse_isa(row.name, parsed));
    EXPECT_EQ(parsed, row.id);
    EXPECT_STREQ(to_string(row.id), row.name);
  }
  Isa parsed = Isa::Generic;
  EXPECT_FALSE(parse_isa("avx1024", parsed));
  EXPECT_TRUE(parse_isa(" AVX512-BF16 ", parsed));
  EXPECT_EQ(parsed, Isa::Avx512Bf16);
  EXPECT_EQ(kernels::lattice_row(static_cast<Isa>(9)), nullptr);
  EXPECT_STREQ(to_string(static_cast<Isa>(9)), "unknown");
}

// Every built level runs a table of every kind: its own, or the one of the level below it.
TEST(Registry, BuiltLevelsResolveEveryTable) {
  ASSERT_FALSE(kernels::built_levels().empty());
  EXPECT_EQ(kernels::built_levels().front(), Isa::Generic);
  for (const Isa isa : kernels::built_levels()) {
    SCOPED_TRACE(to_string(isa));
    const kernels::LatticeRow* row = kernels::lattice_row(isa);
    ASSERT_NE(row, nullptr);
    ASSERT_NE(kernels::kernels_for(isa), nullptr);
    ASSERT_NE(kernels::lowp_kernels_for(DType::Bf16, isa), nullptr);
    ASSERT_NE(kernels::lowp_kernels_for(DType::U8S8, isa), nullptr);
    ASSERT_NE(kernels::wq_kernels_for(isa), nullptr);
    EXPECT_EQ(kernels::lowp_kernels_for(DType::F32, isa), nullptr);
    if (row->below == Isa::Auto) continue;
    EXPECT_TRUE(kernels::built(row->below));
    // A level adds something: a table of its own of some kind.
    const Isa b = row->below;
    EXPECT_TRUE(
        kernels::kernels_for(isa) != kernels::kernels_for(b) ||
        kernels::lowp_kernels_for(DType::Bf16, isa) != kernels::lowp_kernels_for(DType::Bf16, b) ||
        kernels::lowp_kernels_for(DType::U8S8, isa) != kernels::lowp_kernels_for(DType::U8S8, b) ||
        kernels::wq_kernels_for(isa) != kernels::wq_kernels_for(b));
  }
  for (const kernels::LatticeRow& row : kernels::lattice())
    if (!kernels::built(row.id)) EXPECT_EQ(kernels::kernels_for(row.id), nullptr) << row.name;
}

// best_level and clamp_level: the highest built level a feature set allows, at most the asked.
TEST(Registry, BestAndClampedLevels) {
  EXPECT_EQ(kernels::best_level(FeatureSet{}), Isa::Generic);
  EXPECT_EQ(kernels::clamp_level(Isa::Auto, FeatureSet{}), Isa::Generic);
  const FeatureSet all((1u << kFeatureCount) - 1);
  const Isa top = kernels::built_levels().back();
  EXPECT_EQ(kernels::best_level(all), top);
  for (const Isa isa : kernels::built_levels()) {
    SCOPED_TRACE(to_string(isa));
    EXPECT_EQ(kernels::clamp_level(isa, all), isa);
    const FeatureSet needs = kernels::lattice_row(isa)->needs;
    EXPECT_EQ(kernels::best_level(needs), isa) << "exactly its needs";
    EXPECT_EQ(kernels::clamp_level(top, needs), isa);
    if (isa != Isa::Generic) {
      const Isa below = kernels::lattice_row(isa)->below;
      EXPECT_EQ(kernels::clamp_level(isa, kernels::lattice_row(below)->needs), below);
    }
  }
  // A profile with AVX512-BF16 but without VNNI is below the bf16 level.
  if (kernels::built(Isa::Avx512Bf16)) {
    FeatureSet no_vnni = all;
    no_vnni.set(Feature::Avx512Vnni, false);
    EXPECT_EQ(kernels::best_level(no_vnni), Isa::Avx512);
  }
}

}  // namespace
}  // namespace adaptcore::test
