// adaptcore._core: the nanobind extension behind the `adaptcore` Python package (the package's
// __init__.py adds array allocation and the post-op helpers; docs/PYTHON.md).
#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"

NB_MODULE(_core, m) {
  m.doc() = "adaptcore: GEMM for dynamic shapes (the compiled core of the adaptcore package)";
  adaptcore::python::register_error(m);
  adaptcore::python::bind_context(m);
  adaptcore::python::bind_gemm(m);
  adaptcore::python::bind_weights(m);
  adaptcore::python::bind_grouped(m);
  adaptcore::python::bind_explain(m);
  adaptcore::python::bind_raw(m);
  adaptcore::python::register_exit_hook();
}
