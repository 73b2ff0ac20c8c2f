// Plan files: round trip through save/load, rejection of files made elsewhere or damaged
// (versions, hardware, truncation, byte flips, invalid plans behind a valid checksum), the
// ADAPTCORE_PLAN_FILE variable and the warning on stderr.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "core/problem.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/plan_file.hpp"
#include "kernels/registry.hpp"
#include "test_util.hpp"

namespace adaptcore {
namespace {

using test::Stored;

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "adaptcore_plan_file_" + std::to_string(::getpid()) + "_" + name;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Rewrites the trailing checksum after an edit, so only the edited field can be the reason.
void fix_checksum(std::string& bytes) {
  const std::uint64_t h = fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
  for (int i = 0; i < 8; ++i)
    bytes[bytes.size() - 8 + static_cast<std::size_t>(i)] = static_cast<char>(h >> (8 * i));
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
}
void put_u64(std::string& bytes, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i)
    bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
}
// Offset of the entry count: magic, format, lib_len, lib, isa, fingerprint.
std::size_t count_offset() { return 8 + 4 + 4 + std::string_view(version()).size() + 4 + 8; }

std::unique_ptr<Context> fresh(int threads = 2, Isa isa = Isa::Auto) {
  ContextOptions o;
  o.threads = threads;
  o.isa = isa;
  o.read_environment = false;
  o.residency = Residency::Cached;  // calls use key_for(problem), the keys written to files
  return std::make_unique<Context>(o);
}

bool same_plan(const Plan& x, const Plan& y) {
  return x.isa == y.isa && x.tile == y.tile && x.mr == y.mr && x.nr == y.nr &&
         x.pack_a == y.pack_a && x.pack_b == y.pack_b && x.kind == y.kind && x.mc == y.mc &&
         x.nc == y.nc && x.kc == y.kc && x.pm == y.pm && x.pn == y.pn && x.pk == y.pk &&
         x.tail == y.tail && x.a_packing == y.a_packing && x.prefetch_c == y.prefetch_c &&
         x.prefetch_b == y.prefetch_b && x.transpose_c == y.transpose_c &&
         x.quantize_threads == y.quantize_threads && x.cls == y.cls &&
         x.predicted_us == y.predicted_us;
}

struct Shape {
  Trans ta, tb;
  int64_t m, n, k;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {Trans::No, Trans::No, 3, 5, 7},
      {Trans::No, Trans::No, 67, 131, 300},
      {Trans::No, Trans::Yes, 4, 96, 257},
      {Trans::Yes, Trans::No, 40, 33, 70},
      {Trans::Yes, Trans::Yes, 17, 200, 19},
      {Trans::No, Trans::Yes, 1, 1000, 64},
      {Trans::No, Trans::No, 300, 64, 1100},
      // C of a few columns: transposed plans where the kernels have them (their blocks are
      // C^T's, wider than C), one on the small-problem executor and one on the executor.
      {Trans::No, Trans::No, 555, 1, 2},
      {Trans::No, Trans::No, 2226, 2, 9},
  };
  return s;
}

GemmProblem problem_of(const Shape& s, Stored& a, Stored& b, Stored& c) {
  GemmProblem p;
  EXPECT_EQ(make_problem(Layout::RowMajor, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), a.ld(),
                         b.data(), b.ld(), 0.5f, c.data(), c.ld(), p),
            Status::Ok);
  return p;
}

// Runs one GEMM on ctx and checks it against the reference; returns its key.
ShapeKey run_checked(Context& ctx, const Shape& s) {
  std::mt19937 rng(static_cast<unsigned>(s.m * 31 + s.n * 7 + s.k));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  const bool ta = s.ta != Trans::No, tb = s.tb != Trans::No;
  Stored a(ta ? s.k : s.m, ta ? s.m : s.k, Layout::RowMajor, ta ? s.m : s.k);
  Stored b(tb ? s.n : s.k, tb ? s.k : s.n, Layout::RowMajor, tb ? s.k : s.n);
  Stored c(s.m, s.n, Layout::RowMajor, s.n);
  a.fill([&](int64_t, int64_t) { return d(rng); });
  b.fill([&](int64_t, int64_t) { return d(rng); });
  c.fill([&](int64_t, int64_t) { return d(rng); });
  const Stored c0 = c;
  const GemmProblem p = problem_of(s, a, b, c);
  EXPECT_EQ(gemm(Layout::RowMajor, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), a.ld(), b.data(),
                 b.ld(), 0.5f, c.data(), c.ld(), ctx),
            Status::Ok);
  const test::Reference r = test::reference_gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a, b, 0.5f, c0);
  EXPECT_EQ(test::check_result(c, r), "") << s.m << "x" << s.n << "x" << s.k;
  return ::adaptcore::detail::impl_of(ctx).key_for(p);
}

