// One loader per library (each in its own file), called by load_baseline() by name. Each
// returns a null lib with the reason when the library is missing or unusable.
#pragma once

#include <string>
#include <vector>

#include "baselines/baseline.hpp"

namespace adaptcore::bench::detail {

LoadedBaseline load_mkl(int threads);       // mkl.cpp: libmkl_rt from pip's mkl or the system
LoadedBaseline load_openblas(int threads);  // openblas.cpp: scipy-openblas32, else Debian's
LoadedBaseline load_blis(int threads);      // blis.cpp: Debian's pthread (or OpenMP) flavour
// plugin_baseline.cpp: the project's adapter plugin libadaptcore_baseline_<name>.so (eigen,
// onednn, libxsmm).
LoadedBaseline load_plugin(const std::string& name, int threads);

// The candidates an environment override names, if set: only that path is tried, so that a
// wrong override is reported rather than silently replaced by another copy of the library.
std::vector<std::string> override_or(const char* env_name, std::vector<std::string> defaults);

}  // namespace adaptcore::bench::detail
