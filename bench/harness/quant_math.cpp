#include "harness/quant_math.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/quant_math_simd.hpp"

namespace adaptcore::bench {

namespace {

bool have_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return yes;
}
bool have_avx512_bf16() {
  // GCC's __builtin_cpu_supports knows "avx512bf16" from GCC 11.
  static const bool yes = have_avx512() && __builtin_cpu_supports("avx512bf16");
  return yes;
}

uint16_t bf16_round(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace

double QuantizedWeights8or4::bytes() const {
  return static_cast<double>(n) * static_cast<double>(k) * bits / 8.0 +
         4.0 * static_cast<double>(scales.size());
}

QuantizedWeights8or4 quantize_weights_symmetric(const float* w, int64_t n, int64_t k, int64_t group,
                                                int bits) {
  if (bits != 8 && bits != 4) throw std::invalid_argument("weight bits must be 8 or 4");
  if (n < 1 || k < 1) throw std::invalid_argument("weight matrix must be at least 1 x 1");
  if (group < 1) throw std::invalid_argument("weight group must be positive");
  if (bits == 4 && group % 2 != 0 && group < k)
    throw std::invalid_argument("int4 groups must have an even size (two values per byte)");
  QuantizedWeights8or4 q;
  q.n = n, q.k = k, q.group = std::min(group, k), q.bits = bits;
  const int qmax = bits == 8 ? 127 : 7;
  const int64_t groups = q.groups();
  q.q.resize(static_cast<std::size_t>(n * k));
  q.scales.resize(static_cast<std::size_t>(n * groups));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t p0 = g * q.group, p1 = std::min(k, p0 + q.group);
      float amax = 0;
      for (int64_t p = p0; p < p1; ++p) amax = std::max(amax, std::fabs(w[j * k + p]));
      const float s = amax / static_cast<float>(qmax);
      q.scales[static_cast<std::size_t>(j * groups + g)] = s;
      for (int64_t p = p0; p < p1; ++p) {
        const float v = s > 0 ? std::nearbyint(w[j * k + p] / s) : 0.0f;
        q.q[static_cast<std::size_t>(j * k + p)] = static_cast<int8_t>(
            std::clamp(v, static_cast<float>(-qmax - 1), static_cast<float>(qmax)));
      }
    }
  }
  if (bits == 4) {
    const int64_t row_bytes = (k + 1) / 2;
    q.nibbles.assign(static_cast<std::size_t>(n * row_bytes), 0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) {
        const auto u = static_cast<uint8_t>(q.q[static_cast<std::size_t>(j * k + p)] + 8);
        q.nibbles[static_cast<std::size_t>(j * row_bytes + p / 2)] |=
            static_cast<uint8_t>(p % 2 == 0 ? u : u << 4);
      }
  }
  return q;
}

void dequantize_weights(const QuantizedWeights8or4& w, float* out) {
  const int64_t groups = w.groups();
  const int64_t row_bytes = (w.k + 1) / 2;
  const bool simd = have_avx512();
  for (int64_t j = 0; j < w.n; ++j) {
    float* row = out + j * w.k;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t p0 = g * w.group, p1 = std::min(w.k, p0 + w.group);
      const float s = w.scales[static_cast<std::size_t>(j * groups + g)];
      if (w.bits == 8) {
        const int8_t* q = w.q.data() + j * w.k;
        if (simd)
          simd::dequantize_s8(q + p0, p1 - p0, s, row + p0);
        else
          for (int64_t p = p0; p < p1; ++p) row[p] = static_cast<float>(q[p]) * s;
      } else {
        // Groups start at even k (even group size), so a group's values start on a byte.
        const uint8_t* b = w.nibbles.data() + j * row_bytes + p0 / 2;
        if (simd)
          simd::dequantize_u4(b, p1 - p0, s, row + p0);
        else
          for (int64_t p = 0; p < p1 - p0; ++p) {
            const int v = p % 2 == 0 ? (b[p / 2] & 0x0F) : (b[p / 2] >> 4);
            row[p0 + p] = static_cast<float>(v - 8) * s;
          }
      }
    }
  }
}

void convert_to_bf16(const float* x, std::size_t count, uint16_t* out) {
  if (have_avx512_bf16()) {
    simd::convert_bf16(x, count, out);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) out[i] = bf16_round(x[i]);
}

