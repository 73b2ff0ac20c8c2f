// Inline SVG plots of the report (see report_plots.hpp). Coordinates go through html::coord and
// labels through html::escape, so no input can break the markup or put NaN into it.
#include "harness/report_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "harness/html_text.hpp"

namespace adaptcore::bench::report {

namespace {

using html::coord;
using html::escape;

// A growing SVG document.
class Svg {
 public:
  // `tooltip` (plain text) becomes the rectangle's <title>.
  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& extra = {}, const std::string& tooltip = {}) {
    body_ += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" width=\"" +
             coord(std::max(0.0, w)) + "\" height=\"" + coord(std::max(0.0, h)) + "\" fill=\"" +
             fill + "\"" + (extra.empty() ? "" : " " + extra);
    body_ += tooltip.empty() ? "/>" : "><title>" + escape(tooltip) + "</title></rect>";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke,
            const std::string& extra = {}) {
    body_ += "<line x1=\"" + coord(x1) + "\" y1=\"" + coord(y1) + "\" x2=\"" + coord(x2) +
             "\" y2=\"" + coord(y2) + "\" stroke=\"" + stroke + "\"" +
             (extra.empty() ? "" : " " + extra) + "/>";
  }
  // `label` is plain text (escaped here); anchor: start, middle or end.
  void text(double x, double y, const std::string& label, const char* anchor = "start",
            const std::string& extra = {}) {
    body_ += "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" + anchor + "\"" +
             (extra.empty() ? "" : " " + extra) + ">" + escape(label) + "</text>";
  }
  void raw(const std::string& markup) { body_ += markup; }
  std::string finish(double width, double height, const std::string& title) const {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" viewBox=\"0 0 " +
           coord(width) + " " + coord(height) + "\" width=\"" + coord(width) + "\" height=\"" +
           coord(height) + "\" role=\"img\" aria-label=\"" + escape(title) + "\"><title>" +
           escape(title) + "</title>" + body_ + "</svg>";
  }