TEST(PlanFile, EntrySizeIsFixed) {
  auto ctx = fresh();
  const std::string empty = write_plan_bytes({}, ctx->hardware(), ctx->isa());
  EXPECT_EQ(empty.size(), count_offset() + 8 + 8);
  const ShapeKey key = run_checked(*ctx, shapes()[1]);
  const Plan plan = ::adaptcore::detail::impl_of(*ctx).plan_for(key);
  const std::string one = write_plan_bytes({{key, plan}}, ctx->hardware(), ctx->isa());
  EXPECT_EQ(one.size(), empty.size() + kPlanEntryBytes);
  EXPECT_EQ(one.substr(0, 8), std::string("ACPLAN\0\0", 8));
}

TEST(PlanFile, RoundTripPlansIdenticalAndUsed) {
  auto ctx = fresh();
  std::vector<ShapeKey> keys;
  for (const Shape& s : shapes()) keys.push_back(run_checked(*ctx, s));
  ASSERT_EQ(ctx->cached_plans(), shapes().size());
  const std::string path = temp_path("roundtrip.plan");
  ASSERT_EQ(ctx->save_plan_file(path), Status::Ok);

  auto ctx2 = fresh();
  EXPECT_EQ(ctx2->cached_plans(), 0u);
  std::string err;
  ASSERT_EQ(ctx2->load_plan_file(path, &err), Status::Ok) << err;
  EXPECT_EQ(ctx2->cached_plans(), shapes().size());
  for (const ShapeKey& key : keys) {
    const Plan* a = ::adaptcore::detail::impl_of(*ctx).cache().find(key);
    const Plan* b = ::adaptcore::detail::impl_of(*ctx2).cache().find(key);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(same_plan(*a, *b)) << describe(*a) << " vs " << describe(*b);
  }
  // The loaded plans run (no new planning) and compute the right results.
  for (const Shape& s : shapes()) run_checked(*ctx2, s);
  EXPECT_EQ(ctx2->cached_plans(), shapes().size());
  std::remove(path.c_str());
}

// Weight-quantized plans (int8 and int4 weights, one and two activation parts, per-column and
// grouped scales, fp32 and bf16 activations) are saved, loaded, and run from the file.
TEST(PlanFile, WeightQuantizedPlansRoundTrip) {
  const int64_t k = 256, n = 96;
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> w(static_cast<std::size_t>(k * n));
  for (float& v : w) v = nd(rng);
  struct Case {
    WeightFormat format;
    int64_t group;
    ActivationParts parts;
    bool bf16;
    int64_t m;
  };
  const Case cases[] = {{WeightFormat::Int8, 0, ActivationParts::Two, false, 5},
                        {WeightFormat::Int4, 64, ActivationParts::Two, true, 17},
                        {WeightFormat::Int8, 128, ActivationParts::One, false, 1},
                        {WeightFormat::Int4, 128, ActivationParts::One, true, 33}};
  auto ctx = fresh();
  auto run = [&](Context& c, const Case& cs, const QuantizedWeights& h, std::vector<float>& out) {
    std::vector<float> a(static_cast<std::size_t>(cs.m * k));
    std::mt19937 arng(9);
    for (float& v : a) v = nd(arng);
    out.assign(static_cast<std::size_t>(cs.m * n), 0.0f);
    if (!cs.bf16)
      return gemm_quantized(Layout::RowMajor, Trans::No, cs.m, a.data(), k, h, 0.0f, out.data(), n,
                            cs.parts, c);
    std::vector<bf16> ab(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) ab[i] = bf16(a[i]);
    return gemm_quantized(Layout::RowMajor, Trans::No, cs.m, ab.data(), k, h, 0.0f, out.data(), n,
                          cs.parts, c);
  };
  std::vector<QuantizedWeights> handles;
  std::vector<std::vector<float>> first;
  for (const Case& cs : cases) {
    WeightQuantSpec spec;
    spec.format = cs.format;
    spec.group_size = cs.group;
    handles.emplace_back();
    ASSERT_EQ(quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, handles.back(),
                               *ctx),
              Status::Ok);
    first.emplace_back();
    ASSERT_EQ(run(*ctx, cs, handles.back(), first.back()), Status::Ok);
  }
  const auto entries = ::adaptcore::detail::impl_of(*ctx).cache().snapshot();
  ASSERT_EQ(entries.size(), std::size(cases));
  for (const PlanEntry& e : entries) {
    EXPECT_TRUE(is_weight_quantized(e.first.dtype));
    EXPECT_EQ(e.second.kind, PlanKind::WeightQuantized);
  }
  const std::string path = temp_path("wq.plan");
  ASSERT_EQ(ctx->save_plan_file(path), Status::Ok);

  auto ctx2 = fresh();
  std::string err;
  ASSERT_EQ(ctx2->load_plan_file(path, &err), Status::Ok) << err;
  ASSERT_EQ(ctx2->cached_plans(), std::size(cases));
  for (const PlanEntry& e : entries) {
    const Plan* got = ::adaptcore::detail::impl_of(*ctx2).cache().find(e.first);
    ASSERT_NE(got, nullptr);
    EXPECT_TRUE(same_plan(*got, e.second)) << describe(*got) << " vs " << describe(e.second);
  }
  // The loaded plans run without planning again and give the same bits.
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    std::vector<float> again;
    ASSERT_EQ(run(*ctx2, cases[i], handles[i], again), Status::Ok);
    EXPECT_EQ(again, first[i]) << "case " << i;
  }
  EXPECT_EQ(ctx2->cached_plans(), std::size(cases));

  // A weight-quantized plan under a key of another type, or with a split on a thread count
  // that is neither one nor the plan's, is refused.
  PlanEntry bad = entries.front();
  bad.second.quantize_threads = bad.second.threads() + 1;
  EXPECT_FALSE(check_plan_entry(bad.first, bad.second).empty());
  bad = entries.front();
  bad.first.dtype = DType::F32;
  EXPECT_FALSE(check_plan_entry(bad.first, bad.second).empty());
  bad = entries.front();
  bad.first.wq_group = 48;
  EXPECT_FALSE(check_plan_entry(bad.first, bad.second).empty());
  std::remove(path.c_str());
}

