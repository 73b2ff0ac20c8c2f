#include "cmd_run_wq.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/wq_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"
#include "measure/read_bandwidth.hpp"
#include "model/wq_model.hpp"

namespace adaptcore::cli {
namespace {

using measure::median;
using measure::now_seconds;
using measure::time_once;

// op(W) (k x n, row-major) as the handle holds it: integer x scale, exactly.
void dequantize(const detail::QuantizedWeightsImpl& w, float* out) {
  const int64_t k = w.k, n = w.n;
  for (int64_t p = 0; p < k; ++p) {
    const int64_t q = p / 4, t = p % 4, g = p / w.act_group;
    for (int64_t j = 0; j < n; ++j) {
      const std::uint8_t* pnl = w.panel(j / kWqNr);
      const int64_t jj = j % kWqNr;
      const int u = w.int4() ? (jj < 16 ? pnl[q * 64 + jj * 4 + t] & 0x0F
                                        : pnl[q * 64 + (jj - 16) * 4 + t] >> 4)
                             : pnl[q * 128 + jj * 4 + t];
      const float s = w.group_scale ? w.group_scale.get()[((j / kWqNr) * w.groups + g) * kWqNr + jj]
                                    : w.col_scale.get()[j];
      out[p * n + j] = static_cast<float>(u - w.offset()) * s;
    }
  }
}

// The per-call dequantization of the comparison path (a) in a form the compiler vectorises:
// int8 values and scales stored plainly (what a dequantize-then-GEMM user keeps).
void dequantize_plain(const std::vector<std::int8_t>& q, const std::vector<float>& scale, int64_t k,
                      int64_t n, int64_t group, float* out) {
  for (int64_t p = 0; p < k; ++p) {
    const float* s = scale.data() + (group > 0 ? p / group : 0) * n;
    const std::int8_t* qp = q.data() + p * n;
    float* o = out + p * n;
    for (int64_t j = 0; j < n; ++j) o[j] = static_cast<float>(qp[j]) * s[j];
  }
}

struct Timed {
  double median_s = 0.0;
  int reps = 0;
};

template <class F>
Timed time_call(F&& call, const WqRunOptions& opt) {
  std::vector<double> warm;
  const double w0 = now_seconds();
  while (warm.size() < 2 || (now_seconds() - w0 < 0.05 && warm.size() < 1000))
    warm.push_back(time_once(call));
  const int reps =
      opt.reps > 0 ? opt.reps : measure::reps_for(median(warm), opt.seconds, 5, 100000);
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(time_once(call));
  return {median(times), reps};
}

// Error of sampled entries against the fp64 reference: max |c - ref| / max |ref| and the
// root-mean-square error relative to the rms of ref.
struct Err {
  double max_rel = 0.0, rms_rel = 0.0;
};
Err sampled_error(const std::vector<float>& c, const std::vector<std::pair<int64_t, int64_t>>& at,
                  const std::vector<double>& ref, int64_t n) {
  double max_err = 0.0, max_ref = 0.0, se = 0.0, sr = 0.0;
  for (std::size_t t = 0; t < at.size(); ++t) {
    const double e = std::fabs(
        static_cast<double>(c[static_cast<std::size_t>(at[t].first * n + at[t].second)]) - ref[t]);
    max_err = std::max(max_err, e);
    max_ref = std::max(max_ref, std::fabs(ref[t]));
    se += e * e;
    sr += ref[t] * ref[t];
  }
  return {max_err / std::max(max_ref, 1e-300), std::sqrt(se / std::max(sr, 1e-300))};
}

}  // namespace

void run_wq(const ContextArgs& ctx_args, const ShapeArgs& s, DType dtype_in, const WqArgs& wq,
            const WqRunOptions& opt) {
  using namespace adaptcore::measure;
  if (s.transa || s.transb || s.m < 1 || s.n < 1 || s.k < 1) {
    std::cerr << "error: w8a16/w4a16 runs take M, N, K >= 1 without transposes\n";
    throw CLI::RuntimeError(1);
  }
  auto ctx = make_context(ctx_args);
  if (!ctx) throw CLI::RuntimeError(1);
  const int threads = ctx->threads();
  const DType dtype = wq_effective_dtype(dtype_in, wq);
  const int64_t group = wq_effective_group(dtype_in, wq);
  const int parts = wq.parts;
  const int64_t m = s.m, n = s.n, k = s.k;

  std::mt19937_64 rng(42);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> w(static_cast<std::size_t>(k * n)), a(static_cast<std::size_t>(m * k));
  for (auto& v : w) v = nd(rng);
  for (auto& v : a) v = nd(rng);
  std::vector<bf16> a16(a.size());
  for (std::size_t x = 0; x < a.size(); ++x) a16[x] = bf16(a[x]);
  if (wq.bf16_activations)
    for (std::size_t x = 0; x < a.size(); ++x) a[x] = static_cast<float>(a16[x]);

  QuantizedWeights h;
  const WeightQuantSpec spec{wq_dtype_int4(dtype) ? WeightFormat::Int4 : WeightFormat::Int8, group};
  const double q0 = now_seconds();
  Status st = quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, h, *ctx);
  const double quantize_s = now_seconds() - q0;
  if (st != Status::Ok) {
    std::cerr << "error: quantize_weights failed: " << to_string(st) << '\n';
    throw CLI::RuntimeError(2);
  }
  std::vector<float> wd(w.size());
  dequantize(*::adaptcore::detail::impl_of(h), wd.data());

