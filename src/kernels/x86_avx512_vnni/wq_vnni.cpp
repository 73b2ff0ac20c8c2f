// Weight-quantized kernels on AVX512-VNNI (docs/QUANT.md): the weights are vpdpbusd's unsigned
// operand (a vector of a packed panel, u8 = w + 128 or nibbles u4 = w + 8), the activation
// parts its signed one (a broadcast 32-bit word: 4 consecutive k of one row and part). Per
// quad an m x 32 tile issues 2 m parts vpdpbusd on 2 weight vectors; at the end of each
// activation group the int32 accumulators are combined, t = (P1 << 8) + P2 - comp (exact modulo
// 2^32, and the true value fits in int32 for groups of at most 256), converted and
// multiply-added into fp32 accumulators with the group's scale. Compiled with
// -mavx512f -mavx512bw -mavx512vnni; used only where the CPU has them.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

// GCC 12's intrinsics pass _mm512_undefined_*() as the unused merge source (false positives).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/tile_epilogue.hpp"
#include "kernels/wq.hpp"
#include "kernels/wq_split.hpp"
#include "kernels/wq_tables.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"
#include "kernels/x86_avx512_vnni/tables.hpp"

namespace adaptcore::kernels {
namespace {

// The split layout's rows per tile (WqTileA::mr) on this path: 4 for two parts (16 int32 + 8
// fp32 accumulators + 2 weight vectors), 6 for one (12 + 12 + 2). A compile-time row pitch lets
// the unrolled group address every broadcast word from one pointer with an immediate offset
// (a runtime pitch cost a base register per quad and their updates every group).
template <int P>
inline constexpr int kTileRows = P == 2 ? 4 : 6;

inline __m512i bcast_word(const std::int8_t* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}

// One quad of a weight panel as vpdpbusd's two unsigned vectors (columns 0-15, 16-31): two
// 64-byte loads (int8), or one load split into low and high nibbles (int4).
template <bool INT4>
inline __attribute__((always_inline)) void load_quad(const std::uint8_t* p, __m512i nibble,
                                                     __m512i& w0, __m512i& w1) {
  if constexpr (INT4) {
    const __m512i v = _mm512_loadu_si512(p);
    w0 = _mm512_and_si512(v, nibble);
    w1 = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
  } else {
    w0 = _mm512_loadu_si512(p);
    w1 = _mm512_loadu_si512(p + 64);
  }
}

// The int32 sums of a group start at 0, the last part's at -comp (row i: comp[i]), so that
// t = (P1 << 8) + P2 - comp needs no subtraction; wraps like the sums. raw: row i, part t,
// vector v at (i * P + t) * 2 + v.
template <int M, int P>
inline __attribute__((always_inline)) void start_sums(const std::int32_t* comp, __m512i* raw) {
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    // 0 - broadcast(comp): a broadcast from memory and a subtraction, both off vpdpbusd's
    // pipes (a scalar negation went through a general register first).
    const __m512i start = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_set1_epi32(comp[i]));
#pragma GCC unroll 4
    for (int t = 0; t < P; ++t) {
      raw[(i * P + t) * 2] = t == P - 1 ? start : _mm512_setzero_si512();
      raw[(i * P + t) * 2 + 1] = t == P - 1 ? start : _mm512_setzero_si512();
    }
  }
}

// A finished group's exact int32 value of row i, vector v, as fp32: (P1 << 8) + P2 - comp.
template <int P>
inline __attribute__((always_inline)) __m512 group_value(const __m512i* raw, int i, int v) {
  __m512i t = raw[(i * P) * 2 + v];
  if constexpr (P == 2) t = _mm512_add_epi32(_mm512_slli_epi32(t, 8), raw[(i * P + 1) * 2 + v]);
  return _mm512_cvtepi32_ps(t);
}

