// The probe loops, one per instruction mix, compiled with the flags of their ISA (the zmm ones
// share zmm_loops.cpp).
// Each runs `iters` iterations of its unrolled body and returns the flops it executed.
#pragma once

#include <cstdint>

namespace adaptcore::measure::loops {

std::uint64_t fma_avx512(std::uint64_t iters) noexcept;   // -mavx512f: vfmadd231ps
std::uint64_t fma_avx2(std::uint64_t iters) noexcept;     // -mavx2 -mfma
std::uint64_t mul_add_sse(std::uint64_t iters) noexcept;  // baseline
// Dot-product instructions; they return ops (2 per multiply-add) like the FMA loops' flops.
std::uint64_t dot_bf16_avx512(std::uint64_t iters) noexcept;  // -mavx512bf16: vdpbf16ps
std::uint64_t dot_int8_vnni(std::uint64_t iters) noexcept;    // -mavx512vnni: vpdpbusd

}  // namespace adaptcore::measure::loops