// Plans of prepacked weights (fp32, bf16, int8: keys with a panel width) are saved, load
// without error, and are the plans the calls then run.
TEST(PlanFile, PrepackedPlansRoundTrip) {
  const int64_t k = 300, n = 200;
  auto ctx = fresh();
  std::vector<float> b32(static_cast<std::size_t>(k * n), 0.25f);
  std::vector<bf16> b16(b32.size(), bf16(0.25f));
  std::vector<std::int8_t> b8(b32.size(), 2);
  PackedWeights w32, w16, w8;
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b32.data(), n, w32, {}, *ctx),
            Status::Ok);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b16.data(), n, w16, {}, *ctx),
            Status::Ok);
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b8.data(), n, w8, {}, *ctx),
            Status::Ok);
  const int64_t m = 37;
  std::vector<float> a32(static_cast<std::size_t>(m * k), 1.0f),
      c32(static_cast<std::size_t>(m * n));
  std::vector<bf16> a16(a32.size(), bf16(1.0f));
  std::vector<std::uint8_t> a8(a32.size(), 1);
  std::vector<std::int32_t> ci(c32.size());
  auto run = [&](Context& c) {
    EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, m, 1.0f, a32.data(), k, w32, 0.0f,
                          c32.data(), n, c),
              Status::Ok);
    EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, m, 1.0f, a16.data(), k, w16, 0.0f,
                          c32.data(), n, {}, c),
              Status::Ok);
    EXPECT_EQ(gemm_packed(Layout::RowMajor, Trans::No, m, a8.data(), k, {}, w8, {}, 0, ci.data(), n,
                          {}, {}, c),
              Status::Ok);
  };
  ctx->clear_plan_cache();
  run(*ctx);
  const auto entries = ::adaptcore::detail::impl_of(*ctx).cache().snapshot();
  int panel_keys = 0;
  for (const PlanEntry& e : entries) panel_keys += e.first.b_panel_nr != 0;
  EXPECT_EQ(panel_keys, 3);
  const std::string path = temp_path("packed.plan");
  ASSERT_EQ(ctx->save_plan_file(path), Status::Ok);
  auto ctx2 = fresh();
  std::string err;
  ASSERT_EQ(ctx2->load_plan_file(path, &err), Status::Ok) << err;
  for (const PlanEntry& e : entries) {
    const Plan* got = ::adaptcore::detail::impl_of(*ctx2).cache().find(e.first);
    ASSERT_NE(got, nullptr);
    EXPECT_TRUE(same_plan(*got, e.second));
  }
  const std::size_t loaded = ctx2->cached_plans();
  run(*ctx2);  // nothing planned again
  EXPECT_EQ(ctx2->cached_plans(), loaded);
  std::remove(path.c_str());
}

