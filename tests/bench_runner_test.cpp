// The benchmark run's JSON (the schema the report, the CSV and users' scripts read): a tiny
// suite file run on adaptcore alone and with an unknown vendor library, which must be listed as
// skipped without failing the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/runner.hpp"

namespace adaptcore::bench {
namespace {

// One file per test: CTest runs the tests of this binary as parallel processes, and a shared
// name let one test truncate the file while another read it ("no shapes").
std::string write_suite() {
  const std::string path = ::testing::TempDir() + "runner_suite_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
  std::ofstream(path) << "# two shapes\n3 40 24\n17 33 65 T N 20 40 50\n";
  return path;
}

RunOptions quick(const std::string& suite) {
  RunOptions o;
  o.suite = suite;
  o.threads = 2;
  o.target_s = 0.002;
  o.min_reps = 3;
  o.settle_s = 0;
  o.pool_bytes = 1 << 20;
  return o;
}

// adaptcore alone on a suite file of these shapes, cold in a pool of 64 MiB.
RunOptions adaptcore_in_pool(const std::string& name, const std::string& shapes) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << shapes;
  RunOptions o = quick(path);
  o.vendors = false;
  o.pool_bytes = 64.0 * 1024 * 1024;
  return o;
}

TEST(BenchRunner, RecordsFollowTheSchema) {
  RunOptions o = quick(write_suite());
  o.libs = {"no-such-library"};
  const nlohmann::ordered_json doc = run_benchmark(o, nullptr);
  EXPECT_EQ(doc["format"], "adaptcore-bench");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["threads"], 2);
  for (const char* key : {"suite", "date", "peak_gflops", "dram_gbs", "hardware", "options"})
    EXPECT_TRUE(doc.contains(key)) << key;
  // The limits use the fastest of the run's DRAM probes, never a slower one.
  EXPECT_GE(doc["dram_probes"].get<int>(), 1);
  EXPECT_GE(doc["dram_measured_gbs"].get<double>(), doc["dram_start_gbs"].get<double>());
  EXPECT_GE(doc["dram_gbs"].get<double>(), doc["dram_measured_gbs"].get<double>());
  ASSERT_EQ(doc["libraries"].size(), 2u);
  EXPECT_EQ(doc["libraries"][0]["name"], "adaptcore");
  EXPECT_EQ(doc["libraries"][1]["status"], "skipped");
  EXPECT_FALSE(doc["libraries"][1]["message"].get<std::string>().empty());

  // One record per shape and (loaded) library, in shape order.
  ASSERT_EQ(doc["records"].size(), 2u);
  const auto& r0 = doc["records"][0];
  const auto& r1 = doc["records"][1];
  EXPECT_EQ(r0["m"], 3);
  EXPECT_EQ(r1["trans_a"], true);
  EXPECT_EQ(r1["lda"], 20);
  EXPECT_EQ(r1["ldc"], 50);
  EXPECT_EQ(r0["tag"], "two shapes");
  for (const auto& r : doc["records"]) {
    EXPECT_EQ(r["lib"], "adaptcore");
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["correct"], true);
    for (const char* key : {"error", "setup_us", "median_us", "min_us", "gflops", "limit_us",
                            "limit_fraction", "predicted_us"}) {
      ASSERT_TRUE(r.contains(key) && r[key].is_number()) << key;
      EXPECT_GE(r[key].get<double>(), 0.0) << key;
    }
    EXPECT_GE(r["reps"].get<int>(), 3);
    // Two rounds by default; the record's median is the faster round's.
    ASSERT_EQ(r["round_medians_us"].size(), 2u);
    EXPECT_DOUBLE_EQ(
        r["median_us"].get<double>(),
        std::min(r["round_medians_us"][0].get<double>(), r["round_medians_us"][1].get<double>()));
    EXPECT_LE(r["min_us"].get<double>(), r["median_us"].get<double>());
    EXPECT_GT(r["median_us"].get<double>(), 0.0);
    // No library beats the hardware limit by more than timer noise.
    EXPECT_LT(r["limit_fraction"].get<double>(), 1.5);
    EXPECT_NEAR(r["limit_fraction"].get<double>(),
                r["limit_us"].get<double>() / r["median_us"].get<double>(), 1e-9);
    EXPECT_FALSE(r["plan"].get<std::string>().empty());
    EXPECT_TRUE(r["limit_bound"] == "compute" || r["limit_bound"] == "memory");
    EXPECT_FALSE(r["m_class"].get<std::string>().empty());
  }
}

