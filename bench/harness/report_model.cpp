// A run's JSON -> the report's rows and statistics (see report_model.hpp). The input is read
// defensively: the report is the last step of a long run and must render whatever it was given
// (a field missing or of another type counts as missing, never as an error).
#include "harness/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

namespace adaptcore::bench::report {

namespace {

using nlohmann::json;

double number(const json& j, const char* key) {
  if (!j.is_object()) return kNaN;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return kNaN;
  const double v = it->get<double>();
  return std::isfinite(v) ? v : kNaN;
}

int64_t integer(const json& j, const char* key, int64_t fallback) {
  const double v = number(j, key);
  // Sizes beyond 2^53 are not shapes anyone benchmarks; out-of-range values are "missing".
  if (!std::isfinite(v) || std::fabs(v) > 9.0e15) return fallback;
  return static_cast<int64_t>(v);
}

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  return it->dump();  // a number or an object where a string was expected: shown as JSON
}

bool flag(const json& j, const char* key, bool fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return (it != j.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

bool positive(double v) { return std::isfinite(v) && v > 0; }

// The first integer in a class label ("1-16" -> 1, ">4096" -> 4096) orders the classes; labels
// without one follow, in the order they first appear.
std::vector<std::string> order_classes(const std::vector<std::string>& labels_in_order) {
  std::vector<std::pair<std::string, double>> keyed;
  for (const std::string& label : labels_in_order) {
    double key = HUGE_VAL;
    if (auto pos = label.find_first_of("0123456789"); pos != std::string::npos) {
      key = std::strtod(label.c_str() + pos, nullptr);
    }
    keyed.emplace_back(label, key);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  std::vector<std::string> out;
  for (auto& [label, key] : keyed) out.push_back(label);
  return out;
}

Result read_result(const json& r) {
  Result out;
  out.present = true;
  out.status = text(r, "status");
  out.message = text(r, "message");
  out.wrong = !flag(r, "correct", true);
  out.median_us = number(r, "median_us");
  out.gflops = number(r, "gflops");
  out.limit_fraction = number(r, "limit_fraction");
  out.predicted_us = number(r, "predicted_us");
  out.limit_bound = text(r, "limit_bound");
  out.plan = text(r, "plan");
  out.usable = out.status == "ok" && !out.wrong && positive(out.median_us);
  if (!out.usable) return out;
  if (!std::isfinite(out.gflops)) {
    const double flops = 2.0 * number(r, "m") * number(r, "n") * number(r, "k");
    if (positive(flops)) out.gflops = flops / (out.median_us * 1e3);
  }
  if (!std::isfinite(out.limit_fraction)) {
    const double limit = number(r, "limit_us");
    if (positive(limit)) out.limit_fraction = limit / out.median_us;
  }
  return out;
}

// Records of one shape share its index; without one, its dimensions and tag identify it.
std::string shape_key(const json& r) {
  const int64_t index = integer(r, "shape", -1);
  if (index >= 0) return "#" + std::to_string(index);
  return std::to_string(integer(r, "m", 0)) + "," + std::to_string(integer(r, "n", 0)) + "," +
         std::to_string(integer(r, "k", 0)) + "," + (flag(r, "trans_a", false) ? "T" : "N") +
         (flag(r, "trans_b", false) ? "T" : "N") + "," + std::to_string(integer(r, "lda", 0)) +
         "," + std::to_string(integer(r, "ldb", 0)) + "," + std::to_string(integer(r, "ldc", 0)) +
         "," + text(r, "tag");
}

Row new_row(const json& r, std::size_t libraries) {
  Row row;
  row.shape = integer(r, "shape", -1);
  row.m = integer(r, "m", 0);
  row.n = integer(r, "n", 0);
  row.k = integer(r, "k", 0);
  row.trans_a = flag(r, "trans_a", false);
  row.trans_b = flag(r, "trans_b", false);
  row.lda = integer(r, "lda", 0);
  row.ldb = integer(r, "ldb", 0);
  row.ldc = integer(r, "ldc", 0);
  row.tag = text(r, "tag");
  row.m_class = text(r, "m_class");
  row.n_class = text(r, "n_class");
  if (row.m_class.empty()) row.m_class = "unclassified";
  if (row.n_class.empty()) row.n_class = "unclassified";
  row.results.resize(libraries);
  return row;
}

// The library list: the run's "libraries", then any library that has records but no entry;
// adaptcore first.
std::vector<Library> read_libraries(const json& run, const json& records) {
  std::vector<Library> libs;
  auto find = [&libs](const std::string& name) {
    for (std::size_t i = 0; i < libs.size(); ++i) {
      if (libs[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  if (auto it = run.find("libraries"); it != run.end() && it->is_array()) {
    for (const json& l : *it) {
      const std::string name = text(l, "name");
      if (name.empty() || find(name) >= 0) continue;
      libs.push_back({name, text(l, "version"), text(l, "status"), text(l, "message"), false});
    }
  }
  for (const json& r : records) {
    const std::string name = text(r, "lib");
    if (name.empty()) continue;
    int i = find(name);
    if (i < 0) {
      libs.push_back({name, "", "", "", false});
      i = static_cast<int>(libs.size()) - 1;
    }
    libs[static_cast<std::size_t>(i)].has_records = true;
  }
  std::stable_partition(libs.begin(), libs.end(),
                        [](const Library& l) { return l.name == kAdaptcore; });
  return libs;
}

void grade_row(Row& row, int ac) {
  const Result* a = ac >= 0 ? &row.results[static_cast<std::size_t>(ac)] : nullptr;
  for (std::size_t i = 0; i < row.results.size(); ++i) {
    const Result& r = row.results[i];
    if (static_cast<int>(i) == ac || !r.usable) continue;
    if (row.best_vendor < 0 ||
        r.median_us < row.results[static_cast<std::size_t>(row.best_vendor)].median_us) {
      row.best_vendor = static_cast<int>(i);
    }
  }
  if (a != nullptr && a->usable) row.ac_limit_fraction = a->limit_fraction;
  if (row.best_vendor >= 0) {
    const Result& b = row.results[static_cast<std::size_t>(row.best_vendor)];
    row.best_limit_fraction = b.limit_fraction;
    if (a != nullptr && a->usable) row.speedup_best = b.median_us / a->median_us;
  }
}

void add_speedup(VendorSummary& s, double speedup, int row) {
  s.speedups.push_back(speedup);
  if (s.worst_row < 0 || speedup < s.worst_speedup) {
    s.worst_row = row;
    s.worst_speedup = speedup;
  }
}

void finish_summary(VendorSummary& s) {
  s.compared = static_cast<int>(s.speedups.size());
  if (s.compared == 0) return;
  s.geomean = geomean(s.speedups);
  const auto faster =
      std::count_if(s.speedups.begin(), s.speedups.end(), [](double v) { return v > 1.0; });
  s.losses = static_cast<int>(
      std::count_if(s.speedups.begin(), s.speedups.end(), [](double v) { return v < kLoseBelow; }));
  s.share_faster = static_cast<double>(faster) / static_cast<double>(s.compared);
}

void summarise(Model& m) {
  const int ac = m.adaptcore;
  std::vector<VendorSummary> per_lib(m.libraries.size());
  VendorSummary best;
  best.name = "best vendor";
  for (std::size_t li = 0; li < m.libraries.size(); ++li) per_lib[li].name = m.libraries[li].name;
  for (std::size_t ri = 0; ri < m.rows.size(); ++ri) {
    const Row& row = m.rows[ri];
    const int r = static_cast<int>(ri);
    if (ac < 0 || !row.results[static_cast<std::size_t>(ac)].usable) {
      ++m.ac_not_usable;
      continue;
    }
    const double ac_us = row.results[static_cast<std::size_t>(ac)].median_us;
    for (std::size_t li = 0; li < row.results.size(); ++li) {
      if (static_cast<int>(li) == ac || !row.results[li].usable) continue;
      add_speedup(per_lib[li], row.results[li].median_us / ac_us, r);
    }
    if (std::isfinite(row.speedup_best)) add_speedup(best, row.speedup_best, r);
  }
  for (std::size_t li = 0; li < m.libraries.size(); ++li) {
    if (static_cast<int>(li) == ac || !m.libraries[li].has_records) continue;
    finish_summary(per_lib[li]);
    m.vendors.push_back(std::move(per_lib[li]));
  }
  finish_summary(best);
  m.vendors.push_back(std::move(best));
}

// The suite part a tag names: its first two words ("full llm q_proj" -> "full llm").
std::string tag_part(const std::string& tag) {
  const std::size_t first = tag.find(' ');
  if (first == std::string::npos) return tag;
  const std::size_t second = tag.find(' ', first + 1);
  return second == std::string::npos ? tag : tag.substr(0, second);
}

// Speedups over the best vendor grouped by key(row), groups in order of their first row.
template <class Key>
std::vector<VendorSummary> group_speedups(const Model& m, Key key) {
  std::vector<VendorSummary> groups;
  for (std::size_t ri = 0; ri < m.rows.size(); ++ri) {
    const Row& row = m.rows[ri];
    const std::string name = key(row);
    if (name.empty() || !std::isfinite(row.speedup_best)) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const VendorSummary& g) { return g.name == name; });
    if (it == groups.end()) {
      groups.emplace_back().name = name;
      it = groups.end() - 1;
    }
    add_speedup(*it, row.speedup_best, static_cast<int>(ri));
  }
  for (auto& g : groups) finish_summary(g);
  return groups;
}

void count_correctness(Model& m) {
  for (std::size_t li = 0; li < m.libraries.size(); ++li) {
    if (!m.libraries[li].has_records) continue;
    Correctness c;
    c.name = m.libraries[li].name;
    for (const Row& row : m.rows) {
      const Result& r = row.results[li];
      if (!r.present) continue;
      ++c.records;
      if (r.usable) ++c.usable;
      if (r.wrong) ++c.wrong;
      if (r.status == "failed") {
        ++c.failed;
      } else if (r.status == "unsupported") {
        ++c.unsupported;
      } else if (r.status != "ok") {
        ++c.other;
      }
    }
    m.correctness.push_back(std::move(c));
  }
}

}  // namespace

double geomean(const std::vector<double>& values) {
  if (values.empty()) return kNaN;
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

double median(std::vector<double> values) {
  if (values.empty()) return kNaN;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

std::vector<int> shown_libraries(const Model& m) {
  std::vector<int> out;
  for (std::size_t i = 0; i < m.libraries.size(); ++i) {
    if (static_cast<int>(i) == m.adaptcore || m.libraries[i].has_records) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

Model build_model(const json& run) {
  static const json kEmptyArray = json::array();
  Model m;
  if (!run.is_object()) return m;

  m.suite = text(run, "suite");
  m.date = text(run, "date");
  m.operands = text(run, "operands");
  m.threads = number(run, "threads");
  m.peak_gflops = number(run, "peak_gflops");
  m.dram_gbs = number(run, "dram_gbs");
  if (auto it = run.find("hardware"); it != run.end()) m.hardware = *it;

  auto rec = run.find("records");
  const json& records = (rec != run.end() && rec->is_array()) ? *rec : kEmptyArray;
  m.libraries = read_libraries(run, records);
  for (std::size_t i = 0; i < m.libraries.size(); ++i) {
    if (m.libraries[i].name == kAdaptcore) m.adaptcore = static_cast<int>(i);
  }

  std::map<std::string, std::size_t> row_of;
  std::vector<std::string> m_seen, n_seen;
  for (const json& r : records) {
    const std::string lib = text(r, "lib");
    if (!r.is_object() || lib.empty()) continue;
    ++m.record_count;
    auto [it, inserted] = row_of.try_emplace(shape_key(r), m.rows.size());
    if (inserted) {
      m.rows.push_back(new_row(r, m.libraries.size()));
      const Row& row = m.rows.back();
      if (std::find(m_seen.begin(), m_seen.end(), row.m_class) == m_seen.end()) {
        m_seen.push_back(row.m_class);
      }
      if (std::find(n_seen.begin(), n_seen.end(), row.n_class) == n_seen.end()) {
        n_seen.push_back(row.n_class);
      }
    }
    Row& row = m.rows[it->second];
    if (lib == kAdaptcore && row.taxonomy.empty()) row.taxonomy = text(r, "taxonomy");
    for (std::size_t li = 0; li < m.libraries.size(); ++li) {
      // A repeated (shape, library) record keeps the first.
      if (m.libraries[li].name == lib && !row.results[li].present) row.results[li] = read_result(r);
    }
  }
  // Shape order; rows without an index keep their order, after the others.
  std::stable_sort(m.rows.begin(), m.rows.end(), [](const Row& a, const Row& b) {
    const auto key = [](const Row& r) {
      return r.shape < 0 ? std::numeric_limits<int64_t>::max() : r.shape;
    };
    return key(a) < key(b);
  });
  for (Row& row : m.rows) grade_row(row, m.adaptcore);
  m.m_classes = order_classes(m_seen);
  m.n_classes = order_classes(n_seen);
  summarise(m);
  m.by_taxonomy = group_speedups(m, [](const Row& r) { return r.taxonomy; });
  // Capacity order (registers, L1, L2, L3, DRAM), then the parallelism class by name.
  const auto capacity_rank = [](const std::string& name) {
    static const char* const kOrder[] = {"registers", "L1 ", "L2 ", "L3 ", "DRAM"};
    for (std::size_t i = 0; i < std::size(kOrder); ++i)
      if (name.starts_with(kOrder[i])) return i;
    return std::size(kOrder);
  };
  std::stable_sort(m.by_taxonomy.begin(), m.by_taxonomy.end(),
                   [&](const VendorSummary& a, const VendorSummary& b) {
                     const auto ra = capacity_rank(a.name), rb = capacity_rank(b.name);
                     return ra != rb ? ra < rb : a.name < b.name;
                   });
  m.by_part = group_speedups(m, [](const Row& r) { return tag_part(r.tag); });
  count_correctness(m);
  return m;
}

}  // namespace adaptcore::bench::report