// A plan the planner would not choose, loaded from a file, is the one the context runs.
TEST(PlanFile, LoadedPlanIsTheOneRun) {
  for (Isa isa : test::available_isas()) {
    auto ctx = fresh(2, isa);
    for (const Shape& s : shapes()) {
      auto probe = fresh(2, isa);
      const ShapeKey key = run_checked(*probe, s);
      const Explanation e = ::adaptcore::detail::impl_of(*probe).explain(key);
      ASSERT_FALSE(e.candidates.empty());
      // Every candidate the planner can produce passes the loader's checks.
      for (const auto& c : e.candidates)
        EXPECT_EQ(check_plan_entry(key, c.plan), "") << describe(c.plan);
      const std::size_t pick = e.chosen == 0 ? e.candidates.size() - 1 : 0;
      const Plan odd = e.candidates[pick].plan;
      auto ctx2 = fresh(2, isa);
      const std::string bytes = write_plan_bytes({{key, odd}}, ctx2->hardware(), ctx2->isa());
      std::string err;
      ASSERT_EQ(load_plan_bytes(::adaptcore::detail::impl_of(*ctx2), bytes, &err), Status::Ok)
          << err;
      const Plan* got = ::adaptcore::detail::impl_of(*ctx2).cache().find(key);
      ASSERT_NE(got, nullptr);
      EXPECT_TRUE(same_plan(*got, odd));
      run_checked(*ctx2, s);
      EXPECT_EQ(ctx2->cached_plans(), 1u);
      EXPECT_TRUE(same_plan(*::adaptcore::detail::impl_of(*ctx2).cache().find(key), odd));
    }
  }
}

std::string small_file(Context& ctx) {
  std::vector<PlanEntry> entries;
  for (std::size_t i = 0; i < 3; ++i) {
    const ShapeKey key = run_checked(ctx, shapes()[i]);
    entries.emplace_back(key, *::adaptcore::detail::impl_of(ctx).cache().find(key));
  }
  return write_plan_bytes(entries, ctx.hardware(), ctx.isa());
}

Status load(Context& ctx, const std::string& bytes, std::string* why = nullptr) {
  return load_plan_bytes(::adaptcore::detail::impl_of(ctx), bytes, why);
}

TEST(PlanFile, ForeignHardwareRejected) {
  auto ctx = fresh();
  const ShapeKey key = run_checked(*ctx, shapes()[1]);
  const std::vector<PlanEntry> entries = {
      {key, *::adaptcore::detail::impl_of(*ctx).cache().find(key)}};
  auto target = fresh();
  std::string why;
  ASSERT_EQ(load(*target, write_plan_bytes(entries, ctx->hardware(), ctx->isa()), &why), Status::Ok)
      << why;
  target->clear_plan_cache();

  auto expect_rejected = [&](const HardwareProfile& hw, const char* what) {
    why.clear();
    EXPECT_EQ(load(*target, write_plan_bytes(entries, hw, ctx->isa()), &why),
              Status::InvalidPlanFile)
        << what;
    EXPECT_NE(why.find("other hardware"), std::string::npos) << what << ": " << why;
    EXPECT_EQ(target->cached_plans(), 0u);
  };
  HardwareProfile hw = ctx->hardware();
  hw.name += " (another machine)";
  expect_rejected(hw, "name");
  hw = ctx->hardware();
  hw.l2_bytes *= 2;
  expect_rejected(hw, "L2");
  hw = ctx->hardware();
  hw.cores += 1;
  expect_rejected(hw, "cores");
  hw = ctx->hardware();
  hw.fma_per_cycle_512 = hw.fma_per_cycle_512 == 1.0 ? 2.0 : 1.0;
  expect_rejected(hw, "fma");
  hw = ctx->hardware();
  hw.features.set(Feature::Avx512Vnni, !hw.features.has(Feature::Avx512Vnni));
  expect_rejected(hw, "features");
  // The clock and bandwidths are measured each run and are not part of the fingerprint.
  hw = ctx->hardware();
  hw.freq_ghz += 0.1;
  hw.bw_dram_core_gbs += 1.0;
  EXPECT_EQ(load(*target, write_plan_bytes(entries, hw, ctx->isa()), &why), Status::Ok) << why;
}

TEST(PlanFile, OtherIsaRejected) {
  const auto isas = test::available_isas();
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, isas.size() >= 2);
  auto made = fresh(2, isas.front());
  const std::string bytes = small_file(*made);
  auto other = fresh(2, isas.back());
  std::string why;
  EXPECT_EQ(load(*other, bytes, &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("plans for ISA"), std::string::npos) << why;
  EXPECT_EQ(other->cached_plans(), 0u);
}

