// Every candidate plan of a call on prepacked low-precision weights, timed in one process with
// the weights cold (the calls rotate over copies filling --pool-mib), against the model's
// prediction: what the planner chooses among, and whether it chooses well (docs/PACKED.md,
// "bf16 and int8": the figures behind the panel candidates of candidates_blocked.cpp).
//
//   adaptcore_bench_packed_candidates --m M --n N --k K [--dtype bf16|u8s8] [--threads T]
//                                     [--pool-mib P] [--reps R]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "candidate_timing.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/thread_pool.hpp"
#include "measure/bench_util.hpp"
#include "plan/candidates.hpp"
#include "plan/type_config.hpp"

namespace {

namespace am = adaptcore::measure;
using namespace adaptcore;

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_packed_candidates --m M --n N --k K [--dtype bf16|u8s8] "
               "[--threads T] [--pool-mib P] [--reps R]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> v;
  if (!bench::parse_pairs(argc, argv, {"m", "n", "k", "dtype", "threads", "pool-mib", "reps"}, v))
    return usage();
  auto num = [&](const char* name, double fallback) { return bench::number(v, name, fallback); };
  const auto m = static_cast<int64_t>(num("m", 0)), n = static_cast<int64_t>(num("n", 0)),
             k = static_cast<int64_t>(num("k", 0));
  const int threads = static_cast<int>(num("threads", 2)), reps = static_cast<int>(num("reps", 4));
  const double pool_mib = num("pool-mib", 512);
  const std::string dtype = v.count("dtype") != 0 ? v["dtype"] : "bf16";
  if (m < 1 || n < 1 || k < 1 || threads < 1 || reps < 1 || (dtype != "bf16" && dtype != "u8s8"))
    return usage();
  const bool int8 = dtype == "u8s8";
  ContextOptions co;
  co.threads = threads;
  Context ctx(co);
  detail::ContextImpl& impl = detail::impl_of(ctx);

  // Copies of the weights, each packed by pack_weights (its panels, huge pages, column sums).
  const int64_t bytes_per = k * n * (int8 ? 1 : 2);
  const auto copies = static_cast<std::size_t>(
      std::max<double>(2.0, pool_mib * 1024 * 1024 / static_cast<double>(bytes_per)));
  std::vector<float> src(static_cast<std::size_t>(k * n));
  am::fill_uniform(src.data(), src.size(), 5);
  std::vector<bf16> b16;
  std::vector<std::int8_t> b8;
  if (int8) {
    for (const float x : src) b8.push_back(static_cast<std::int8_t>(x * 100.0f));
  } else {
    for (const float x : src) b16.push_back(bf16(x));
  }
  std::vector<PackedWeights> handles(copies);
  for (auto& h : handles) {
    const Status s =
        int8 ? pack_weights(Layout::RowMajor, Trans::No, k, n, b8.data(), n, h, {}, ctx)
             : pack_weights(Layout::RowMajor, Trans::No, k, n, b16.data(), n, h, {}, ctx);
    if (s != Status::Ok) {
      std::fprintf(stderr, "pack_weights: %s\n", to_string(s));
      return 1;
    }
  }
  const detail::PackedWeightsImpl& w0 = *detail::impl_of(handles[0]);
  std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k * 2), 1);
  std::vector<std::int32_t> c(static_cast<std::size_t>(m * n));
  const LowpKind kind = int8 ? LowpKind::U8S8S32 : LowpKind::Bf16F32;
  LowpProblem g = packed_lowp_problem(kind, m, n, k, false, k, n, w0.nr);
  g.a.ptr = a.data();
  g.c = c.data();
  ShapeKey key = make_key(g, w0.lowp->isa, threads);
  key.cold = true;
  const Explanation e = impl.explain(key);
  ThreadPool pool(threads);
  std::printf("%ldx%ldx%ld %s on panels of %d columns, %zu weight copies (%.0f MiB), %d thread%s\n",
              static_cast<long>(m), static_cast<long>(n), static_cast<long>(k), dtype.c_str(),
              w0.nr, copies, static_cast<double>(copies * w0.bytes()) / (1 << 20), threads,
              threads == 1 ? "" : "s");
  return bench::time_candidates(
      e, static_cast<std::size_t>(reps) * copies, [&](const Plan& p, std::size_t r) {
        const detail::PackedWeightsImpl& w = *detail::impl_of(handles[r % copies]);
        g.b.ptr = w.data.get();
        g.b_colsum = int8 ? w.colsum.data() : nullptr;
        return execute(p, g, *w0.lowp, pool);
      });
}
