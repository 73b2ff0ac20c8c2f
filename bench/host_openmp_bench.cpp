// adaptcore_bench_host: GEMMs inside an OpenMP host program, the way a framework calls them.
//
// A framework such as PyTorch runs its own operators as OpenMP parallel regions between GEMM
// calls; its OpenMP threads keep spinning for a while after each region. A GEMM library that
// brings its own threads then competes with them for the same cores. This program replays the
// linear layers of a small transformer (SmolLM2-135M: hidden 576, MLP 1536, grouped KV 192;
// weights stored N x K, y = x W^T) for a decode step (M = 1) and a prefill (M = 512), each GEMM
// followed by an OpenMP region of elementwise work over its output (activation, residual),
// and times only the GEMM calls:
//
//   alone: the same GEMM sequence without the host regions in between
//   host:  with them
//
// for adaptcore (default: runs on the host's OpenMP team when one is loaded), adaptcore with
// its own pool forced (ADAPTCORE_THREADING=pool behaviour, for comparison), MKL (GNU OpenMP
// threading layer, as PyTorch links it) and oneDNN (its GNU OpenMP build). Medians of rounds.
// Target: adaptcore's host time within 10% of its alone time.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "dispatch/internal_access.hpp"
#include "measure/bench_util.hpp"

namespace {

using adaptcore::bench::Baseline;
using adaptcore::bench::GemmCall;

struct Linear {
  const char* name;
  int64_t n, k;
};
// One decoder layer of SmolLM2-135M.
const Linear kLayer[] = {{"q", 576, 576},    {"k", 192, 576},     {"v", 192, 576},
                         {"o", 576, 576},    {"gate", 1536, 576}, {"up", 1536, 576},
                         {"down", 576, 1536}};

struct Buffers {
  std::vector<std::vector<float>> w;  // per linear, N x K
  std::vector<float> x, y;
  explicit Buffers(int64_t m) {
    for (const Linear& l : kLayer) {
      std::vector<float> v(static_cast<std::size_t>(l.n * l.k));
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>((i * 37) % 19) / 19.0f - 0.5f;
      w.push_back(std::move(v));
    }
    x.assign(static_cast<std::size_t>(m * 1536), 0.25f);
    y.assign(static_cast<std::size_t>(m * 1536), 0.0f);
  }
};

// Runs one GEMM: y[m x n] = x[m x k] * W^T.
struct Runner {
  std::string name;
  std::function<void(const GemmCall&)> run;
};

// The host's own work after a linear layer: an OpenMP region over the output (SiLU and a
// residual-like update), as a framework's elementwise operators do.
void host_region(std::vector<float>& y, int64_t count, std::vector<float>& x) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    const float v = y[static_cast<std::size_t>(i)];
    x[static_cast<std::size_t>(i % static_cast<int64_t>(x.size()))] = v / (1.0f + std::exp(-v));
  }
}

