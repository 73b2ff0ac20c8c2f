#include "cmd_run_lowp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/packed_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"

namespace adaptcore::cli {
namespace {

// The probe of the instruction a kernel table runs on (the fp32 FMA probe for the fallbacks).
measure::FmaPath probe_for(const kernels::LowpKernels& ks, Isa isa) {
  const std::string name = ks.name;
  if (name == "avx512-bf16") return measure::FmaPath::Bf16Dot;
  if (name == "avx512-vnni") return measure::FmaPath::Int8Dot;
  return measure::path_for(isa);
}

template <class T>
std::vector<T> random_bytes(std::size_t count, std::uint64_t seed, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(count);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

}  // namespace

void run_lowp(const ContextArgs& ctx_args, const ShapeArgs& s, DType dtype,
              const LowpRunOptions& opt) {
  using namespace adaptcore::measure;
  auto ctx = make_context(ctx_args);
  if (!ctx) throw CLI::RuntimeError(1);
  const int threads = ctx->threads();
  const bool is_bf16 = dtype == DType::Bf16;
  const auto a_rows = s.transa ? s.k : s.m, b_rows = s.transb ? s.n : s.k;
  const auto a_elems = static_cast<std::size_t>(a_rows * s.lda());
  const auto b_elems = static_cast<std::size_t>(b_rows * s.ldb());
  const auto c_elems = static_cast<std::size_t>(s.m * s.ldc());

  std::vector<bf16> a16, b16;
  std::vector<std::uint8_t> a8;
  std::vector<std::int8_t> b8;
  std::vector<float> cf;
  std::vector<std::int32_t> c32;
  if (is_bf16) {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    a16.resize(a_elems);
    b16.resize(b_elems);
    for (auto& x : a16) x = bf16(u(rng));
    for (auto& x : b16) x = bf16(u(rng));
    cf.assign(c_elems, 0.0f);
  } else {
    a8 = random_bytes<std::uint8_t>(a_elems, 1, 0, 255);
    b8 = random_bytes<std::int8_t>(b_elems, 2, -128, 127);
    c32.assign(c_elems, 0);
  }
  // --packed (bf16): the weights packed once (timed apart), every call on the handle.
  PackedWeights packed;
  double pack_s = 0.0;
  if (opt.packed) {
    Status ps = Status::Ok;
    pack_s = time_once([&] {
      ps = is_bf16 ? pack_weights(Layout::RowMajor, s.tb(), s.k, s.n, b16.data(), s.ldb(), packed,
                                  {}, *ctx)
                   : pack_weights(Layout::RowMajor, s.tb(), s.k, s.n, b8.data(), s.ldb(), packed,
                                  {}, *ctx);
    });
    if (ps != Status::Ok) {
      std::cerr << "error: pack_weights failed: " << to_string(ps) << '\n';
      throw CLI::RuntimeError(2);
    }
  }
  auto call = [&] {
    if (opt.packed && is_bf16)
      return gemm_packed(Layout::RowMajor, s.ta(), s.m, 1.0f, a16.data(), s.lda(), packed, 0.0f,
                         cf.data(), s.ldc(), {}, *ctx);
    if (opt.packed)
      return gemm_packed(Layout::RowMajor, s.ta(), s.m, a8.data(), s.lda(), {}, packed, {}, 0,
                         c32.data(), s.ldc(), {}, {}, *ctx);
    if (is_bf16)
      return gemm_bf16(Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, 1.0f, a16.data(), s.lda(),
                       b16.data(), s.ldb(), 0.0f, cf.data(), s.ldc(), *ctx);
    return gemm_u8s8s32(Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, a8.data(), s.lda(), {},
                        b8.data(), s.ldb(), {}, 0, c32.data(), s.ldc(), *ctx);
  };
  Status st = Status::Ok;
  const double first_s = time_once([&] { st = call(); });
  if (st != Status::Ok) {
    std::cerr << "error: gemm failed: " << to_string(st) << '\n';
    throw CLI::RuntimeError(2);
  }
  // Sampled check of the first call's result.
  double worst = 0.0;
  int64_t mismatches = 0;
  if (opt.check && s.m > 0 && s.n > 0) {
    std::mt19937_64 rng(12345);
    for (int t = 0; t < 64; ++t) {
      const int64_t i = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(s.m));
      const int64_t j = static_cast<int64_t>(rng() % static_cast<std::uint64_t>(s.n));
      double ref = 0.0, mag = 0.0;
      int64_t iref = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        const std::size_t ai =
            static_cast<std::size_t>(s.transa ? p * s.lda() + i : i * s.lda() + p);
        const std::size_t bi =
            static_cast<std::size_t>(s.transb ? j * s.ldb() + p : p * s.ldb() + j);
        if (is_bf16) {
          const double x =
              static_cast<float>(a16[ai]) * static_cast<double>(static_cast<float>(b16[bi]));
          ref += x;
          mag += std::fabs(x);
        } else {
          iref += static_cast<int64_t>(a8[ai]) * b8[bi];
        }
      }
      const std::size_t ci = static_cast<std::size_t>(i * s.ldc() + j);
      if (is_bf16)
        worst = std::max(worst, std::fabs(cf[ci] - ref) / std::max(mag, 1e-30));
      else if (c32[ci] != static_cast<std::int32_t>(static_cast<std::uint32_t>(iref)))
        ++mismatches;
    }
  }
  const kernels::LowpKernels& ks =
      *::adaptcore::detail::impl_of(*ctx).lowp_kernels(dtype, ctx->isa());
  const FmaPath probe = probe_for(ks, ctx->isa());
  PeakResult peak;
  if (opt.peak) peak = measure_peak(probe, threads);
  std::vector<double> warm;
  const double w0 = now_seconds();
  while (warm.size() < 2 || (now_seconds() - w0 < 0.05 && warm.size() < 1000))
    warm.push_back(time_once(call));
  const int reps = opt.reps > 0 ? opt.reps : reps_for(median(warm), opt.seconds, 5, 100000);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(time_once(call));
  if (opt.peak) {
    const PeakResult again = measure_peak(probe, threads);
    if (again.gflops > peak.gflops) peak = again;
  }
  LowpProblem lp;
  shape_problem_lowp(s, dtype, lp);
  if (opt.packed)
    lp = packed_lowp_problem(is_bf16 ? LowpKind::Bf16F32 : LowpKind::U8S8S32, s.m, s.n, s.k,
                             s.transa, s.lda(), s.ldc(), packed.panel_cols());
  const Plan plan =
      ::adaptcore::detail::impl_of(*ctx).plan_for(::adaptcore::detail::impl_of(*ctx).key_for(lp));
  const double med = median(times), best = minimum(times);
  const double g_med = gemm_gflops(s.m, s.n, s.k, med), g_best = gemm_gflops(s.m, s.n, s.k, best);
  const double frac = peak.gflops > 0 ? g_med / peak.gflops : 0.0;
  const char* unit = is_bf16 ? "GFLOP/s" : "GOP/s";

