// The int8 calls' extra arguments from Python: zero points and a C offset.
#pragma once

#include <string>
#include <vector>

#include "arrays.hpp"

namespace adaptcore::python {

// None, an int (one for the whole matrix) or an int32 vector of 1 or `count` values.
ZeroPoints zero_points(const nb::handle& zp, int64_t count, const char* what, std::int32_t& one,
                       std::vector<unsigned char>& copy);
// None, an int (added to all of C), or int32 values of a kind: 'fixed' (1), 'row' (m, one per
// row of C) or 'column' (n).
COffset c_offset_of(const nb::handle& values, const std::string& kind, int64_t m, int64_t n,
                    std::int32_t& one, std::vector<unsigned char>& copy);

// Both zero points and the C offset of an int8 call whose C is m x n, with the storage they
// point into (alive as long as this object).
struct Int8Extras {
  Int8Extras(const nb::handle& a_zp, const nb::handle& b_zp, const nb::handle& c_offset,
             const std::string& c_offset_kind, int64_t m, int64_t n)
      : a(zero_points(a_zp, m, "a_zero_point", a_one, a_copy)),
        b(zero_points(b_zp, n, "b_zero_point", b_one, b_copy)),
        offset(c_offset_of(c_offset, c_offset_kind, m, n, c_one, c_copy)) {}
  Int8Extras(const Int8Extras&) = delete;
  Int8Extras& operator=(const Int8Extras&) = delete;

  std::int32_t a_one = 0, b_one = 0, c_one = 0;
  std::vector<unsigned char> a_copy, b_copy, c_copy;
  ZeroPoints a, b;
  COffset offset;
};

}  // namespace adaptcore::python