ActivationQuant quantize_activations_u8(const float* x, std::size_t count, uint8_t* out) {
  float lo = 0, hi = 0;  // the range always holds 0, so that 0 is exact
  if (have_avx512()) {
    simd::min_max(x, count, lo, hi);
  } else {
    for (std::size_t i = 0; i < count; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
  }
  ActivationQuant aq;
  if (!(hi > lo)) {  // all zero (or NaN): nothing to scale
    std::fill_n(out, count, uint8_t{0});
    return aq;
  }
  aq.scale = (hi - lo) / 255.0f;
  aq.zero_point = static_cast<int32_t>(std::clamp(std::nearbyint(-lo / aq.scale), 0.0f, 255.0f));
  const float inv = 1.0f / aq.scale;
  if (have_avx512()) {
    simd::quantize_u8(x, count, inv, aq.zero_point, out);
  } else {
    for (std::size_t i = 0; i < count; ++i)
      out[i] = static_cast<uint8_t>(
          std::clamp(std::nearbyint(x[i] * inv) + static_cast<float>(aq.zero_point), 0.0f, 255.0f));
  }
  return aq;
}

void rescale_int32(const int32_t* acc, int64_t m, int64_t n, float a_scale, const float* w_scale,
                   float* c) {
  std::vector<float> s(static_cast<std::size_t>(n));
  for (int64_t j = 0; j < n; ++j) s[static_cast<std::size_t>(j)] = a_scale * w_scale[j];
  const bool simd = have_avx512();
  for (int64_t i = 0; i < m; ++i) {
    if (simd) {
      simd::rescale_row(acc + i * n, n, s.data(), c + i * n);
    } else {
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] = static_cast<float>(acc[i * n + j]) * s[static_cast<std::size_t>(j)];
    }
  }
}

std::vector<double> reference_rows(const float* x, int64_t k, const QuantizedWeights8or4& w,
                                   const std::vector<int64_t>& rows) {
  std::vector<double> ref(rows.size() * static_cast<std::size_t>(w.n), 0.0);
  std::vector<double> wrow(static_cast<std::size_t>(k));
  for (int64_t j = 0; j < w.n; ++j) {
    // The dequantized weight q * scale is exact in double (8 + 24 significant bits).
    for (int64_t p = 0; p < k; ++p)
      wrow[static_cast<std::size_t>(p)] =
          static_cast<double>(w.q[static_cast<std::size_t>(j * k + p)]) * w.scale(j, p);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const float* xr = x + rows[r] * k;
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += static_cast<double>(xr[p]) * wrow[static_cast<std::size_t>(p)];
      ref[r * static_cast<std::size_t>(w.n) + static_cast<std::size_t>(j)] = sum;
    }
  }
  return ref;
}

std::vector<int64_t> reference_row_choice(int64_t m, int64_t count) {
  std::vector<int64_t> rows;
  if (m <= 0 || count <= 0) return rows;
  if (m <= count) {
    for (int64_t i = 0; i < m; ++i) rows.push_back(i);
    return rows;
  }
  for (int64_t r = 0; r < count; ++r) {
    const int64_t i = count == 1 ? 0 : r * (m - 1) / (count - 1);
    if (rows.empty() || rows.back() != i) rows.push_back(i);
  }
  return rows;
}

QuantAccuracy quant_accuracy(const float* c, int64_t n, const std::vector<int64_t>& rows,
                             const std::vector<double>& ref) {
  double ref_max = 0, diff_max = 0, ref_sq = 0, diff_sq = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (int64_t j = 0; j < n; ++j) {
      const double want = ref[r * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
      const double got = c[rows[r] * n + j];
      const double d = std::isfinite(got) ? std::fabs(got - want) : INFINITY;
      ref_max = std::max(ref_max, std::fabs(want));
      diff_max = std::max(diff_max, d);
      ref_sq += want * want;
      diff_sq += d * d;
    }
  }
  QuantAccuracy a;
  a.max_rel = diff_max / (ref_max > 0 ? ref_max : 1.0);
  a.fro_rel = std::sqrt(diff_sq / (ref_sq > 0 ? ref_sq : 1.0));
  return a;
}

}  // namespace adaptcore::bench