 private:
  std::string body_;
};

struct Rgb {
  double r, g, b;
};

Rgb mix(Rgb a, Rgb b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

std::string hex(Rgb c) {
  auto byte = [](double v) {
    return static_cast<unsigned>(std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 255.0) + 0.5) & 255u;
  };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return buf;
}

// Readable text on a background: dark on light colours, white on dark ones.
std::string ink_on(Rgb c) {
  const double luminance = (0.299 * c.r + 0.587 * c.g + 0.114 * c.b) / 255.0;
  return luminance < 0.55 ? "#ffffff" : "#111111";
}

constexpr Rgb kNeutral{247, 247, 247};
constexpr Rgb kLose{178, 24, 43};  // adaptcore slower
constexpr Rgb kWin{33, 102, 172};  // adaptcore faster
constexpr Rgb kEmpty{230, 230, 230};

// Speedup colour: log2 scale centred at 1.0, saturating at 1/2x and 2x (the range where
// libraries' geometric means differ; beyond it the cell text says how far).
Rgb speedup_colour(double s) {
  if (!(s > 0) || !std::isfinite(s)) return kEmpty;
  const double t = std::clamp(std::log2(s), -1.0, 1.0);
  return t < 0 ? mix(kNeutral, kLose, -t) : mix(kNeutral, kWin, t);
}

// Fraction-of-limit colour: white at 0, dark green at 1 (and above).
Rgb fraction_colour(double f) {
  if (!std::isfinite(f)) return kEmpty;
  return mix({247, 252, 245}, {0, 109, 44}, std::clamp(f, 0.0, 1.0));
}

std::string no_data(const std::string& title, const std::string& why) {
  Svg svg;
  svg.rect(0, 0, 480, 60, "#fafafa", "stroke=\"#ccc\"");
  svg.text(240, 35, why, "middle", "class=\"muted\"");
  return svg.finish(480, 60, title);
}

// Cells of a class heat map: values accumulated per (m_class, n_class).
struct Cells {
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  void add(const Row& row, double v) {
    if (std::isfinite(v)) values[{row.m_class, row.n_class}].push_back(v);
  }
  const std::vector<double>* at(const std::string& mc, const std::string& nc) const {
    auto it = values.find({mc, nc});
    return it == values.end() ? nullptr : &it->second;
  }
};

double mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// One heat-map panel at (x0, y0); value_of(cell values) -> shown value; returns its width.
struct Panel {
  double cell_w = 80, cell_h = 40, label_w = 110, head_h = 56;
};

template <typename Value, typename Colour, typename Label, typename Marked>
double draw_heatmap(Svg& svg, const Model& m, const Cells& cells, double x0, double y0,
                    const std::string& title, const Panel& p, Value value_of, Colour colour_of,
                    Label label_of, Marked marked) {
  svg.text(x0, y0 + 14, title, "start", "class=\"ptitle\"");
  svg.text(x0 + p.label_w + p.cell_w * static_cast<double>(m.n_classes.size()) / 2, y0 + 34,
           "n_class", "middle", "class=\"axis\"");
  for (std::size_t c = 0; c < m.n_classes.size(); ++c) {
    svg.text(x0 + p.label_w + (static_cast<double>(c) + 0.5) * p.cell_w, y0 + p.head_h - 4,
             m.n_classes[c], "middle", "class=\"tick\"");
  }
  for (std::size_t r = 0; r < m.m_classes.size(); ++r) {
    const double y = y0 + p.head_h + static_cast<double>(r) * p.cell_h;
    svg.text(x0 + p.label_w - 6, y + p.cell_h / 2 + 4, m.m_classes[r], "end", "class=\"tick\"");
    for (std::size_t c = 0; c < m.n_classes.size(); ++c) {
      const double x = x0 + p.label_w + static_cast<double>(c) * p.cell_w;
      const std::vector<double>* v = cells.at(m.m_classes[r], m.n_classes[c]);
      if (v == nullptr || v->empty()) {
        svg.rect(x, y, p.cell_w - 2, p.cell_h - 2, hex(kEmpty));
        svg.text(x + p.cell_w / 2, y + p.cell_h / 2 + 4, "\u2013", "middle", "class=\"cell\"");
        continue;
      }
      const double value = value_of(*v);
      const Rgb fill = colour_of(value);
      const bool mark = marked(value);
      svg.rect(x, y, p.cell_w - 2, p.cell_h - 2, hex(fill),
               mark ? "stroke=\"#67000d\" stroke-width=\"3\"" : "");
      const std::string ink = "fill=\"" + ink_on(fill) + "\"";
      svg.text(x + p.cell_w / 2, y + 16, (mark ? "\u25bc " : "") + label_of(value), "middle",
               "class=\"cell" + std::string(mark ? " bad" : "") + "\" " + ink);
      svg.text(x + p.cell_w / 2, y + 31, "n=" + std::to_string(v->size()), "middle",
               "class=\"count\" " + ink);
    }
  }
  svg.text(x0 + 12, y0 + p.head_h + static_cast<double>(m.m_classes.size()) * p.cell_h / 2,
           "m_class", "middle",
           "class=\"axis\" transform=\"rotate(-90 " + coord(x0 + 12) + " " +
               coord(y0 + p.head_h + static_cast<double>(m.m_classes.size()) * p.cell_h / 2) +
               ")\"");
  return p.label_w + p.cell_w * static_cast<double>(m.n_classes.size());
}

// 10^d microseconds as "100 µs", "1 ms", "10 s".
std::string decade_label(double d) {
  const int e = static_cast<int>(d);
  const char* units[] = {" \u00b5s", " ms", " s"};
  const int unit = std::clamp(e >= 0 ? e / 3 : -1, 0, 2);
  const int rest = e - 3 * unit;
  if (rest < 0) return "10^" + std::to_string(rest) + units[0];
  std::string digits = "1";
  digits.append(static_cast<std::size_t>(rest), '0');
  return digits + units[unit];
}

Panel panel_for(const Model& m, double max_width) {
  Panel p;
  const double cols = static_cast<double>(std::max<std::size_t>(1, m.n_classes.size()));
  p.cell_w = std::clamp((max_width - p.label_w) / cols, 56.0, 110.0);
  return p;
}

// Speedup legend: discrete steps from 1/2x to 2x.
void speedup_legend(Svg& svg, double x0, double y0) {
  const double steps[] = {0.5, 0.71, 0.84, 0.95, 1.05, 1.19, 1.41, 2.0};
  svg.text(x0, y0 + 12, "geomean speedup over the best vendor:", "start", "class=\"tick\"");
  double x = x0 + 250;
  for (double s : steps) {
    svg.rect(x, y0, 44, 16, hex(speedup_colour(s)), "stroke=\"#999\"");
    svg.text(x + 22, y0 + 30, html::ratio(s), "middle", "class=\"tick\"");
    x += 46;
  }
}

}  // namespace

