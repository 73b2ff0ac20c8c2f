// The adapter shared by the libraries called through their CBLAS sgemm (MKL, OpenBLAS, BLIS):
// each library's loader finds the entry points and its thread setter, this class makes the
// calls. Row-major CBLAS takes the stored operands as they are, so transposes and padded
// leading dimensions pass straight through.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "baselines/baseline.hpp"
#include "baselines/dynlib.hpp"

namespace adaptcore::bench::detail {

struct CblasLibrary {
  std::string name;       // baseline name
  std::string version;    // for Baseline::version()
  DynLib lib;             // kept for its lifetime (never closed, see DynLib::open)
  void* sgemm = nullptr;  // cblas_sgemm, possibly under a prefixed name
  bool ilp64 = false;     // 64-bit BLAS integers
  // Sets the library's global thread count.
  std::function<void(int)> set_threads;
};

// Applies `threads` once, then wraps the library. `library.sgemm` and `set_threads` are set.
std::unique_ptr<Baseline> make_cblas_baseline(CblasLibrary library, int threads);

}  // namespace adaptcore::bench::detail
