// Portable vector traits: GCC/Clang vector extensions of 4 floats, which compile to SSE on any
// x86-64 (and to NEON elsewhere). No FMA is assumed: a * b + c rounds twice.
// In an unnamed namespace: every unit that includes it gets its own copy, compiled with its
// flags (inline functions with external linkage would be merged across units).
#pragma once
#include <cstring>

namespace {

struct VecGeneric {
  using reg = float __attribute__((vector_size(16)));
  using elem = float;
  static constexpr int W = 4;
  static reg zero() { return reg{0.0f, 0.0f, 0.0f, 0.0f}; }
  static reg load(const float* p) {
    reg r;
    std::memcpy(&r, p, sizeof(r));
    return r;
  }
  static reg load_n(const float* p, int n) {
    reg r = zero();
    for (int i = 0; i < W && i < n; ++i) r[i] = p[i];
    return r;
  }
  using lanes = int;  // the first n lanes
  static lanes first(int n) { return n; }
  static reg load_lanes(const float* p, lanes n) { return load_n(p, n); }
  static void store(float* p, reg r) { std::memcpy(p, &r, sizeof(r)); }
  static void store_n(float* p, reg r, int n) {
    for (int i = 0; i < W && i < n; ++i) p[i] = r[i];
  }
  static reg bcast(const float* p) { return set1(*p); }
  static reg fma(reg a, reg b, reg c) { return a * b + c; }
  static reg add(reg a, reg b) { return a + b; }
  static reg mul(reg a, reg b) { return a * b; }
  static reg set1(float x) { return reg{x, x, x, x}; }
  static float hsum(reg r) { return (r[0] + r[1]) + (r[2] + r[3]); }
  // Scalar a * b + c as this path computes it: two roundings (no FMA on baseline x86-64).
  static float fma1(float a, float b, float c) { return a * b + c; }
};

}  // namespace