// One activation group (qn >= 1 quads) of an M x 32 tile: the int32 dot products, then the
// flush into the fp32 accumulators acc[M * 32] (memory, L1). A function of its own on
// purpose: inlined into the group loop, GCC 12 kept every accumulator in two registers with a
// copy per vpdpbusd (objdump: 2 moves per dot product, and spills); alone, the loop is 2
// loads, M P broadcasts and 2 M P vpdpbusd per quad, and the flush 5-6 vector operations per
// output vector.
template <int M, int P, bool INT4>
__attribute__((noinline)) void group_tile(const std::uint8_t* wp, const std::int8_t* ap, int64_t qn,
                                          int64_t quad_bytes, const std::int32_t* comp,
                                          const float* scale, const float* group_scale,
                                          float* acc) {
  __m512i raw[M * P * 2];
  start_sums<M, P>(comp, raw);
  const __m512i nibble = _mm512_set1_epi8(0x0F);
#pragma GCC unroll 4
  for (int64_t q = 0; q < qn; ++q) {
    __m512i w0, w1;
    load_quad<INT4>(wp, nibble, w0, w1);
    wp += INT4 ? 64 : 128;
#pragma GCC unroll 16
    for (int x = 0; x < M * P; ++x) {
      const __m512i b = bcast_word(ap + x * 4);  // row x / P, part x % P
      raw[2 * x] = _mm512_dpbusd_epi32(raw[2 * x], w0, b);
      raw[2 * x + 1] = _mm512_dpbusd_epi32(raw[2 * x + 1], w1, b);
    }
    ap += quad_bytes;
  }
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
    const __m512 s = _mm512_set1_ps(scale[i]);
#pragma GCC unroll 2
    for (int v = 0; v < 2; ++v) {
      __m512 f = group_value<P>(raw, i, v);
      if (group_scale != nullptr) f = _mm512_mul_ps(f, _mm512_loadu_ps(group_scale + v * 16));
      float* slot = acc + i * 32 + v * 16;
      _mm512_store_ps(slot, _mm512_fmadd_ps(f, s, _mm512_load_ps(slot)));
    }
  }
}

