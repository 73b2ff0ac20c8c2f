#include "errors.hpp"

#include <climits>
#include <string>
#include <typeinfo>

#include <string>

namespace adaptcore::python {

namespace {

PyObject* error_type = nullptr;  // adaptcore._core.Error, alive for the interpreter's life

// The enumerator's name (adaptcore::Status), what a program compares against.
const char* status_name(Status s) noexcept {
  switch (s) {
    case Status::Ok: return "Ok";
    case Status::InvalidLayout: return "InvalidLayout";
    case Status::InvalidTranspose: return "InvalidTranspose";
    case Status::InvalidDimension: return "InvalidDimension";
    case Status::InvalidLeadingDimension: return "InvalidLeadingDimension";
    case Status::NullPointer: return "NullPointer";
    case Status::SizeOverflow: return "SizeOverflow";
    case Status::Aliasing: return "Aliasing";
    case Status::ShapeMismatch: return "ShapeMismatch";
    case Status::InvalidArgument: return "InvalidArgument";
    case Status::UnsupportedIsa: return "UnsupportedIsa";
    case Status::InvalidProfile: return "InvalidProfile";
    case Status::OutOfMemory: return "OutOfMemory";
    case Status::InternalError: return "InternalError";
    case Status::InvalidPlanFile: return "InvalidPlanFile";
  }
  return "Unknown";
}

}  // namespace

void register_error(nb::module_& m) {
  error_type = PyErr_NewExceptionWithDoc(
      "adaptcore._core.Error",
      "A call the library refused or could not run. `status` is the status name (e.g. "
      "'InvalidLeadingDimension'), `code` its number (adaptcore::Status).",
      PyExc_RuntimeError, nullptr);
  if (error_type == nullptr) throw nb::python_error();
  m.attr("Error") = nb::handle(error_type);
  // An argument nanobind could not convert inside a binding (nb::cast) is the caller's type
  // error, not a RuntimeError("std::bad_cast").
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const std::bad_cast&) {
          PyErr_SetString(PyExc_TypeError,
                          "an argument has a type this function does not take (see its signature)");
        }
      },
      nullptr);
}

std::int32_t int32_arg(const nb::handle& value, const char* what) {
  long long v = 0;
  if (!nb::try_cast<long long>(value, v) || v < INT32_MIN || v > INT32_MAX) {
    const std::string text = std::string(what) + ": " +
                             std::string(nb::repr(value).c_str()).substr(0, 60) +
                             " does not fit in int32";
    PyErr_SetString(PyExc_OverflowError, text.c_str());
    throw nb::python_error();
  }
  return static_cast<std::int32_t>(v);
}

void check(Status s, const char* what) {
  if (s == Status::Ok) return;
  const char* name = status_name(s);
  const std::string text = std::string(what) + ": " + to_string(s) + " (" + name + ")";
  nb::object type = nb::borrow(error_type);
  nb::object exc = type(nb::str(text.c_str()));
  exc.attr("status") = nb::str(name);
  exc.attr("code") = static_cast<int>(s);
  PyErr_SetObject(error_type, exc.ptr());
  throw nb::python_error();
}

}  // namespace adaptcore::python
