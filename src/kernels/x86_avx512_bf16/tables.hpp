// The tables of the avx512_bf16 level's units (config.cpp registers them).
#pragma once

#include "kernels/lowp.hpp"

namespace adaptcore::kernels {

const LowpKernels& bf16_avx512_kernels() noexcept;  // bf16_avx512.cpp

}  // namespace adaptcore::kernels
