// Calibration (tools/calibrate/calibrate.cpp): the quick calibration yields a plausible profile
// that round-trips through JSON and that a Context applies.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "adaptcore/hardware.hpp"
#include "calibrate/calibrate.hpp"
#include "measure/read_loops.hpp"

namespace adaptcore {
namespace {

class Calibration : public ::testing::Test {
 protected:
  // One quick calibration for the whole suite (a few seconds).
  static void SetUpTestSuite() {
    CalibrationOptions opt;
    opt.quick = true;
    opt.threads = 2;
    profile_ = new HardwareProfile(calibrate(opt, detected_hardware(), &report_));
  }
  static void TearDownTestSuite() {
    delete profile_;
    profile_ = nullptr;
  }
  static const HardwareProfile& hw() { return *profile_; }

  static HardwareProfile* profile_;
  static CalibrationReport report_;
};
HardwareProfile* Calibration::profile_ = nullptr;
CalibrationReport Calibration::report_;

std::string temp_path(const char* tag) {
  return ::testing::TempDir() + "adaptcore_calibration_" + tag + "_" + std::to_string(::getpid()) +
         ".json";
}

TEST_F(Calibration, ReportsWhatItMeasured) {
  EXPECT_EQ(report_.threads, 2);
  EXPECT_GT(report_.l1_buffer, 0);
  EXPECT_LT(report_.l1_buffer, report_.l2_buffer);
  EXPECT_LT(report_.l2_buffer, report_.l3_buffer);
  EXPECT_LE(256LL << 20, report_.dram_buffer);
  EXPECT_GT(report_.seconds, 0.0);
  EXPECT_LT(report_.seconds, 10.0) << "--quick must stay under 10 s";
  EXPECT_EQ(report_.timestamp.size(), 20u) << report_.timestamp;
  EXPECT_EQ(hw().source, "calibrated");
}

TEST_F(Calibration, EveryFieldPositiveAndPlausible) {
  const HardwareProfile& p = hw();
  EXPECT_GE(p.freq_ghz, 0.5);
  EXPECT_LE(p.freq_ghz, 8.0);
  for (double f : {p.fma_per_cycle_512, p.fma_per_cycle_256}) {
    EXPECT_GE(f, 0.5);
    EXPECT_LE(f, 4.0);
    EXPECT_EQ(f * 2.0, std::round(f * 2.0)) << "FMA rates are rounded to 0.5";
  }
  for (double bw : {p.bw_l1_gbs, p.bw_l2_gbs, p.bw_l3_gbs, p.bw_dram_core_gbs, p.bw_dram_total_gbs,
                    p.pack_gbs}) {
    EXPECT_GT(bw, 0.1);
    EXPECT_LT(bw, 10000.0);
  }
  // The hierarchy: each level feeds one core faster than the next (generous margins: the
  // machine may be loaded while the tests run). Not under AddressSanitizer or
  // ThreadSanitizer: every instrumented load then costs a shadow-memory check, so the read
  // loops measure the instrumentation and the levels come out alike.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_GT(p.bw_l1_gbs, p.bw_l2_gbs);
  EXPECT_GT(p.bw_l2_gbs, p.bw_dram_core_gbs);
  EXPECT_GT(p.bw_l3_gbs, 0.5 * p.bw_dram_core_gbs);
#endif
  // One L1-resident read pass moves at most ~4 x 64 B per cycle.
  EXPECT_LT(p.bw_l1_gbs, 4 * 64 * p.freq_ghz * 1.5);
  EXPECT_GT(p.fork_join_us, 0.0);
  EXPECT_LT(p.fork_join_us, 10000.0);
  // The terms that decide plans: the row streams and their shares from L3, the L3 a core
  // keeps, the dot-product rates (rounded like the FMA rates).
  EXPECT_GE(p.l3_row_streams, 1.0);
  EXPECT_LE(p.l3_row_streams, 64.0);
  for (double share : {p.l3_row_share_paged, p.l3_row_share}) {
    EXPECT_GE(share, 0.01);
    EXPECT_LE(share, 1.0);
  }
  EXPECT_GT(report_.row_gbs_one, 0.0);
  EXPECT_GE(p.l3_warm_bytes, p.l2_bytes);
  for (double d : {p.dot_bf16_per_cycle, p.dot_int8_per_cycle}) {
    EXPECT_GE(d, 0.5);
    EXPECT_LE(d, 4.0);
    EXPECT_EQ(d * 2.0, std::round(d * 2.0));
  }
  // The kernel call probe measured a tile, and the cycles a call are within the profile's range.
  EXPECT_GT(report_.call_mr, 0);
  EXPECT_GT(report_.call_deep_us, 0.0);
  EXPECT_GE(p.kernel_call_cycles, 0.0);
  EXPECT_LE(p.kernel_call_cycles, 1e5);
  // The in-place DRAM probe's run gives its loss and, the same run as a rate, B's share.
  if (report_.in_place_mr > 0) {
    EXPECT_GE(p.dram_in_place_share, 0.01);
    EXPECT_LE(p.dram_in_place_share, 2.0);
  }
  // The long-row re-read probe measured a tile; its share is in range.
  if (report_.long_mr > 0) {
    EXPECT_GT(report_.long_many_us, report_.long_one_us);
    EXPECT_GE(p.l2_row_share_long, 0.01);
    EXPECT_LE(p.l2_row_share_long, 1.0);
  }
  // The few-row stream probe ran one row over B from DRAM and from L3; its exponent is in range.
  if (report_.few_row_mr > 0) {
    EXPECT_GT(report_.few_row_deep_us, 0.0);
    // The L3 form runs where the L3 probe's buffer holds enough rows (its k is set then).
    EXPECT_EQ(report_.few_row_l3_k > 0, report_.few_row_l3_shallow_us > 0.0);
    EXPECT_GE(p.few_row_stream_exponent, 0.0);
    EXPECT_LE(p.few_row_stream_exponent, 4.0);
  }
  EXPECT_GE(report_.dram_core_prefetch_gbs, 0.0);
  EXPECT_GT(report_.dram_core_streams_gbs, 0.0);
  // The streams' rate is reported, not used (calibrate.cpp says why).
  EXPECT_EQ(p.bw_dram_core_gbs,
            std::max(report_.dram_core_plain_gbs, report_.dram_core_prefetch_gbs));
  // Fields calibration does not measure come from the base profile.
  const HardwareProfile& d = detected_hardware();
  EXPECT_EQ(p.l1d_bytes, d.l1d_bytes);
  EXPECT_EQ(p.l2_bytes, d.l2_bytes);
  EXPECT_EQ(p.cores, d.cores);
  EXPECT_EQ(p.features.has(Feature::Avx512F), d.features.has(Feature::Avx512F));
  EXPECT_EQ(p.name, d.name);
}

TEST_F(Calibration, RoundTripsThroughJson) {
  const std::string text = calibrated_profile_json(hw(), report_);
  EXPECT_NE(text.find("\"calibrated\": true"), std::string::npos);
  EXPECT_NE(text.find("\"calibrated_at\""), std::string::npos);
  // Start from a base that differs in every calibrated field, so nothing passes by accident.
  HardwareProfile base = detected_hardware();
  base.freq_ghz = 1.234;
  base.bw_l1_gbs = base.bw_l2_gbs = base.bw_l3_gbs = 1.0;
  base.bw_dram_core_gbs = base.bw_dram_total_gbs = base.pack_gbs = 1.0;
  base.fma_per_cycle_512 = base.fma_per_cycle_256 = 3.5;
  base.fork_join_us = 777.0;
  base.l3_row_streams = 333.0;
  base.l3_row_share_paged = base.l3_row_share = 0.011;
  base.dot_bf16_per_cycle = base.dot_int8_per_cycle = 9.5;
  base.l3_warm_bytes = 12345678;
  HardwareProfile back;
  std::string err;
  ASSERT_EQ(profile_from_json(text, base, back, &err), Status::Ok) << err;
  EXPECT_EQ(back.freq_ghz, hw().freq_ghz);
  EXPECT_EQ(back.fma_per_cycle_512, hw().fma_per_cycle_512);
  EXPECT_EQ(back.fma_per_cycle_256, hw().fma_per_cycle_256);
  EXPECT_EQ(back.bw_l1_gbs, hw().bw_l1_gbs);
  EXPECT_EQ(back.bw_l2_gbs, hw().bw_l2_gbs);
  EXPECT_EQ(back.bw_l3_gbs, hw().bw_l3_gbs);
  EXPECT_EQ(back.bw_dram_core_gbs, hw().bw_dram_core_gbs);
  EXPECT_EQ(back.bw_dram_total_gbs, hw().bw_dram_total_gbs);
  EXPECT_EQ(back.pack_gbs, hw().pack_gbs);
  EXPECT_EQ(back.fork_join_us, hw().fork_join_us);
  // And the whole profile: to_json of the reloaded profile equals the original's (source is
  // not read from a file: the loader sets it to the file's path).
  back.source = hw().source;
  EXPECT_EQ(to_json(back), to_json(hw()));
}

TEST_F(Calibration, ContextAppliesTheProfile) {
  const std::string path = temp_path("ctx");
  {
    std::ofstream f(path);
    f << calibrated_profile_json(hw(), report_);
  }
  ContextOptions o;
  o.read_environment = false;
  o.profile_path = path;
  o.threads = 2;
  Context ctx(o);
  ASSERT_EQ(ctx.init_status(), Status::Ok) << ctx.init_message();
  EXPECT_EQ(ctx.hardware().source, path);
  EXPECT_EQ(ctx.hardware().bw_l2_gbs, hw().bw_l2_gbs);
  EXPECT_EQ(ctx.hardware().fork_join_us, hw().fork_join_us);
  EXPECT_EQ(ctx.hardware().pack_gbs, hw().pack_gbs);

  // Loading it later into a context that started from detection applies it too, and the
  // context still computes correctly with the plans it makes from it.
  ContextOptions plain;
  plain.read_environment = false;
  plain.threads = 2;
  Context late(plain);
  std::string err;
  ASSERT_EQ(late.load_hardware_profile(path, &err), Status::Ok) << err;
  EXPECT_EQ(late.hardware().bw_dram_core_gbs, hw().bw_dram_core_gbs);
  const int64_t m = 37, n = 45, k = 29;
  std::vector<float> a(m * k, 0.5f), b(k * n, 2.0f), c(m * n, -1.0f);
  ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n,
                 0.0f, c.data(), n, late),
            Status::Ok);
  for (float v : c) ASSERT_EQ(v, static_cast<float>(k));
  std::remove(path.c_str());
}

