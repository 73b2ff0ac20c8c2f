// Transposes between a run of consecutive floats and vectors of one column each, with
// two-source permutes, for the few-column matrices where a 16 x 16 transpose would spend most
// of its shuffles on absent columns:
//   interleave<M>    M column vectors (16 rows each) -> the 16 x M rows as one run of 16 M floats
//                    (the transposed store of a C with ldc == M)
//   deinterleave<K>  16 lines of K floats stored as one run -> K vectors of one step each (the
//                    packing of a few depth steps of lines stored back to back, ld == K)
// Output vector q takes, lane by lane, a lane of one of the S inputs. Per pair of inputs
// (2s, 2s + 1) a table gives the permute's index for the lanes that come from the pair and the
// mask of those lanes; a whole output is ceil(S / 2) permutes and one masked move per further
// pair (an 8-column run: 32 permutes for 8 outputs, where the 16 x 16 transpose takes 64).
// Included by AVX-512 units; the unnamed namespace gives each its own copy.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace adaptcore::kernels {
namespace {

struct LaneSource {
  int vec, lane;
};

template <int S, int Q, LaneSource (*Src)(int q, int l)>
struct PermuteTables {
  static constexpr int kPairs = (S + 1) / 2;
  struct Entry {
    alignas(64) std::int32_t idx[16];
    std::uint16_t mask;
  };
  using Table = std::array<std::array<Entry, kPairs>, Q>;
  static constexpr Table make() {
    Table t{};
    for (int q = 0; q < Q; ++q) {
      for (int s = 0; s < kPairs; ++s) {
        Entry& e = t[static_cast<std::size_t>(q)][static_cast<std::size_t>(s)];
        e.mask = 0;
        for (int l = 0; l < 16; ++l) {
          const LaneSource from = Src(q, l);
          const bool here = from.vec / 2 == s;
          e.idx[l] = here ? from.lane + (from.vec % 2) * 16 : 0;
          if (here) e.mask = static_cast<std::uint16_t>(e.mask | (1u << l));
        }
      }
    }
    return t;
  }
  static constexpr Table kTable = make();

  // Output vector q from the S inputs x.
  [[gnu::always_inline]] static __m512 gather(const __m512* x, int q) {
    if constexpr (S == 1) {
      const __m512i idx = _mm512_load_si512(kTable[static_cast<std::size_t>(q)][0].idx);
      return _mm512_permutexvar_ps(idx, x[0]);
    } else {
      __m512 out = _mm512_setzero_ps();
#pragma GCC unroll 8
      for (int s = 0; s < kPairs; ++s) {
        const auto& e = kTable[static_cast<std::size_t>(q)][static_cast<std::size_t>(s)];
        const __m512i idx = _mm512_load_si512(e.idx);
        const __m512 p =
            _mm512_permutex2var_ps(x[2 * s], idx, x[2 * s + 1 < S ? 2 * s + 1 : 2 * s]);
        out = s == 0 ? p : _mm512_mask_mov_ps(out, static_cast<__mmask16>(e.mask), p);
      }
      return out;
    }
  }
};

// Run element f = 16 q + l is row f / M, column f % M: lane f / M of column vector f % M.
template <int M>
constexpr LaneSource interleaved_source(int q, int l) {
  const int f = 16 * q + l;
  return {f % M, f / M};
}
template <int M>
using Interleave = PermuteTables<M, M, &interleaved_source<M>>;

// Step q of line l is run element l * K + q: lane (l K + q) mod 16 of input vector (l K + q) / 16.
template <int K>
constexpr LaneSource deinterleaved_source(int q, int l) {
  const int f = l * K + q;
  return {f / 16, f % 16};
}
template <int K>
using Deinterleave = PermuteTables<K, K, &deinterleaved_source<K>>;

}  // namespace
}  // namespace adaptcore::kernels
