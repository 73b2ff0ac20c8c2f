// `adaptcore run`: times one GEMM shape on random data through the public API and reports the
// median and best time, GFLOP/s, the plan that ran, and the fraction of the measured fp32 peak
// (FMA probe on the same ISA path and thread count; see measure/peak_probe.hpp).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli_common.hpp"
#include "cmd_run_lowp.hpp"
#include "cmd_run_wq.hpp"
#include "commands.hpp"
#include "dispatch/internal_access.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"
#include "post_list.hpp"

namespace adaptcore::cli {
namespace {

struct RunArgs {
  ContextArgs ctx;
  ShapeArgs shape;
  int reps = 0;  // 0: as many as fit in --seconds (at least 5)
  double seconds = 0.5;
  float alpha = 1.0f, beta = 0.0f;
  bool check = true;
  bool peak = true;
  bool json = false;
  std::string dtype = "f32";
  WqArgs wq;
  bool compare = true;
  bool packed = false;  // f32: B packed once by pack_weights, then gemm_packed
  GroupedArgs grouped;
  bool cold = false;  // w8a16/w4a16: the timed calls rotate over weights filling 256 MiB
  std::string post;   // f32: a fused post-op list for the timed calls (PostList)
};

// Relative error of `samples` random entries of C against a double-precision reference, scaled
// by sum |alpha a_ip b_pj| + |beta c_ij| (the magnitude a correctly rounded sum may lose).
double spot_check(const ShapeArgs& s, const float* a, const float* b, const float* c_before,
                  const float* c, float alpha, float beta, int samples) {
  std::uint64_t state = 12345;
  auto next = [&](int64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((state >> 33) % static_cast<std::uint64_t>(bound));
  };
  double worst = 0.0;
  for (int t = 0; t < samples; ++t) {
    const int64_t i = next(s.m), j = next(s.n);
    double ref = 0.0, mag = 0.0;
    for (int64_t p = 0; p < s.k; ++p) {
      const double av = s.transa ? a[p * s.lda() + i] : a[i * s.lda() + p];
      const double bv = s.transb ? b[j * s.ldb() + p] : b[p * s.ldb() + j];
      ref += av * bv;
      mag += std::fabs(av * bv);
    }
    ref *= alpha;
    mag *= std::fabs(alpha);
    if (beta != 0.0f) {
      const double cv = c_before[i * s.ldc() + j];
      ref += beta * cv;
      mag += std::fabs(beta * cv);
    }
    const double err = std::fabs(c[i * s.ldc() + j] - ref) / std::max(mag, 1e-30);
    worst = std::max(worst, err);
  }
  return worst;
}

void run_run(const RunArgs& args) {
  using namespace adaptcore::measure;
  DType dtype = DType::F32;
  parse_dtype(args.dtype, dtype);
  if (is_weight_quantized(dtype)) {
    run_wq(args.ctx, args.shape, dtype, args.wq,
           WqRunOptions{args.reps, args.seconds, args.check, args.peak, args.json, args.compare,
                        args.cold});
    return;
  }
  if (dtype != DType::F32) {
    run_lowp(
        args.ctx, args.shape, dtype,
        LowpRunOptions{args.reps, args.seconds, args.check, args.peak, args.json, args.packed});
    return;
  }
  const ShapeArgs& s = args.shape;
  auto ctx = make_context(args.ctx);
  if (!ctx) throw CLI::RuntimeError(1);
  const int threads = ctx->threads();

  const auto a_rows = s.transa ? s.k : s.m, b_rows = s.transb ? s.n : s.k;
  const auto a_elems = static_cast<std::size_t>(a_rows * s.lda());
  const auto b_elems = static_cast<std::size_t>(b_rows * s.ldb());
  const auto c_elems = static_cast<std::size_t>(s.m * s.ldc());
  FloatBuffer a = make_buffer(a_elems), b = make_buffer(b_elems), c = make_buffer(c_elems);
  FloatBuffer c0 = make_buffer(args.beta != 0.0f ? c_elems : 0);
  fill_uniform(a.get(), a_elems, 1);
  fill_uniform(b.get(), b_elems, 2);
  fill_uniform(c.get(), c_elems, 3);
  if (args.beta != 0.0f) std::copy(c.get(), c.get() + c_elems, c0.get());

  // --packed: the weights packed once (timed apart), every call on the handle.
  PackedWeights packed;
  double pack_s = 0.0;
  if (args.packed) {
    Status ps = Status::Ok;
    pack_s = time_once([&] {
      ps = pack_weights(Layout::RowMajor, s.tb(), s.k, s.n, b.get(), s.ldb(), packed, {}, *ctx);
    });
    if (ps != Status::Ok) {
      std::cerr << "error: pack_weights failed: " << to_string(ps) << '\n';
      throw CLI::RuntimeError(2);
    }
  }
  // --post: the timed calls run the list; the first call, which is checked, runs without it.
  const PostList post(args.post, s.m, s.n);
  bool with_post = false;
  auto call = [&] {
    const CallOptions o = with_post ? post.options() : CallOptions{};
    if (args.packed)
      return gemm_packed(Layout::RowMajor, s.ta(), s.m, args.alpha, a.get(), s.lda(), packed,
                         args.beta, c.get(), s.ldc(), o, *ctx);
    return gemm(Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, args.alpha, a.get(), s.lda(),
                b.get(), s.ldb(), args.beta, c.get(), s.ldc(), o, *ctx);
  };
  // First call: plans (cache miss) and wakes the pool; its result is the one checked.
  Status st = Status::Ok;
  const double first_s = time_once([&] { st = call(); });
  if (st != Status::Ok) {
    std::cerr << "error: gemm failed: " << to_string(st) << '\n';
    throw CLI::RuntimeError(2);
  }
  const double err =
      args.check && s.m > 0 && s.n > 0
          ? spot_check(s, a.get(), b.get(), c0.get(), c.get(), args.alpha, args.beta, 64)
          : 0.0;
  // The FMA probe competes with whatever else runs on the machine: measured once before the
  // timed loop and once after, the higher figure is the better estimate of the cores' peak.
  PeakResult peak;
  if (args.peak) peak = measure_peak(path_for(ctx->isa()), threads);
  with_post = !post.empty();
  if (with_post && (st = call()) != Status::Ok) {
    std::cerr << "error: gemm with --post failed: " << to_string(st) << '\n';
    throw CLI::RuntimeError(2);
  }
  // Warm-up: at least two more calls and about 50 ms, which also estimates one call's time.
  std::vector<double> warm;
  const double w0 = now_seconds();
  while (warm.size() < 2 || (now_seconds() - w0 < 0.05 && warm.size() < 1000))
    warm.push_back(time_once(call));
  const int reps = args.reps > 0 ? args.reps : reps_for(median(warm), args.seconds, 5, 100000);
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) times.push_back(time_once(call));

