// The tables of the avx512_vnni level's units (config.cpp registers them).
#pragma once

#include "kernels/lowp.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {

const LowpKernels& int8_vnni_kernels() noexcept;  // int8_vnni.cpp
const WqKernels& wq_vnni_kernels() noexcept;      // wq_vnni.cpp

}  // namespace adaptcore::kernels
