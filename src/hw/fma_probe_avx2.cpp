// AVX2 + FMA3 probe; compiled with -mavx2 -mfma, called only on CPUs that have them.
#include <chrono>

#include "hw/fma_probe.hpp"
#include "kernels/x86_avx2/vec_avx2.hpp"

namespace {
#include "hw/fma_probe_template.hpp"
}  // namespace

namespace adaptcore::probes {
double fma_gflops_avx2(double seconds) noexcept { return fma_probe_gflops<VecAvx2, 12>(seconds); }
}  // namespace adaptcore::probes
