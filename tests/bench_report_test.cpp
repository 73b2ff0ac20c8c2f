// The harness's HTML report (bench/harness/report_html.hpp, report_model.hpp): the sections and
// plots are there, the numbers are right, every input string is escaped, and odd runs (no
// records, missing or failing libraries, one shape, NaN in the input) give a valid page with no
// NaN or Infinity in it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/report_html.hpp"
#include "harness/report_model.hpp"

namespace ab = adaptcore::bench;
namespace rp = adaptcore::bench::report;
using nlohmann::json;

namespace {

json record(int shape, int64_t m, int64_t n, int64_t k, const std::string& lib, double median_us,
            const std::string& tag = "llama3-8b o") {
  const double flops = 2.0 * static_cast<double>(m * n * k);
  json r = {{"shape", shape},
            {"m", m},
            {"n", n},
            {"k", k},
            {"trans_a", false},
            {"trans_b", false},
            {"lda", k},
            {"ldb", n},
            {"ldc", n},
            {"tag", tag},
            {"m_class", m <= 16 ? "1-16" : "17-256"},
            {"n_class", n <= 1024 ? "1-1024" : "1025-4096"},
            {"lib", lib},
            {"status", "ok"},
            {"correct", true},
            {"error", 1e-7},
            {"setup_us", 0.0},
            {"median_us", median_us},
            {"min_us", median_us * 0.98},
            {"reps", 25},
            {"gflops", flops / (median_us * 1e3)},
            {"limit_us", median_us * 0.5},
            {"limit_bound", "memory"},
            {"limit_fraction", 0.5}};
  if (lib == "adaptcore") {
    r["predicted_us"] = median_us * 0.9;
    r["plan"] = "avx512 14x32 packA directB";
  }
  return r;
}

json run_with(json records) {
  return {{"format", "adaptcore-bench"},
          {"version", 1},
          {"suite", "llm"},
          {"threads", 2},
          {"date", "2026-12-02T18:00:00Z"},
          {"peak_gflops", 232.0},
          {"dram_gbs", 25.0},
          {"hardware", {{"cpu", "Test CPU @ 3 GHz"}, {"cores", 2}, {"caches", {{"l2", 1048576}}}}},
          {"libraries",
           {{{"name", "adaptcore"}, {"version", "0.1.0"}, {"status", "ok"}},
            {{"name", "mkl"}, {"version", "2025.0"}, {"status", "ok"}},
            {{"name", "openblas"}, {"version", "0.3.28"}, {"status", "ok"}},
            {{"name", "blis"}, {"status", "skipped"}, {"message", "libblis.so not found"}}}},
          {"records", std::move(records)}};
}

// Three shapes: adaptcore 2x faster than the best vendor on shape 0, 0.5x on shape 1, 1x on 2.
json sample_run() {
  json r = json::array();
  r.push_back(record(0, 1, 4096, 4096, "adaptcore", 50));
  r.push_back(record(0, 1, 4096, 4096, "mkl", 100));
  r.push_back(record(0, 1, 4096, 4096, "openblas", 120));
  r.push_back(record(1, 64, 1024, 4096, "adaptcore", 200, "qwen3-8b qkv"));
  r.push_back(record(1, 64, 1024, 4096, "mkl", 100, "qwen3-8b qkv"));
  r.push_back(record(1, 64, 1024, 4096, "openblas", 400, "qwen3-8b qkv"));
  r.push_back(record(2, 256, 4096, 4096, "adaptcore", 1000));
  r.push_back(record(2, 256, 4096, 4096, "mkl", 1000));
  json failed = record(2, 256, 4096, 4096, "openblas", 1);
  failed["status"] = "failed";
  failed["message"] = "crashed";
  r.push_back(failed);
  return run_with(r);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

// No non-finite number written as text anywhere (JSON, JS, SVG attributes or cells).
void expect_finite_text(const std::string& html) {
  static const std::regex bad(R"(\b(nan|inf|infinity)\b)", std::regex::icase);
  std::smatch m;
  EXPECT_FALSE(std::regex_search(html, m, bad))
      << "found '" << m.str() << "' near: "
      << html.substr(static_cast<std::size_t>(std::max<long>(0, m.position() - 80)), 160);
}

void expect_page(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  for (const char* id :
       {"header", "summary", "correctness", "plots", "losses", "shapes", "plot-speedup-histogram",
        "plot-speedup-heatmap", "plot-limit-heatmap", "plot-predicted-measured"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_EQ(count(html, "<svg"), 4u);
  EXPECT_EQ(count(html, "</svg>"), 4u);
  // Self-contained: nothing fetched from elsewhere.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  expect_finite_text(html);
}

}  // namespace

TEST(BenchReport, ModelComputesSpeedups) {
  const rp::Model m = rp::build_model(sample_run());
  ASSERT_EQ(m.rows.size(), 3u);
  EXPECT_EQ(m.libraries.front().name, "adaptcore");
  EXPECT_EQ(m.adaptcore, 0);
  ASSERT_EQ(m.vendors.size(), 3u);  // mkl, openblas, best vendor (blis has no records)
  const rp::VendorSummary& mkl = m.vendors[0];
  EXPECT_EQ(mkl.name, "mkl");
  EXPECT_EQ(mkl.compared, 3);
  EXPECT_NEAR(mkl.geomean, 1.0, 1e-12);  // 2, 0.5, 1
  EXPECT_NEAR(mkl.share_faster, 1.0 / 3, 1e-12);
  EXPECT_EQ(mkl.losses, 1);
  EXPECT_EQ(mkl.worst_row, 1);
  EXPECT_NEAR(mkl.worst_speedup, 0.5, 1e-12);
  const rp::VendorSummary& openblas = m.vendors[1];
  EXPECT_EQ(openblas.compared, 2);  // its failed shape is not compared
  EXPECT_NEAR(openblas.geomean, std::sqrt(2.4 * 2.0), 1e-12);
  const rp::VendorSummary& best = m.vendors[2];
  EXPECT_EQ(best.compared, 3);
  EXPECT_NEAR(best.geomean, 1.0, 1e-12);
  EXPECT_EQ(m.rows[1].best_vendor, 1);  // mkl
  EXPECT_NEAR(m.rows[1].speedup_best, 0.5, 1e-12);
  EXPECT_EQ(m.m_classes, (std::vector<std::string>{"1-16", "17-256"}));
  EXPECT_EQ(m.n_classes, (std::vector<std::string>{"1-1024", "1025-4096"}));
  // Groups: no taxonomy recorded here; parts from the tags, in order of their first shape.
  EXPECT_TRUE(m.by_taxonomy.empty());
  ASSERT_EQ(m.by_part.size(), 2u);
  EXPECT_EQ(m.by_part[0].name, "llama3-8b o");
  EXPECT_EQ(m.by_part[0].compared, 2);
  EXPECT_NEAR(m.by_part[0].geomean, std::sqrt(2.0), 1e-12);
  EXPECT_EQ(m.by_part[1].name, "qwen3-8b qkv");
  EXPECT_EQ(m.by_part[1].compared, 1);
  ASSERT_EQ(m.correctness.size(), 3u);
  EXPECT_EQ(m.correctness[2].name, "openblas");
  EXPECT_EQ(m.correctness[2].failed, 1);
}

// Speedups over the best vendor grouped by adaptcore's taxonomy class, in capacity order.
TEST(BenchReport, GroupsByTaxonomyClass) {
  json run = sample_run();
  const char* classes[] = {"DRAM x few-tiles", "L2 x serial", "DRAM x few-tiles"};
  for (json& r : run["records"])
    if (r["lib"] == "adaptcore") r["taxonomy"] = classes[r["shape"].get<int>()];
  const rp::Model m = rp::build_model(run);
  ASSERT_EQ(m.by_taxonomy.size(), 2u);
  EXPECT_EQ(m.by_taxonomy[0].name, "L2 x serial");
  EXPECT_EQ(m.by_taxonomy[0].compared, 1);
  EXPECT_NEAR(m.by_taxonomy[0].geomean, 0.5, 1e-12);
  EXPECT_EQ(m.by_taxonomy[1].name, "DRAM x few-tiles");
  EXPECT_EQ(m.by_taxonomy[1].compared, 2);
  EXPECT_NEAR(m.by_taxonomy[1].geomean, std::sqrt(2.0), 1e-12);  // 2 and 1
  EXPECT_EQ(m.by_taxonomy[1].worst_row, 2);
  const std::string html = ab::render_html_report(run);
  EXPECT_NE(html.find("by taxonomy class"), std::string::npos);
  EXPECT_NE(html.find("L2 x serial"), std::string::npos);
}

TEST(BenchReport, PageHasEverySectionAndShowsLosses) {
  const std::string html = ab::render_html_report(sample_run());
  expect_page(html);
  EXPECT_NE(html.find("libblis.so not found"), std::string::npos);
  EXPECT_NE(html.find("2025.0"), std::string::npos);
  EXPECT_NE(html.find("Test CPU @ 3 GHz"), std::string::npos);
  EXPECT_NE(html.find("2026-12-02T18:00:00Z"), std::string::npos);
  // Shape 1 (0.5x) is a loss: highlighted in the table, listed, marked in the heat map.
  EXPECT_GE(count(html, "<tr class=\"lose\">"), 2u);
  EXPECT_NE(html.find("qwen3-8b qkv"), std::string::npos);
  EXPECT_NE(html.find("\u25bc"), std::string::npos);
  EXPECT_NE(html.find("class=\"verdict bad\""), std::string::npos);
  EXPECT_NE(html.find("table class=\"sortable\" id=\"shape-table\""), std::string::npos);
}

TEST(BenchReport, EscapesEveryInputString) {
  json run = sample_run();
  run["suite"] = "<b>suite</b>";
  run["hardware"]["cpu"] = "\"><img onerror=x>";
  run["records"][0]["tag"] = "<script>alert(1)</script>";
  run["records"][3]["m_class"] = "<i>16</i>";
  run["libraries"][3]["message"] = "<script>alert(2)</script> & 'quotes'";
  json evil = record(0, 1, 4096, 4096, "<svg onload=x>", 90);
  run["records"].push_back(evil);
  const std::string html = ab::render_html_report(run);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(2)&lt;/script&gt; &amp; &#39;quotes&#39;"),
            std::string::npos);
  EXPECT_EQ(html.find("<b>suite</b>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<i>16</i>"), std::string::npos);
  EXPECT_EQ(html.find("<svg onload"), std::string::npos);
  EXPECT_EQ(count(html, "<script>"), 1u);  // the page's own table sorter only
  expect_page(html);
}

TEST(BenchReport, NoRecords) {
  for (const json& run : {run_with(json::array()), json{{"format", "adaptcore-bench"}},
                          json::object(), json(nullptr), json::array(), json("text")}) {
    const std::string html = ab::render_html_report(run);
    expect_page(html);
    EXPECT_NE(html.find("No measurements"), std::string::npos);
  }
}

TEST(BenchReport, SingleShapeAndMissingLibraries) {
  json records = json::array();
  records.push_back(record(0, 7, 7, 7, "adaptcore", 1.5));
  records.push_back(record(0, 7, 7, 7, "mkl", 1.0));
  json run = run_with(records);
  run.erase("libraries");
  run.erase("hardware");
  run.erase("peak_gflops");
  const std::string html = ab::render_html_report(run);
  expect_page(html);
  EXPECT_NE(html.find("(not listed)"), std::string::npos);
  const rp::Model m = rp::build_model(run);
  EXPECT_EQ(m.libraries.size(), 2u);
  EXPECT_NEAR(m.vendors.back().geomean, 1.0 / 1.5, 1e-12);
}

TEST(BenchReport, LibraryWithAllFailures) {
  json records = json::array();
  for (int s = 0; s < 3; ++s) {
    records.push_back(record(s, 8 * (s + 1), 512, 512, "adaptcore", 10));
    json bad = record(s, 8 * (s + 1), 512, 512, "mkl", 5);
    bad["correct"] = false;  // a wrong result is never a win
    records.push_back(bad);
    json failed = record(s, 8 * (s + 1), 512, 512, "openblas", 0);
    failed["status"] = "failed";
    failed.erase("median_us");
    failed.erase("gflops");
    records.push_back(failed);
  }
  const json run = run_with(records);
  const rp::Model m = rp::build_model(run);
  for (const rp::VendorSummary& v : m.vendors) {
    EXPECT_EQ(v.compared, 0) << v.name;
    EXPECT_FALSE(std::isfinite(v.geomean));
  }
  EXPECT_EQ(m.correctness[1].wrong, 3);
  EXPECT_EQ(m.correctness[2].failed, 3);
  const std::string html = ab::render_html_report(run);
  expect_page(html);
  EXPECT_NE(html.find("no shape where both ran"), std::string::npos);
  EXPECT_NE(html.find("wrong result"), std::string::npos);
}

TEST(BenchReport, AdaptcoreFailuresAndMissingAdaptcore) {
  json records = json::array();
  json failed = record(0, 4, 4, 4, "adaptcore", 1);
  failed["status"] = "failed";
  failed["message"] = "Status::InvalidArgument";
  records.push_back(failed);
  records.push_back(record(0, 4, 4, 4, "mkl", 1));
  std::string html = ab::render_html_report(run_with(records));
  expect_page(html);
  EXPECT_NE(html.find("<tr class=\"fail\">"), std::string::npos);
  EXPECT_NE(html.find("adaptcore failed"), std::string::npos);

  json vendors_only = json::array();
  vendors_only.push_back(record(0, 4, 4, 4, "mkl", 1));
  json run = run_with(vendors_only);
  run["libraries"].erase(0);
  html = ab::render_html_report(run);
  expect_page(html);
  EXPECT_NE(html.find("No adaptcore records"), std::string::npos);
}

TEST(BenchReport, NonFiniteAndMistypedInputIsMissing) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  json records = json::array();
  json a = record(0, 16, 16, 16, "adaptcore", 2);
  a["predicted_us"] = inf;
  a["limit_fraction"] = nan;
  a["limit_us"] = -inf;
  records.push_back(a);
  json b = record(0, 16, 16, 16, "mkl", nan);
  b["gflops"] = inf;
  records.push_back(b);
  json c = record(1, 32, 32, 32, "adaptcore", 0);  // zero time: not a valid result
  records.push_back(c);
  records.push_back(record(1, 32, 32, 32, "mkl", 3));
  json d = record(2, 32, 32, 32, "adaptcore", 3);
  d["median_us"] = "fast";
  d["m_class"] = 17;
  d["shape"] = "two";
  records.push_back(d);
  records.push_back("not an object");
  json run = run_with(records);
  run["threads"] = nan;
  run["peak_gflops"] = inf;
  const std::string html = ab::render_html_report(run);
  expect_page(html);
  const rp::Model m = rp::build_model(run);
  EXPECT_EQ(m.vendors.back().compared, 0);
}
