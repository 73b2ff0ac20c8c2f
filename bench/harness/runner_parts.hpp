// Inside the run loop of `adaptcore bench` (runner.cpp): each dtype (--dtype) supplies its
// libraries, the hardware limit of a shape, and per shape the operands and the calls; the loop
// (turns, rounds, settle pauses, warm-up, timing, records) is the same for all of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "harness/dtypes.hpp"
#include "harness/grading.hpp"
#include "harness/runner.hpp"
#include "measure/bench_util.hpp"

namespace adaptcore::bench::detail {

using Json = nlohmann::ordered_json;

// One shape's operand sets and the calls of each library on them (libraries by their index in
// DtypeBench::names()).
class ShapeBench {
 public:
  virtual ~ShapeBench() = default;
  virtual std::size_t sets() const = 0;  // operand sets the timed calls rotate over
  virtual double bytes() const = 0;      // memory they hold
  virtual bool supports(std::size_t lib) const = 0;
  virtual double prepare(std::size_t lib) = 0;  // per-shape setup, seconds; throws on failure
  virtual void run(std::size_t lib, std::size_t set) = 0;  // one timed call; throws on failure
  // Poisons set 0's output, runs the library once on it and compares with the reference:
  // fills the record's "correct" and "error" (and the dtype's own accuracy fields).
  virtual void check(std::size_t lib, std::uint64_t seed, Json& r) = 0;
  // adaptcore's plan and predicted time for its record, where the dtype has them (called after
  // the first turn).
  virtual void describe(std::size_t /*lib*/, Json& /*record*/) {}
};

class DtypeBench {
 public:
  virtual ~DtypeBench() = default;
  virtual const std::vector<std::string>& names() const = 0;  // "adaptcore" (if any) first
  virtual HardwareLimit limit(const SuiteShape& s) const = 0;
  virtual std::unique_ptr<ShapeBench> shape(const SuiteShape& s) = 0;
  // Fields derived from the final timing (e.g. weight GB/s), for a record with status ok.
  virtual void annotate(const SuiteShape&, std::size_t /*lib*/, Json& /*record*/) const {}
};

// What every dtype's benchmark gets from the run.
struct RunEnv {
  const RunOptions& options;
  Context& ctx;
  std::vector<Baseline*> vendors;  // the loaded vendor libraries, in the order asked for
  // DRAM read rate on all threads, the fastest of the run's probes so far (one at the start,
  // one before each chunk of shapes); the runner raises it, the benches read it.
  const double& dram_gbs;
};

std::unique_ptr<DtypeBench> make_f32_bench(const RunEnv& env);
// fp32 pieces predict_suite() uses too: adaptcore's plan and predicted time of a shape, and the
// shape's hardware limit (its operand pool decides the bandwidth).
struct ModelView {
  std::string plan;
  std::string taxonomy;  // the shape's class: capacity x parallelism
  double predicted_us = 0;

  // Its fields in a record: predicted_us, plan, taxonomy.
  void write(Json& record) const {
    record["predicted_us"] = predicted_us;
    record["plan"] = plan;
    record["taxonomy"] = taxonomy;
  }
};
// The plan and prediction for the shape's calls, with operands in memory (cold) or cached;
// panel_nr > 0: on weights prepacked in panels of that width (--packed).
ModelView model_view(Context& ctx, const SuiteShape& s, bool cold, int panel_nr = 0);
HardwareLimit f32_shape_limit(const Context& ctx, const SuiteShape& s, double pool_bytes,
                              double measured_dram_gbs = 0.0);
std::string shape_text(const SuiteShape& s);
// bf16, u8s8, s8s8; adds the measured dot-product peak to doc.
std::unique_ptr<DtypeBench> make_lowp_bench(const RunEnv& env, BenchDtype dtype, Json& doc);
// w8a16, w4a16; adds the measured peaks and DRAM read bandwidth to doc.
std::unique_ptr<DtypeBench> make_quant_bench(const RunEnv& env, BenchDtype dtype, Json& doc,
                                             std::ostream* progress);

// Shared rules.
// Sets in a shape's pool: the rule the model's validation shares (measure/bench_util.hpp).
using measure::pool_sets;
// Bandwidth the operands come from in the timed calls: the level holding the whole pool (the
// cores' L2s, their L3 share, or DRAM), all threads reading.
// measured_dram_gbs: the run's own DRAM read rate on all its threads (RunEnv::dram_gbs), which
// the DRAM level never falls below: a limit slower than what ran is no limit.
double bandwidth_gbs(const HardwareProfile& hw, int threads, double resident_bytes,
                     double measured_dram_gbs = 0.0);

// 64-byte aligned bytes (at least 64, never null).
struct FreeBytes {
  void operator()(void* p) const noexcept { std::free(p); }
};
using Bytes = std::unique_ptr<unsigned char[], FreeBytes>;
Bytes make_bytes(std::size_t count);

}  // namespace adaptcore::bench::detail