// Whole groups of a fixed depth QPG quads (act groups of 32 and 64, the per-column default
// and the common weight groups): the group's quads fully unrolled in one loop over groups,
// the fp32 accumulators in registers. With no inner loop GCC 12 allocates the int32
// accumulators cleanly (objdump: a register copy per accumulator per group, none per
// vpdpbusd), and no call or memory round trip sits between groups: the flush is 4 vector
// operations per output vector. Returns the groups done; the sums continue from acc and end
// there.
template <int M, int P, bool INT4, int QPG>
int64_t whole_groups(const WqArgs& a, int64_t groups, float* acc) {
  __m512 sum[M * 2];
#pragma GCC unroll 16
  for (int x = 0; x < M * 2; ++x) sum[x] = _mm512_load_ps(acc + 16 * x);
  constexpr std::int64_t quad_bytes = kTileRows<P> * P * 4;  // Tile::kernel checks a.a.mr
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const std::uint8_t* wp = a.w;
  const std::int8_t* ap = a.a.parts;
  const bool group_scaled = a.w_group_scale != nullptr;
  const std::uint8_t* pf = a.w_prefetch;
  const int pf_lines = pf != nullptr ? a.prefetch_lines : 0;
  for (int64_t g = 0; g < groups; ++g) {
    const std::int64_t meta = g * a.a.mr;
    for (int l = 0; l < pf_lines; ++l)  // this group's share of the next panel, into L2
      _mm_prefetch(reinterpret_cast<const char*>(pf + l * 64), _MM_HINT_T1);
    pf += pf_lines * 64;
    __m512i raw[M * P * 2];
    start_sums<M, P>(a.a.comp + meta, raw);
#pragma GCC unroll 64
    for (int q = 0; q < QPG; ++q) {
      __m512i w0, w1;
      load_quad<INT4>(wp + q * (INT4 ? 64 : 128), nibble, w0, w1);
#pragma GCC unroll 16
      for (int x = 0; x < M * P; ++x) {
        const __m512i b = bcast_word(ap + q * quad_bytes + x * 4);  // row x / P, part x % P
        raw[2 * x] = _mm512_dpbusd_epi32(raw[2 * x], w0, b);
        raw[2 * x + 1] = _mm512_dpbusd_epi32(raw[2 * x + 1], w1, b);
      }
    }
    wp += QPG * (INT4 ? 64 : 128);
    ap += QPG * quad_bytes;
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const __m512 s = _mm512_set1_ps(a.a.scale[meta + i]);
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v) {
        __m512 f = group_value<P>(raw, i, v);
        if (group_scaled) f = _mm512_mul_ps(f, _mm512_loadu_ps(a.w_group_scale + g * 32 + v * 16));
        sum[i * 2 + v] = _mm512_fmadd_ps(f, s, sum[i * 2 + v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int x = 0; x < M * 2; ++x) _mm512_store_ps(acc + 16 * x, sum[x]);
  return groups;
}

// An M x 32 tile (M = 1..kWqMaxMr) of P activation parts against int8 or int4 weights.
template <int P, bool INT4>
struct Tile {
  template <int M>
  static void kernel(const WqArgs& a) {
    // The fp32 accumulators of the tile (memory, L1) between the phases: whole groups of a
    // fixed depth, then any other group through group_tile (a call, which would spill them).
    alignas(64) float acc[M * 32];
    if (a.resume)
      std::memcpy(acc, a.partial, sizeof(acc));
    else
      std::memset(acc, 0, sizeof(acc));
    const int64_t groups = (a.quads + a.quads_per_group - 1) / a.quads_per_group;
    const int64_t whole = a.a.mr == kTileRows<P> ? a.quads / a.quads_per_group : 0;
    int64_t done = 0;
    if (a.quads_per_group == 8)
      done = whole_groups<M, P, INT4, 8>(a, whole, acc);
    else if (a.quads_per_group == 16)
      done = whole_groups<M, P, INT4, 16>(a, whole, acc);
    const std::int64_t quad_bytes = static_cast<std::int64_t>(a.a.mr) * P * 4;
    const std::int64_t panel_quad = INT4 ? 64 : 128;
    for (int64_t g = done; g < groups; ++g) {
      const int64_t q0 = g * a.quads_per_group;
      const int64_t qn = std::min(a.quads_per_group, a.quads - q0);
      const std::int64_t meta = g * a.a.mr;
      group_tile<M, P, INT4>(a.w + q0 * panel_quad, a.a.parts + q0 * quad_bytes, qn, quad_bytes,
                             a.a.comp + meta, a.a.scale + meta,
                             a.w_group_scale != nullptr ? a.w_group_scale + g * 32 : nullptr, acc);
    }
    if (!a.finish) {  // a depth block before the last: carry the sums
      std::memcpy(a.partial, acc, sizeof(acc));
      return;
    }
    // The output op (kernels/tile_epilogue.hpp): column scale, row factor, beta C.
    const DequantizedOutput<VecAvx512> out(a.w_col_scale, a.a.row_factor, a.beta);
    if (a.c_cs == 1) {
      __m512 tile[M][2];
#pragma GCC unroll 16
      for (int i = 0; i < M; ++i) {
        tile[i][0] = _mm512_load_ps(acc + i * 32);
        tile[i][1] = _mm512_load_ps(acc + i * 32 + 16);
      }
      store_tile<VecAvx512, M, 2>(tile, a.c, a.c_rs, a.n, out);
      return;
    }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < a.n; ++j) {
        float& c = a.c[i * a.c_rs + j * a.c_cs];
        c = out.needs_source() ? out.at(acc[i * 32 + j], c, i, j) : out.at(acc[i * 32 + j], i, j);
      }
  }
};

__mmask16 first(int64_t n) {
  return n >= 16  ? static_cast<__mmask16>(0xFFFF)
         : n <= 0 ? static_cast<__mmask16>(0)
                  : static_cast<__mmask16>((1u << n) - 1u);
}

// Sixteen horizontal reductions at once: lane j of the result is op over the 16 lanes of the
// vector in slot kReduceSlot[j] (four levels of shuffles, each halving the lanes per vector; the
// slot order undoes the lanes' order at the end, the same permutation both ways).
constexpr int kReduceSlot[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};

template <class Op>
inline __m512 reduce16(const __m512 (&v)[16], Op op) {
  __m512 l1[8], l2[4], l3[2];
  for (int i = 0; i < 8; ++i)
    l1[i] = op(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
               _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  for (int i = 0; i < 4; ++i)
    l2[i] = op(_mm512_shuffle_f32x4(l1[2 * i], l1[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
               _mm512_shuffle_f32x4(l1[2 * i], l1[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  for (int i = 0; i < 2; ++i)
    l3[i] = op(_mm512_shuffle_ps(l2[2 * i], l2[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
               _mm512_shuffle_ps(l2[2 * i], l2[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  return op(_mm512_shuffle_ps(l3[0], l3[1], _MM_SHUFFLE(2, 0, 2, 0)),
            _mm512_shuffle_ps(l3[0], l3[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

inline __m512 max_ps(__m512 x, __m512 y) { return _mm512_max_ps(x, y); }
inline __m512 add_epi32_as_ps(__m512 x, __m512 y) {
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(x), _mm512_castps_si512(y)));
}

// The split in vectors of 16, with the same operations in the same order per element as
// wq_quantize_portable (max of |x|, x * 0 poison, x * 2^E, nearest-even rounding of y * inv1,
// fused residual, rounding of e * inv2), hence the same bits. Groups go in batches of 16: their
// maxima, scales (IEEE divisions, as the scalar ones) and compensations are reduced and computed
// as vectors instead of a horizontal reduction and scalar divisions per group; with the first
// pass in four chains and the whole vectors of a group unmasked, about a quarter faster than
// group by group (docs/EVIDENCE.md, E2).
template <int PARTS>
void quantize_parts(const WqQuantizeArgs& a) noexcept {
  // max |x| and the poison sum in four chains (one chain is bound by the add's latency).
  __m512 vmax[4], vpoison[4];
  for (int c = 0; c < 4; ++c) vmax[c] = vpoison[c] = _mm512_setzero_ps();
  int64_t at = 0;
  for (; at + 64 <= a.k; at += 64)
    for (int c = 0; c < 4; ++c) {
      const __m512 x = _mm512_loadu_ps(a.x + at + 16 * c);
      vmax[c] = _mm512_max_ps(vmax[c], _mm512_abs_ps(x));
      vpoison[c] = _mm512_add_ps(vpoison[c], _mm512_mul_ps(x, _mm512_setzero_ps()));
    }
  for (; at < a.k; at += 16) {
    const __m512 x = _mm512_maskz_loadu_ps(first(a.k - at), a.x + at);
    vmax[0] = _mm512_max_ps(vmax[0], _mm512_abs_ps(x));
    vpoison[0] = _mm512_add_ps(vpoison[0], _mm512_mul_ps(x, _mm512_setzero_ps()));
  }
  // Zero or NaN either way: the sum's order does not matter.
  const float poison = _mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(vpoison[0], vpoison[1]), _mm512_add_ps(vpoison[2], vpoison[3])));
  const float rmax = _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(vmax[0], vmax[1]), _mm512_max_ps(vmax[2], vmax[3])));
  const int64_t padded = (a.k + 3) / 4 * 4;
  const int64_t groups = (a.k + a.group - 1) / a.group;
  const bool bad = poison != 0.0f || std::isnan(poison);
  // Zeros for the parts of quads [q0, q1) of the row.
  auto zero_quads = [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q)
      for (int t = 0; t < PARTS; ++t)
        std::memset(a.parts_out + wq_part_offset(q, a.row, t, a.mr, PARTS, a.tile_quads), 0, 4);
  };
  if (bad || rmax == 0.0f) {
    zero_quads(0, wq_tile_quads(a.k, a.tile_quads));
    for (int64_t g = 0; g < groups; ++g) {
      a.scale_out[g * a.mr + a.row] = 0.0f;
      a.comp_out[g * a.mr + a.row] = 0;
    }
    a.row_factor_out[a.row] = bad ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    return;
  }
  float upf = 1.0f, row_factor = 1.0f;
  wq_row_scaling(rmax, upf, row_factor);
  const __m512 up = _mm512_set1_ps(upf);
  const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
  const std::int64_t quad_bytes = static_cast<std::int64_t>(a.mr) * PARTS * 4;
  for (int64_t g0 = 0; g0 < groups; g0 += 16) {
    const int batch = static_cast<int>(std::min<int64_t>(16, groups - g0));
    // The batch's group maxima, r = max |x 2^E| (zero slots past the batch).
    __m512 slots[16];
    for (int i = 0; i < 16; ++i) slots[i] = _mm512_setzero_ps();
    for (int i = 0; i < batch; ++i) {
      const int64_t p0 = (g0 + i) * a.group, p1 = std::min(a.k, p0 + a.group);
      __m512 gmax = _mm512_setzero_ps();
      for (int64_t p = p0; p < p1; p += 16) {
        const __m512 x = _mm512_maskz_loadu_ps(first(p1 - p), a.x + p);
        gmax = _mm512_max_ps(gmax, _mm512_abs_ps(_mm512_mul_ps(x, up)));
      }
      slots[kReduceSlot[i]] = gmax;
    }
    const __m512 r = reduce16(slots, max_ps);
    // wq_group_scales per lane (a flushed group's from r = 1, as the scalar path's).
    const __mmask16 flushed = _mm512_cmp_ps_mask(r, _mm512_set1_ps(kWqFlushBelow), _CMP_LT_OQ);
    const __m512 rs = _mm512_mask_blend_ps(flushed, r, _mm512_set1_ps(1.0f));
    alignas(64) float s1v[16], inv1v[16], inv2v[16], scale_v[16];
    const __m512 s1 = _mm512_div_ps(rs, _mm512_set1_ps(127.0f));
    const __m512 inv1 = _mm512_div_ps(_mm512_set1_ps(127.0f), rs);
    _mm512_store_ps(s1v, s1);
    _mm512_store_ps(inv1v, inv1);
    _mm512_store_ps(inv2v, _mm512_mul_ps(inv1, _mm512_set1_ps(256.0f)));
    const __m512 epilogue = PARTS == 2 ? _mm512_mul_ps(s1, _mm512_set1_ps(0x1p-8f)) : s1;
    _mm512_store_ps(scale_v, _mm512_maskz_mov_ps(static_cast<__mmask16>(~flushed), epilogue));
    __m512 sums1[16], sums2[16];
    for (int i = 0; i < 16; ++i) sums1[i] = sums2[i] = _mm512_setzero_ps();
    for (int i = 0; i < batch; ++i) {
      const int64_t p0 = (g0 + i) * a.group, p1 = std::min(a.k, p0 + a.group),
                    pend = std::min(padded, p0 + a.group);
      const bool group_flushed = ((flushed >> i) & 1u) != 0;
      const __m512 vinv1 = _mm512_set1_ps(inv1v[i]), vinv2 = _mm512_set1_ps(inv2v[i]);
      const __m512 vs1 = _mm512_set1_ps(s1v[i]);
      __m512i sum1 = _mm512_setzero_si512(), sum2 = _mm512_setzero_si512();
      // One vector of 16 values: y = x 2^E (zero past p1 or where flushed), its parts, their
      // bytes in the layout. Whole vectors of an unflushed group take the unmasked form.
      auto split = [&](int64_t p, __m512 y, int64_t nq) {
        const __m512 v1 = _mm512_min_ps(
            _mm512_max_ps(_mm512_roundscale_ps(_mm512_mul_ps(y, vinv1), _MM_FROUND_TO_NEAREST_INT),
                          lo),
            hi);
        const __m512i i1 = _mm512_cvtps_epi32(v1);
        sum1 = _mm512_add_epi32(sum1, i1);
        __m512i i2 = _mm512_setzero_si512();
        if constexpr (PARTS == 2) {
          const __m512 e = _mm512_fnmadd_ps(v1, vs1, y);
          const __m512 v2 = _mm512_min_ps(
              _mm512_max_ps(
                  _mm512_roundscale_ps(_mm512_mul_ps(e, vinv2), _MM_FROUND_TO_NEAREST_INT), lo),
              hi);
          i2 = _mm512_cvtps_epi32(v2);
          sum2 = _mm512_add_epi32(sum2, i2);
        }
        // Both parts' bytes in one narrowing (the values are within +-127, so the saturating
        // pack changes none): per 128-bit lane L the pack holds quad L's four words of part
        // 1, then of part 2, and vpmovwb leaves quad L's 8 bytes (part 1's word, part 2's
        // word) at bytes 8L..8L+7: what the layout stores per quad of a two-part row. One
        // part: its 4.
        const __m256i b = _mm512_cvtepi16_epi8(_mm512_packs_epi32(i1, i2));
        std::int8_t* dst = a.parts_out + ((p / 4) * a.mr + a.row) * PARTS * 4;
        if (a.tile_quads != 0) {  // an engine's layout: each part's word where it goes
          alignas(32) std::int8_t bytes[32];
          _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), b);
          for (int64_t j = 0; j < nq; ++j)
            for (int t = 0; t < PARTS; ++t)
              std::memcpy(
                  a.parts_out + wq_part_offset(p / 4 + j, a.row, t, a.mr, PARTS, a.tile_quads),
                  bytes + 8 * j + 4 * t, 4);
        } else if (PARTS == 2 && nq == 4) {
          const __m128i lo_q = _mm256_castsi256_si128(b), hi_q = _mm256_extracti128_si256(b, 1);
          _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), lo_q);
          _mm_storeh_pd(reinterpret_cast<double*>(dst + quad_bytes), _mm_castsi128_pd(lo_q));
          _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 2 * quad_bytes), hi_q);
          _mm_storeh_pd(reinterpret_cast<double*>(dst + 3 * quad_bytes), _mm_castsi128_pd(hi_q));
        } else {
          alignas(32) std::int8_t bytes[32];
          _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), b);
          for (int64_t j = 0; j < nq; ++j)
            std::memcpy(dst + j * quad_bytes, bytes + 8 * j, PARTS * 4);
        }
      };
      int64_t p = p0;
      if (!group_flushed)
        for (; p + 16 <= p1; p += 16) split(p, _mm512_mul_ps(_mm512_loadu_ps(a.x + p), up), 4);
      for (; p < pend; p += 16) {
        const __mmask16 valid = group_flushed ? static_cast<__mmask16>(0) : first(p1 - p);
        split(p, _mm512_mul_ps(_mm512_maskz_loadu_ps(valid, a.x + p), up),
              std::min<int64_t>(4, (pend - p) / 4));
      }
      sums1[kReduceSlot[i]] = _mm512_castsi512_ps(sum1);
      sums2[kReduceSlot[i]] = _mm512_castsi512_ps(sum2);
    }
    // wq_compensation per lane: offset ((sum1 << 8) + sum2) or offset sum1, modulo 2^32.
    const __m512i t1 = _mm512_castps_si512(reduce16(sums1, add_epi32_as_ps));
    __m512i t = t1;
    if constexpr (PARTS == 2)
      t = _mm512_add_epi32(_mm512_slli_epi32(t1, 8),
                           _mm512_castps_si512(reduce16(sums2, add_epi32_as_ps)));
    alignas(64) std::int32_t comp_v[16];
    _mm512_store_si512(comp_v, _mm512_mullo_epi32(t, _mm512_set1_epi32(a.offset)));
    for (int i = 0; i < batch; ++i) {
      a.scale_out[(g0 + i) * a.mr + a.row] = scale_v[i];
      a.comp_out[(g0 + i) * a.mr + a.row] = comp_v[i];
    }
  }
  zero_quads(padded / 4, wq_tile_quads(a.k, a.tile_quads));  // an engine layout's padding
  a.row_factor_out[a.row] = row_factor;
}

void quantize(const WqQuantizeArgs& a) noexcept {
  if (a.parts == 2)
    quantize_parts<2>(a);
  else
    quantize_parts<1>(a);
}

}  // namespace

// A constant: the registry reads it on any CPU, where code built for this unit's flags may not
// run.
constexpr WqKernels kVnni =
    make_wq_kernels<Tile>("avx512-vnni", Isa::Avx512, 512, kTileRows<2>, kTileRows<1>, &quantize);

const WqKernels& wq_vnni_kernels() noexcept { return kVnni; }

}  // namespace adaptcore::kernels
