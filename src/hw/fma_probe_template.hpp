// Body of the FMA throughput probes, included by each ISA's probe unit inside an anonymous
// namespace. kAcc independent accumulators cover 2 FMA pipes x 4-5 cycles of latency with room
// to spare, so the loop is bound by FMA issue alone; kAcc must leave registers free (12 for
// the 16 registers of AVX2, 24 for the 32 of AVX-512) or the loop spills.


template <class V, int kAcc>
double fma_probe_gflops(double seconds) {
  using reg = typename V::reg;
  constexpr long kInner = 4096;
  reg acc[kAcc];
  for (int i = 0; i < kAcc; ++i) acc[i] = V::set1(static_cast<float>(i) * 1e-3f);
  const reg x = V::set1(0.999999f), y = V::set1(1e-7f);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long iters = 0;
  double elapsed = 0.0;
  do {
    for (long r = 0; r < kInner; ++r) {
#pragma GCC unroll 32
      for (int i = 0; i < kAcc; ++i) acc[i] = V::fma(acc[i], x, y);
    }
    iters += kInner;
    elapsed = std::chrono::duration<double>(clock::now() - t0).count();
  } while (elapsed < seconds);
  // Fold the accumulators so the compiler cannot drop the work.
  reg sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = V::mul(sum, acc[i]);
  alignas(64) float out[V::W];
  V::store(out, sum);
  volatile float sink = out[0];
  (void)sink;
  return 2.0 * V::W * kAcc * static_cast<double>(iters) / elapsed / 1e9;
}
