// HTML escaping and number formatting for the report (see html_text.hpp).
#include "harness/html_text.hpp"

#include <cmath>
#include <cstdio>

namespace adaptcore::bench::html {

namespace {

constexpr const char* kMissing = "\u2013";  // en dash

std::string printf_double(const char* format, double v) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, format, v);
  return n < 0 ? std::string(kMissing) : std::string(buf, static_cast<std::size_t>(n));
}

std::string printf_fixed(int decimals, double v) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return n < 0 ? std::string(kMissing) : std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return kMissing;
  return printf_fixed(decimals, v);
}

std::string ratio(double v) {
  if (!std::isfinite(v)) return kMissing;
  // Three significant digits across the range speedups take (0.0123x .. 123x).
  const int decimals =
      std::fabs(v) >= 100 ? 0 : (std::fabs(v) >= 10 ? 1 : (std::fabs(v) >= 0.1 ? 2 : 3));
  return printf_fixed(decimals, v) + "\u00d7";
}

std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return kMissing;
  const double p = 100.0 * fraction;
  return printf_fixed(std::fabs(p) < 10 ? 1 : 0, p) + "%";
}

std::string micros(double us) {
  if (!std::isfinite(us)) return kMissing;
  // Three significant digits (at least the units digit) in the largest unit below the value.
  auto digits = [](double v) { return v >= 100 ? 0 : (v >= 10 ? 1 : 2); };
  const double a = std::fabs(us);
  if (a >= 1e6) return printf_fixed(digits(a / 1e6), us / 1e6) + " s";
  if (a >= 1e3) return printf_fixed(digits(a / 1e3), us / 1e3) + " ms";
  return printf_fixed(digits(a), us) + " \u00b5s";
}

std::string coord(double v) {
  if (!std::isfinite(v)) return "0";
  return printf_fixed(1, v);
}

std::string sort_key(double v) {
  if (!std::isfinite(v)) return {};
  return printf_double("%.6g", v);
}

}  // namespace adaptcore::bench::html
