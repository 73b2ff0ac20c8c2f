// The tables of the avx512 level's units (config.cpp registers them).
#pragma once

#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {

const IsaKernels& avx512_kernels() noexcept;  // sgemm_avx512.cpp

}  // namespace adaptcore::kernels
