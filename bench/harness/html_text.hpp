// Text for the HTML report: escaping and number formatting. Every string that comes from a run
// (library names, versions, messages, tags, class labels, hardware fields) goes through
// html_escape; every number through a formatter that prints "–" for a missing (non-finite)
// value, so that no NaN or Infinity ever reaches the page.
#pragma once

#include <string>
#include <string_view>

namespace adaptcore::bench::html {

// Escapes & < > " ' for text and for attribute values in double or single quotes.
std::string escape(std::string_view s);

// Fixed-point with `decimals` digits; "–" when v is not finite.
std::string fixed(double v, int decimals);
// A speedup or ratio as "1.23×"; "–" when not finite.
std::string ratio(double v);
// A fraction as a percentage, "65%" ("–" when not finite).
std::string percent(double fraction);
// A time in microseconds with a unit that keeps it short: "812 µs", "12.3 ms", "4.56 s".
std::string micros(double us);
// A coordinate for SVG: one decimal, and 0 when not finite (a drawing bug must not emit NaN).
std::string coord(double v);
// A sort key for a table cell (data-v): "%.6g", empty when not finite (sorted last).
std::string sort_key(double v);

}  // namespace adaptcore::bench::html
