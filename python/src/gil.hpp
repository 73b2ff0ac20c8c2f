// The GIL released around a library call, and taken back without dying at interpreter exit.
//
// When the interpreter finalizes, CPython ends a daemon thread that tries to take the GIL back
// with pthread_exit, whose forced unwinding runs through this extension's frames. nanobind's
// (and a scope guard's destructor) are noexcept, so the unwinding ends in std::terminate: a
// daemon thread inside adaptcore.gemm at exit aborted the process ("terminate called without an
// active exception"). Instead a thread that returns from a call once exit has begun never takes
// the GIL back: it parks (what CPython 3.14 does itself) until the process ends. Python's
// atexit hook (gil.cpp), which runs before finalization with the GIL held, marks exit and lets
// every thread already taking the GIL back through first, so none can reach pthread_exit here.
#pragma once

#include <Python.h>

namespace adaptcore::python {

class GilRelease {
 public:
  GilRelease() noexcept : state_(PyEval_SaveThread()) {}
  ~GilRelease() { retake_gil(state_); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  static void retake_gil(PyThreadState* state) noexcept;
  PyThreadState* state_;
};

// Registers the exit hook with Python's atexit module (the module's initialisation).
void register_exit_hook();

}  // namespace adaptcore::python
