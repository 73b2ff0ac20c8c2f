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

}  // namespace adaptcore::python
