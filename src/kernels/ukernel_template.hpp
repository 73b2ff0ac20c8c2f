// The register-blocked fp32 micro-kernel, written once over a vector-traits type V and
// instantiated per ISA in that ISA's translation unit (compiled with its own flags). Include
// this header only inside an anonymous namespace of such a unit: the instantiations must not
// be merged across units built for different ISAs.
//
// V provides: reg, W (lanes), zero(), load(p), load_n(p, n), store(p, r), store_n(p, r, n),
// bcast(p), fma(a, b, c) = a * b + c, mul(a, b), set1(x).
//
// Tile layout: M rows x NV vectors of W columns. Per depth step the kernel loads NV vectors of
// B and broadcasts M values of A, issuing M * NV independent FMAs into register accumulators.

template <class V, int M, int NV, adaptcore::kernels::AMode AM>
void sgemm_ukernel(const adaptcore::kernels::UKernelArgs& args) {
  using adaptcore::kernels::AMode;
  using reg = typename V::reg;
  constexpr int W = V::W;
  constexpr int NR = NV * W;

  reg acc[M][NV];
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  }

  // Start pulling the C tile in now: its rows are ldc apart and would otherwise miss in the
  // epilogue, after the depth loop, with nothing left to overlap the latency.
  if (args.beta != 0.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        if (v * W < args.n) __builtin_prefetch(args.c + i * args.ldc + v * W, 1, 3);
      }
    }
  }

  const float* a = args.a;
  const float* b = args.b;
  const int64_t a_stride = args.a_stride;
  const int64_t ldb = args.ldb;
  const int n = args.n;
  // Distance between consecutive A elements of one row (k direction) and between rows.
  const int64_t a_step = AM == AMode::ColUnit ? a_stride : 1;
  const int64_t a_row = AM == AMode::ColUnit ? 1 : a_stride;

  if (n == NR) {
#pragma GCC unroll 2
    for (int64_t p = 0; p < args.k; ++p) {
      reg bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = V::load(b + v * W);
#pragma GCC unroll 16
      for (int i = 0; i < M; ++i) {
        const reg av = V::bcast(a + i * a_row);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = V::fma(av, bv[v], acc[i][v]);
      }
      a += a_step;
      b += ldb;
    }
  } else {
    // Column tail: vectors past n are neither loaded nor used. A masked load whose lanes are
    // all off still costs a microcode assist on some cores when it crosses into an unmapped
    // page, and it would be wasted work anyway.
    for (int64_t p = 0; p < args.k; ++p) {
      reg bv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) bv[v] = v * W < n ? V::load_n(b + v * W, n - v * W) : V::zero();
#pragma GCC unroll 16
      for (int i = 0; i < M; ++i) {
        const reg av = V::bcast(a + i * a_row);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          if (v * W < n) acc[i][v] = V::fma(av, bv[v], acc[i][v]);
        }
      }
      a += a_step;
      b += ldb;
    }
  }

  // Epilogue: C = alpha * acc (+ beta * C). beta == 0 must not read C (it may hold NaN).
  const reg alpha = V::set1(args.alpha);
  float* c = args.c;
  const int64_t ldc = args.ldc;
  if (args.beta == 0.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const reg r = V::mul(alpha, acc[i][v]);
        if (n == NR)
          V::store(c + i * ldc + v * W, r);
        else if (v * W < n)
          V::store_n(c + i * ldc + v * W, r, n - v * W);
      }
    }
  } else {
    const reg beta = V::set1(args.beta);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        float* cp = c + i * ldc + v * W;
        if (n == NR) {
          V::store(cp, V::fma(beta, V::load(cp), V::mul(alpha, acc[i][v])));
        } else if (v * W < n) {
          const int nn = n - v * W;
          V::store_n(cp, V::fma(beta, V::load_n(cp, nn), V::mul(alpha, acc[i][v])), nn);
        }
      }
    }
  }
}

// Fills one TileKernels row-count table for an A mode: fn[m - 1] = sgemm_ukernel<V, m, NV, AM>.
template <class V, int NV, adaptcore::kernels::AMode AM, int... Ms>
constexpr std::array<adaptcore::kernels::UKernelFn, adaptcore::kernels::kMaxMr> make_row_table(
    std::integer_sequence<int, Ms...>) {
  std::array<adaptcore::kernels::UKernelFn, adaptcore::kernels::kMaxMr> t{};
  ((t[static_cast<std::size_t>(Ms)] = &sgemm_ukernel<V, Ms + 1, NV, AM>), ...);
  return t;
}

template <class V, int MR, int NV>
constexpr adaptcore::kernels::TileKernels make_tile() {
  using adaptcore::kernels::AMode;
  adaptcore::kernels::TileKernels t{MR, NV * V::W, {}};
  t.fn[0] = make_row_table<V, NV, AMode::ColUnit>(std::make_integer_sequence<int, MR>{});
  t.fn[1] = make_row_table<V, NV, AMode::RowUnit>(std::make_integer_sequence<int, MR>{});
  return t;
}

// Dot-product kernel (see DotArgs): M x N accumulators over k in vectors of W, a masked last
// chunk, then one horizontal sum per output.
template <class V, int M, int N>
void sdot_ukernel(const adaptcore::kernels::DotArgs& args) {
  using reg = typename V::reg;
  constexpr int W = V::W;
  reg acc[M][N];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) acc[i][j] = V::zero();
  }
  const int64_t k = args.k;
  int64_t p = 0;
  for (; p + W <= k; p += W) {
    reg bv[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) bv[j] = V::load(args.b + j * args.ldb + p);
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const reg av = V::load(args.a + i * args.lda + p);
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) acc[i][j] = V::fma(av, bv[j], acc[i][j]);
    }
  }
  if (p < k) {
    const int rem = static_cast<int>(k - p);
    reg bv[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) bv[j] = V::load_n(args.b + j * args.ldb + p, rem);
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const reg av = V::load_n(args.a + i * args.lda + p, rem);
#pragma GCC unroll 4
      for (int j = 0; j < N; ++j) acc[i][j] = V::fma(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) {
      float* cp = args.c + i * args.ldc + j;
      const float s = args.alpha * V::hsum(acc[i][j]);
      *cp = args.beta == 0.0f ? s : s + args.beta * *cp;
    }
  }
}

template <class V, int M, int... Ns>
constexpr std::array<adaptcore::kernels::DotKernelFn, adaptcore::kernels::kDotNr> make_dot_row(
    std::integer_sequence<int, Ns...>) {
  return {&sdot_ukernel<V, M, Ns + 1>...};
}

template <class V>
constexpr adaptcore::kernels::DotKernels make_dot_kernels() {
  using Seq = std::make_integer_sequence<int, adaptcore::kernels::kDotNr>;
  return {{make_dot_row<V, 1>(Seq{}), make_dot_row<V, 2>(Seq{}), make_dot_row<V, 3>(Seq{}),
           make_dot_row<V, 4>(Seq{})}};
}