TEST(BenchRunner, MaxGflopSkipsLargeShapesAndBadOptionsThrow) {
  RunOptions o = quick(write_suite());
  o.vendors = false;
  o.max_gflop = 2.0 * 3 * 40 * 24 * 1e-9;  // keeps the first shape only
  const nlohmann::ordered_json doc = run_benchmark(o, nullptr);
  EXPECT_EQ(doc["records"].size(), 1u);
  EXPECT_EQ(doc["skipped_shapes"], 1);
  o.target_s = 0;
  EXPECT_THROW(run_benchmark(o, nullptr), std::runtime_error);
  EXPECT_THROW(run_benchmark(quick("/no/such/suite.txt"), nullptr), std::runtime_error);
}

// Warm operands reuse one set of buffers: recorded as such, and the hardware limit is the
// bandwidth of the cache that holds that set, not DRAM's. 1 x 512 x 256 reads a 512 KiB B:
// memory-bound either way, from L2 warm, from DRAM when 64 MiB of sets rotate.
TEST(BenchRunner, WarmOperandsAreRecordedAndLimitedByTheCache) {
  RunOptions o = adaptcore_in_pool("warm_suite.txt", "1 512 256\n");
  const nlohmann::ordered_json cold = run_benchmark(o, nullptr);
  o.warm = true;
  const nlohmann::ordered_json warm = run_benchmark(o, nullptr);
  EXPECT_EQ(cold["operands"], "cold");
  EXPECT_EQ(warm["operands"], "warm");
  EXPECT_EQ(warm["options"]["pool_bytes"], 0.0);
  EXPECT_EQ(cold["options"]["pool_bytes"], 64.0 * 1024 * 1024);
  ASSERT_EQ(cold["records"].size(), 1u);
  ASSERT_EQ(warm["records"].size(), 1u);
  EXPECT_EQ(warm["records"][0]["correct"], true);
  EXPECT_EQ(warm["records"][0]["limit_bound"], "memory");
  EXPECT_LT(warm["records"][0]["limit_us"].get<double>(),
            0.5 * cold["records"][0]["limit_us"].get<double>());
}

// Decode shapes of a cold run (M <= 16, at least 16 MiB read) are graded against the stream rate
// read beside them; other shapes and warm runs are not.
TEST(BenchRunner, ColdDecodeShapesGetTheStreamRateReadBesideThem) {
  RunOptions o = adaptcore_in_pool("decode_suite.txt", "2 2048 2048\n2 40 24\n");
  const nlohmann::ordered_json cold = run_benchmark(o, nullptr);
  ASSERT_EQ(cold["records"].size(), 2u);
  const auto& decode = cold["records"][0];
  const auto& small = cold["records"][1];
  ASSERT_TRUE(decode.contains("stream_gbs_near"));
  EXPECT_GT(decode["stream_gbs_near"].get<double>(), 0.0);
  ASSERT_TRUE(decode.contains("stream_fraction"));
  const double bytes = 4.0 * (2 * 2048 + 2048 * 2048 + 2 * 2048);
  EXPECT_NEAR(
      decode["stream_fraction"].get<double>(),
      bytes / (decode["median_us"].get<double>() * 1e3) / decode["stream_gbs_near"].get<double>(),
      1e-9);
  EXPECT_FALSE(small.contains("stream_fraction"));
  ASSERT_TRUE(cold.contains("decode_stream"));
  const auto& summary = cold["decode_stream"];
  EXPECT_EQ(summary["shapes"], 1);
  EXPECT_DOUBLE_EQ(summary["min"].get<double>(), decode["stream_fraction"].get<double>());
  EXPECT_DOUBLE_EQ(summary["median"].get<double>(), decode["stream_fraction"].get<double>());
  EXPECT_EQ(summary["at_least"], decode["stream_fraction"].get<double>() >= 0.9 ? 1 : 0);
  ASSERT_TRUE(summary["by_m"].contains("2"));
  EXPECT_EQ(summary["by_m"]["2"]["shapes"], 1);

  o.warm = true;
  const nlohmann::ordered_json warm = run_benchmark(o, nullptr);
  EXPECT_FALSE(warm.contains("decode_stream"));
  EXPECT_FALSE(warm["records"][0].contains("stream_fraction"));
}

