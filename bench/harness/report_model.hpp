// What the HTML report shows, computed from a run's JSON (bench/README.md, "Report"): one row
// per shape with each library's result, the speedups of adaptcore, and the per-library summary.
// Kept apart from the HTML so that the numbers can be tested without parsing markup.
//
// Missing values are NaN here (a field absent, not a number, or not finite in the input; a ratio
// with nothing to compare); the formatters in html_text.hpp print them as "–".
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adaptcore::bench::report {

inline constexpr const char* kAdaptcore = "adaptcore";
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Below this speedup over the best vendor library a shape counts as lost (timing noise on a
// loaded machine is a few percent; a smaller difference is not called a loss).
inline constexpr double kLoseBelow = 0.95;

struct Library {
  std::string name, version, status, message;  // status "ok", "skipped", ... as the run says
  bool has_records = false;
};

// One library's record for one shape.
struct Result {
  bool present = false;
  std::string status;  // "ok", "unsupported", "failed", ...
  std::string message;
  bool wrong = false;   // "correct": false
  bool usable = false;  // status "ok", not wrong, and a positive median time
  double median_us = kNaN, gflops = kNaN, limit_fraction = kNaN, predicted_us = kNaN;
  std::string limit_bound, plan;
};

struct Row {
  int64_t shape = -1;  // the run's shape index, -1 if the records had none
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  bool trans_a = false, trans_b = false;
  std::string tag, m_class, n_class;
  std::string taxonomy;  // adaptcore's class of the shape (capacity x parallelism), if recorded
  std::vector<Result> results;  // one per Model::libraries entry
  int best_vendor = -1;         // index into Model::libraries of the fastest usable vendor
  double speedup_best = kNaN;   // best vendor's median / adaptcore's median
  double ac_limit_fraction = kNaN, best_limit_fraction = kNaN;
};

struct VendorSummary {
  std::string name;            // a vendor library, or "best vendor" (the fastest one per shape)
  int compared = 0;            // shapes where both adaptcore and it have a usable result
  double geomean = kNaN;       // geometric-mean speedup of adaptcore over it
  double share_faster = kNaN;  // fraction of the compared shapes where adaptcore is faster
  int losses = 0;              // compared shapes with speedup < kLoseBelow
  int worst_row = -1;          // index into Model::rows of the smallest speedup
  double worst_speedup = kNaN;
  std::vector<double> speedups;  // per compared shape, for the histogram
};

struct Correctness {
  std::string name;
  int records = 0, usable = 0, wrong = 0, failed = 0, unsupported = 0, other = 0;
};

struct Model {
  std::string suite, date, operands;  // operands: "warm", "cold" (empty: a run before the field)
  double threads = kNaN, peak_gflops = kNaN, dram_gbs = kNaN;
  nlohmann::json hardware;
  std::vector<Library> libraries;  // adaptcore (if present) first, then the vendors in run order
  int adaptcore = -1;              // index of adaptcore in libraries, -1 if it has no entry
  std::vector<Row> rows;           // in shape order
  std::vector<VendorSummary> vendors;  // one per vendor with records, then "best vendor"
  // Speedup over the best vendor per group of shapes (`name` is the group): by adaptcore's
  // taxonomy class, and by the suite part a tag names (its first two words: "full llm", ...).
  std::vector<VendorSummary> by_taxonomy, by_part;
  std::vector<Correctness> correctness;           // one per library with records
  int ac_not_usable = 0;                          // shapes where adaptcore has no usable result
  std::vector<std::string> m_classes, n_classes;  // in ascending order of their first number
  std::size_t record_count = 0;
};

Model build_model(const nlohmann::json& run);

// Libraries shown as columns: adaptcore and every library with records.
std::vector<int> shown_libraries(const Model&);

double geomean(const std::vector<double>& positive_values);  // NaN for an empty vector
double median(std::vector<double> values);                   // NaN for an empty vector

}  // namespace adaptcore::bench::report
