// Read loops of the bandwidth measurements (calibration, `adaptcore bench`, `adaptcore run
// --dtype w8a16`): one pass over [p, p + n) (p 64-byte aligned, n a multiple of 128 floats)
// with the path's widest loads and eight independent accumulators; each returns a sum so the
// loads cannot be dropped.
#pragma once

#include <cstdint>

#include "adaptcore/types.hpp"

namespace adaptcore::measure::loops {

float read_pass_avx512(const float* p, std::int64_t n) noexcept;  // -mavx512f
float read_pass_avx2(const float* p, std::int64_t n) noexcept;    // -mavx2
float read_pass_sse(const float* p, std::int64_t n) noexcept;     // baseline

// The same pass with software prefetches kReadPrefetchBytes ahead of the loads: from DRAM the
// hardware prefetchers alone leave a core short of what a kernel that prefetches (in-place B,
// Plan::prefetch_b) reads, and a limit below what ran is no limit.
inline constexpr std::int64_t kReadPrefetchBytes = 8192;
float read_pass_prefetch(const float* p, std::int64_t n) noexcept;  // baseline

// The same bytes read as kReadStreams streams at once (the buffer in that many equal parts, a
// kReadStreamChunk-float run of each in turn): one sequential stream leaves a core short of
// what its DRAM path carries, since the hardware prefetchers keep only so many lines ahead per
// stream, and the kernels read several (rows of B in place, panels of A and B). One Zen 4 core,
// 512 MiB: one stream 21-22 GB/s, eight 26-29 (docs/MODEL.md, *DRAM read rate*).
inline constexpr int kReadStreams = 8;
inline constexpr std::int64_t kReadStreamChunk = 256;
float read_pass_streams(const float* p, std::int64_t n) noexcept;  // baseline

// The same streams visited kReadShortStreamChunk floats (two lines) at a time, as a register
// tile reads rows of B in place: one Zen 3 core (AMD family 25 model 1), 512 MiB, 19-22 GB/s
// against 14-17 for runs of 1 KiB and 14-16 for one stream, where its decode kernels read 25
// (docs/MODEL.md, *DRAM read rate*).
inline constexpr std::int64_t kReadShortStreamChunk = 32;
float read_pass_short_streams(const float* p, std::int64_t n) noexcept;  // baseline

using ReadPass = float (*)(const float* p, std::int64_t n) noexcept;
// The loop with loads of a vector width (512, 256; below: SSE). The caller checks the CPU has
// them.
ReadPass read_pass_for(int vector_bits) noexcept;

}  // namespace adaptcore::measure::loops
