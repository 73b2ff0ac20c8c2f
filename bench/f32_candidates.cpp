// Every candidate plan of an fp32 call (B as stored, either layout), timed in one process with
// the operands cold (the calls rotate over copies of A, B and C filling --pool-mib), against the
// model's prediction: what the planner chooses among, and whether it chooses well. The fp32
// twin of packed_candidates.cpp.
//
//   adaptcore_bench_f32_candidates --m M --n N --k K [--transa 0|1] [--transb 0|1]
//                                  [--threads T] [--pool-mib P] [--reps R]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "measure/bench_util.hpp"
#include "plan/plan.hpp"

namespace {

namespace am = adaptcore::measure;
using namespace adaptcore;

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_f32_candidates --m M --n N --k K [--transa 0|1] "
               "[--transb 0|1] [--threads T] [--pool-mib P] [--reps R]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 0, n = 0, k = 0;
  int threads = 1, reps = 4;
  bool ta = false, tb = false;
  double pool_mib = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    const char* v = argv[i + 1];
    if (a == "--m")
      m = std::atoll(v);
    else if (a == "--n")
      n = std::atoll(v);
    else if (a == "--k")
      k = std::atoll(v);
    else if (a == "--transa")
      ta = std::atoi(v) != 0;
    else if (a == "--transb")
      tb = std::atoi(v) != 0;
    else if (a == "--threads")
      threads = std::atoi(v);
    else if (a == "--pool-mib")
      pool_mib = std::atof(v);
    else if (a == "--reps")
      reps = std::atoi(v);
    else
      return usage();
  }
  if (m < 1 || n < 1 || k < 1 || threads < 1 || reps < 1) return usage();
  ContextOptions co;
  co.threads = threads;
  Context ctx(co);
  detail::ContextImpl& impl = detail::impl_of(ctx);

  // Copies of the operands, row-major, each in its own allocation.
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  const auto bytes_per = static_cast<double>((m * k + k * n + m * n) * 4);
  const auto copies =
      static_cast<std::size_t>(std::max<double>(2.0, pool_mib * 1024 * 1024 / bytes_per));
  std::vector<std::vector<float>> as(copies), bs(copies), cs(copies);
  for (std::size_t i = 0; i < copies; ++i) {
    as[i].resize(static_cast<std::size_t>(m * k));
    bs[i].resize(static_cast<std::size_t>(k * n));
    cs[i].assign(static_cast<std::size_t>(m * n), 0.0f);
    am::fill_uniform(as[i].data(), as[i].size(), 3 + i);
    am::fill_uniform(bs[i].data(), bs[i].size(), 5 + i);
  }
  const Trans tra = ta ? Trans::Yes : Trans::No, trb = tb ? Trans::Yes : Trans::No;
  auto problem = [&](std::size_t i) {
    GemmProblem g;
    (void)make_problem(Layout::RowMajor, tra, trb, m, n, k, 1.0f, as[i].data(), lda, bs[i].data(),
                       ldb, 0.0f, cs[i].data(), n, g);
    return g;
  };
  GemmProblem g0;
  if (const Status s = make_problem(Layout::RowMajor, tra, trb, m, n, k, 1.0f, as[0].data(), lda,
                                    bs[0].data(), ldb, 0.0f, cs[0].data(), n, g0);
      s != Status::Ok) {
    std::fprintf(stderr, "make_problem: %s\n", to_string(s));
    return 1;
  }
  const Explanation e = impl.explain(impl.key_for(g0, true));
  ThreadPool pool(threads);
  std::printf("%ldx%ldx%ld %s%s fp32, %zu operand copies (%.0f MiB), %d thread%s\n",
              static_cast<long>(m), static_cast<long>(n), static_cast<long>(k), ta ? "T" : "N",
              tb ? "T" : "N", copies, static_cast<double>(copies) * bytes_per / (1 << 20), threads,
              threads == 1 ? "" : "s");
  std::printf("%-84s %12s %12s\n", "plan", "predicted_us", "measured_us");
  for (std::size_t ci = 0; ci < e.candidates.size(); ++ci) {
    const Plan& p = e.candidates[ci].plan;
    std::vector<double> t;
    for (std::size_t r = 0; r < static_cast<std::size_t>(reps) * copies; ++r) {
      const GemmProblem g = problem(r % copies);
      Status st = Status::Ok;
      t.push_back(am::time_once([&] { st = execute(p, g, impl.kernels(), pool); }));
      if (st != Status::Ok) {
        std::fprintf(stderr, "execute: %s\n", to_string(st));
        return 1;
      }
    }
    std::printf("%-84s %12.1f %12.1f%s\n", describe(p).c_str(), e.candidates[ci].cost.total_us,
                am::median(t) * 1e6, ci == e.chosen ? "  <- chosen" : "");
  }
  return 0;
}
