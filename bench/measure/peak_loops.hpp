// The probe loops `adaptcore peak` runs besides the core's FMA loops (hw/fma_probe.hpp): the
// baseline path's multiply + add pairs and the dot-product instructions of the low-precision
// kernels. Each runs `iters` iterations of its unrolled body and returns the operations it
// executed (flops; 2 per multiply-add for the dot products).
#pragma once

#include <cstdint>

namespace adaptcore::measure::loops {

std::uint64_t mul_add_sse(std::uint64_t iters) noexcept;      // baseline: mulps + addps
std::uint64_t dot_bf16_avx512(std::uint64_t iters) noexcept;  // -mavx512bf16: vdpbf16ps
std::uint64_t dot_int8_vnni(std::uint64_t iters) noexcept;    // -mavx512vnni: vpdpbusd
// AMX: tile products (TDPBF16PS) executed, not flops; 0 where the build or the process has no
// AMX (amx_loop.cpp).
std::uint64_t amx_bf16_tiles(std::uint64_t iters) noexcept;

}  // namespace adaptcore::measure::loops
