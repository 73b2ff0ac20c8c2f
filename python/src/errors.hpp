// Library statuses as Python exceptions: adaptcore.Error (a RuntimeError) carrying the status
// name and code, raised for every status other than Ok.
#pragma once

#include <nanobind/nanobind.h>

#include <adaptcore/adaptcore.hpp>

namespace adaptcore::python {

namespace nb = nanobind;

// Creates adaptcore._core.Error in the module (once, at import).
void register_error(nb::module_& m);
// Raises adaptcore.Error for a status other than Ok; `what` names the call.
void check(Status s, const char* what);

}  // namespace adaptcore::python
