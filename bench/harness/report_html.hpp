// The benchmark harness's report: one self-contained HTML file (inline CSS, inline SVG plots, a
// few lines of inline script that only sort the shape table) from a run's JSON. The input
// schema is documented in bench/README.md ("Report"). Never throws on odd input: missing fields,
// no records, missing libraries or a library that failed everywhere all give a valid page.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace adaptcore::bench {

std::string render_html_report(const nlohmann::json& run);

}  // namespace adaptcore::bench
