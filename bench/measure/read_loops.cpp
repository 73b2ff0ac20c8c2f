// The baseline read loop and the choice of loop per path (the wider ones are in their own
// units, compiled for their ISA).
#include "measure/read_loops.hpp"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

namespace adaptcore::measure::loops {

namespace {

#if defined(__x86_64__) || defined(__i386__)
// Accumulates the 32-float steps of [p, p + n) into a; n a multiple of 32.
inline void sse_accumulate(__m128 (&a)[8], const float* p, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; i += 32) {
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) a[j] = _mm_add_ps(a[j], _mm_load_ps(p + i + 4 * j));
  }
}

inline float sse_sum(const __m128 (&a)[8]) noexcept {
  const __m128 s = _mm_add_ps(_mm_add_ps(_mm_add_ps(a[0], a[1]), _mm_add_ps(a[2], a[3])),
                              _mm_add_ps(_mm_add_ps(a[4], a[5]), _mm_add_ps(a[6], a[7])));
  alignas(16) float out[4];
  _mm_store_ps(out, s);
  return out[0] + out[1] + out[2] + out[3];
}
#endif

// The baseline pass, with two prefetches a step kAhead floats ahead when kAhead > 0.
template <std::int64_t kAhead>
float sse_pass(const float* p, std::int64_t n) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __m128 a[8];
  for (auto& r : a) r = _mm_setzero_ps();
  for (std::int64_t i = 0; i < n; i += 32) {
    if constexpr (kAhead > 0) {
      // Addresses past the end are harmless to a prefetch (it never faults); they are formed
      // as integers, since a pointer past the buffer's end would not be a valid one.
      const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(p + i) + kAhead * 4;
      __builtin_prefetch(reinterpret_cast<const void*>(ahead), 0, 0);
      __builtin_prefetch(reinterpret_cast<const void*>(ahead + 64), 0, 0);
    }
    sse_accumulate(a, p + i, 32);
  }
  return sse_sum(a);
#else
  float s = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) s += p[i];
  return s;
#endif
}

// The bytes as kReadStreams streams read in turn, kChunk floats of each at a time.
template <std::int64_t kChunk>
float streams_pass(const float* p, std::int64_t n) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __m128 a[8];
  for (auto& r : a) r = _mm_setzero_ps();
  const std::int64_t part = n / kReadStreams / kChunk * kChunk;
  for (std::int64_t off = 0; off < part; off += kChunk)
    for (int s = 0; s < kReadStreams; ++s) sse_accumulate(a, p + s * part + off, kChunk);
  // What the parts leave over (less than a chunk per stream) in one run.
  sse_accumulate(a, p + kReadStreams * part, n - kReadStreams * part);
  return sse_sum(a);
#else
  return sse_pass<0>(p, n);
#endif
}

}  // namespace

float read_pass_streams(const float* p, std::int64_t n) noexcept {
  return streams_pass<kReadStreamChunk>(p, n);
}

float read_pass_short_streams(const float* p, std::int64_t n) noexcept {
  return streams_pass<kReadShortStreamChunk>(p, n);
}

float read_pass_sse(const float* p, std::int64_t n) noexcept { return sse_pass<0>(p, n); }

float read_pass_prefetch(const float* p, std::int64_t n) noexcept {
  return sse_pass<kReadPrefetchBytes / static_cast<std::int64_t>(sizeof(float))>(p, n);
}

ReadPass read_pass_for(int vector_bits) noexcept {
  if (vector_bits >= 512) return &read_pass_avx512;
  if (vector_bits >= 256) return &read_pass_avx2;
  return &read_pass_sse;
}

}  // namespace adaptcore::measure::loops
