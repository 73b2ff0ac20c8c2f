// Software fp16 (IEEE binary16) and bf16 conversions for the simulator's data mode: the cube
// reads 16-bit inputs, multiplies exactly and accumulates in fp32, so the simulator needs the
// inputs rounded exactly as the device's converters round them (to nearest, ties to even).
#pragma once

#include <cstdint>

namespace adaptcore::ascend {

// fp32 -> fp16, round to nearest even; overflow to infinity, gradual underflow to subnormals,
// NaN stays NaN (quiet, sign kept).
std::uint16_t fp16_from_float(float f) noexcept;
// fp16 -> fp32, exact (every fp16 value is an fp32 value).
float float_from_fp16(std::uint16_t h) noexcept;
// fp32 -> bf16, round to nearest even; NaN stays NaN (quiet).
std::uint16_t bf16_from_float(float f) noexcept;
// bf16 -> fp32, exact.
float float_from_bf16(std::uint16_t b) noexcept;

}  // namespace adaptcore::ascend
