// The tables of the avx2 level's units (config.cpp registers them).
#pragma once

#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {

const IsaKernels& avx2_kernels() noexcept;  // sgemm_avx2.cpp

}  // namespace adaptcore::kernels