TEST(PlanFile, OtherVersionsRejected) {
  auto ctx = fresh();
  const ShapeKey key = run_checked(*ctx, shapes()[0]);
  const std::vector<PlanEntry> entries = {
      {key, *::adaptcore::detail::impl_of(*ctx).cache().find(key)}};
  auto target = fresh();
  std::string why;
  EXPECT_EQ(
      load(*target, write_plan_bytes(entries, ctx->hardware(), ctx->isa(), "0.0.0-other"), &why),
      Status::InvalidPlanFile);
  EXPECT_NE(why.find("made by adaptcore 0.0.0-other"), std::string::npos) << why;

  std::string bytes = write_plan_bytes(entries, ctx->hardware(), ctx->isa());
  put_u32(bytes, 8, kPlanFileFormat + 1);
  fix_checksum(bytes);
  EXPECT_EQ(load(*target, bytes, &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("format version"), std::string::npos) << why;

  bytes = write_plan_bytes(entries, ctx->hardware(), ctx->isa());
  bytes[0] = 'X';
  EXPECT_EQ(load(*target, bytes, &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("bad magic"), std::string::npos) << why;
  EXPECT_EQ(target->cached_plans(), 0u);
}

TEST(PlanFile, TruncatedAtEveryOffsetRejected) {
  auto ctx = fresh();
  const std::string bytes = small_file(*ctx);
  auto target = fresh();
  ASSERT_EQ(load(*target, bytes), Status::Ok);
  target->clear_plan_cache();
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    std::string why;
    ASSERT_EQ(load(*target, bytes.substr(0, len), &why), Status::InvalidPlanFile) << len;
    ASSERT_FALSE(why.empty());
    ASSERT_EQ(target->cached_plans(), 0u) << len;
  }
  // Trailing bytes, a few or a whole entry's worth.
  for (std::size_t extra : {std::size_t{1}, std::size_t{8}, kPlanEntryBytes}) {
    std::string why;
    EXPECT_EQ(load(*target, bytes + std::string(extra, '\0'), &why), Status::InvalidPlanFile);
    EXPECT_EQ(target->cached_plans(), 0u);
  }
  std::string why;
  EXPECT_EQ(load(*target, bytes + "x", &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("trailing garbage"), std::string::npos) << why;
}

TEST(PlanFile, ByteFlipsRejected) {
  auto ctx = fresh();
  const std::string bytes = small_file(*ctx);
  auto target = fresh();
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(1, 255);
  // Every position, several values: a single changed byte always changes FNV-1a.
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    for (int rep = 0; rep < 3; ++rep) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ byte(rng));
      std::string why;
      ASSERT_EQ(load(*target, bad, &why), Status::InvalidPlanFile) << "byte " << at;
      ASSERT_EQ(target->cached_plans(), 0u);
    }
  }
  // Random multi-byte damage.
  std::uniform_int_distribution<std::size_t> pos(0, bytes.size() - 1);
  for (int rep = 0; rep < 2000; ++rep) {
    std::string bad = bytes;
    const int flips = 2 + rep % 6;
    for (int f = 0; f < flips; ++f) bad[pos(rng)] ^= static_cast<char>(byte(rng));
    if (bad == bytes) continue;
    EXPECT_EQ(load(*target, bad), Status::InvalidPlanFile);
  }
  EXPECT_EQ(target->cached_plans(), 0u);
}

TEST(PlanFile, AbsurdCountRejected) {
  auto ctx = fresh();
  const std::string good = small_file(*ctx);
  auto target = fresh();
  for (std::uint64_t count :
       {std::uint64_t{4}, std::uint64_t{1} << 40, ~std::uint64_t{0}, std::uint64_t{2}}) {
    std::string bytes = good;
    put_u64(bytes, count_offset(), count);
    fix_checksum(bytes);
    std::string why;
    EXPECT_EQ(load(*target, bytes, &why), Status::InvalidPlanFile) << count;
    EXPECT_TRUE(why.find("does not fit") != std::string::npos ||
                why.find("trailing garbage") != std::string::npos)
        << why;
  }
  EXPECT_EQ(target->cached_plans(), 0u);
}

