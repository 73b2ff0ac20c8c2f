// Whole-call cost of tiny GEMMs (1x1x1 and 8x8x8, row-major NN, alpha = 1, beta = 0), where
// the time is almost all dispatch: argument checks, plan lookup, thread wake-up. adaptcore
// through the C++ API with an explicit context and through the C API (default context), and
// OpenBLAS's cblas_sgemm, at 1 and 2 threads, in the same run.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "measure/bench_util.hpp"
#include "openblas_baseline.hpp"

namespace {

struct Operands {
  std::vector<float> a, b, c;
  explicit Operands(int64_t s) : a(static_cast<std::size_t>(s * s)), b(a.size()), c(a.size()) {
    adaptcore::measure::fill_uniform(a.data(), a.size(), 1);
    adaptcore::measure::fill_uniform(b.data(), b.size(), 2);
  }
};

adaptcore::Context& context_for(int threads) {
  static std::map<int, std::unique_ptr<adaptcore::Context>> contexts;
  auto& ctx = contexts[threads];
  if (!ctx) {
    adaptcore::ContextOptions o;
    o.threads = threads;
    ctx = std::make_unique<adaptcore::Context>(o);
  }
  return *ctx;
}

void set_counters(benchmark::State& state, int64_t s) {
  state.counters["flops"] = benchmark::Counter(2.0 * static_cast<double>(s * s * s),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

void BM_adaptcore_cpp(benchmark::State& state) {
  const int64_t s = state.range(0);
  adaptcore::Context& ctx = context_for(static_cast<int>(state.range(1)));
  Operands op(s);
  for (auto _ : state) {
    const auto st =
        adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No, s,
                        s, s, 1.0f, op.a.data(), s, op.b.data(), s, 0.0f, op.c.data(), s, ctx);
    benchmark::DoNotOptimize(st);
    benchmark::ClobberMemory();
  }
  set_counters(state, s);
}

void BM_adaptcore_c(benchmark::State& state) {
  const int64_t s = state.range(0);
  ac_set_num_threads(static_cast<int>(state.range(1)));
  Operands op(s);
  for (auto _ : state) {
    const ac_status_t st = ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, s, s, s, 1.0f,
                                    op.a.data(), s, op.b.data(), s, 0.0f, op.c.data(), s);
    benchmark::DoNotOptimize(st);
    benchmark::ClobberMemory();
  }
  set_counters(state, s);
}

void BM_openblas(benchmark::State& state) {
  const int64_t s = state.range(0);
  adaptcore::bench::openblas_threads(static_cast<int>(state.range(1)));
  Operands op(s);
  for (auto _ : state) {
    adaptcore::bench::openblas_sgemm_nn(s, s, s, 1.0f, op.a.data(), op.b.data(), 0.0f, op.c.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, s);
  state.SetLabel(adaptcore::bench::openblas_corename());
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"size", "threads"});
  for (int threads : {1, 2})
    for (int size : {1, 8}) b->Args({size, threads});
}

BENCHMARK(BM_adaptcore_cpp)->Apply(shapes);
BENCHMARK(BM_adaptcore_c)->Apply(shapes);
BENCHMARK(BM_openblas)->Apply(shapes);

}  // namespace

BENCHMARK_MAIN();
