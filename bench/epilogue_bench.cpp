// Fused epilogues measured (docs/EPILOGUES.md, "Figures"): for LLM projection shapes and common
// post-op lists, adaptcore's GEMM alone, with the list fused (CallOptions::post_ops), and the
// GEMM followed by a separate pass applying the list (a second call, k = 0, beta = 1: the same
// vectorised code, C read and written again), against oneDNN's matmul alone and with the same
// list as its post-ops (oneDNN has no SwiGLU or second output: those rows compare with the
// pass only). Weights rotate over buffers filling --pool-mib (each call finds its B in
// memory, as a model's layers do); A, C and the post-op data are the same buffers every call.
//
//   adaptcore_bench_epilogue [--threads T] [--max-gflop G] [--pool-mib P] [--seconds S]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "measure/bench_util.hpp"

namespace {

namespace am = adaptcore::measure;
using adaptcore::PostOp;
using adaptcore::PostOpKind;

struct Chain {
  const char* name;
  std::vector<PostOpKind> kinds;
  // An output operation last (SwiGlu or Store, out_type), which oneDNN's post-ops lack: its
  // dnn columns stay empty.
  bool output = false;
  adaptcore::OutputType out_type = adaptcore::OutputType::F32;
};

double median_time(const std::function<void(std::size_t)>& call, double seconds) {
  std::vector<double> t;
  call(0);  // warm-up: plans, primitives
  call(1);
  const double start = am::now_seconds();
  std::size_t i = 2;
  do {
    t.push_back(am::time_once([&] { call(i); }));
    ++i;
  } while ((am::now_seconds() - start < seconds || t.size() < 7) && t.size() < 2000);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0.0 : std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  double max_gflop = 4.0, pool_mib = 64.0, seconds = 0.3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (a == "--max-gflop")
      max_gflop = std::atof(argv[i + 1]);
    else if (a == "--pool-mib")
      pool_mib = std::atof(argv[i + 1]);
    else if (a == "--seconds")
      seconds = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  adaptcore::ContextOptions co;
  co.threads = threads;
  adaptcore::Context ctx(co);
  threads = ctx.threads();
  auto onednn = adaptcore::bench::load_baseline("onednn", threads);
  adaptcore::bench::Baseline* dnn =
      onednn.lib && onednn.lib->supports_post_ops() ? onednn.lib.get() : nullptr;
  if (dnn == nullptr) std::fprintf(stderr, "onednn: %s\n", onednn.message.c_str());

  const std::vector<Chain> chains = {
      {"bias+gelu_erf", {PostOpKind::Bias, PostOpKind::GeluErf}},
      {"bias+silu", {PostOpKind::Bias, PostOpKind::Silu}},
      {"bias+relu", {PostOpKind::Bias, PostOpKind::Relu}},
      {"residual", {PostOpKind::Residual}},
      {"swiglu", {PostOpKind::SwiGlu}, true},
      {"bias+bf16_out", {PostOpKind::Bias, PostOpKind::Store}, true, adaptcore::OutputType::Bf16},
  };
  const int64_t ms[] = {1, 4, 16, 64, 256, 512};
  const std::pair<int64_t, int64_t> nks[] = {{4096, 4096}, {11008, 4096}, {4096, 11008}};

  std::printf("threads %d; B rotates over %.0f MiB; median of >= 7 calls, >= %.2f s\n", threads,
              pool_mib, seconds);
  std::printf("%-18s %-14s %10s %10s %10s %10s %10s %9s %9s %9s\n", "shape", "post-ops", "plain_us",
              "fused_us", "pass_us", "dnn_us", "dnn_po_us", "overhead", "vs_pass", "vs_dnn");
  std::vector<double> overhead_big, vs_pass_decode, vs_pass_all, vs_dnn_all;
  for (const auto& [n, k] : nks)
    for (const int64_t m : ms) {
      if (2.0 * static_cast<double>(m * n * k) * 1e-9 > max_gflop) continue;
      const std::size_t b_elems = static_cast<std::size_t>(k * n);
      const std::size_t sets = std::max<std::size_t>(
          1,
          static_cast<std::size_t>(pool_mib * 1024 * 1024 / (4.0 * static_cast<double>(b_elems))));
      std::vector<am::FloatBuffer> bs;
      for (std::size_t s = 0; s < sets; ++s) {
        bs.push_back(am::make_buffer(b_elems));
        am::fill_uniform(bs.back().get(), b_elems, 7 + s);
      }
      const std::size_t mn = static_cast<std::size_t>(m * n);
      am::FloatBuffer a = am::make_buffer(static_cast<std::size_t>(m * k)), c = am::make_buffer(mn),
                      r = am::make_buffer(mn), bias = am::make_buffer(static_cast<std::size_t>(n)),
                      out = am::make_buffer(mn);
      am::fill_uniform(a.get(), static_cast<std::size_t>(m * k), 1);
      am::fill_uniform(r.get(), mn, 2);
      am::fill_uniform(bias.get(), static_cast<std::size_t>(n), 3);
      auto b_of = [&](std::size_t i) { return bs[i % sets].get(); };
      auto gemm = [&](std::size_t i, const adaptcore::CallOptions& o) {
        (void)adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No,
                              adaptcore::Trans::No, m, n, k, 1.0f, a.get(), k, b_of(i), n, 0.0f,
                              c.get(), n, o, ctx);
      };
      for (const Chain& ch : chains) {
        std::vector<PostOp> ops;
        std::vector<adaptcore::bench::Baseline::PostOp> dops;
        for (PostOpKind kd : ch.kinds) {
          PostOp op;
          op.kind = kd;
          if (kd == PostOpKind::Bias) op.data = bias.get();
          if (kd == PostOpKind::Residual) op.data = r.get(), op.ld = n;
          if (kd == PostOpKind::SwiGlu || kd == PostOpKind::Store) {
            op.out = out.get(), op.out_type = ch.out_type;
            op.ld = kd == PostOpKind::SwiGlu ? n / 2 : n;
          }
          ops.push_back(op);
          dops.push_back({static_cast<int>(kd), op.data, op.ld});
        }
        adaptcore::CallOptions plain, fused;
        fused.post_ops = ops.data();
        fused.post_op_count = static_cast<int>(ops.size());
        const double t_plain = median_time([&](std::size_t i) { gemm(i, plain); }, seconds);
        const double t_fused = median_time([&](std::size_t i) { gemm(i, fused); }, seconds);
        // The separate pass: C = post(1 * C), a k = 0 call on the same C.
        const double t_pass = median_time(
            [&](std::size_t i) {
              gemm(i, plain);
              (void)adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No,
                                    adaptcore::Trans::No, m, n, 0, 1.0f, a.get(), 1, b_of(i), n,
                                    1.0f, c.get(), n, fused, ctx);
            },
            seconds);
        double t_dnn = 0, t_dnn_po = 0;
        if (dnn != nullptr && !ch.output) {
          auto call = [&](std::size_t i) {
            return adaptcore::bench::GemmCall{m, n,       k, false,   false, a.get(),
                                              k, b_of(i), n, c.get(), n};
          };
          t_dnn = median_time([&](std::size_t i) { dnn->run(call(i)); }, seconds);
          t_dnn_po = median_time([&](std::size_t i) { dnn->run_post_ops(call(i), dops); }, seconds);
        }
        char shape[64];
        std::snprintf(shape, sizeof shape, "%ldx%ldx%ld", static_cast<long>(m),
                      static_cast<long>(n), static_cast<long>(k));
        std::printf("%-18s %-14s %10.1f %10.1f %10.1f %10.1f %10.1f %8.1f%% %8.2fx %8.2fx\n", shape,
                    ch.name, t_plain * 1e6, t_fused * 1e6, t_pass * 1e6, t_dnn * 1e6,
                    t_dnn_po * 1e6, 100.0 * (t_fused / t_plain - 1.0), t_pass / t_fused,
                    t_dnn_po > 0 ? t_dnn_po / t_fused : 0.0);
        std::fflush(stdout);
        if (m >= 64) overhead_big.push_back(t_fused / t_plain);
        if (m <= 16) vs_pass_decode.push_back(t_pass / t_fused);
        vs_pass_all.push_back(t_pass / t_fused);
        if (t_dnn_po > 0) vs_dnn_all.push_back(t_dnn_po / t_fused);
      }
    }
  if (overhead_big.empty())
    std::printf("\nfused over plain GEMM, M >= 64: no case within --max-gflop\n");
  else
    std::printf("\nfused over plain GEMM, M >= 64: geomean %+.2f%% (%zu cases)\n",
                100.0 * (geomean(overhead_big) - 1.0), overhead_big.size());
  std::printf("GEMM + separate pass over fused, M <= 16: geomean %.3fx (%zu cases); all: %.3fx\n",
              geomean(vs_pass_decode), vs_pass_decode.size(), geomean(vs_pass_all));
  if (!vs_dnn_all.empty())
    std::printf("oneDNN with the same post-ops over adaptcore fused: geomean %.3fx (%zu cases)\n",
                geomean(vs_dnn_all), vs_dnn_all.size());
  return 0;
}
