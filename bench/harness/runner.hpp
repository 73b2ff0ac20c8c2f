// The timing and grading loop of `adaptcore bench`: for every shape of a suite, adaptcore and
// each vendor library in turn are checked against a double-precision reference and timed, and
// every (shape, library) pair becomes one record of the run's JSON (schema: bench/README.md,
// "Report"). The HTML report, the CSV and the terminal summary are all made from that JSON.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/dtypes.hpp"
#include "harness/suites.hpp"

namespace adaptcore::bench {

struct RunOptions {
  std::string suite = "llm";  // name (suite_names()) or path of a suite file
  // Element types: f32 (adaptcore's gemm against each vendor's sgemm), bf16 / u8s8 / s8s8
  // (the low-precision GEMMs against MKL's and oneDNN's), w8a16 / w4a16 (adaptcore's
  // weight-quantized GEMM against the comparison paths of bench/README.md).
  BenchDtype dtype = BenchDtype::F32;
  // w8a16 / w4a16: K values per weight scale (0: the dtype's default, one scale per output
  // channel for w8a16 and groups of 128 for w4a16).
  int64_t weight_group = 0;
  std::vector<std::string> libs;  // vendor libraries to compare; empty: every known one
  bool vendors = true;            // false: adaptcore alone
  int threads = 0;                // 0: all cores; the same count for every library
  std::string isa = "auto";       // adaptcore's kernel path
  std::string profile;            // hardware profile JSON (calibrated); empty: detected
  double target_s = 0.1;          // timed seconds per library and shape
  // A series is clamp(target_s / (one call's time), min_reps, max_reps) timed calls: shapes
  // whose call exceeds target_s / 7 get 7, so their median still sets aside the three slowest
  // calls (a burst of the machine's load) instead of resting on 3.
  int min_reps = 7, max_reps = 200;
  // Pause before each library's turn, so that the previous library's worker threads stop
  // competing for the cores (OpenMP runtimes and OpenBLAS keep spinning after a call; bench/
  // README.md, "Threads, measured").
  double settle_s = 0.3;
  // Libraries take turns on chunks of at most this many shapes (and about this many operand
  // bytes): one settle pause per library and chunk.
  std::size_t chunk_shapes = 8;
  // Timed rounds per library and shape, the order of the libraries reversed in every other
  // round; a record keeps the fastest round's median. The machine's load comes in bursts that
  // can cover one library's whole turn; a second turn at another time evens that out.
  int rounds = 2;
  double chunk_bytes = 1024.0 * 1024 * 1024;
  double max_gflop = 0;            // skip shapes above this work (0: no limit)
  std::uint64_t seed = 1;          // the random and full suites, the sampled checks
  std::size_t random_count = 200;  // shapes of the random suite
  // The full suite (80,000 shapes) is graded by the model for every shape and measured on an
  // evenly spaced sample of this many shapes.
  std::size_t measure_sample = 40;
  // Operands rotate over sets of buffers totalling at least this many bytes (or one set if a
  // set is larger; at most 4096 sets), so no library gains from an operand or output left warm
  // by a previous call. The hardware limit of a shape uses the bandwidth of the level that
  // holds the whole pool (DRAM unless it fits the cores' caches).
  double pool_bytes = 64.0 * 1024 * 1024;
  // Warm operands: every call of a shape reuses one set of buffers (a user's micro-benchmark,
  // or a layer whose weights stay in the caches); pool_bytes is then ignored. The hardware
  // limit follows: the level that holds one set.
  bool warm = false;
  // fp32 with weights packed ahead of time (--packed): adaptcore's pack_weights / gemm_packed,
  // MKL's cblas_sgemm_pack / compute, oneDNN's matmul on weights reordered once; each operand
  // set's B is packed before timing (a record's setup_us is one pack), libraries without a
  // packed API are recorded unsupported.
  bool packed = false;
  double effective_pool_bytes() const noexcept { return warm ? 0.0 : pool_bytes; }
};

// Runs the suite. progress (may be null) receives a one-line progress bar with an ETA.
// Throws std::runtime_error for a bad suite or option; a vendor library that is missing, does
// not support a shape or throws is recorded as such and the run goes on.
nlohmann::ordered_json run_benchmark(const RunOptions& options, std::ostream* progress);

// The full suite's model-only grading: one record per shape (adaptcore's plan, predicted time,
// hardware limit and the predicted fraction of it), no library is run.
nlohmann::ordered_json predict_suite(const RunOptions& options,
                                     const std::vector<SuiteShape>& shapes);

}  // namespace adaptcore::bench
