// Grading of one shape in the benchmark harness: the hardware limit of the shape, the
// correctness check of a library's output against a double-precision reference, and the
// shape classes the report groups by. Plain functions with no timing, so tests can pin them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "baselines/baseline.hpp"
#include "harness/dtypes.hpp"

namespace adaptcore::bench {

// The fastest any library can run a shape on this machine: the larger of the time to issue
// its FMAs at the peak rate and the time to move the bytes it must touch at least once
// (A and B read, C written) at the bandwidth of where they come from.
struct HardwareLimit {
  double flops = 0;               // 2 m n k
  double min_bytes = 0;           // 4 (m k + k n + m n)
  double seconds = 0;             // max(flops / peak, min_bytes / bandwidth)
  const char* bound = "compute";  // "compute" or "memory"
  double bandwidth_gbs = 0;       // of the level the operands come from
};
HardwareLimit hardware_limit(int64_t m, int64_t n, int64_t k, double peak_gflops,
                             double bandwidth_gbs);
// The same with the element sizes of a dtype: min_bytes = a m k + b k n + c m n. peak_gflops is
// then the rate of the dtype's instruction (GOP/s for the integer types).
HardwareLimit hardware_limit(int64_t m, int64_t n, int64_t k, double peak_gflops,
                             double bandwidth_gbs, ElementBytes bytes);

// Result of checking C against op(A) op(B) computed in double.
struct CheckResult {
  bool pass = false;
  // Largest |c - ref| / sum_p |a_ip b_pj| over the checked entries (the error relative to the
  // size of the products that were summed, so it is comparable across shapes and K).
  double max_error = 0;
  int64_t checked = 0;  // entries compared
};

// Tolerance on CheckResult::max_error for depth k: the worst-case bound of a float sum of k
// products, (k + 2) u with u = 2^-24, doubled for blocked and split-K orders. A wrong block,
// a missed tail or a stale output is off by O(1) and fails by orders of magnitude.
double error_tolerance(int64_t k);

// Compares every entry when m n k <= full_check_work, else `samples` entries: the four
// corners, the last row and column (where tails go wrong) and random ones from `seed`.
// NaN or infinity in C fails.
CheckResult check_against_reference(const GemmCall& call, int64_t samples = 512,
                                    std::uint64_t seed = 1, double full_check_work = 1u << 26);

// The entries such a check compares, in order: all of C when m n k <= full_check_work, else
// the corners, entries of the last row and column, then random ones (every dtype's check
// samples the same way).
std::vector<std::pair<int64_t, int64_t>> check_entries(int64_t m, int64_t n, int64_t k,
                                                       int64_t samples, std::uint64_t seed,
                                                       double full_check_work = 1u << 26);

// bf16 tolerance on |c - ref| / sum_p |a_ip b_pj| (the bound of docs/LOWP.md, "bf16 error
// bound"): products of bf16 values are exact in fp32, so only the fp32 additions round:
// gamma_n = n u / (1 - n u), u = 2^-24, n = k + 2 ceil(k / 64) + 4.
double bf16_error_tolerance(int64_t k);

// Classes of the report's heat maps: M by tokens (decode, small batch, prefill), N by width.
std::string m_class(int64_t m);  // "1-16", "17-128", "129-1024", "1025+"
std::string n_class(int64_t n);  // "1-256", "257-2048", "2049-8192", "8193+"

}  // namespace adaptcore::bench
