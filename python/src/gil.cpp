#include "gil.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include "common.hpp"

namespace adaptcore::python {
namespace {

std::atomic<bool> exiting{false};
std::atomic<int> retaking{0};  // threads between the exit check and holding the GIL

[[noreturn]] void park() noexcept {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

// Python's atexit hook: runs with the GIL held, before finalization begins.
void at_exit() noexcept {
  exiting.store(true);
  // A thread that checked `exiting` before the store is on its way to the GIL: release it
  // until every such thread holds it (and is back in Python, where finalization ends it in
  // CPython's own frames). New ones see `exiting` and park. Bounded, in case one never comes.
  Py_BEGIN_ALLOW_THREADS const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (retaking.load() != 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  Py_END_ALLOW_THREADS
}

}  // namespace

void GilRelease::retake_gil(PyThreadState* state) noexcept {
  retaking.fetch_add(1);
  if (exiting.load()) {
    retaking.fetch_sub(1);
    park();
  }
  PyEval_RestoreThread(state);
  retaking.fetch_sub(1);
}

void register_exit_hook() {
  // A program that finalizes Python and starts it again imports the module anew: its calls
  // must take the GIL back again (threads parked by the old interpreter's exit stay parked).
  exiting.store(false);
  nb::module_::import_("atexit").attr("register")(nb::cpp_function([] { at_exit(); }));
}

}  // namespace adaptcore::python
