// The one rule for reading the library's environment variables (docs/RUNTIME.md,
// "Environment"): surrounding whitespace is ignored, words compare case-insensitively, counts
// are decimal digits and nothing else. Paths (ADAPTCORE_HW_PROFILE, ADAPTCORE_PLAN_FILE) are
// taken as written: a path may hold spaces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace adaptcore {

// A variable's value as a word: without surrounding whitespace, lower-cased.
inline std::string env_word(std::string_view text) {
  auto space = [](char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  std::string out(text);
  for (char& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

// A count in 1..max: digits only, after the whitespace rule ("+3", "3.0", "3x" are not counts).
inline bool parse_env_count(std::string_view text, int max, int& out) noexcept {
  try {
    const std::string w = env_word(text);
    if (w.empty() || w.size() > 10) return false;
    std::int64_t v = 0;
    for (const char ch : w) {
      if (ch < '0' || ch > '9') return false;
      v = v * 10 + (ch - '0');
    }
    if (v < 1 || v > max) return false;
    out = static_cast<int>(v);
    return true;
  } catch (...) {
    return false;
  }
}

// A switch: off for no value and for 0, false, off, no; on otherwise.
inline bool parse_env_switch(std::string_view text) noexcept {
  try {
    const std::string w = env_word(text);
    return !(w.empty() || w == "0" || w == "false" || w == "off" || w == "no");
  } catch (...) {
    return false;
  }
}

}  // namespace adaptcore
