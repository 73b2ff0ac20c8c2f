// The HTML page of the report (see report_html.hpp): the header, the summary and correctness
// tables, the plots, the losing shapes and the full per-shape table. Numbers come from
// report_model, plots from report_plots; this file only lays them out.
#include "harness/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/html_text.hpp"
#include "harness/report_model.hpp"
#include "harness/report_plots.hpp"
#include "harness/suites.hpp"

namespace adaptcore::bench {

namespace {

using html::escape;
using report::kLoseBelow;
using report::Model;
using report::Result;
using report::Row;

constexpr const char* kStyle = R"css(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#111;
  max-width:1400px}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer}
table.sortable th:hover{background:#e6e6e6}
.bad{color:#b2182b;font-weight:bold}
.good{color:#2166ac}
.muted{color:#777}
tr.lose td{background:#fde0dc}
tr.fail td{background:#f4b6b0}
.verdict{font-size:16px;padding:8px 12px;border-left:5px solid #2166ac;background:#f4f8fc}
.verdict.bad{border-left-color:#b2182b;background:#fdf0ee;color:#111;font-weight:normal}
figure{margin:16px 0}
figcaption{color:#444;max-width:900px}
svg.plot{max-width:100%;height:auto;font:11px system-ui,sans-serif}
svg .ptitle{font-weight:bold;font-size:12px}
svg .tick{font-size:10px;fill:#333}
svg .axis{font-size:11px;fill:#333}
svg .muted{fill:#777}
svg .cell{font-size:11px}
svg .cell.bad{font-weight:bold}
svg .count{font-size:9px}
dl.hw{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:6px 0}
dl.hw dt{font-weight:bold}
dl.hw dd{margin:0}
)css";

// Sorts the table whose header is clicked: numbers by their data-v key, text otherwise;
// missing values (an empty data-v) always last.
constexpr const char* kSortScript = R"js(
document.querySelectorAll('table.sortable').forEach(function (t) {
  t.querySelectorAll('thead th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.getAttribute('data-dir') !== 'asc';
      t.querySelectorAll('thead th').forEach(function (h) { h.removeAttribute('data-dir'); });
      th.setAttribute('data-dir', asc ? 'asc' : 'desc');
      var key = function (row) {
        var c = row.cells[col], v = c.getAttribute('data-v');
        if (v === null) return c.textContent;
        return v === '' ? null : parseFloat(v);
      };
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (x, y) {
        var a = key(x), b = key(y);
        if (a === null || b === null) return (a === null) - (b === null);
        var d = (typeof a === 'number' && typeof b === 'number')
            ? a - b : String(a).localeCompare(String(b));
        return asc ? d : -d;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
)js";

std::string td(const std::string& content, const std::string& cls = {}) {
  return "<td" + (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + content + "</td>";
}

// A numeric cell: shown text, and the value as the sort key.
std::string num_td(const std::string& shown, double key, const std::string& cls = "num",
                   const std::string& title = {}) {
  return "<td class=\"" + cls + "\" data-v=\"" + html::sort_key(key) + "\"" +
         (title.empty() ? "" : " title=\"" + escape(title) + "\"") + ">" + shown + "</td>";
}

std::string shape_text(const Row& r) {
  return std::to_string(r.m) + "\u00d7" + std::to_string(r.n) + "\u00d7" + std::to_string(r.k);
}

std::string op_text(const Row& r) {
  return std::string(r.trans_a ? "T" : "N") + (r.trans_b ? "T" : "N");
}

// "dense", or the leading dimensions when any differs from the dense one.
std::string ld_text(const Row& r) {
  SuiteShape s;
  s.m = r.m;
  s.n = r.n;
  s.k = r.k;
  s.trans_a = r.trans_a;
  s.trans_b = r.trans_b;
  const int64_t lda = r.lda > 0 ? r.lda : dense_lda(s);
  const int64_t ldb = r.ldb > 0 ? r.ldb : dense_ldb(s);
  const int64_t ldc = r.ldc > 0 ? r.ldc : dense_ldc(s);
  if (lda == dense_lda(s) && ldb == dense_ldb(s) && ldc == dense_ldc(s)) return "dense";
  return std::to_string(lda) + "/" + std::to_string(ldb) + "/" + std::to_string(ldc);
}

// A shape in one line for the summary: "1×4096×4096 NN (llama3-8b o)".
std::string shape_line(const Row& r) {
  std::string s = shape_text(r) + " " + op_text(r);
  if (ld_text(r) != "dense") s += " ld " + ld_text(r);
  if (!r.tag.empty()) s += " (" + r.tag + ")";
  return s;
}

std::string speedup_class(double s) {
  if (!std::isfinite(s)) return "num";
  return s < kLoseBelow ? "num bad" : (s > 1.0 ? "num good" : "num");
}

void header(std::string& out, const Model& m) {
  out += "<header id=\"header\"><h1>adaptcore benchmark: " +
         escape(m.suite.empty() ? "(unnamed suite)" : m.suite) + "</h1>";
  out += "<dl class=\"hw\"><dt>suite</dt><dd>" + escape(m.suite) + "</dd><dt>threads</dt><dd>" +
         html::fixed(m.threads, 0) + "</dd>" +
         (m.operands.empty() ? std::string()
                             : "<dt>operands</dt><dd>" + escape(m.operands) + "</dd>") +
         "<dt>date</dt><dd>" + escape(m.date) + "</dd>";
  out += "<dt>peak</dt><dd>" + html::fixed(m.peak_gflops, 1) + " GFLOP/s</dd>";
  out += "<dt>DRAM bandwidth</dt><dd>" + html::fixed(m.dram_gbs, 1) + " GB/s</dd>";
  if (m.hardware.is_object()) {
    for (auto it = m.hardware.begin(); it != m.hardware.end(); ++it) {
      std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
      if (v.size() > 200) v = v.substr(0, 200) + "\u2026";
      out += "<dt>" + escape(it.key()) + "</dt><dd>" + escape(v) + "</dd>";
    }
  } else if (!m.hardware.is_null()) {
    out += "<dt>hardware</dt><dd>" +
           escape(m.hardware.is_string() ? m.hardware.get<std::string>() : m.hardware.dump()) +
           "</dd>";
  } else {
    out += "<dt>hardware</dt><dd class=\"muted\">not recorded</dd>";
  }
  out += "</dl>";

  out +=
      "<h2 id=\"libraries\">Libraries</h2><table><thead><tr><th>library</th><th>version</th>"
      "<th>status</th><th>records</th></tr></thead><tbody>";
  std::vector<std::string> skipped;
  for (const report::Library& l : m.libraries) {
    const bool ok = l.status == "ok" || (l.status.empty() && l.has_records);
    if (!ok && !l.has_records) {
      skipped.push_back("<b>" + escape(l.name) + "</b>" +
                        (l.message.empty() ? "" : ": " + escape(l.message)));
    }
    out += "<tr>" + td(escape(l.name)) + td(escape(l.version)) +
           td(escape(l.status.empty() ? "(not listed)" : l.status) +
                  (l.message.empty() ? "" : " \u2013 " + escape(l.message)),
              ok ? "" : "muted") +
           td(l.has_records ? "yes" : "none", l.has_records ? "" : "muted") + "</tr>";
  }
  if (m.libraries.empty()) out += "<tr><td colspan=\"4\" class=\"muted\">none listed</td></tr>";
  out += "</tbody></table>";
  if (!skipped.empty()) {
    out += "<p>Skipped: ";
    for (std::size_t i = 0; i < skipped.size(); ++i) out += (i ? "; " : "") + skipped[i];
    out += ".</p>";
  }
  out += "</header>";
}

// A table of speedup summaries (per vendor, or over the best vendor per group of shapes):
// its head, then one row per summary under the label `label(summary)` gives (HTML).
template <class Label>
void speedup_table(std::string& out, const Model& m, const std::string& first_column,
                   const std::string& count_column, const std::vector<report::VendorSummary>& rows,
                   Label label) {
  out += "<table><thead><tr><th>" + first_column + "</th><th>" + count_column +
         "</th><th>geomean speedup</th><th>adaptcore faster on</th><th>below " +
         html::ratio(kLoseBelow) + "</th><th>worst shape</th></tr></thead><tbody>";
  for (const report::VendorSummary& v : rows) {
    std::string worst = "\u2013";
    if (v.worst_row >= 0) {
      worst = "<span class=\"" + speedup_class(v.worst_speedup) + "\">" +
              html::ratio(v.worst_speedup) + "</span> on " +
              escape(shape_line(m.rows[static_cast<std::size_t>(v.worst_row)]));
    }
    out += "<tr>" + td(label(v)) + td(std::to_string(v.compared), "num") +
           td(v.compared == 0 ? "no shape where both ran" : html::ratio(v.geomean),
              v.compared == 0 ? "muted" : speedup_class(v.geomean)) +
           td(html::percent(v.share_faster), "num") +
           td(std::to_string(v.losses), v.losses > 0 ? "num bad" : "num") + td(worst) + "</tr>";
  }
  out += "</tbody></table>";
}

// Speedup over the best vendor per group of shapes (taxonomy class, suite part).
void group_table(std::string& out, const Model& m, const std::string& title,
                 const std::vector<report::VendorSummary>& groups) {
  if (groups.empty()) return;
  out += "<h3>Speedup over the best vendor, " + escape(title) + "</h3>";
  speedup_table(out, m, "group", "shapes", groups,
                [](const report::VendorSummary& g) { return escape(g.name); });
}

void summary(std::string& out, const Model& m) {
  out += "<section id=\"summary\"><h2>Summary</h2>";
  if (m.rows.empty()) {
    out += "<p class=\"verdict\">No measurements in this run (0 records).</p></section>";
    return;
  }
  const report::VendorSummary& best = m.vendors.back();
  if (m.adaptcore < 0) {
    out += "<p class=\"verdict bad\">No adaptcore records: nothing to compare.</p>";
  } else if (best.compared == 0) {
    out +=
        "<p class=\"verdict\">No shape where adaptcore and a vendor library both have a "
        "result.</p>";
  } else {
    const bool lost = best.losses > 0 || m.ac_not_usable > 0;
    out += "<p class=\"verdict" + std::string(lost ? " bad" : "") +
           "\">Against the best vendor library on each shape, adaptcore's geometric-mean "
           "speedup is <b>" +
           html::ratio(best.geomean) + "</b> over " + std::to_string(best.compared) +
           " shapes; it is faster on " + html::percent(best.share_faster) + " of them and <b>" +
           std::to_string(best.losses) + "</b> shapes are below " + html::ratio(kLoseBelow) +
           (m.ac_not_usable > 0 ? "; adaptcore has no valid result on <b>" +
                                      std::to_string(m.ac_not_usable) + "</b> shapes"
                                : std::string()) +
           ".</p>";
  }
  speedup_table(out, m, "adaptcore vs", "shapes compared", m.vendors,
                [&](const report::VendorSummary& v) {
                  return &v == &m.vendors.back() ? std::string("<b>best vendor per shape</b>")
                                                 : escape(v.name);
                });
  out +=
      "<p class=\"muted\">Speedup = the other library's median time / "
      "adaptcore's median time on the same shape, over the shapes where both results are "
      "valid (status ok, check passed).</p>";
  group_table(out, m, "by taxonomy class (capacity x parallelism, adaptcore's classifier)",
              m.by_taxonomy);
  if (m.by_part.size() > 1)
    group_table(out, m, "by suite part (the tag's first two words)", m.by_part);
  out += "</section>";
}

void correctness(std::string& out, const Model& m) {
  out +=
      "<section id=\"correctness\"><h2>Correctness</h2><table><thead><tr><th>library</th>"
      "<th>records</th><th>valid</th><th>failed checks</th><th>failed runs</th>"
      "<th>unsupported</th><th>other status</th></tr></thead><tbody>";
  for (const report::Correctness& c : m.correctness) {
    auto count = [](int n) { return td(std::to_string(n), n > 0 ? "num bad" : "num"); };
    out += "<tr>" + td(escape(c.name)) + td(std::to_string(c.records), "num") +
           td(std::to_string(c.usable), "num") + count(c.wrong) + count(c.failed) +
           td(std::to_string(c.unsupported), "num") + count(c.other) + "</tr>";
  }
  if (m.correctness.empty()) out += "<tr><td colspan=\"7\" class=\"muted\">no records</td></tr>";
  out += "</tbody></table></section>";
}

void figure(std::string& out, const char* id, const report::Plot& p) {
  out += std::string("<figure id=\"") + id + "\">" + p.svg + "<figcaption>" + p.caption +
         "</figcaption></figure>";
}

void plots(std::string& out, const Model& m) {
  out += "<section id=\"plots\"><h2>Plots</h2>";
  figure(out, "plot-speedup-histogram", report::speedup_histogram(m));
  figure(out, "plot-speedup-heatmap", report::speedup_heatmap(m));
  figure(out, "plot-limit-heatmap", report::limit_heatmap(m));
  figure(out, "plot-predicted-measured", report::predicted_scatter(m));
  out += "</section>";
}

// adaptcore's own cell: its status when it has no valid result.
std::string lib_cell(const Result& r) {
  if (!r.present) return td("\u2013", "muted");
  if (r.wrong) return td("wrong result", "bad");
  if (r.status == "failed")
    return "<td class=\"bad\" title=\"" + escape(r.message) + "\">failed</td>";
  if (!r.usable) {
    return "<td class=\"muted\" title=\"" + escape(r.message) + "\">" +
           escape(r.status.empty() ? "no time" : r.status) + "</td>";
  }
  return num_td(html::fixed(r.gflops, 1), r.gflops, "num", r.plan);
}

bool adaptcore_failed(const Model& m, const Row& r) {
  if (m.adaptcore < 0) return false;
  const Result& a = r.results[static_cast<std::size_t>(m.adaptcore)];
  return !a.usable && a.present && a.status != "unsupported";
}

void losses(std::string& out, const Model& m) {
  std::vector<const Row*> lost;
  for (const Row& r : m.rows) {
    if (r.speedup_best < kLoseBelow || adaptcore_failed(m, r)) lost.push_back(&r);
  }
  // Failures first, then the largest losses.
  std::stable_sort(lost.begin(), lost.end(), [](const Row* a, const Row* b) {
    const double x = std::isfinite(a->speedup_best) ? a->speedup_best : -1;
    const double y = std::isfinite(b->speedup_best) ? b->speedup_best : -1;
    return x < y;
  });
  out += "<section id=\"losses\"><h2>Where adaptcore loses</h2>";
  if (lost.empty()) {
    out += "<p>No shape below " + html::ratio(kLoseBelow) +
           " of the best vendor library, and no adaptcore failure.</p></section>";
    return;
  }
  constexpr std::size_t kListed = 200;
  out += "<p class=\"bad\">" + std::to_string(lost.size()) + " of " +
         std::to_string(m.rows.size()) + " shapes: adaptcore below " + html::ratio(kLoseBelow) +
         " of the best vendor library, or without a valid result" +
         (lost.size() > kListed ? " (the " + std::to_string(kListed) +
                                      " worst below; all are highlighted in the full table)"
                                : std::string()) +
         ".</p><table class=\"sortable\"><thead><tr><th>#</th><th>shape</th><th>tag</th>"
         "<th>speedup vs best</th><th>best vendor</th><th>adaptcore</th><th>best vendor time"
         "</th><th>adaptcore plan</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < std::min(lost.size(), kListed); ++i) {
    const Row& r = *lost[i];
    const Result* a =
        m.adaptcore >= 0 ? &r.results[static_cast<std::size_t>(m.adaptcore)] : nullptr;
    const Result* b =
        r.best_vendor >= 0 ? &r.results[static_cast<std::size_t>(r.best_vendor)] : nullptr;
    std::string ac_text = "\u2013";
    if (a != nullptr && a->usable) {
      ac_text = html::micros(a->median_us);
    } else if (a != nullptr && a->present) {
      ac_text = "<span class=\"bad\">" + escape(a->wrong ? "wrong result" : a->status) + "</span>" +
                (a->message.empty() ? "" : " " + escape(a->message));
    }
    out += "<tr class=\"" + std::string(std::isfinite(r.speedup_best) ? "lose" : "fail") + "\">" +
           num_td(std::to_string(r.shape), static_cast<double>(r.shape)) +
           td(escape(shape_line(r))) + td(escape(r.tag)) +
           num_td(std::isfinite(r.speedup_best) ? html::ratio(r.speedup_best) : "adaptcore failed",
                  r.speedup_best, "num bad") +
           td(b ? escape(m.libraries[static_cast<std::size_t>(r.best_vendor)].name) : "\u2013") +
           td(ac_text) + td(b ? html::micros(b->median_us) : "\u2013") +
           td(a ? escape(a->plan) : "") + "</tr>";
  }
  out += "</tbody></table></section>";
}

void shape_table(std::string& out, const Model& m) {
  const std::vector<int> libs = report::shown_libraries(m);
  out +=
      "<section id=\"shapes\"><h2>All shapes</h2><p class=\"muted\">GFLOP/s per library "
      "(hover adaptcore's for its plan). Rows below " +
      html::ratio(kLoseBelow) +
      " of the best vendor are highlighted; click a column to sort.</p>"
      "<table class=\"sortable\" id=\"shape-table\"><thead><tr><th>#</th><th>M</th><th>N</th>"
      "<th>K</th><th>op</th><th>ld a/b/c</th><th>tag</th><th>m_class</th><th>n_class</th>";
  for (int li : libs) {
    out += "<th>" + escape(m.libraries[static_cast<std::size_t>(li)].name) + "</th>";
  }
  out +=
      "<th>best vendor</th><th>speedup vs best</th><th>adaptcore % of limit</th>"
      "<th>bound</th><th>predicted / measured</th></tr></thead><tbody>";
  for (const Row& r : m.rows) {
    const bool failed = adaptcore_failed(m, r);
    const bool lost = r.speedup_best < kLoseBelow;
    out += std::string("<tr") + (failed ? " class=\"fail\"" : (lost ? " class=\"lose\"" : "")) +
           ">" + num_td(std::to_string(r.shape), static_cast<double>(r.shape)) +
           num_td(std::to_string(r.m), static_cast<double>(r.m)) +
           num_td(std::to_string(r.n), static_cast<double>(r.n)) +
           num_td(std::to_string(r.k), static_cast<double>(r.k)) + td(op_text(r)) + td(ld_text(r)) +
           td(escape(r.tag)) + td(escape(r.m_class)) + td(escape(r.n_class));
    for (int li : libs) out += lib_cell(r.results[static_cast<std::size_t>(li)]);
    out += td(r.best_vendor >= 0 ? escape(m.libraries[static_cast<std::size_t>(r.best_vendor)].name)
                                 : "\u2013");
    out += num_td(html::ratio(r.speedup_best), r.speedup_best, speedup_class(r.speedup_best));
    std::string bound;
    double pred_ratio = report::kNaN;
    if (m.adaptcore >= 0) {
      const Result& a = r.results[static_cast<std::size_t>(m.adaptcore)];
      bound = a.limit_bound;
      if (a.usable && a.predicted_us > 0) pred_ratio = a.predicted_us / a.median_us;
    }
    out += num_td(html::percent(r.ac_limit_fraction), r.ac_limit_fraction) + td(escape(bound)) +
           num_td(html::ratio(pred_ratio), pred_ratio) + "</tr>";
  }
  out += "</tbody></table>";
  if (m.rows.empty()) out += "<p class=\"muted\">No shapes.</p>";
  out += "</section>";
}

}  // namespace

std::string render_html_report(const nlohmann::json& run) {
  const Model m = report::build_model(run);
  std::string out;
  out.reserve(4096 + m.rows.size() * 600);
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>"
      "adaptcore benchmark: " +
      escape(m.suite) + "</title><style>" + kStyle + "</style></head><body>\n";
  header(out, m);
  summary(out, m);
  correctness(out, m);
  plots(out, m);
  losses(out, m);
  shape_table(out, m);
  out += "<script>" + std::string(kSortScript) + "</script>\n</body></html>\n";
  return out;
}

}  // namespace adaptcore::bench