// Files with a valid checksum and header whose plans are invalid or unsafe: nothing loads.
TEST(PlanFile, InvalidPlansRejected) {
  auto ctx = fresh(2);
  const ShapeKey key = run_checked(*ctx, shapes()[1]);  // NN, 67 x 131 x 300
  const Plan good = *::adaptcore::detail::impl_of(*ctx).cache().find(key);
  ASSERT_FALSE(good.is_dot());
  const ShapeKey dkey = run_checked(*ctx, shapes()[2]);  // NT: A and B contiguous along k
  ASSERT_TRUE(dkey.a_k_unit && dkey.b_k_unit);
  Plan dot;
  dot.isa = dkey.isa;
  dot.kind = PlanKind::Dot;
  dot.mr = kernels::kDotMr;
  dot.nr = kernels::kDotNr;
  dot.mc = dkey.m, dot.nc = dkey.n, dot.kc = dkey.k;
  ASSERT_EQ(check_plan_entry(dkey, dot), "");
  const auto& ks = *kernels::kernels_for(key.isa);

  struct Case {
    const char* name;
    const char* expect;  // part of the reason
    ShapeKey key;
    Plan plan;
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, const char* expect, auto edit, bool dot_based = false) {
    Case c{name, expect, dot_based ? dkey : key, dot_based ? dot : good};
    edit(c.key, c.plan);
    cases.push_back(c);
  };
  add("tile index past the end", "out of range for",
      [&](ShapeKey&, Plan& p) { p.tile = static_cast<int>(ks.tiles.size()); });
  add("negative tile index", "tile index out of range", [](ShapeKey&, Plan& p) { p.tile = -1; });
  add("mr not the tile's", "does not match tile", [](ShapeKey&, Plan& p) { p.mr += 1; });
  add("nr not the tile's", "does not match tile", [](ShapeKey&, Plan& p) { p.nr = 1; });
  add("zero grid", "core grid", [](ShapeKey&, Plan& p) { p.pm = 0; });
  add("negative grid", "core grid", [](ShapeKey&, Plan& p) {
    p.pn = -2;
    p.pm = -1;
  });
  add("grid above threads", "larger than the key's thread count", [](ShapeKey& k, Plan& p) {
    p.pm = k.threads;
    p.pn = 2;
  });
  add("huge grid", "core grid", [](ShapeKey&, Plan& p) {
    p.pm = 1 << 16;
    p.pn = 1 << 16;
    p.pk = 1 << 16;
  });
  add("mc zero", "cache block out of range", [](ShapeKey&, Plan& p) { p.mc = 0; });
  add("nc negative", "cache block out of range", [](ShapeKey&, Plan& p) { p.nc = -64; });
  // Fields that the rules divide by or multiply: each is range-checked before any rule uses
  // it (a zero nr once reached `nc % nr` in the register-tile rules: SIGFPE at load).
  add("nr zero", "register tile out of range", [](ShapeKey&, Plan& p) { p.nr = 0; });
  add("mr zero", "register tile out of range", [](ShapeKey&, Plan& p) { p.mr = 0; });
  add("nr negative", "register tile out of range", [](ShapeKey&, Plan& p) { p.nr = -16; });
  add("kc zero", "cache block out of range", [](ShapeKey&, Plan& p) { p.kc = 0; });
  add("tile index huge", "tile index out of range", [](ShapeKey&, Plan& p) { p.tile = 1 << 30; });
  add("activation split threads zero", "activation split threads",
      [](ShapeKey&, Plan& p) { p.quantize_threads = 0; });
  add(
      "dot with nr zero", "register tile out of range", [](ShapeKey&, Plan& p) { p.nr = 0; }, true);
  add(
      "dot with kc zero", "cache block out of range", [](ShapeKey&, Plan& p) { p.kc = 0; }, true);
  add("kc beyond k", "larger than the shape", [](ShapeKey& k, Plan& p) { p.kc = k.k + 1; });
  add("mc huge", "cache block out of range", [](ShapeKey&, Plan& p) { p.mc = int64_t{1} << 50; });
  add("mc a little larger than the shape", "larger than the shape",
      [](ShapeKey& k, Plan& p) { p.mc = k.m + 64; });
  add("B in place, rows not contiguous", "B read in place", [](ShapeKey& k, Plan& p) {
    k.b_row_unit = false;
    k.b_k_unit = true;
    p.pack_b = false;
  });
  add("C transposed by a tile without the kernels", "transposed", [&](ShapeKey&, Plan& p) {
    p.transpose_c = true;
    for (std::size_t t = 0; t < ks.tiles.size(); ++t)
      if (!ks.tiles[t].has_transposed_store()) {
        p.tile = static_cast<int>(t);
        p.mr = ks.tiles[t].mr;
        p.nr = ks.tiles[t].nr;
        break;
      }
  });
  add(
      "C transposed on a dot plan", "not a register-tile plan",
      [](ShapeKey&, Plan& p) { p.transpose_c = true; }, true);
  add("B prefetched but packed", "B prefetching", [](ShapeKey&, Plan& p) {
    p.pack_b = true;
    p.prefetch_b = true;
  });
  add("padded tail without packing", "padded tail", [](ShapeKey&, Plan& p) {
    p.pack_a = false;
    p.tail = TailStrategy::Padded;
  });
  add("plan ISA differs", "plan ISA",
      [](ShapeKey& k, Plan& p) { p.isa = k.isa == Isa::Generic ? Isa::Avx2 : Isa::Generic; });
  add("unknown tail", "tail strategy",
      [](ShapeKey&, Plan& p) { p.tail = static_cast<TailStrategy>(7); });
  add("unknown capacity", "shape class",
      [](ShapeKey&, Plan& p) { p.cls.capacity = static_cast<CapacityClass>(9); });
  add("NaN prediction", "predicted", [](ShapeKey&, Plan& p) { p.predicted_us = std::nan(""); });
  add("zero m", "dimensions", [](ShapeKey& k, Plan&) { k.m = 0; });
  add("zero threads", "thread count", [](ShapeKey& k, Plan&) { k.threads = 0; });
  add("impossible A layout", "impossible A layout", [](ShapeKey& k, Plan&) {
    k.a_row_unit = true;
    k.a_k_unit = false;
  });
  add("ld class out of range", "leading-dimension", [](ShapeKey& k, Plan&) { k.b_ld_log2 = 40; });
  add(
      "dot with split-K", "split-K", [](ShapeKey&, Plan& p) { p.pk = 2; }, true);
  add(
      "dot with packing", "packing", [](ShapeKey&, Plan& p) { p.pack_b = true; }, true);
  add(
      "dot with a register tile", "wrong tile", [](ShapeKey&, Plan& p) { p.mr = 8; }, true);
  add(
      "dot, B not contiguous along k", "not contiguous along k",
      [](ShapeKey& k, Plan&) {
        k.b_row_unit = true;
        k.b_k_unit = false;
      },
      true);
  add(
      "dot, A not contiguous along k", "not contiguous along k",
      [](ShapeKey& k, Plan&) {
        k.a_row_unit = false;
        k.a_k_unit = false;
      },
      true);

  auto target = fresh(2);
  for (const Case& c : cases) {
    EXPECT_NE(check_plan_entry(c.key, c.plan), "") << c.name;
    const std::string bytes =
        write_plan_bytes({{key, good}, {c.key, c.plan}}, ctx->hardware(), ctx->isa());
    std::string why;
    EXPECT_EQ(load(*target, bytes, &why), Status::InvalidPlanFile) << c.name;
    EXPECT_NE(why.find("entry 1"), std::string::npos) << c.name << ": " << why;
    EXPECT_NE(why.find(c.expect), std::string::npos) << c.name << ": " << why;
    EXPECT_EQ(target->cached_plans(), 0u) << c.name;  // all or nothing
  }
  // Unknown enum values written as raw bytes (the writer can only write the enum's byte).
  std::string bytes = write_plan_bytes({{key, good}}, ctx->hardware(), ctx->isa());
  const std::size_t entry = count_offset() + 8;
  std::string bad = bytes;
  bad[entry + 24] = static_cast<char>(0x80);  // unknown key flag bit
  fix_checksum(bad);
  std::string why;
  EXPECT_EQ(load(*target, bad, &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("flag"), std::string::npos) << why;
  bad = bytes;
  put_u32(bad, entry + 27, 42);  // unknown key ISA
  fix_checksum(bad);
  EXPECT_EQ(load(*target, bad, &why), Status::InvalidPlanFile);
  EXPECT_NE(why.find("ISA"), std::string::npos) << why;
  EXPECT_EQ(target->cached_plans(), 0u);
}

TEST(PlanFile, MissingFileWarnsOnStderr) {
  auto ctx = fresh();
  const std::string path = temp_path("does_not_exist.plan");
  testing::internal::CaptureStderr();
  std::string err;
  EXPECT_EQ(ctx->load_plan_file(path, &err), Status::InvalidPlanFile);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("adaptcore: plan file " + path + " ignored: cannot open"), std::string::npos)
      << out;
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;

  // A damaged file warns with its reason too.
  write_all(path, "ACPLAN\0\0garbage");
  testing::internal::CaptureStderr();
  EXPECT_EQ(ctx->load_plan_file(path), Status::InvalidPlanFile);
  const std::string out2 = testing::internal::GetCapturedStderr();
  EXPECT_NE(out2.find("adaptcore: plan file " + path + " ignored: "), std::string::npos) << out2;
  std::remove(path.c_str());
  EXPECT_EQ(ctx->cached_plans(), 0u);
}

