// `adaptcore bench --dtype w8a16|w4a16`: adaptcore's weight-quantized GEMM against the paths a
// user would otherwise take with the same quantized weights, each timed per call and checked
// against the exact product of the dequantized weights and the fp32 activations
// (bench/README.md, "Weight-quantized comparisons"):
//   adaptcore      gemm_quantized, two activation parts, on a QuantizedWeights handle made once
//                  from the same integers and scales (quantize_weights_s8, timed as setup);
//   adaptcore-1part  the same with one part (W8A8 with dynamic activation quantization);
//   dequant+<lib>  the weights dequantized to fp32 (timed) then <lib>'s fp32 GEMM;
//   bf16+<lib>     the weights stored in bf16 (converted once, not timed), the activations
//                  converted to bf16 (timed), then <lib>'s bf16 GEMM;
//   int8+onednn    the activations quantized to u8 per tensor with a zero point (timed),
//                  dnnl_gemm_u8s8s32 on the int8 weights, then the fp32 rescale (timed).
// Activations X are m x k row-major, weights W n x k (one row per output channel), C = X W^T.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include "harness/quant_math.hpp"
#include "harness/runner_parts.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"
#include "measure/read_bandwidth.hpp"

namespace adaptcore::bench::detail {

namespace {

namespace am = adaptcore::measure;

// Standard normal values (Box-Muller over the harness's uniform stream): activations of a
// layer are closer to this than to a uniform spread, and their largest values set the
// quantization steps.
void fill_gaussian(float* p, std::size_t count, std::uint64_t seed) {
  am::fill_uniform(p, count, seed);
  constexpr double kTwoPi = 6.283185307179586;
  for (std::size_t i = 0; i + 1 < count; i += 2) {
    const double u1 = 0.5 * (1.0 - static_cast<double>(p[i]));  // (0, 1]
    const double u2 = 0.5 * (1.0 + static_cast<double>(p[i + 1]));
    const double r = std::sqrt(-2.0 * std::log(u1));
    p[i] = static_cast<float>(r * std::cos(kTwoPi * u2));
    p[i + 1] = static_cast<float>(r * std::sin(kTwoPi * u2));
  }
  if (count % 2 != 0) p[count - 1] = 0.5f * p[count - 1];
}

enum class PathKind { Quantized, Dequant, Bf16, Int8 };
struct Path {
  std::string name;
  PathKind kind;
  Baseline* vendor;                              // null: adaptcore
  ActivationParts parts = ActivationParts::Two;  // Quantized only
};

// One shape: weight sets (quantized once, plus each path's stored form), activation and output
// sets, the scratch buffers the paths write per call, and the fp64 reference of set 0.
class QuantShape final : public ShapeBench {
 public:
  QuantShape(const SuiteShape& s, const std::vector<Path>& paths, const RunEnv& env, int bits,
             int64_t group)
      : m_(s.m), n_(s.n), k_(s.k), paths_(paths), env_(env) {
    const double wbytes = static_cast<double>(n_) * static_cast<double>(k_) * bits / 8.0;
    const double set = wbytes + 4.0 * static_cast<double>(m_ * k_ + m_ * n_);
    // At most 8 weight sets: each is also held in bf16 (2 bytes a value).
    const std::size_t sets =
        std::min<std::size_t>(8, pool_sets(set, env.options.effective_pool_bytes()));
    std::vector<float> w(static_cast<std::size_t>(n_ * k_));
    for (std::size_t i = 0; i < sets; ++i) {
      am::fill_uniform(w.data(), w.size(), 12 + 2 * i);
      weights_.push_back(quantize_weights_symmetric(w.data(), n_, k_, group, bits));
      if (needs(PathKind::Bf16)) {
        std::vector<float> deq(w.size());
        dequantize_weights(weights_.back(), deq.data());
        auto& b = w_bf16_.emplace_back(w.size());
        convert_to_bf16(deq.data(), deq.size(), b.data());
      }
      x_.push_back(am::make_buffer(static_cast<std::size_t>(m_ * k_)));
      fill_gaussian(x_.back().get(), static_cast<std::size_t>(m_ * k_), 11 + 2 * i);
      c_.push_back(am::make_buffer(static_cast<std::size_t>(m_ * n_)));
      std::fill_n(c_.back().get(), m_ * n_, 0.0f);
    }
    if (needs(PathKind::Dequant)) w_f32_ = am::make_buffer(static_cast<std::size_t>(n_ * k_));
    if (needs(PathKind::Bf16)) x_bf16_.resize(static_cast<std::size_t>(m_ * k_));
    if (needs(PathKind::Int8)) {
      x_u8_.resize(static_cast<std::size_t>(m_ * k_));
      acc_.resize(static_cast<std::size_t>(m_ * n_));
    }
    bytes_ = static_cast<double>(sets) * set;
    bytes_ += 2.0 * static_cast<double>(w_bf16_.size()) * static_cast<double>(n_ * k_);
    if (w_f32_) bytes_ += 4.0 * static_cast<double>(n_ * k_);
  }