// Profile files written before the rates were named by vector width still load; where a file
// gives both names, the current one wins.
// The several-streams passes behind the DRAM rates read every float once, whatever is left
// over after the streams' whole chunks: its sum is the plain pass's (small integers, exact).
TEST(ReadLoops, StreamsPassReadsEveryElementOnce) {
  for (const std::int64_t n : {std::int64_t{128}, std::int64_t{2048}, std::int64_t{2048 + 384},
                               std::int64_t{8 * 256 * 5 + 128}}) {
    std::vector<float> v(static_cast<std::size_t>(n) + 16);
    auto* p = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(v.data()) + 63) / 64 * 64);
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 7);
    EXPECT_EQ(measure::loops::read_pass_streams(p, n), measure::loops::read_pass_sse(p, n)) << n;
    EXPECT_EQ(measure::loops::read_pass_short_streams(p, n), measure::loops::read_pass_sse(p, n))
        << n;
  }
}

TEST(ProfileKeys, OlderRateNamesStillLoad) {
  HardwareProfile out;
  std::string err;
  ASSERT_EQ(profile_from_json(R"({"fma_per_cycle_avx512": 1.5, "fma_per_cycle_avx2": 1.0})",
                              detected_hardware(), out, &err),
            Status::Ok)
      << err;
  EXPECT_EQ(out.fma_per_cycle_512, 1.5);
  EXPECT_EQ(out.fma_per_cycle_256, 1.0);
  ASSERT_EQ(profile_from_json(R"({"fma_per_cycle_avx512": 1.5, "fma_per_cycle_512": 2.0})",
                              detected_hardware(), out, &err),
            Status::Ok)
      << err;
  EXPECT_EQ(out.fma_per_cycle_512, 2.0);
  // Out of range under the old name is refused like under the new one.
  EXPECT_EQ(profile_from_json(R"({"fma_per_cycle_avx2": 1000})", detected_hardware(), out, &err),
            Status::InvalidProfile);
  // The feature flags keep their names.
  const std::string text = to_json(detected_hardware());
  for (int i = 0; i < kFeatureCount; ++i)
    EXPECT_NE(text.find(std::string("\"") + to_string(static_cast<Feature>(1u << i)) + "\""),
              std::string::npos);
}

}  // namespace
}  // namespace adaptcore
