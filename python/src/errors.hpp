// Library statuses as Python exceptions: adaptcore.Error (a RuntimeError) carrying the status
// name and code, raised for every status other than Ok.
#pragma once

#include <nanobind/nanobind.h>

#include <adaptcore/adaptcore.hpp>
#include <cstdint>

namespace adaptcore::python {

namespace nb = nanobind;

// Creates adaptcore._core.Error in the module (once, at import).
void register_error(nb::module_& m);
// Raises adaptcore.Error for a status other than Ok; `what` names the call.
void check(Status s, const char* what);
// A Python int as int32, or OverflowError naming the argument (a non-int: OverflowError too,
// with its repr).
std::int32_t int32_arg(const nb::handle& value, const char* what);

}  // namespace adaptcore::python