Plot speedup_histogram(const Model& m) {
  const std::string title = "Distribution of adaptcore's speedup over each library";
  Plot plot;
  bool any = false;
  for (const VendorSummary& v : m.vendors) any = any || v.compared > 0;
  if (!any) {
    plot.svg = no_data(title, "no shape where adaptcore and a vendor library both ran");
    plot.caption = "No speedups to plot.";
    return plot;
  }
  // Shared axis: log2(speedup) in [-4, 4], bins of 1/4 octave; outliers go to the end bins.
  constexpr double kLo = -4, kHi = 4, kBin = 0.25;
  constexpr int kBins = 32;
  const double left = 190, plot_w = 560, panel_h = 64, gap = 14, top = 10;
  const double height = top + static_cast<double>(m.vendors.size()) * (panel_h + gap) + 34;
  auto x_of = [&](double l2) { return left + (l2 - kLo) / (kHi - kLo) * plot_w; };
  Svg svg;
  double y = top;
  for (const VendorSummary& v : m.vendors) {
    const bool best = &v == &m.vendors.back();
    svg.text(left - 10, y + 22, (best ? "best vendor per shape" : "vs " + v.name), "end",
             "class=\"ptitle\"");
    svg.text(left - 10, y + 40,
             "n=" + std::to_string(v.compared) + ", geomean " + html::ratio(v.geomean), "end",
             "class=\"tick\"");
    svg.rect(left, y, plot_w, panel_h, "#fcfcfc", "stroke=\"#ddd\"");
    if (v.compared == 0) {
      svg.text(left + plot_w / 2, y + panel_h / 2 + 4, "no shape where both ran", "middle",
               "class=\"muted\"");
    } else {
      std::vector<int> counts(kBins, 0);
      for (double s : v.speedups) {
        const double l2 = std::clamp(std::log2(s), kLo, kHi - 1e-9);
        ++counts[static_cast<std::size_t>(
            std::clamp(static_cast<int>((l2 - kLo) / kBin), 0, kBins - 1))];
      }
      const int peak = *std::max_element(counts.begin(), counts.end());
      for (int b = 0; b < kBins; ++b) {
        if (counts[static_cast<std::size_t>(b)] == 0) continue;
        const double h = (panel_h - 6) * counts[static_cast<std::size_t>(b)] / std::max(1, peak);
        const double lo = kLo + b * kBin;
        svg.rect(x_of(lo) + 0.5, y + panel_h - h, x_of(lo + kBin) - x_of(lo) - 1, h,
                 hex(lo < 0 ? kLose : kWin), {},
                 std::to_string(counts[static_cast<std::size_t>(b)]) + " shapes");
      }
      if (std::isfinite(v.geomean) && v.geomean > 0) {
        const double g = std::clamp(std::log2(v.geomean), kLo, kHi);
        svg.line(x_of(g), y, x_of(g), y + panel_h, "#000", "stroke-dasharray=\"4 3\"");
      }
    }
    svg.line(x_of(0), y - 2, x_of(0), y + panel_h + 2, "#333", "stroke-width=\"1.5\"");
    y += panel_h + gap;
  }
  const char* labels[] = {"\u22641/16\u00d7", "1/8\u00d7", "1/4\u00d7", "1/2\u00d7",     "1\u00d7",
                          "2\u00d7",          "4\u00d7",   "8\u00d7",   "\u226516\u00d7"};
  for (int t = 0; t <= 8; ++t) {
    svg.line(x_of(kLo + t), y - gap, x_of(kLo + t), y - gap + 5, "#333");
    svg.text(x_of(kLo + t), y - gap + 18, labels[t], "middle", "class=\"tick\"");
  }
  svg.text(left + plot_w / 2, y - gap + 34,
           "speedup of adaptcore (other library's time / adaptcore's time; right of 1\u00d7: "
           "adaptcore faster)",
           "middle", "class=\"axis\"");
  plot.svg = svg.finish(left + plot_w + 20, height + 10, title);
  plot.caption =
      "Bars left of 1\u00d7 (red) are shapes where adaptcore is slower; the dashed line is the "
      "geometric mean. Speedups beyond 1/16\u00d7 or 16\u00d7 are counted in the end bins.";
  return plot;
}