// The stated rule for shapes longer than the target: 7 timed calls a round, not fewer.
TEST(BenchRunner, LongCallsGetSevenTimedCallsARound) {
  const std::string path = ::testing::TempDir() + "long_suite.txt";
  std::ofstream(path) << "96 96 96\n";
  RunOptions o = quick(path);
  o.vendors = false;
  o.min_reps = RunOptions{}.min_reps;
  o.target_s = 1e-7;  // shorter than any call
  const nlohmann::ordered_json doc = run_benchmark(o, nullptr);
  ASSERT_EQ(doc["records"].size(), 1u);
  EXPECT_EQ(doc["records"][0]["reps"], 7);
  EXPECT_EQ(doc["options"]["min_reps"], 7);
}

TEST(BenchRunner, PredictedSuiteGradesEveryShapeWithoutRunning) {
  RunOptions o = quick("tiny");
  const auto shapes = load_suite("tiny", "");
  const nlohmann::ordered_json recs = predict_suite(o, shapes);
  ASSERT_EQ(recs.size(), shapes.size());
  for (const auto& r : recs) {
    EXPECT_EQ(r["status"], "predicted");
    EXPECT_GT(r["predicted_us"].get<double>(), 0.0);
    // The model predicts for operands already in cache, the limit counts the pool's level: the
    // fraction may exceed 1 for tiny shapes, but is always a positive number.
    EXPECT_GT(r["predicted_limit_fraction"].get<double>(), 0.0);
    EXPECT_GT(r["limit_us"].get<double>(), 0.0);
  }
}

// --dtype bf16 / u8s8 / s8s8 on adaptcore alone: every record checked (int8 exactly, bf16
// within the LOWP.md bound), the dtype recorded, the limit from the dtype's element sizes.
TEST(BenchRunner, LowPrecisionDtypesAreCheckedAndRecorded) {
  for (BenchDtype d : {BenchDtype::Bf16, BenchDtype::U8S8, BenchDtype::S8S8}) {
    RunOptions o = quick(write_suite());
    o.vendors = false;
    o.rounds = 1;
    o.dtype = d;
    const nlohmann::ordered_json doc = run_benchmark(o, nullptr);
    EXPECT_EQ(doc["dtype"], to_string(d));
    EXPECT_GT(doc["peak_gflops"].get<double>(), 0.0);
    ASSERT_EQ(doc["records"].size(), 2u);
    for (const auto& r : doc["records"]) {
      EXPECT_EQ(r["status"], "ok") << to_string(d);
      EXPECT_EQ(r["correct"], true) << to_string(d);
      if (d != BenchDtype::Bf16) {
        EXPECT_EQ(r["error"].get<double>(), 0.0);
      }
      EXPECT_GT(r["gflops"].get<double>(), 0.0);
      EXPECT_FALSE(r["plan"].get<std::string>().empty());
    }
  }
}

// --dtype w8a16 / w4a16 without vendors: adaptcore's comparison paths (dequant + fp32 GEMM,
// bf16 GEMM) with their measured accuracy, weight bandwidth, and the summary table.
TEST(BenchRunner, WeightQuantizedPathsReportSpeedAndAccuracy) {
  for (BenchDtype d : {BenchDtype::W8A16, BenchDtype::W4A16}) {
    RunOptions o = quick("quant-tiny");
    o.vendors = false;
    o.rounds = 1;
    o.dtype = d;
    const nlohmann::ordered_json doc = run_benchmark(o, nullptr);
    EXPECT_GT(doc["dram_read_gbs_measured"].get<double>(), 0.0);
    EXPECT_EQ(doc["weight_group"], d == BenchDtype::W8A16 ? 0 : 128);
    std::size_t dequant = 0, bf16 = 0;
    for (const auto& r : doc["records"]) {
      ASSERT_EQ(r["status"], "ok") << r.dump();
      EXPECT_EQ(r["correct"], true) << r.dump();
      const double err = r["fro_rel_error"].get<double>();
      if (r["lib"] == "dequant+adaptcore") {
        ++dequant;
        EXPECT_LT(err, 1e-5);  // fp32 GEMM of the exact dequantized weights
      } else if (r["lib"] == "bf16+adaptcore") {
        ++bf16;
        EXPECT_GT(err, 1e-4);  // bf16 rounding of activations and weights: ~2^-9 per value
        EXPECT_LT(err, 1e-2);
      }
      EXPECT_GT(r["weight_gbs"].get<double>(), 0.0);
      EXPECT_GE(r["max_rel_error"].get<double>(), 0.0);
    }
    EXPECT_EQ(dequant, 3u);
    EXPECT_EQ(bf16, 3u);
    ASSERT_TRUE(doc.contains("quant_summary"));
    EXPECT_EQ(doc["quant_summary"].size(), 3u);
  }
}

}  // namespace
}  // namespace adaptcore::bench
