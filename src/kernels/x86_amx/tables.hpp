// The tiles of the amx level's unit (config.cpp adds them to the tables of the level below).
#pragma once

#include "kernels/lowp.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {

const LowpTile& amx_bf16_tile() noexcept;  // amx_kernels.cpp
const LowpTile& amx_int8_tile() noexcept;
// Without its quantizer and the kernels below (config.cpp adds them).
const WqKernels& amx_wq_kernels() noexcept;

}  // namespace adaptcore::kernels