Plot speedup_heatmap(const Model& m) {
  const std::string title = "Geomean speedup over the best vendor library by shape class";
  Plot plot;
  Cells cells;
  for (const Row& row : m.rows) cells.add(row, row.speedup_best);
  if (cells.values.empty()) {
    plot.svg = no_data(title, "no shape with both an adaptcore and a vendor result");
    plot.caption = "No speedups to map.";
    return plot;
  }
  const Panel p = panel_for(m, 880);
  Svg svg;
  const double w = draw_heatmap(
      svg, m, cells, 0, 0, "adaptcore vs the fastest vendor library on each shape", p,
      [](const std::vector<double>& v) { return geomean(v); }, speedup_colour,
      [](double v) { return html::ratio(v); }, [](double v) { return v < kLoseBelow; });
  const double legend_y = p.head_h + static_cast<double>(m.m_classes.size()) * p.cell_h + 14;
  speedup_legend(svg, 0, legend_y);
  plot.svg = svg.finish(std::max(w, 640.0) + 10, legend_y + 44, title);
  plot.caption =
      "Each cell: the geometric mean over its shapes of (best vendor's time / adaptcore's time) "
      "and the number of shapes. Blue: adaptcore faster; red: slower; cells marked \u25bc with a "
      "dark border are below " +
      html::ratio(kLoseBelow) + ".";
  return plot;
}

Plot limit_heatmap(const Model& m) {
  const std::string title = "Fraction of the hardware limit reached by shape class";
  Plot plot;
  Cells ac, best;
  for (const Row& row : m.rows) {
    ac.add(row, row.ac_limit_fraction);
    best.add(row, row.best_limit_fraction);
  }
  if (ac.values.empty() && best.values.empty()) {
    plot.svg = no_data(title, "no record with a hardware limit");
    plot.caption = "No limit fractions in this run.";
    return plot;
  }
  const Panel p = panel_for(m, 440);
  Svg svg;
  auto value = [](const std::vector<double>& v) { return mean(v); };
  auto label = [](double v) { return html::percent(v); };
  auto never = [](double) { return false; };
  const double w1 =
      draw_heatmap(svg, m, ac, 0, 0, "adaptcore", p, value, fraction_colour, label, never);
  const double w2 = draw_heatmap(svg, m, best, w1 + 30, 0, "best vendor library on each shape", p,
                                 value, fraction_colour, label, never);
  const double legend_y = p.head_h + static_cast<double>(m.m_classes.size()) * p.cell_h + 14;
  svg.text(0, legend_y + 12, "fraction of the limit:", "start", "class=\"tick\"");
  for (int i = 0; i <= 5; ++i) {
    const double f = i / 5.0;
    svg.rect(150 + i * 46, legend_y, 44, 16, hex(fraction_colour(f)), "stroke=\"#999\"");
    svg.text(150 + i * 46 + 22, legend_y + 30, html::percent(f), "middle", "class=\"tick\"");
  }
  plot.svg = svg.finish(std::max(w1 + 30 + w2, 480.0) + 10, legend_y + 44, title);
  plot.caption =
      "Each cell: the mean over its shapes of limit_us / median_us, the share of the roofline "
      "bound (compute or memory, whichever is larger) that the measured time reaches.";
  return plot;
}