  const auto ap = parts == 2 ? ActivationParts::Two : ActivationParts::One;
  std::vector<float> c(static_cast<std::size_t>(m * n), 0.0f);
  auto call_on = [&](const QuantizedWeights& q) {
    return wq.bf16_activations ? gemm_quantized(Layout::RowMajor, Trans::No, m, a16.data(), k, q,
                                                0.0f, c.data(), n, ap, *ctx)
                               : gemm_quantized(Layout::RowMajor, Trans::No, m, a.data(), k, q,
                                                0.0f, c.data(), n, ap, *ctx);
  };
  auto call = [&] { return call_on(h); };
  const double first_s = time_once([&] { st = call(); });
  if (st != Status::Ok) {
    std::cerr << "error: gemm_quantized failed: " << to_string(st) << '\n';
    throw CLI::RuntimeError(2);
  }
  // Sampled reference: fp64 dot products of the (fp32 or bf16-rounded) activations with the
  // dequantized weights.
  std::vector<std::pair<int64_t, int64_t>> at;
  std::vector<double> ref;
  if (opt.check) {
    std::mt19937_64 pick(7);
    for (int t = 0; t < 512; ++t) {
      const int64_t i = static_cast<int64_t>(pick() % static_cast<std::uint64_t>(m));
      const int64_t j = static_cast<int64_t>(pick() % static_cast<std::uint64_t>(n));
      double r = 0.0;
      for (int64_t p = 0; p < k; ++p)
        r += static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) *
             wd[static_cast<std::size_t>(p * n + j)];
      at.emplace_back(i, j);
      ref.push_back(r);
    }
  }
  const Err err = opt.check ? sampled_error(c, at, ref, n) : Err{};
  // Cold: copies of the weights (quantized the same way) the timed calls rotate over.
  std::vector<QuantizedWeights> copies;
  if (opt.cold) {
    copies.resize(measure::pool_sets(static_cast<double>(h.packed_bytes()), 268435456.0) - 1);
    for (QuantizedWeights& q : copies)
      if (quantize_weights(Layout::RowMajor, Trans::No, k, n, w.data(), n, spec, q, *ctx) !=
          Status::Ok)
        throw CLI::RuntimeError(2);
  }
  std::size_t turn = 0;
  auto rotating = [&] {
    const std::size_t i = turn++ % (copies.size() + 1);
    return call_on(i == 0 ? h : copies[i - 1]);
  };
  const Timed tw = time_call(rotating, opt);

  // Comparisons in the same run: bf16 GEMM, dequantize + fp32 GEMM.
  Timed tb, tf, td;
  Err err_bf16;
  if (opt.compare) {
    std::vector<bf16> wb(wd.size());
    for (std::size_t x = 0; x < wd.size(); ++x) wb[x] = bf16(wd[x]);
    std::vector<float> cb(c.size(), 0.0f);
    auto bf = [&] {
      return gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a16.data(), k,
                       wb.data(), n, 0.0f, cb.data(), n, *ctx);
    };
    bf();
    if (opt.check) err_bf16 = sampled_error(cb, at, ref, n);
    tb = time_call(bf, opt);
    // Path (a): the int8 values and scales kept plainly, dequantized per call.
    std::vector<std::int8_t> qplain(wd.size());
    const int64_t groups = group > 0 ? (k + group - 1) / group : 1;
    std::vector<float> splain(static_cast<std::size_t>(groups * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const float sc =
            ::adaptcore::detail::impl_of(h)->group_scale
                ? ::adaptcore::detail::impl_of(h)
                      ->group_scale.get()[((j / kWqNr) * ::adaptcore::detail::impl_of(h)->groups +
                                           p / ::adaptcore::detail::impl_of(h)->act_group) *
                                              kWqNr +
                                          j % kWqNr]
                : ::adaptcore::detail::impl_of(h)->col_scale.get()[j];
        splain[static_cast<std::size_t>((group > 0 ? p / group : 0) * n + j)] = sc;
        qplain[static_cast<std::size_t>(p * n + j)] = static_cast<std::int8_t>(
            sc == 0.0f ? 0 : std::lrint(wd[static_cast<std::size_t>(p * n + j)] / sc));
      }
    std::vector<float> wf(wd.size()), cf(c.size(), 0.0f);
    td = time_call([&] { dequantize_plain(qplain, splain, k, n, group, wf.data()); }, opt);
    tf = time_call(
        [&] {
          return gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, wf.data(),
                      n, 0.0f, cf.data(), n, *ctx);
        },
        opt);
  }

  PeakResult peak;
  if (opt.peak) peak = measure_peak(FmaPath::Int8Dot, threads);
  const double dram =
      opt.peak ? measure::measure_read_bandwidth(threads, 256ll << 20, measure::kReadLoops) : 0.0;

  const ShapeKey key = ::adaptcore::detail::impl_of(*ctx).key_for([&] {
    WqProblem p;
    make_wq_problem(Layout::RowMajor, Trans::No, m,
                    wq.bf16_activations ? static_cast<const void*>(a16.data()) : a.data(),
                    wq.bf16_activations, k, h, 0.0f, c.data(), n, ap, p);
    return p;
  }());
  const Plan plan = ::adaptcore::detail::impl_of(*ctx).plan_for(key);
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const double gflops = flops / tw.median_s / 1e9;
  const double dot_ops = flops * parts;  // multiply-adds the dot unit does, x 2
  const double frac_peak = peak.gflops > 0 ? dot_ops / tw.median_s / 1e9 / peak.gflops : 0.0;
  const double wbytes = static_cast<double>(h.packed_bytes());
  const double wgbs = wbytes / tw.median_s / 1e9;
  const double frac_dram = dram > 0 ? wgbs / dram : 0.0;
  // The roofline of the call (docs/QUANT.md, "Decode roofline"): the weight stream at the
  // measured DRAM read rate or the dot products at the measured vpdpbusd peak, the larger.
  const double roof_s = std::max(dram > 0 ? wbytes / (dram * 1e9) : 0.0,
                                 peak.gflops > 0 ? dot_ops / (peak.gflops * 1e9) : 0.0);
  const double frac_roof = roof_s > 0 ? roof_s / tw.median_s : 0.0;
  const double g_bf16 = opt.compare ? flops / tb.median_s / 1e9 : 0.0;
  const double g_f32 = opt.compare ? flops / (tf.median_s + td.median_s) / 1e9 : 0.0;
  const char* kname = ::adaptcore::detail::impl_of(*ctx).wq_kernels(ctx->isa()).name;

  if (opt.json) {
    nlohmann::ordered_json j;
    j["shape"] = {{"m", m}, {"n", n}, {"k", k}};
    j["dtype"] = to_string(dtype);
    j["group"] = group;
    j["parts"] = parts;
    j["bf16_activations"] = wq.bf16_activations;
    j["isa"] = to_string(ctx->isa());
    j["kernels"] = kname;
    j["threads"] = threads;
    j["plan"] = describe(plan);
    j["predicted_us"] = plan.predicted_us;
    j["quantize_weights_ms"] = quantize_s * 1e3;
    j["first_call_us"] = first_s * 1e6;
    j["reps"] = tw.reps;
    j["median_us"] = tw.median_s * 1e6;
    j["gflops"] = gflops;
    j["weight_bytes"] = wbytes;
    j["weight_gbs"] = wgbs;
    j["measured_dram_read_gbs"] = dram;
    j["fraction_of_dram"] = frac_dram;
    j["measured_int8_peak_gops"] = peak.gflops;
    j["fraction_of_dot_peak"] = frac_peak;
    j["roofline_us"] = roof_s * 1e6;
    j["fraction_of_roofline"] = frac_roof;
    if (opt.check) j["error"] = {{"max_rel", err.max_rel}, {"rms_rel", err.rms_rel}};
    if (opt.compare) {
      j["bf16"] = {{"median_us", tb.median_s * 1e6}, {"gflops", g_bf16}};
      if (opt.check)
        j["bf16"]["error"] = {{"max_rel", err_bf16.max_rel}, {"rms_rel", err_bf16.rms_rel}};
      j["dequant_f32"] = {
          {"dequant_us", td.median_s * 1e6}, {"gemm_us", tf.median_s * 1e6}, {"gflops", g_f32}};
      j["speedup_vs_bf16"] = g_bf16 > 0 ? gflops / g_bf16 : 0.0;
      j["speedup_vs_dequant_f32"] = g_f32 > 0 ? gflops / g_f32 : 0.0;
      if (opt.check)
        j["error_ratio_bf16_over_wq"] = err_bf16.rms_rel / std::max(err.rms_rel, 1e-300);
    }
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::cout << "shape        M=" << m << " N=" << n << " K=" << k << "  dtype=" << to_string(dtype)
            << " group=" << group << " parts=" << parts
            << (wq.bf16_activations ? " bf16 activations" : "") << '\n'
            << "context      isa=" << to_string(ctx->isa()) << " threads=" << threads
            << " kernels=" << kname << '\n'
            << "plan         " << describe(plan) << "  (" << to_string(plan.cls) << ", predicted "
            << format_fixed(plan.predicted_us, 1) << " us)\n"
            << "weights      " << format_fixed(wbytes / 1048576.0, 2)
            << " MiB packed, quantized in " << format_fixed(quantize_s * 1e3, 1) << " ms\n"
            << "first call   " << format_fixed(first_s * 1e6, 1) << " us (includes planning)\n"
            << "time         median " << format_fixed(tw.median_s * 1e6, 2) << " us over "
            << tw.reps << " reps\n"
            << "GFLOP/s      " << format_fixed(gflops, 2) << "  (2 m n k; the dot unit does "
            << parts << "x that)\n"
            << "weights      " << format_fixed(wgbs, 2) << " GB/s streamed";
  if (opt.peak)
    std::cout << ", " << format_fixed(100.0 * frac_dram, 1) << "% of the measured DRAM read "
              << format_fixed(dram, 2) << " GB/s\n"
              << "dot peak     " << format_fixed(100.0 * frac_peak, 1)
              << "% of the measured vpdpbusd peak " << format_fixed(peak.gflops, 1) << " GOP/s\n"
              << "roofline     " << format_fixed(roof_s * 1e6, 2)
              << " us = max(weights / DRAM read, dot work / vpdpbusd peak): "
              << format_fixed(100.0 * frac_roof, 1) << "% of it\n";
  else
    std::cout << '\n';
  if (opt.check)
    std::cout << "error        max " << std::scientific << err.max_rel << ", rms " << err.rms_rel
              << std::defaultfloat
              << " (relative to the fp64 reference's max / rms, 512 entries)\n";
  if (opt.compare) {
    std::cout << "bf16 gemm    " << format_fixed(g_bf16, 2) << " GFLOP/s -> w"
              << " " << format_fixed(gflops / g_bf16, 2) << "x";
    if (opt.check)
      std::cout << ", error max " << std::scientific << err_bf16.max_rel << " rms "
                << err_bf16.rms_rel << std::defaultfloat << " ("
                << format_fixed(err_bf16.rms_rel / std::max(err.rms_rel, 1e-300), 1)
                << "x the quantized path's rms)";
    std::cout << '\n'
              << "dequant+f32  " << format_fixed(g_f32, 2) << " GFLOP/s (dequantize "
              << format_fixed(td.median_s * 1e6, 1) << " us + sgemm "
              << format_fixed(tf.median_s * 1e6, 1) << " us) -> " << format_fixed(gflops / g_f32, 2)
              << "x\n";
  }
}

}  // namespace adaptcore::cli
