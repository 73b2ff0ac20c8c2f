#include "harness/results_csv.hpp"

#include <initializer_list>
#include <sstream>

namespace adaptcore::bench {
namespace {

// RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled.
std::string csv_field(const nlohmann::ordered_json& v) {
  if (v.is_null()) return {};
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string table(const nlohmann::ordered_json& records, std::initializer_list<const char*> cols) {
  std::ostringstream os;
  bool first = true;
  for (const char* c : cols) os << (first ? "" : ",") << c, first = false;
  os << '\n';
  for (const auto& r : records) {
    first = true;
    for (const char* c : cols) {
      os << (first ? "" : ",");
      first = false;
      if (r.contains(c)) os << csv_field(r[c]);
    }
    os << '\n';
  }
  return os.str();
}

}  // namespace

std::string results_csv(const nlohmann::ordered_json& run) {
  static const nlohmann::ordered_json empty = nlohmann::ordered_json::array();
  const auto& records = run.contains("records") ? run["records"] : empty;
  // clang-format off
  return table(records,
               {"shape",        "m",      "n",       "k",        "trans_a",     "trans_b",
                "lda",          "ldb",    "ldc",     "tag",      "m_class",     "n_class",
                "lib",          "status", "correct", "error",    "setup_us",    "median_us",
                "min_us",       "reps",   "gflops",  "limit_us", "limit_bound", "limit_fraction",
                "predicted_us", "plan",   "taxonomy", "stream_gbs_near", "stream_fraction"});
  // clang-format on
}

std::string predicted_csv(const nlohmann::ordered_json& records) {
  return table(records, {"shape", "m", "n", "k", "m_class", "n_class", "taxonomy", "plan",
                         "predicted_us", "limit_us", "limit_bound", "predicted_limit_fraction"});
}

}  // namespace adaptcore::bench