Plot predicted_scatter(const Model& m) {
  const std::string title = "adaptcore: predicted versus measured time";
  Plot plot;
  struct Point {
    double predicted, measured;
    bool lost;
    const Row* row;
  };
  std::vector<Point> points;
  if (m.adaptcore >= 0) {
    for (const Row& row : m.rows) {
      const Result& r = row.results[static_cast<std::size_t>(m.adaptcore)];
      if (r.usable && std::isfinite(r.predicted_us) && r.predicted_us > 0) {
        points.push_back({r.predicted_us, r.median_us, row.speedup_best < kLoseBelow, &row});
      }
    }
  }
  if (points.empty()) {
    plot.svg = no_data(title, "no adaptcore record with a predicted time");
    plot.caption = "No predictions to compare.";
    return plot;
  }
  double lo = HUGE_VAL, hi = 0;
  std::vector<double> ratios;
  int within2 = 0;
  for (const Point& pt : points) {
    lo = std::min({lo, pt.predicted, pt.measured});
    hi = std::max({hi, pt.predicted, pt.measured});
    const double q = pt.measured / pt.predicted;
    ratios.push_back(q);
    if (q <= 2.0 && q >= 0.5) ++within2;
  }
  // Whole decades around the data (at least one), so the ticks are 10^k microseconds.
  const double d_lo = std::floor(std::log10(lo)),
               d_hi = std::max(d_lo + 1, std::ceil(std::log10(hi)));
  const double left = 80, top = 20, size = 440;
  auto pos = [&](double us) { return (std::log10(us) - d_lo) / (d_hi - d_lo) * size; };
  Svg svg;
  svg.rect(left, top, size, size, "#fcfcfc", "stroke=\"#ccc\"");
  for (double d = d_lo; d <= d_hi + 1e-9; d += 1) {
    const double us = std::pow(10.0, d);
    const double x = left + pos(us), y = top + size - pos(us);
    svg.line(x, top, x, top + size, "#eee");
    svg.line(left, y, left + size, y, "#eee");
    svg.text(x, top + size + 16, decade_label(d), "middle", "class=\"tick\"");
    svg.text(left - 6, y + 4, decade_label(d), "end", "class=\"tick\"");
  }
  // y = x, and the factor-of-2 band.
  svg.line(left, top + size, left + size, top, "#333", "stroke-width=\"1.5\"");
  const double two = std::log10(2.0) / (d_hi - d_lo) * size;
  svg.line(left, top + size - two, left + size - two, top, "#999", "stroke-dasharray=\"3 3\"");
  svg.line(left + two, top + size, left + size, top + two, "#999", "stroke-dasharray=\"3 3\"");
  const bool tooltips = points.size() <= 3000;  // keep a very large run's file reasonable
  for (const Point& pt : points) {
    const std::string colour = pt.lost ? hex(kLose) : hex(kWin);
    std::string circle = "<circle cx=\"" + coord(left + pos(pt.predicted)) + "\" cy=\"" +
                         coord(top + size - pos(pt.measured)) + "\" r=\"2.5\" fill=\"" + colour +
                         "\" fill-opacity=\"0.6\"";
    if (tooltips) {
      circle += "><title>" +
                escape(std::to_string(pt.row->m) + "x" + std::to_string(pt.row->n) + "x" +
                       std::to_string(pt.row->k) + (pt.row->tag.empty() ? "" : " " + pt.row->tag) +
                       ": predicted " + html::micros(pt.predicted) + ", measured " +
                       html::micros(pt.measured)) +
                "</title></circle>";
    } else {
      circle += "/>";
    }
    svg.raw(circle);
  }
  svg.text(left + size / 2, top + size + 36, "predicted time (model)", "middle", "class=\"axis\"");
  svg.text(18, top + size / 2, "measured median time", "middle",
           "class=\"axis\" transform=\"rotate(-90 18 " + coord(top + size / 2) + ")\"");
  plot.svg = svg.finish(left + size + 50, top + size + 50, title);
  plot.caption = std::to_string(points.size()) +
                 " shapes. Median measured / predicted: " + html::ratio(median(ratios)) +
                 "; within a factor of 2 (dashed lines): " +
                 html::percent(static_cast<double>(within2) / static_cast<double>(points.size())) +
                 ". Red points: shapes where adaptcore is below " + html::ratio(kLoseBelow) +
                 " of the best vendor library.";
  return plot;
}

}  // namespace adaptcore::bench::report
