// The arithmetic of the weight-quantized comparisons (bench/harness/quant_math.hpp) and their
// summary table: quantization within half a step, the vectorised conversions equal to their
// scalar definitions, the accuracy metrics on known errors, the per-shape ratios and targets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "harness/dtypes.hpp"
#include "harness/quant_math.hpp"
#include "harness/quant_summary.hpp"

namespace adaptcore::bench {
namespace {

std::vector<float> random_values(std::size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

float bf16_value(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

TEST(BenchQuant, DtypesParseAndName) {
  for (const std::string& name : dtype_names()) {
    BenchDtype d{};
    ASSERT_TRUE(parse_dtype(name, d)) << name;
    EXPECT_EQ(name, to_string(d));
  }
  BenchDtype d{};
  EXPECT_FALSE(parse_dtype("fp16", d));
  EXPECT_TRUE(is_weight_quantized(BenchDtype::W4A16));
  EXPECT_FALSE(is_weight_quantized(BenchDtype::Bf16));
  EXPECT_DOUBLE_EQ(element_bytes(BenchDtype::W4A16).b, 0.5);
  EXPECT_STREQ(rate_unit(BenchDtype::S8S8), "GOP/s");
}

TEST(BenchQuant, WeightsQuantizeWithinHalfAStepPerGroup) {
  for (int bits : {8, 4}) {
    for (int64_t group : {int64_t{32}, int64_t{100}, int64_t{1000}}) {
      const int64_t n = 5, k = 70;
      std::vector<float> w = random_values(static_cast<std::size_t>(n * k), 1.0f, 3);
      for (int64_t p = 0; p < k; ++p) w[static_cast<std::size_t>(2 * k + p)] = 0.0f;  // a zero row
      const QuantizedWeights8or4 q = quantize_weights_symmetric(w.data(), n, k, group, bits);
      EXPECT_EQ(q.groups(), (k + std::min(group, k) - 1) / std::min(group, k));
      const int qmax = bits == 8 ? 127 : 7;
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t p = 0; p < k; ++p) {
          const int v = q.q[static_cast<std::size_t>(j * k + p)];
          EXPECT_LE(std::abs(v), qmax);
          const float s = q.scale(j, p);
          EXPECT_LE(std::fabs(static_cast<float>(v) * s - w[static_cast<std::size_t>(j * k + p)]),
                    0.5f * s * (1 + 1e-6f) + 1e-30f);
          if (j == 2) {
            EXPECT_EQ(s, 0.0f);
          }
        }
      }
      std::vector<float> deq(w.size());
      dequantize_weights(q, deq.data());  // the vectorised loop equals q * scale exactly
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p)
          ASSERT_EQ(deq[static_cast<std::size_t>(j * k + p)],
                    static_cast<float>(q.q[static_cast<std::size_t>(j * k + p)]) * q.scale(j, p))
              << bits << " bits, group " << group << " at " << j << ',' << p;
      EXPECT_DOUBLE_EQ(q.bytes(), n * k * bits / 8.0 + 4.0 * static_cast<double>(q.scales.size()));
    }
  }
  std::vector<float> w(4, 1.0f);
  EXPECT_THROW(quantize_weights_symmetric(w.data(), 2, 2, 2, 6), std::invalid_argument);
  EXPECT_THROW(quantize_weights_symmetric(w.data(), 2, 2, 0, 8), std::invalid_argument);
  EXPECT_THROW(quantize_weights_symmetric(w.data(), 1, 4, 3, 4), std::invalid_argument);
}

TEST(BenchQuant, Bf16ConversionRoundsToNearestEven) {
  std::vector<float> x = random_values(1001, 3.0f, 5);
  // bf16 keeps 8 significant bits (ulp 2^-7 at 1). Exact ties: 1 + 2^-8 goes to 1 (even),
  // 1 + 3 * 2^-8 up to 1 + 2^-6 (even), -(1 + 2^-8) to -1.
  x[0] = 1.0f + std::ldexp(1.0f, -8), x[1] = 1.0f + 3 * std::ldexp(1.0f, -8), x[2] = -x[0];
  std::vector<uint16_t> h(x.size());
  convert_to_bf16(x.data(), x.size(), h.data());
  EXPECT_EQ(bf16_value(h[0]), 1.0f);
  EXPECT_EQ(bf16_value(h[1]), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(bf16_value(h[2]), -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_LE(std::fabs(bf16_value(h[i]) - x[i]), std::ldexp(std::fabs(x[i]), -8)) << i;
}

TEST(BenchQuant, ActivationsQuantizeToU8WithAZeroPoint) {
  std::vector<float> x = random_values(333, 1.0f, 7);
  std::vector<uint8_t> q(x.size());
  const ActivationQuant aq = quantize_activations_u8(x.data(), x.size(), q.data());
  ASSERT_GT(aq.scale, 0.0f);
  EXPECT_GE(aq.zero_point, 0);
  EXPECT_LE(aq.zero_point, 255);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_LE(
        std::fabs((static_cast<float>(q[i]) - static_cast<float>(aq.zero_point)) * aq.scale - x[i]),
        0.5f * aq.scale * 1.001f + 1e-7f)
        << i;
  std::vector<float> zeros(20, 0.0f);
  const ActivationQuant z = quantize_activations_u8(zeros.data(), zeros.size(), q.data());
  EXPECT_EQ(z.scale, 0.0f);
  EXPECT_EQ(q[0], 0);
}

TEST(BenchQuant, RescaleAppliesBothScales) {
  const int64_t m = 3, n = 21;
  std::vector<int32_t> acc(static_cast<std::size_t>(m * n));
  std::vector<float> ws(static_cast<std::size_t>(n)), c(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<int32_t>(i * 37) - 500;
  for (int64_t j = 0; j < n; ++j)
    ws[static_cast<std::size_t>(j)] = 0.25f * static_cast<float>(j + 1);
  rescale_int32(acc.data(), m, n, 0.5f, ws.data(), c.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_EQ(c[static_cast<std::size_t>(i * n + j)],
                static_cast<float>(acc[static_cast<std::size_t>(i * n + j)]) *
                    (0.5f * ws[static_cast<std::size_t>(j)]));
}

TEST(BenchQuant, ReferenceAndAccuracyMetrics) {
  const int64_t m = 5, n = 7, k = 40;
  std::vector<float> w = random_values(static_cast<std::size_t>(n * k), 1.0f, 9);
  std::vector<float> x = random_values(static_cast<std::size_t>(m * k), 1.0f, 10);
  const QuantizedWeights8or4 q = quantize_weights_symmetric(w.data(), n, k, 32, 4);
  const std::vector<int64_t> rows = reference_row_choice(m, 3);
  ASSERT_EQ(rows, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(reference_row_choice(2, 8), (std::vector<int64_t>{0, 1}));
  const std::vector<double> ref = reference_rows(x.data(), k, q, rows);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p)
        want += static_cast<double>(x[static_cast<std::size_t>(rows[r] * k + p)]) *
                (static_cast<double>(q.q[static_cast<std::size_t>(j * k + p)]) * q.scale(j, p));
      EXPECT_NEAR(ref[r * n + static_cast<std::size_t>(j)], want, 1e-12 * (1 + std::fabs(want)));
    }
  // C = ref (1 + 1e-3): relative Frobenius error 1e-3; max error relative to max |ref| <= 1e-3.
  std::vector<float> c(static_cast<std::size_t>(m * n), 0.0f);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (int64_t j = 0; j < n; ++j)
      c[static_cast<std::size_t>(rows[r] * n + j)] =
          static_cast<float>(ref[r * n + static_cast<std::size_t>(j)] * (1 + 1e-3));
  QuantAccuracy a = quant_accuracy(c.data(), n, rows, ref);
  EXPECT_NEAR(a.fro_rel, 1e-3, 1e-5);
  EXPECT_LE(a.max_rel, 1e-3 * 1.01);
  EXPECT_GT(a.max_rel, 1e-4);
  c[static_cast<std::size_t>(2 * n + 3)] = std::numeric_limits<float>::quiet_NaN();
  a = quant_accuracy(c.data(), n, rows, ref);
  EXPECT_TRUE(std::isinf(a.fro_rel));
  EXPECT_TRUE(std::isinf(a.max_rel));
}

nlohmann::json record(long shape, long m, const char* lib, double us, double err, bool ok = true) {
  return {{"shape", shape}, {"m", m},        {"n", 4096},       {"k", 4096},           {"lib", lib},
          {"status", "ok"}, {"correct", ok}, {"median_us", us}, {"fro_rel_error", err}};
}

TEST(BenchQuant, SummaryRatiosAndTargets) {
  nlohmann::json recs = nlohmann::json::array();
  // Shape 0, compute-bound: adaptcore 100 us; dequant paths 250 (best) and 300; bf16 110 and
  // 90; int8 80. Errors: adaptcore 1e-5, bf16 2e-3 (200x).
  recs.push_back(record(0, 512, "adaptcore", 100, 1e-5));
  recs.push_back(record(0, 512, "dequant+adaptcore", 300, 1e-7));
  recs.push_back(record(0, 512, "dequant+mkl", 250, 1e-7));
  recs.push_back(record(0, 512, "bf16+adaptcore", 110, 2e-3));
  recs.push_back(record(0, 512, "bf16+mkl", 90, 2e-3));
  recs.push_back(record(0, 512, "int8+onednn", 80, 8e-3));
  recs.push_back(record(0, 512, "dequant+onednn", 10, 1.0, /*ok=*/false));  // wrong: ignored
  // Shape 1, decode: 85% target from the record's dram_fraction.
  nlohmann::json d = record(1, 1, "adaptcore", 1000, 1e-5);
  d["weight_gbs"] = 16.8, d["dram_fraction"] = 0.84;
  recs.push_back(d);
  const nlohmann::json rows = quant_summary(recs);
  ASSERT_EQ(rows.size(), 2u);
  const auto& r0 = rows[0];
  EXPECT_EQ(r0["dequant_best"]["lib"], "dequant+mkl");
  EXPECT_DOUBLE_EQ(r0["dequant_best"]["speedup"].get<double>(), 2.5);
  EXPECT_EQ(r0["bf16_best"]["lib"], "bf16+mkl");
  EXPECT_DOUBLE_EQ(r0["bf16_best"]["speedup"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(r0["bf16_adaptcore"]["speedup"].get<double>(), 1.1);
  EXPECT_NEAR(r0["bf16_best"]["error_ratio"].get<double>(), 200.0, 1e-9);
  EXPECT_DOUBLE_EQ(r0["int8"]["speedup"].get<double>(), 0.8);
  EXPECT_TRUE(r0["targets"]["speed_vs_dequant_1.8x"].get<bool>());
  EXPECT_TRUE(r0["targets"]["speed_vs_bf16_0.9x"].get<bool>());
  EXPECT_TRUE(r0["targets"]["error_vs_bf16_100x"].get<bool>());
  EXPECT_FALSE(rows[1]["targets"]["dram_85pct"].get<bool>());
  EXPECT_DOUBLE_EQ(rows[1]["weight_gbs"].get<double>(), 16.8);
  // No adaptcore record: the paths are listed, no ratio or target is made up.
  nlohmann::json only_paths = nlohmann::json::array({record(0, 512, "dequant+mkl", 250, 1e-7)});
  const nlohmann::json r = quant_summary(only_paths);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0]["dequant_best"].contains("speedup"));
  EXPECT_FALSE(r[0].contains("targets"));
}

}  // namespace
}  // namespace adaptcore::bench