  std::size_t sets() const override { return x_.size(); }
  double bytes() const override { return bytes_; }
  const QuantizedWeights8or4& weights(std::size_t set) const {
    return weights_[set % weights_.size()];
  }

  bool supports(std::size_t lib) const override {
    const Path& p = paths_[lib];
    if (p.vendor == nullptr) return true;
    switch (p.kind) {
      case PathKind::Quantized: return false;
      case PathKind::Dequant: return p.vendor->supports(fp32_call(0));
      case PathKind::Bf16: return p.vendor->supports_lowp(bf16_call(0));
      case PathKind::Int8:
        // One int8 GEMM cannot apply a scale per group of K: per-channel weight scales only.
        return weights_[0].groups() == 1 && p.vendor->supports_lowp(int8_call(0, 128));
    }
    return false;
  }

  double prepare(std::size_t lib) override {
    const Path& p = paths_[lib];
    if (p.kind == PathKind::Quantized) return make_handles();
    if (p.vendor == nullptr) return 0.0;  // adaptcore plans in the first (warm-up) call
    switch (p.kind) {
      case PathKind::Quantized: return 0.0;
      case PathKind::Dequant: return p.vendor->prepare(fp32_call(0));
      case PathKind::Bf16: return p.vendor->prepare_lowp(bf16_call(0));
      case PathKind::Int8: return p.vendor->prepare_lowp(int8_call(0, 128));
    }
    return 0.0;
  }

  void run(std::size_t lib, std::size_t set) override {
    const Path& p = paths_[lib];
    const std::size_t s = set % sets();
    switch (p.kind) {
      case PathKind::Quantized:
        if (handles_.empty()) make_handles();
        check_status(gemm_quantized(Layout::RowMajor, Trans::No, m_, x_[s].get(), k_,
                                    handles_[s % handles_.size()], 0.0f, c_[s].get(), n_, p.parts,
                                    env_.ctx));
        break;
      case PathKind::Dequant: {
        dequantize_weights(weights(s), w_f32_.get());
        if (p.vendor != nullptr) {
          p.vendor->run(fp32_call(s));
        } else {
          check_status(gemm(Layout::RowMajor, Trans::No, Trans::Yes, m_, n_, k_, 1.0f, x_[s].get(),
                            k_, w_f32_.get(), k_, 0.0f, c_[s].get(), n_, env_.ctx));
        }
        break;
      }
      case PathKind::Bf16: {
        convert_to_bf16(x_[s].get(), x_bf16_.size(), x_bf16_.data());
        if (p.vendor != nullptr) {
          p.vendor->run_lowp(bf16_call(s));
        } else {
          // The buffers hold bf16 bit patterns (convert_to_bf16); bf16 is layout-compatible.
          check_status(gemm_bf16(Layout::RowMajor, Trans::No, Trans::Yes, m_, n_, k_, 1.0f,
                                 reinterpret_cast<const bf16*>(x_bf16_.data()), k_,
                                 reinterpret_cast<const bf16*>(w_bf16_[s % w_bf16_.size()].data()),
                                 k_, 0.0f, c_[s].get(), n_, env_.ctx));
        }
        break;
      }
      case PathKind::Int8: {
        const ActivationQuant aq = quantize_activations_u8(x_[s].get(), x_u8_.size(), x_u8_.data());
        p.vendor->run_lowp(int8_call(s, aq.zero_point));
        rescale_int32(acc_.data(), m_, n_, aq.scale, weights(s).scales.data(), c_[s].get());
        break;
      }
    }
  }

