// Every candidate plan of an fp32 call (B as stored, either layout), timed in one process with
// the operands cold (the calls rotate over copies of A, B and C filling --pool-mib), against the
// model's prediction: what the planner chooses among, and whether it chooses well. The fp32
// twin of packed_candidates.cpp.
//
//   adaptcore_bench_f32_candidates --m M --n N --k K [--transa 0|1] [--transb 0|1]
//                                  [--threads T] [--pool-mib P] [--reps R] [--warm 0|1]
//                                  [--plans "PLAN;PLAN"]
// --warm 1: the candidates the planner ranks for operands in cache (the operands still rotate
// unless --pool-mib is 0: one set). --plans: only these candidates (as `adaptcore explain` prints
// them), e.g. the plans two builds choose, compared in one process.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "candidate_timing.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "measure/bench_util.hpp"

namespace {

namespace am = adaptcore::measure;
using namespace adaptcore;

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_f32_candidates --m M --n N --k K [--transa 0|1] "
               "[--transb 0|1] [--threads T] [--pool-mib P] [--reps R] [--warm 0|1] "
               "[--plans \"PLAN;PLAN\"]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> v;
  if (!bench::parse_pairs(
          argc, argv,
          {"m", "n", "k", "transa", "transb", "threads", "pool-mib", "reps", "warm", "plans"}, v))
    return usage();
  auto num = [&](const char* name, double fallback) { return bench::number(v, name, fallback); };
  const auto m = static_cast<int64_t>(num("m", 0)), n = static_cast<int64_t>(num("n", 0)),
             k = static_cast<int64_t>(num("k", 0));
  const int threads = static_cast<int>(num("threads", 1)), reps = static_cast<int>(num("reps", 4));
  const bool ta = num("transa", 0) != 0, tb = num("transb", 0) != 0;
  const double pool_mib = num("pool-mib", 256);
  if (m < 1 || n < 1 || k < 1 || threads < 1 || reps < 1) return usage();
  ContextOptions co;
  co.threads = threads;
  Context ctx(co);
  detail::ContextImpl& impl = detail::impl_of(ctx);

  // Copies of the operands, row-major, each in its own allocation.
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  const auto bytes_per = static_cast<double>((m * k + k * n + m * n) * 4);
  // --pool-mib 0: one set, which every call finds warm.
  const auto copies =
      pool_mib <= 0
          ? std::size_t{1}
          : static_cast<std::size_t>(std::max<double>(2.0, pool_mib * 1024 * 1024 / bytes_per));
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
  const Explanation e =
      bench::with_blocking_variants(impl.explain(impl.key_for(g0, num("warm", 0) == 0)),
                                    v.count("plans") != 0 ? v["plans"] : std::string{});
  ThreadPool pool(threads);
  std::printf("%ldx%ldx%ld %s%s fp32, %zu operand copies (%.0f MiB), %d thread%s\n",
              static_cast<long>(m), static_cast<long>(n), static_cast<long>(k), ta ? "T" : "N",
              tb ? "T" : "N", copies, static_cast<double>(copies) * bytes_per / (1 << 20), threads,
              threads == 1 ? "" : "s");
  return bench::time_candidates(
      e, static_cast<std::size_t>(reps) * copies,
      [&](const Plan& p, std::size_t r) {
        return execute(p, problem(r % copies), impl.kernels(), pool);
      },
      v.count("plans") != 0 ? v["plans"] : std::string{});
}
