// Names of enum values as data. Every to_string of an enum looks the value up in a table of
// {value, name} pairs, written in place (`using enum E; return name_of(value, {{A, "a"}, ...});`)
// or, where a parse function reads the same names, as one constexpr table both use.
//
// A value's first entry is its name; a later entry for the same value is an alias that
// parse_name accepts and name_of never returns (an older spelling of a value).
#pragma once

#include <cstddef>
#include <string_view>

namespace adaptcore {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of value in table, or fallback when the table does not list it (an enum variable may
// hold any value of its underlying type). The table may be a braced list written in place.
template <class E, std::size_t N>
constexpr const char* name_of(E value, const EnumName<E> (&table)[N],
                              const char* fallback = "?") noexcept {
  for (const EnumName<E>& entry : table)
    if (entry.value == value) return entry.name;
  return fallback;
}

// The value whose name (or alias) is exactly text; false, and out untouched, when none is.
template <class E, std::size_t N>
constexpr bool parse_name(const EnumName<E> (&table)[N], std::string_view text, E& out) noexcept {
  for (const EnumName<E>& entry : table) {
    if (text == entry.name) {
      out = entry.value;
      return true;
    }
  }
  return false;
}

}  // namespace adaptcore