  void check(std::size_t lib, std::uint64_t, Json& r) override {
    if (ref_rows_.empty()) {
      ref_rows_ = reference_row_choice(m_, 8);
      ref_ = reference_rows(x_[0].get(), k_, weights(0), ref_rows_);
    }
    std::fill_n(c_[0].get(), m_ * n_, std::numeric_limits<float>::quiet_NaN());
    run(lib, 0);
    const QuantAccuracy a = quant_accuracy(c_[0].get(), n_, ref_rows_, ref_);
    auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
    // Accuracy is reported, not graded: the paths differ by design. Only a result off by more
    // than 10% (a wrong block, a NaN, an unwritten entry) counts as failed.
    r["correct"] = std::isfinite(a.fro_rel) && a.fro_rel < 0.1;
    r["error"] = num(a.fro_rel);
    r["fro_rel_error"] = num(a.fro_rel);
    r["max_rel_error"] = num(a.max_rel);
    r["checked_rows"] = ref_rows_.size();
  }

 private:
  // adaptcore's handles, one per weight set, from the same integers and scales as every other
  // path (so all of them approximate one product); returns the seconds of the first (setup).
  double make_handles() {
    if (!handles_.empty()) return handle_seconds_;
    for (const QuantizedWeights8or4& w : weights_) {
      // The API takes scales group-major (scales[g * n + j]), the harness keeps them per row.
      const int64_t groups = w.groups();
      std::vector<float> scales(w.scales.size());
      for (int64_t j = 0; j < n_; ++j)
        for (int64_t g = 0; g < groups; ++g)
          scales[static_cast<std::size_t>(g * n_ + j)] =
              w.scales[static_cast<std::size_t>(j * groups + g)];
      WeightQuantSpec spec;
      spec.format = w.bits == 8 ? WeightFormat::Int8 : WeightFormat::Int4;
      spec.group_size = groups == 1 ? 0 : w.group;
      QuantizedWeights h;
      const double t = am::time_once([&] {
        check_status(quantize_weights_s8(Layout::RowMajor, Trans::Yes, k_, n_, w.q.data(), k_,
                                         scales.data(), spec, h, env_.ctx));
      });
      if (handles_.empty()) handle_seconds_ = t;
      handles_.push_back(std::move(h));
    }
    return handle_seconds_;
  }
  bool needs(PathKind k) const {
    return std::any_of(paths_.begin(), paths_.end(), [k](const Path& p) { return p.kind == k; });
  }
  static void check_status(Status st) {
    if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
  }
  GemmCall fp32_call(std::size_t s) const {
    return GemmCall{m_, n_, k_, false, true, x_[s].get(), k_, w_f32_.get(), k_, c_[s].get(), n_};
  }
  LowpGemmCall bf16_call(std::size_t s) const {
    return LowpGemmCall{LowpType::Bf16,
                        m_,
                        n_,
                        k_,
                        false,
                        true,
                        x_bf16_.data(),
                        k_,
                        w_bf16_[s % w_bf16_.size()].data(),
                        k_,
                        c_[s].get(),
                        n_,
                        0};
  }
  LowpGemmCall int8_call(std::size_t s, int32_t zero_point) const {
    return LowpGemmCall{LowpType::U8S8,
                        m_,
                        n_,
                        k_,
                        false,
                        true,
                        x_u8_.data(),
                        k_,
                        weights(s).q.data(),
                        k_,
                        const_cast<int32_t*>(acc_.data()),
                        n_,
                        zero_point};
  }

