// The report's plots, drawn as inline SVG in C++ (no script, no external resource: they render
// in any browser offline, and in the HTML file as saved). Each returns exactly one <svg> element
// and an HTML caption with the numbers behind it.
#pragma once

#include <string>

#include "harness/report_model.hpp"

namespace adaptcore::bench::report {

struct Plot {
  std::string svg;      // one <svg> element
  std::string caption;  // HTML, already escaped
};

// (a) Distribution of adaptcore's speedup over each vendor library and over the best vendor per
// shape: one histogram panel per library on a shared log2 axis (1/16x .. 16x).
Plot speedup_histogram(const Model&);
// (b) Geometric-mean speedup over the best vendor per m_class x n_class cell, coloured on a
// log scale centred at 1.0; cells below kLoseBelow are outlined and marked.
Plot speedup_heatmap(const Model&);
// (c) Mean fraction of the hardware limit reached per class cell: adaptcore beside the best
// vendor library.
Plot limit_heatmap(const Model&);
// (d) adaptcore's predicted versus measured time, log-log, with the y = x line.
Plot predicted_scatter(const Model&);

}  // namespace adaptcore::bench::report