TEST(PlanFile, SaveKeepsActiveIsaOnly) {
  const auto isas = test::available_isas();
  auto ctx = fresh(2, isas.back());
  run_checked(*ctx, shapes()[0]);
  if (isas.size() > 1) {
    ASSERT_EQ(ctx->set_isa(isas.front()), Status::Ok);
    run_checked(*ctx, shapes()[1]);
    ASSERT_EQ(ctx->set_isa(isas.back()), Status::Ok);
  }
  const std::string path = temp_path("active.plan");
  ASSERT_EQ(ctx->save_plan_file(path), Status::Ok);
  auto target = fresh(2, isas.back());
  ASSERT_EQ(target->load_plan_file(path), Status::Ok);
  EXPECT_EQ(target->cached_plans(), 1u);
  std::remove(path.c_str());
  EXPECT_EQ(ctx->save_plan_file("/nonexistent-dir/x.plan"), Status::InvalidArgument);
}

class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) {
      had_ = true;
      saved_ = v;
    }
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, saved_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  void set(const std::string& value) { ::setenv(name_, value.c_str(), 1); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string saved_;
  bool had_ = false;
};

TEST(PlanFile, EnvironmentVariable) {
  ScopedEnv env("ADAPTCORE_PLAN_FILE");
  ::unsetenv("ADAPTCORE_PLAN_FILE");
  const std::string path = temp_path("env.plan");
  std::size_t saved = 0;
  {
    Context ctx;  // the environment's threads / ISA, like the context that will load
    for (const Shape& s : shapes()) run_checked(ctx, s);
    saved = ctx.cached_plans();
    ASSERT_EQ(ctx.save_plan_file(path), Status::Ok);
  }
  env.set(path);
  {
    Context ctx;
    EXPECT_EQ(ctx.init_status(), Status::Ok) << ctx.init_message();
    EXPECT_EQ(ctx.cached_plans(), saved);
    for (const Shape& s : shapes()) run_checked(ctx, s);
    EXPECT_EQ(ctx.cached_plans(), saved);
  }
  {
    ContextOptions o;
    o.read_environment = false;  // ignores the variable
    Context ctx(o);
    EXPECT_EQ(ctx.cached_plans(), 0u);
    o.plan_file = path;  // the option does the same
    Context ctx2(o);
    EXPECT_EQ(ctx2.init_status(), Status::Ok) << ctx2.init_message();
  }
  // A bad file: a warning and a note, and the context still works.
  write_all(path, read_all(path).substr(0, 40));
  testing::internal::CaptureStderr();
  {
    Context ctx;
    const std::string out = testing::internal::GetCapturedStderr();
    EXPECT_NE(out.find("adaptcore: plan file " + path + " ignored:"), std::string::npos) << out;
    EXPECT_EQ(ctx.init_status(), Status::InvalidPlanFile);
    EXPECT_NE(ctx.init_message().find("plan file"), std::string::npos) << ctx.init_message();
    EXPECT_EQ(ctx.cached_plans(), 0u);
    run_checked(ctx, shapes()[1]);
  }
  std::remove(path.c_str());
}