  int64_t m_, n_, k_;
  const std::vector<Path>& paths_;
  const RunEnv& env_;
  std::vector<QuantizedWeights8or4> weights_;
  std::vector<QuantizedWeights> handles_;
  double handle_seconds_ = 0;
  std::vector<std::vector<std::uint16_t>> w_bf16_;
  std::vector<am::FloatBuffer> x_, c_;
  am::FloatBuffer w_f32_;
  std::vector<std::uint16_t> x_bf16_;
  std::vector<std::uint8_t> x_u8_;
  std::vector<std::int32_t> acc_;
  std::vector<int64_t> ref_rows_;
  std::vector<double> ref_;
  double bytes_ = 0;
};

class QuantBench final : public DtypeBench {
 public:
  QuantBench(const RunEnv& env, BenchDtype dtype, Json& doc, std::ostream* progress)
      : env_(env), dtype_(dtype), doc_(&doc) {
    bits_ = dtype == BenchDtype::W8A16 ? 8 : 4;
    group_ = env.options.weight_group > 0 ? env.options.weight_group : bits_ == 8 ? 0 : 128;
    paths_.push_back({"adaptcore", PathKind::Quantized, nullptr, ActivationParts::Two});
    paths_.push_back({"adaptcore-1part", PathKind::Quantized, nullptr, ActivationParts::One});
    paths_.push_back({"dequant+adaptcore", PathKind::Dequant, nullptr});
    for (Baseline* v : env.vendors)
      paths_.push_back({"dequant+" + v->name(), PathKind::Dequant, v});
    paths_.push_back({"bf16+adaptcore", PathKind::Bf16, nullptr});
    for (Baseline* v : env.vendors) paths_.push_back({"bf16+" + v->name(), PathKind::Bf16, v});
    for (Baseline* v : env.vendors)
      if (v->name() == "onednn") paths_.push_back({"int8+onednn", PathKind::Int8, v});
    for (const Path& p : paths_) names_.push_back(p.name);

    const int threads = env.ctx.threads();
    if (progress != nullptr)
      *progress << "measuring the DRAM read bandwidth and the dot-product peaks\n";
    // The run's own reading (runner.cpp), taken once for every dtype.
    read_gbs_ = env.dram_gbs > 0 ? env.dram_gbs : am::measure_read_bandwidth(threads);
    const bool native = env.ctx.isa() == Isa::Avx512;
    const double fp32_peak = env.ctx.hardware().peak_gflops_per_core(env.ctx.isa()) * threads;
    int8_peak_ = native && am::path_supported(am::FmaPath::Int8Dot)
                     ? am::measure_peak(am::FmaPath::Int8Dot, threads).gflops
                     : fp32_peak;
    // Two activation parts take two int8 dot products per multiply-add.
    peak_ = int8_peak_ / 2;
    doc["peak_gflops"] = peak_;
    doc["peak_source"] = "half the measured vpdpbusd rate (two int8 activation parts)";
    doc["int8_dot_peak_gops"] = int8_peak_;
    doc["dram_read_gbs_measured"] = read_gbs_;
    doc["dram_read_gbs_samples"] = Json::array({read_gbs_});
    doc["weight_bits"] = bits_;
    doc["weight_group"] = group_;
    doc["rate_unit"] = "GFLOP/s";
  }

  const std::vector<std::string>& names() const override { return names_; }

  HardwareLimit limit(const SuiteShape& s) const override {
    const ElementBytes eb = element_bytes(dtype_);
    const double set = eb.a * static_cast<double>(s.m * s.k) +
                       eb.b * static_cast<double>(s.n * s.k) +
                       eb.c * static_cast<double>(s.m * s.n);
    const double resident = static_cast<double>(std::min<std::size_t>(
                                8, pool_sets(set, env_.options.effective_pool_bytes()))) *
                            set;
    const HardwareProfile& hw = env_.ctx.hardware();
    const int t = env_.ctx.threads();
    double bw = bandwidth_gbs(hw, t, resident, env_.dram_gbs);
    if (resident > static_cast<double>(std::max(hw.l3_bytes, hw.l3_warm_bytes)) * t)
      bw = std::max(bw, read_gbs_);
    return hardware_limit(s.m, s.n, s.k, peak_, bw, eb);
  }

