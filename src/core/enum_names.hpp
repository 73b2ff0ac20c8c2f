// Names of enum values as data. Every to_string of an enum (and the parse function, where there
// is one) looks the value up in one constexpr table of {value, name} pairs, so the names a type
// prints and the names it reads are written once, next to each other.
//
// A value's first entry is its name; a later entry for the same value is an alias that
// parse_name accepts and name_of never returns (e.g. "portable" for Isa::Generic).
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
// hold any value of its underlying type).
template <class E, std::size_t N>
constexpr const char* name_of(const EnumName<E> (&table)[N], E value,
                              const char* fallback) noexcept {
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
