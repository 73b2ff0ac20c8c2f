// The profiles shipped per microarchitecture (hw/shipped_profiles.hpp): each loads, says which
// CPUs it is for and how it was measured; a CPU gets its own or its vendor's nearest, never
// another vendor's; a context starts from it and "detected" takes detection alone. And the
// model term they carry: the L3 row-stream share.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "adaptcore/adaptcore.hpp"
#include "core/flat_json.hpp"
#include "hw/cpu_identity.hpp"
#include "hw/shipped_profiles.hpp"
#include "kernels/registry.hpp"
#include "model/cpu_model.hpp"
#include "model/wq_model.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {
namespace {

TEST(ShippedProfiles, EachLoadsAndSaysWhatItIsForAndHowItWasMeasured) {
  ASSERT_GE(shipped_profiles().size(), 2u);
  for (const ShippedProfile& p : shipped_profiles()) {
    SCOPED_TRACE(p.file);
    HardwareProfile out;
    std::string err;
    EXPECT_EQ(profile_from_json(p.text, detected_hardware(), out, &err), Status::Ok) << err;
    FlatJsonObject obj;
    ASSERT_EQ(obj.parse(p.text, "adaptcore-hardware-profile", 1), "");
    for (const char* key : {"microarchitecture", "cpu_vendor", "cpu_models", "measured_on",
                            "measured_at", "measured_by"}) {
      const auto* v = obj.find(key);
      ASSERT_NE(v, nullptr) << key;
      EXPECT_EQ(v->kind, FlatJsonObject::Kind::String) << key;
      EXPECT_FALSE(v->s.empty()) << key;
    }
    ASSERT_NE(obj.find("cpu_family"), nullptr);
    // Rates and model terms only: sizes, cores and features stay as detected on every host.
    for (const char* key : {"name", "cores", "l1d_bytes", "l2_bytes", "l3_bytes", "l3_warm_bytes",
                            "avx512f", "avx2", "freq_ghz"})
      EXPECT_EQ(obj.find(key), nullptr) << key;
  }
}

// The file of the profile a match names, "none" where it names none.
std::string matched_file(const ShippedMatch& m) {
  return m.profile != nullptr ? m.profile->file : "none";
}

TEST(ShippedProfiles, ACpuGetsItsOwnProfileOrItsVendorsNearest) {
  const ShippedMatch zen4 = match_shipped_profile({"AuthenticAMD", 25, 17});
  EXPECT_EQ(matched_file(zen4), "amd-zen4.json");
  EXPECT_TRUE(zen4.exact);
  const ShippedMatch emr = match_shipped_profile({"GenuineIntel", 6, 207});
  EXPECT_EQ(matched_file(emr), "intel-emerald-rapids.json");
  EXPECT_TRUE(emr.exact);
  const ShippedMatch zen3 = match_shipped_profile({"AuthenticAMD", 25, 1}, false);
  EXPECT_EQ(matched_file(zen3), "amd-zen3.json");
  EXPECT_TRUE(zen3.exact);
  const ShippedMatch zen5 = match_shipped_profile({"AuthenticAMD", 26, 2}, true);
  EXPECT_EQ(matched_file(zen5), "amd-zen5.json");
  EXPECT_TRUE(zen5.exact);
  // Another Zen 5 model (the desktop part, 68): its family's profile, not exact.
  const ShippedMatch zen5_desktop = match_shipped_profile({"AuthenticAMD", 26, 68}, true);
  EXPECT_EQ(matched_file(zen5_desktop), "amd-zen5.json");
  EXPECT_FALSE(zen5_desktop.exact);
  // A later AVX-512 family (27, model 17: as near Zen 4's model 17 as a model can be) takes
  // the nearest family of its vector ISA, Zen 5's, before any model number.
  const ShippedMatch next = match_shipped_profile({"AuthenticAMD", 27, 17}, true);
  EXPECT_EQ(matched_file(next), "amd-zen5.json");
  EXPECT_FALSE(next.exact);
  EXPECT_TRUE(next.same_vector_isa);
  // An AVX2-only part of that family: Zen 3's, the vendor's only AVX2 profile.
  EXPECT_EQ(matched_file(match_shipped_profile({"AuthenticAMD", 26, 2}, false)), "amd-zen3.json");
  // Zen 2 (family 23, AVX2): Zen 3's; with the ISA unknown, the nearest number.
  const ShippedMatch zen2 = match_shipped_profile({"AuthenticAMD", 23, 49}, false);
  EXPECT_EQ(matched_file(zen2), "amd-zen3.json");
  // With the ISA unknown, the nearest number: family 25 model 2 is Zen 3's model 1.
  EXPECT_EQ(matched_file(match_shipped_profile({"AuthenticAMD", 25, 2})), "amd-zen3.json");
  // A vector ISA no profile of the vendor has: the nearest, marked as another ISA.
  const ShippedMatch avx2_intel = match_shipped_profile({"GenuineIntel", 6, 85}, false);
  ASSERT_NE(avx2_intel.profile, nullptr);
  EXPECT_FALSE(avx2_intel.same_vector_isa);
  const ShippedMatch icelake = match_shipped_profile({"GenuineIntel", 6, 106});
  EXPECT_EQ(matched_file(icelake), "intel-emerald-rapids.json");
  EXPECT_FALSE(icelake.exact);
  EXPECT_EQ(match_shipped_profile({"HygonGenuine", 24, 0}).profile, nullptr);
  // Far-off numbers: still the vendor's nearest, no overflow.
  EXPECT_NE(match_shipped_profile({"AuthenticAMD", 2147483647, -2147483647}).profile, nullptr);
  EXPECT_EQ(match_shipped_profile({}).profile, nullptr);
}

TEST(ShippedProfiles, AppliedOverDetectionKeepingItsSizesAndFeatures) {
  HardwareProfile base = detected_hardware();
  base.l2_bytes = 3 * 1024 * 1024;
  base.bw_l3_gbs = 1.0;
  const HardwareProfile emr = apply_shipped_profile(base, {"GenuineIntel", 6, 207});
  EXPECT_EQ(emr.l2_bytes, base.l2_bytes);
  EXPECT_EQ(to_string(emr.features), to_string(base.features));
  EXPECT_DOUBLE_EQ(emr.bw_l3_gbs, 27.6);
  EXPECT_NE(emr.source.find("intel-emerald-rapids.json"), std::string::npos) << emr.source;
  // The nearest of the vendor's: its row-stream terms, not its rates. (A base whose row terms
  // differ from every profile's and from the defaults, so each copied field shows.)
  base.l3_row_streams = 3.0;
  base.l3_row_share_paged = base.l3_row_share = 0.33;
  base.dot_bf16_per_cycle = 7.5;
  base.l2_row_share_paged = 0.44;
  base.l2_row_share_long = 0.44;
  base.dram_in_place_loss = 0.33;
  base.dram_in_place_share = 0.33;
  base.dram_pack_share = 0.33;
  base.dram_self_streaming_rows = 3;
  base.dram_self_streaming_row_bytes = 999;
  base.few_row_stream_exponent = 3.3;
  base.kernel_call_cycles = 99.0;
  base.features.set(Feature::Avx512F, true);  // the nearest is then one of AVX-512's
  const HardwareProfile zen4 = apply_shipped_profile(base, {"AuthenticAMD", 25, 17});
  const HardwareProfile zen5 = apply_shipped_profile(base, {"AuthenticAMD", 26, 2});
  // A later AVX-512 family (27) without its own profile: Zen 5 is its nearest.
  const HardwareProfile next = apply_shipped_profile(base, {"AuthenticAMD", 27, 17});
  // The paged re-read share of the nearest's tiles only where they are this CPU's ISA's: an
  // AVX2 Zen 2 takes Zen 3's, a later AVX-512 family Zen 5's (which ships none).
  EXPECT_DOUBLE_EQ(next.l2_row_share_paged, zen5.l2_row_share_paged);
  HardwareProfile avx2_base = base;
  avx2_base.features.set(Feature::Avx512F, false);
  const HardwareProfile zen3 = apply_shipped_profile(avx2_base, {"AuthenticAMD", 25, 1});
  const HardwareProfile zen2 = apply_shipped_profile(avx2_base, {"AuthenticAMD", 23, 49});
  EXPECT_LT(zen3.l2_row_share_paged, 1.0);
  EXPECT_DOUBLE_EQ(zen2.l2_row_share_paged, zen3.l2_row_share_paged);
  // And the long-row share (M36: 0.75 on Zen 3; Zen 5 ships none).
  EXPECT_DOUBLE_EQ(zen3.l2_row_share_long, 0.75);
  EXPECT_DOUBLE_EQ(zen2.l2_row_share_long, zen3.l2_row_share_long);
  EXPECT_DOUBLE_EQ(next.l2_row_share_long, zen5.l2_row_share_long);
  // So is the in-place DRAM loss (measured with the same tiles).
  EXPECT_GT(zen3.dram_in_place_loss, 0.5);
  EXPECT_DOUBLE_EQ(zen2.dram_in_place_loss, zen3.dram_in_place_loss);
  EXPECT_DOUBLE_EQ(next.dram_in_place_loss, zen5.dram_in_place_loss);
  // And the same probe's rate of B read ahead by column tiles (M34: 0.8 on Zen 3).
  EXPECT_DOUBLE_EQ(zen3.dram_in_place_share, 0.8);
  EXPECT_DOUBLE_EQ(zen2.dram_in_place_share, zen3.dram_in_place_share);
  EXPECT_DOUBLE_EQ(next.dram_in_place_share, zen5.dram_in_place_share);
  // And its packers' rate out of DRAM (M27: 0.73 on Zen 3, 0.44 on Zen 5).
  EXPECT_DOUBLE_EQ(zen3.dram_pack_share, 0.73);
  EXPECT_DOUBLE_EQ(zen2.dram_pack_share, zen3.dram_pack_share);
  EXPECT_DOUBLE_EQ(zen5.dram_pack_share, 0.44);
  EXPECT_DOUBLE_EQ(next.dram_pack_share, zen5.dram_pack_share);
  // And how its one-row cores' own streams fall off (M35: 0.57 on Zen 3; Zen 5 ships none).
  EXPECT_DOUBLE_EQ(zen3.few_row_stream_exponent, 0.57);
  EXPECT_DOUBLE_EQ(zen2.few_row_stream_exponent, zen3.few_row_stream_exponent);
  EXPECT_DOUBLE_EQ(next.few_row_stream_exponent, zen5.few_row_stream_exponent);
  // And its kernel calls' fixed cycles (M31: calibrate's probe on Zen 3; Zen 5 ships none).
  EXPECT_NEAR(zen3.kernel_call_cycles, 13.9, 1e-9);
  EXPECT_DOUBLE_EQ(zen2.kernel_call_cycles, zen3.kernel_call_cycles);
  EXPECT_DOUBLE_EQ(next.kernel_call_cycles, zen5.kernel_call_cycles);
  // And the rows its prefetchers stream by themselves (M24: six on Zen 3; Zen 5 ships none, 2).
  EXPECT_EQ(zen3.dram_self_streaming_rows, 6);
  EXPECT_EQ(zen2.dram_self_streaming_rows, zen3.dram_self_streaming_rows);
  EXPECT_EQ(next.dram_self_streaming_rows, zen5.dram_self_streaming_rows);
  EXPECT_EQ(zen3.dram_self_streaming_row_bytes, 4096);
  EXPECT_EQ(zen2.dram_self_streaming_row_bytes, zen3.dram_self_streaming_row_bytes);
  EXPECT_EQ(next.dram_self_streaming_row_bytes, zen5.dram_self_streaming_row_bytes);
  EXPECT_NE(zen2.source.find("amd-zen3.json"), std::string::npos) << zen2.source;
  EXPECT_DOUBLE_EQ(next.l3_row_streams, zen5.l3_row_streams);
  EXPECT_DOUBLE_EQ(zen5.l3_row_share_paged, 0.65);
  EXPECT_DOUBLE_EQ(next.l3_row_share_paged, zen5.l3_row_share_paged);
  EXPECT_DOUBLE_EQ(next.l3_row_share, zen5.l3_row_share);
  EXPECT_NE(next.l3_row_share_paged, 0.33);
  EXPECT_NE(next.l3_row_share, 0.33);
  EXPECT_NE(next.l3_row_streams, 3.0);
  EXPECT_DOUBLE_EQ(next.bw_l3_gbs, 1.0);           // rates stay the base's
  EXPECT_DOUBLE_EQ(next.dot_bf16_per_cycle, 7.5);  // Zen 4's own profile ships 1.0
  EXPECT_DOUBLE_EQ(zen4.dot_bf16_per_cycle, 1.0);
  EXPECT_NE(next.source.find("nearest"), std::string::npos) << next.source;
  const HardwareProfile none = apply_shipped_profile(base, {"HygonGenuine", 24, 0});
  EXPECT_DOUBLE_EQ(none.bw_l3_gbs, 1.0);
  EXPECT_NE(none.source.find("no shipped profile"), std::string::npos) << none.source;
}

TEST(ShippedProfiles, AContextStartsFromTheDefaultProfileAndDetectedTakesDetectionAlone) {
  const CpuIdentity& id = cpu_identity();
#if defined(__x86_64__)
  EXPECT_FALSE(id.vendor.empty());
  EXPECT_GT(id.family, 0);
  EXPECT_GE(id.model, 0);
#endif
  EXPECT_EQ(to_json(default_hardware()), to_json(apply_shipped_profile(detected_hardware(), id)));
  ContextOptions o;
  o.read_environment = false;
  o.threads = 1;
  Context ctx(o);
  EXPECT_EQ(to_json(ctx.hardware()), to_json(default_hardware()));
  ASSERT_EQ(ctx.load_hardware_profile(kDetectedProfile), Status::Ok);
  EXPECT_EQ(to_json(ctx.hardware()), to_json(detected_hardware()));
  // A file's fields go over the default profile: what it leaves out is the default's.
  const std::string path =
      testing::TempDir() + "adaptcore_shipped_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << R"({"bw_l1_gbs": 123.0})";
  ASSERT_EQ(ctx.load_hardware_profile(path), Status::Ok);
  EXPECT_DOUBLE_EQ(ctx.hardware().bw_l1_gbs, 123.0);
  EXPECT_DOUBLE_EQ(ctx.hardware().l3_row_share_paged, default_hardware().l3_row_share_paged);
  std::remove(path.c_str());
}

TEST(L3RowStreams, FullRateUpToTheTrackedRowsThenFallingToTheFloor) {
  HardwareProfile hw;
  hw.l3_row_streams = 8;
  hw.l3_row_share_paged = 0.2;
  hw.l3_row_share = 0.9;
  EXPECT_DOUBLE_EQ(l3_row_stream_share(hw, 8, true), 1.0);
  EXPECT_DOUBLE_EQ(l3_row_stream_share(hw, 16, true), 0.5);
  EXPECT_DOUBLE_EQ(l3_row_stream_share(hw, 256, true), 0.2);
  EXPECT_DOUBLE_EQ(l3_row_stream_share(hw, 256, false), 0.9);
  EXPECT_DOUBLE_EQ(l3_row_stream_share(hw, 1, false), 1.0);
}

// The dot-product instructions are priced at their own measured rates, not the FMA's.
TEST(DotRates, TheLowPrecisionTilesIssueAtTheProfilesDotRates) {
  HardwareProfile hw;
  hw.fma_per_cycle_512 = 2.0;
  hw.dot_bf16_per_cycle = 0.5;
  hw.dot_int8_per_cycle = 1.5;
  if (const kernels::LowpKernels* bf16 = kernels::lowp_kernels_for(DType::Bf16, Isa::Avx512Bf16);
      bf16 != nullptr && bf16->macs_per_lane == 2.0)
    EXPECT_DOUBLE_EQ(type_config(*bf16, hw).instr_per_cycle, 0.5);
  if (const kernels::LowpKernels* int8 = kernels::lowp_kernels_for(DType::U8S8, Isa::Avx512Vnni);
      int8 != nullptr && int8->macs_per_lane == 4.0)
    EXPECT_DOUBLE_EQ(type_config(*int8, hw).instr_per_cycle, 1.5);
  EXPECT_DOUBLE_EQ(WqModel(hw, 512).dots_per_cycle(), 1.5);
  EXPECT_DOUBLE_EQ(WqModel(hw, 256).dots_per_cycle(), hw.fma_per_cycle_256);
  // Detection starts them at the 512-bit FMA rate.
  EXPECT_DOUBLE_EQ(detected_hardware().dot_bf16_per_cycle, detected_hardware().fma_per_cycle_512);
  EXPECT_DOUBLE_EQ(detected_hardware().dot_int8_per_cycle, detected_hardware().fma_per_cycle_512);
}

}  // namespace
}  // namespace adaptcore