  std::unique_ptr<ShapeBench> shape(const SuiteShape& s) override {
    if (s.trans_a || s.trans_b || s.lda != s.k || s.ldb != (s.trans_b ? s.k : s.n) || s.ldc != s.n)
      throw std::runtime_error(
          "the weight-quantized comparisons take dense shapes without transposes");
    // The DRAM read rate of a shared machine drifts with other tenants within minutes
    // (bench/README.md, "Bandwidth"), so it is measured again next to every decode shape:
    // annotate() compares the shape with that reading and with the run's highest (the
    // conservative fraction).
    if (s.m <= 16) {
      const double gbs =
          am::measure_read_bandwidth(env_.ctx.threads(), 256ll << 20, 2 * am::kReadLoops);
      read_gbs_ = std::max(read_gbs_, gbs);
      near_gbs_[{s.m, s.n, s.k}] = gbs;
      (*doc_)["dram_read_gbs_samples"].push_back(gbs);
      (*doc_)["dram_read_gbs_measured"] = read_gbs_;
    }
    return std::make_unique<QuantShape>(s, paths_, env_, bits_, group_ > 0 ? group_ : s.k);
  }

  // Weight bytes streamed per call (the quantized values and scales, whatever form a path
  // converts them to) over the time, and its fraction of the DRAM read rate measured next to
  // the shape (decode shapes; else the run's best) and of the run's best.
  void annotate(const SuiteShape& s, std::size_t lib, Json& r) const override {
    const double groups =
        group_ > 0 ? std::ceil(static_cast<double>(s.k) / static_cast<double>(group_)) : 1.0;
    const double wbytes = static_cast<double>(s.n) * static_cast<double>(s.k) * bits_ / 8.0 +
                          4.0 * static_cast<double>(s.n) * groups;
    const double sec = r["median_us"].get<double>() * 1e-6;
    r["weight_bytes"] = wbytes;
    if (s.m <= 16) {
      const double own = own_weight_bytes(s, lib);
      if (own > 0) r["own_weight_gbs"] = own / sec * 1e-9;
    }
    const double wgbs = wbytes / sec * 1e-9;
    r["weight_gbs"] = wgbs;
    // Against the reading taken next to the shape (same minutes, same tenants) and against
    // the run's best reading.
    const auto near = near_gbs_.find({s.m, s.n, s.k});
    const double ref = near != near_gbs_.end() ? near->second : read_gbs_;
    if (ref > 0) {
      r["dram_read_gbs_near"] = ref;
      r["dram_fraction"] = wgbs / ref;
    }
    if (read_gbs_ > 0) r["dram_fraction_of_best"] = wgbs / read_gbs_;
  }

 private:
  // Weight bytes a path itself reads per call in its own format: the packed handle (adaptcore),
  // the fp32 (dequant: the int values and the fp32 copy written then read) or bf16 copy, the
  // int8 values; 0 where not known.
  double own_weight_bytes(const SuiteShape& s, std::size_t lib) const {
    const double nk = static_cast<double>(s.n) * static_cast<double>(s.k);
    switch (paths_[lib].kind) {
      case PathKind::Quantized: return 0;
      case PathKind::Dequant: return nk * (bits_ / 8.0 + 8.0);
      case PathKind::Bf16: return 2 * nk;
      case PathKind::Int8: return nk;
    }
    return 0;
  }

  RunEnv env_;
  BenchDtype dtype_;
  int bits_ = 8;
  int64_t group_ = 0;
  std::vector<Path> paths_;
  std::vector<std::string> names_;
  double read_gbs_ = 0, int8_peak_ = 0, peak_ = 0;
  Json* doc_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> near_gbs_;  // decode shape -> GB/s
};

}  // namespace

std::unique_ptr<DtypeBench> make_quant_bench(const RunEnv& env, BenchDtype dtype, Json& doc,
                                             std::ostream* progress) {
  return std::make_unique<QuantBench>(env, dtype, doc, progress);
}

}  // namespace adaptcore::bench::detail