  GemmProblem prob;
  shape_problem(s, prob);
  if (args.packed) prob = shape_problem_packed(s, packed.panel_cols());
  const Plan plan =
      ::adaptcore::detail::impl_of(*ctx).plan_for(::adaptcore::detail::impl_of(*ctx).key_for(prob));
  const double med = median(times), best = minimum(times);
  const double gf_med = gemm_gflops(s.m, s.n, s.k, med), gf_best = gemm_gflops(s.m, s.n, s.k, best);

  const HardwareProfile& hw = ctx->hardware();
  const double nominal = hw.peak_gflops_per_core(ctx->isa()) * std::min(threads, hw.cores);
  if (args.peak) {
    const PeakResult again = measure_peak(path_for(ctx->isa()), threads);
    if (again.gflops > peak.gflops) peak = again;
  }
  const double frac = peak.gflops > 0 ? gf_med / peak.gflops : 0.0;

  if (args.json) {
    nlohmann::ordered_json j;
    j["shape"] = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"transa", s.transa}, {"transb", s.transb}};
    j["isa"] = to_string(ctx->isa());
    j["threads"] = threads;
    j["plan"] = describe(plan);
    j["plan_threads"] = plan.threads();
    j["predicted_us"] = plan.predicted_us;
    j["first_call_us"] = first_s * 1e6;
    if (args.packed) {
      j["pack_us"] = pack_s * 1e6;
      j["panel_cols"] = packed.panel_cols();
    }
    if (!post.empty()) j["post_ops"] = post.text();
    j["reps"] = reps;
    j["median_us"] = med * 1e6;
    j["min_us"] = best * 1e6;
    j["gflops_median"] = gf_med;
    j["gflops_best"] = gf_best;
    j["max_rel_error"] = err;
    j["nominal_peak_gflops"] = nominal;
    j["measured_peak_gflops"] = peak.gflops;
    j["measured_peak_path"] = to_string(peak.path);
    j["fraction_of_measured_peak"] = frac;
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::cout << "shape        " << s.str() << "  alpha=" << args.alpha << " beta=" << args.beta
            << '\n'
            << "context      isa=" << to_string(ctx->isa()) << " threads=" << threads << '\n'
            << "plan         " << describe(plan) << "  (" << to_string(plan.cls) << ", "
            << plan.threads() << " thread" << (plan.threads() == 1 ? "" : "s") << ", predicted "
            << format_fixed(plan.predicted_us, 1) << " us)\n"
            << (args.packed
                    ? "packed       panels of " + std::to_string(packed.panel_cols()) +
                          " columns, packed once in " + format_fixed(pack_s * 1e6, 1) + " us\n"
                    : std::string())
            << (post.empty() ? std::string()
                             : "post-ops     " + post.text() +
                                   " (fused; the checked first call "
                                   "runs without them)\n")
            << "first call   " << format_fixed(first_s * 1e6, 1) << " us (includes planning)\n"
            << "time         median " << format_fixed(med * 1e6, 2) << " us, min "
            << format_fixed(best * 1e6, 2) << " us over " << reps << " reps\n"
            << "GFLOP/s      " << format_fixed(gf_med, 2) << " (median), "
            << format_fixed(gf_best, 2) << " (best)\n";
  if (args.check)
    std::cout << "check        max relative error " << std::scientific << err << std::defaultfloat
              << " over 64 sampled entries" << (err < 1e-4 ? "" : "  <-- SUSPICIOUS") << '\n';
  if (args.peak) {
    std::cout << "peak         measured " << format_fixed(peak.gflops, 1) << " GFLOP/s ("
              << to_string(peak.path) << " probe, " << threads << " thread"
              << (threads == 1 ? "" : "s") << "); nominal " << format_fixed(nominal, 1)
              << " GFLOP/s (profile)\n"
              << "efficiency   " << format_fixed(100.0 * frac, 1) << "% of measured peak (median), "
              << format_fixed(100.0 * gf_best / std::max(peak.gflops, 1e-9), 1) << "% (best); "
              << format_fixed(100.0 * gf_med / std::max(nominal, 1e-9), 1) << "% of nominal\n";
  }
}

}  // namespace

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "time a GEMM shape on random data");
  add_shape_options(*cmd, args->shape);
  add_context_options(*cmd, args->ctx);
  add_dtype_option(*cmd, args->dtype);
  add_wq_options(*cmd, args->wq);
  cmd->add_flag("!--no-compare", args->compare,
                "w8a16/w4a16: skip timing bf16 GEMM and dequantize + fp32 GEMM alongside");
  cmd->add_option("-r,--reps", args->reps, "timed repetitions (default: fill --seconds, >= 5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seconds", args->seconds, "time budget of the timed loop when --reps is 0")
      ->check(finite_number() & CLI::Range(0.0, 3600.0));
  cmd->add_option("--alpha", args->alpha, "alpha (default 1)");
  cmd->add_option("--beta", args->beta, "beta (default 0)");
  cmd->add_flag("!--no-check", args->check, "skip the sampled correctness check");
  cmd->add_flag("!--no-peak", args->peak, "skip the FMA peak measurement");
  cmd->add_flag("--json", args->json, "machine-readable output");
  cmd->add_option("--post", args->post,
                  "f32: fused post-ops for the timed calls, comma-separated: bias, scale, "
                  "residual, relu, gelu_tanh, gelu_erf, silu, and last swiglu or store_bf16 "
                  "(docs/EPILOGUES.md)");
  cmd->add_flag("--packed", args->packed,
                "f32, bf16, u8s8: pack B once with pack_weights (time reported apart), then time "
                "gemm_packed");
  add_grouped_options(*cmd, args->grouped);
  cmd->add_flag("--cold", args->cold,
                "w8a16/w4a16: time calls rotating over copies of the weights filling 256 MiB "
                "(weights in memory, as a model's next layer finds them)");
  cmd->callback([args, cmd] {
    if (run_grouped_if_asked(*cmd, args->grouped, args->shape, args->ctx, args->dtype, args->wq,
                             true, args->seconds > 0 ? args->seconds : 1.0))
      return;
    require_shape(*cmd);
    if (args->packed && args->dtype != "f32" && args->dtype != "fp32" && args->dtype != "bf16" &&
        args->dtype != "u8s8") {
      std::cerr << "error: --packed is for --dtype f32, bf16 or u8s8\n";
      throw CLI::RuntimeError(1);
    }
    run_run(*args);
  });
}

}  // namespace adaptcore::cli
