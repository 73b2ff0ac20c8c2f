// The probe loops, one per instruction mix, each compiled in its own unit with that ISA's flags.
// Each runs `iters` iterations of its unrolled body and returns the flops it executed.
#pragma once

#include <cstdint>

namespace adaptcore::measure::loops {

std::uint64_t fma_avx512(std::uint64_t iters) noexcept;   // -mavx512f
std::uint64_t fma_avx2(std::uint64_t iters) noexcept;     // -mavx2 -mfma
std::uint64_t mul_add_sse(std::uint64_t iters) noexcept;  // baseline

}  // namespace adaptcore::measure::loops
