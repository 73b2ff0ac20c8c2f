// Whole-call cost of small GEMMs (1x1x1, 8x8x8, 16x16x16 and 32x32x32, row-major NN, alpha =
// 1, beta = 0): almost all dispatch at the small end (argument checks, plan lookup, thread
// wake-up), mostly the kernel at 32. adaptcore through the C++ API with an explicit context and
// through the C API (default context), and every vendor library of bench/baselines that loads
// (MKL, oneDNN, OpenBLAS, BLIS, Eigen, libxsmm; loaded at run time, their per-shape setup done
// before timing), at 1 and 2 threads, in the same run.
//
// And the parts of dispatch alone (targets from the project issue):
//   BM_cache_find      (a) PlanCache::find on a warm key                     <= 20 ns
//   BM_key_and_find    (a) ContextImpl::key_for + find, as a call does it     <= 20 ns
//   BM_make_plan       (c) planning an unseen shape: make_plan for a stream of distinct keys
//                          (M over 1..32768, LLM-like N and K)               <= 10 us
//   BM_cache_miss      (c) the whole miss path: find (miss) + make_plan + insert
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <vector>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "core/problem.hpp"
#include "dispatch/internal_access.hpp"
#include "measure/bench_util.hpp"
#include "planner/planner.hpp"

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

// A vendor library through the harness's adapter (loaded at run time; skipped with its reason
// when it is not installed). prepare() runs before timing: a tiny-GEMM caller that reuses a
// shape pays oneDNN's primitive creation or libxsmm's JIT once.
void BM_vendor(benchmark::State& state, const std::string& name) {
  const int64_t s = state.range(0);
  adaptcore::bench::LoadedBaseline lb =
      adaptcore::bench::load_baseline(name, static_cast<int>(state.range(1)));
  if (!lb.lib) {
    state.SkipWithError(lb.message.c_str());
    return;
  }
  Operands op(s);
  const adaptcore::bench::GemmCall call{s, s,           s, false,       false, op.a.data(),
                                        s, op.b.data(), s, op.c.data(), s};
  if (!lb.lib->supports(call)) {
    state.SkipWithError("unsupported shape");
    return;
  }
  lb.lib->prepare(call);
  for (auto _ : state) {
    lb.lib->run(call);
    benchmark::ClobberMemory();
  }
  set_counters(state, s);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"size", "threads"});
  for (int threads : {1, 2})
    for (int size : {1, 8, 16, 32}) b->Args({size, threads});
}

// A normalised 8x8x8 row-major problem (operands never touched: only keys are made).
adaptcore::GemmProblem small_problem(const Operands& op) {
  adaptcore::GemmProblem p;
  adaptcore::make_problem(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No,
                          8, 8, 8, 1.0f, op.a.data(), 8, op.b.data(), 8, 0.0f,
                          const_cast<float*>(op.c.data()), 8, p);
  return p;
}

void BM_cache_find(benchmark::State& state) {
  adaptcore::Context& ctx = context_for(static_cast<int>(state.range(0)));
  adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const Operands op(8);
  const adaptcore::ShapeKey key = impl.key_for(small_problem(op));
  impl.plan_for(key);  // warm
  const adaptcore::PlanCache& cache = impl.cache();
  for (auto _ : state) {
    const adaptcore::Plan* p = cache.find(key);
    benchmark::DoNotOptimize(p);
  }
}

void BM_key_and_find(benchmark::State& state) {
  adaptcore::Context& ctx = context_for(static_cast<int>(state.range(0)));
  adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const Operands op(8);
  adaptcore::GemmProblem prob = small_problem(op);
  impl.plan_for(impl.key_for(prob));  // warm
  for (auto _ : state) {
    benchmark::DoNotOptimize(prob);
    const adaptcore::Plan* p = impl.cache().find(impl.key_for(prob));
    benchmark::DoNotOptimize(p);
  }
}

// LLM-like (N, K) pairs: attention projections, MLP up and down, a vocabulary projection.
constexpr int64_t kLlmNk[][2] = {{4096, 4096}, {11008, 4096}, {4096, 11008}, {32000, 4096}};

adaptcore::ShapeKey unseen_key(const adaptcore::ShapeKey& base, int64_t i) {
  adaptcore::ShapeKey k = base;
  k.m = 1 + (i * 7919) % 32768;  // a stride coprime with 2^15: every M of 1..32768 in turn
  k.n = kLlmNk[(i / 32768) % 4][0];
  k.k = kLlmNk[(i / 32768) % 4][1];
  return k;
}

adaptcore::ShapeKey llm_base_key(adaptcore::detail::ContextImpl& impl, const Operands& op) {
  adaptcore::ShapeKey k = impl.key_for(small_problem(op));
  k.a_ld_log2 = adaptcore::stride_log2(4096);
  k.b_ld_log2 = adaptcore::stride_log2(4096);
  return k;
}

void BM_make_plan(benchmark::State& state) {
  adaptcore::Context& ctx = context_for(static_cast<int>(state.range(0)));
  adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const Operands op(8);
  const adaptcore::ShapeKey base = llm_base_key(impl, op);
  const adaptcore::HardwareProfile& hw = impl.hardware();
  const adaptcore::kernels::IsaKernels& ks = impl.kernels();
  const adaptcore::TypeConfig cfg = adaptcore::type_config(ks, hw);
  int64_t i = 0;
  for (auto _ : state) {
    const adaptcore::Plan p = adaptcore::make_plan(unseen_key(base, i++), hw, cfg);
    benchmark::DoNotOptimize(p);
  }
  state.SetLabel(adaptcore::to_string(ks.isa));
}

void BM_cache_miss(benchmark::State& state) {
  // A context of its own: every key is new to its cache (at most 2^18 are kept; past that the
  // miss path plans without inserting, which this benchmark does not reach at its run time).
  adaptcore::ContextOptions o;
  o.threads = static_cast<int>(state.range(0));
  adaptcore::Context ctx(o);
  adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const Operands op(8);
  const adaptcore::ShapeKey base = llm_base_key(impl, op);
  static int64_t next = 0;  // keys stay unseen across repetitions of this benchmark
  for (auto _ : state) {
    const adaptcore::Plan p = impl.plan_for(unseen_key(base, next++));
    benchmark::DoNotOptimize(p);
  }
  state.SetLabel(adaptcore::to_string(impl.isa()));
}

BENCHMARK(BM_cache_find)->ArgName("threads")->Arg(1)->Arg(2);
BENCHMARK(BM_key_and_find)->ArgName("threads")->Arg(1)->Arg(2);
BENCHMARK(BM_make_plan)->ArgName("threads")->Arg(1)->Arg(2);
BENCHMARK(BM_cache_miss)->ArgName("threads")->Arg(1)->Arg(2);
BENCHMARK(BM_adaptcore_cpp)->Apply(shapes);
BENCHMARK(BM_adaptcore_c)->Apply(shapes);
// The vendor libraries, one benchmark family each, registered from main (names known at run time).

void register_vendors() {
  for (const std::string& name : adaptcore::bench::baseline_names())
    benchmark::RegisterBenchmark(("BM_vendor_" + name).c_str(), [name](benchmark::State& st) {
      BM_vendor(st, name);
    })->Apply(shapes);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_vendors();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
