// AVX-512 read loop of the bandwidth measurements; compiled with -mavx512f, called only on CPUs
// with it.
#include <immintrin.h>

#include "measure/read_loops.hpp"

namespace adaptcore::measure::loops {

float read_pass_avx512(const float* p, std::int64_t n) noexcept {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (std::int64_t i = 0; i < n; i += 128) {
    a0 = _mm512_add_ps(a0, _mm512_load_ps(p + i));
    a1 = _mm512_add_ps(a1, _mm512_load_ps(p + i + 16));
    a2 = _mm512_add_ps(a2, _mm512_load_ps(p + i + 32));
    a3 = _mm512_add_ps(a3, _mm512_load_ps(p + i + 48));
    b0 = _mm512_add_ps(b0, _mm512_load_ps(p + i + 64));
    b1 = _mm512_add_ps(b1, _mm512_load_ps(p + i + 80));
    b2 = _mm512_add_ps(b2, _mm512_load_ps(p + i + 96));
    b3 = _mm512_add_ps(b3, _mm512_load_ps(p + i + 112));
  }
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                 _mm512_add_ps(_mm512_add_ps(b0, b1), _mm512_add_ps(b2, b3)));
  // Not _mm512_reduce_add_ps: GCC 12's header warns of an uninitialised operand in it.
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  float sum = 0.0f;
  for (float v : out) sum += v;
  return sum;
}

}  // namespace adaptcore::measure::loops