  if (opt.json) {
    nlohmann::ordered_json j;
    j["shape"] = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"transa", s.transa}, {"transb", s.transb}};
    j["dtype"] = to_string(dtype);
    j["isa"] = to_string(ctx->isa());
    j["kernels"] = ks.name;
    j["threads"] = threads;
    j["plan"] = describe(plan);
    if (opt.packed) {
      j["panel_cols"] = packed.panel_cols();
      j["pack_us"] = pack_s * 1e6;
      j["packed_bytes"] = packed.packed_bytes();
    }
    j["predicted_us"] = plan.predicted_us;
    j["first_call_us"] = first_s * 1e6;
    j["reps"] = reps;
    j["median_us"] = med * 1e6;
    j["min_us"] = best * 1e6;
    j["gops_median"] = g_med;
    j["gops_best"] = g_best;
    if (is_bf16)
      j["max_rel_error"] = worst;
    else
      j["sampled_mismatches"] = mismatches;
    j["measured_peak_gops"] = peak.gflops;
    j["measured_peak_path"] = to_string(probe);
    j["fraction_of_measured_peak"] = frac;
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << "shape        " << s.str() << "  dtype=" << to_string(dtype) << '\n'
              << "context      isa=" << to_string(ctx->isa()) << " threads=" << threads
              << " kernels=" << ks.name << '\n'
              << (opt.packed
                      ? "packed       panels of " + std::to_string(packed.panel_cols()) +
                            " columns, " + std::to_string(packed.packed_bytes()) +
                            " bytes, packed once in " + format_fixed(pack_s * 1e6, 1) + " us\n"
                      : std::string())
              << "plan         " << describe(plan) << "  (" << to_string(plan.cls) << ", "
              << plan.threads() << " thread" << (plan.threads() == 1 ? "" : "s") << ", predicted "
              << format_fixed(plan.predicted_us, 1) << " us)\n"
              << "first call   " << format_fixed(first_s * 1e6, 1) << " us (includes planning)\n"
              << "time         median " << format_fixed(med * 1e6, 2) << " us, min "
              << format_fixed(best * 1e6, 2) << " us over " << reps << " reps\n"
              << unit << "      " << format_fixed(g_med, 2) << " (median), "
              << format_fixed(g_best, 2) << " (best)\n";
    if (opt.check) {
      if (is_bf16)
        std::cout << "check        max relative error " << std::scientific << worst
                  << std::defaultfloat << " over 64 sampled entries\n";
      else
        std::cout << "check        " << mismatches << " of 64 sampled entries differ from int64"
                  << (mismatches == 0 ? "" : "  <-- WRONG") << '\n';
    }
    if (opt.peak)
      std::cout << "peak         measured " << format_fixed(peak.gflops, 1) << ' ' << unit << " ("
                << to_string(probe) << " probe, " << threads << " thread"
                << (threads == 1 ? "" : "s") << ")\n"
                << "efficiency   " << format_fixed(100.0 * frac, 1)
                << "% of measured peak (median), "
                << format_fixed(100.0 * g_best / std::max(peak.gflops, 1e-9), 1) << "% (best)\n";
  }
  if (mismatches > 0) throw CLI::RuntimeError(3);
}

}  // namespace adaptcore::cli