// Seconds spent inside the GEMM calls of `layers` decoder layers.
double run_sequence(const Runner& r, Buffers& buf, int64_t m, int layers, bool host) {
  double gemm = 0.0;
  for (int l = 0; l < layers; ++l) {
    for (std::size_t i = 0; i < std::size(kLayer); ++i) {
      const Linear& lin = kLayer[i];
      const GemmCall call{m,     lin.n,           lin.k, false,        true, buf.x.data(),
                          lin.k, buf.w[i].data(), lin.k, buf.y.data(), lin.n};
      const double t0 = adaptcore::measure::now_seconds();
      r.run(call);
      gemm += adaptcore::measure::now_seconds() - t0;
      if (host) host_region(buf.y, m * lin.n, buf.x);
    }
  }
  return gemm;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p <= s.size()) {
    const std::size_t q = std::min(s.find(',', p), s.size());
    if (q > p) out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GEMM calls inside an OpenMP host program (adaptcore vs MKL and oneDNN)"};
  std::string threads_list = "1,2", libs_list = "adaptcore,adaptcore-pool,mkl,onednn";
  int rounds = 7, decode_layers = 30, prefill_layers = 2;
  app.add_option("--threads", threads_list, "comma-separated thread counts");
  app.add_option("--libs", libs_list, "adaptcore, adaptcore-pool, mkl, onednn");
  app.add_option("--rounds", rounds, "rounds per cell (median)");
  app.add_option("--decode-layers", decode_layers, "decoder layers per decode round (M = 1)");
  app.add_option("--prefill-layers", prefill_layers, "decoder layers per prefill round (M = 512)");
  CLI11_PARSE(app, argc, argv);
  // MKL on the host's OpenMP runtime, as PyTorch's builds link it.
  setenv("MKL_THREADING_LAYER", "GNU", 0);

  std::printf(
      "# GEMM time inside an OpenMP host (libgomp), SmolLM2-135M linear layers, weights N x K\n");
  std::printf(
      "# alone: GEMMs back to back; host: an OpenMP region after each GEMM; medians of %d rounds\n",
      rounds);
  std::printf("%-8s %-8s %-16s %10s %10s %8s %10s\n", "threads", "phase", "library", "alone_ms",
              "host_ms", "host/alone", "host_GF/s");
  bool all_met = true;
  for (const std::string& ts : split(threads_list)) {
    const int threads = std::atoi(ts.c_str());
    if (threads < 1) continue;
    omp_set_num_threads(threads);
    std::vector<Runner> runners;
    std::vector<std::unique_ptr<Baseline>> keep;
    std::vector<std::unique_ptr<adaptcore::Context>> contexts;
    for (const std::string& lib : split(libs_list)) {
      if (lib == "adaptcore" || lib == "adaptcore-pool") {
        adaptcore::ContextOptions opt;
        opt.read_environment = false;
        if (lib == "adaptcore-pool") opt.threads = threads;  // explicit count, own pool
        auto ctx = std::make_unique<adaptcore::Context>(opt);
        if (lib == "adaptcore-pool")
          ::adaptcore::detail::impl_of(*ctx).pool().set_threading(adaptcore::Threading::Pool);
        adaptcore::Context* c = ctx.get();
        contexts.push_back(std::move(ctx));
        runners.push_back({lib, [c](const GemmCall& g) {
                             adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No,
                                             adaptcore::Trans::Yes, g.m, g.n, g.k, 1.0f, g.a, g.lda,
                                             g.b, g.ldb, 0.0f, g.c, g.ldc, *c);
                           }});
      } else {
        auto loaded = adaptcore::bench::load_baseline(lib, threads);
        if (loaded.lib == nullptr) {
          std::printf("# %s skipped: %s\n", lib.c_str(), loaded.message.c_str());
          continue;
        }
        Baseline* b = loaded.lib.get();
        std::printf("# %s: %s\n", lib.c_str(), b->version().c_str());
        keep.push_back(std::move(loaded.lib));
        runners.push_back({lib, [b](const GemmCall& g) { b->run(g); }});
      }
    }
    for (const auto& [phase, m, layers] : {std::tuple{"decode", int64_t{1}, decode_layers},
                                           std::tuple{"prefill", int64_t{512}, prefill_layers}}) {
      double flops = 0.0;
      for (const Linear& l : kLayer) flops += 2.0 * static_cast<double>(m * l.n * l.k);
      flops *= layers;
      for (const Runner& r : runners) {
        Buffers buf(m);
        run_sequence(r, buf, m, 1, true);  // warm up: plans, primitives, pages
        std::vector<double> alone, host;
        // Alternate the two modes, one sequence each, so drift hits both alike.
        for (int i = 0; i < rounds; ++i) {
          alone.push_back(run_sequence(r, buf, m, layers, false));
          host.push_back(run_sequence(r, buf, m, layers, true));
        }
        const double a = adaptcore::measure::median(alone), h = adaptcore::measure::median(host);
        std::printf("%-8d %-8s %-16s %10.3f %10.3f %8.2f %10.1f\n", threads, phase, r.name.c_str(),
                    a * 1e3, h * 1e3, h / a, flops / h * 1e-9);
        if (r.name == "adaptcore" && h / a > 1.10) all_met = false;
        std::fflush(stdout);
      }
    }
  }
  std::printf("# target (adaptcore host/alone <= 1.10): %s\n", all_met ? "met" : "NOT met");
  return 0;
}