// A plan file edited by hand and re-summed (the checksum is public) with an entry of nr 0, read
// through ADAPTCORE_PLAN_FILE by the first context of a process: a note, never a crash.
TEST(PlanFile, EnvironmentFileWithZeroTileRejected) {
  ScopedEnv env("ADAPTCORE_PLAN_FILE");
  ::unsetenv("ADAPTCORE_PLAN_FILE");
  const std::string path = temp_path("zero_nr.plan");
  auto ctx = fresh(2);
  const ShapeKey key = run_checked(*ctx, shapes()[1]);
  Plan bad = *::adaptcore::detail::impl_of(*ctx).cache().find(key);
  bad.nr = 0;
  write_all(path, write_plan_bytes({{key, bad}}, ctx->hardware(), ctx->isa()));
  env.set(path);
  testing::internal::CaptureStderr();
  {
    ContextOptions o;
    o.threads = 2;
    Context loaded(o);
    const std::string out = testing::internal::GetCapturedStderr();
    EXPECT_EQ(loaded.init_status(), Status::InvalidPlanFile);
    EXPECT_NE(out.find("register tile out of range"), std::string::npos) << out;
    EXPECT_EQ(loaded.cached_plans(), 0u);
    run_checked(loaded, shapes()[1]);
  }
  std::remove(path.c_str());
}

TEST(PlanFile, CApi) {
  EXPECT_EQ(ac_load_plan_file(nullptr), AC_STATUS_INVALID_ARGUMENT);
  testing::internal::CaptureStderr();
  EXPECT_EQ(ac_load_plan_file(temp_path("missing.plan").c_str()), AC_STATUS_INVALID_PLAN_FILE);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(static_cast<int>(Status::InvalidPlanFile), AC_STATUS_INVALID_PLAN_FILE);
  EXPECT_NE(std::string(ac_status_string(AC_STATUS_INVALID_PLAN_FILE)), "unknown status");
}

}  // namespace
}  // namespace adaptcore
