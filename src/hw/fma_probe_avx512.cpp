// AVX-512 FMA probe; compiled with -mavx512f, called only on CPUs that have it.
#include <chrono>

#include "hw/fma_probe.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace {
#include "hw/fma_probe_template.hpp"
}  // namespace

namespace adaptcore::probes {
double fma_gflops_avx512(double seconds) noexcept { return fma_probe_gflops<VecAvx512, 24>(seconds); }
}  // namespace adaptcore::probes
