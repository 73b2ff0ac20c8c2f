// `adaptcore bench --dtype bf16|u8s8|s8s8`: adaptcore's gemm_bf16 (fp32 C) / gemm_u8s8s32 /
// gemm_s8s8s32 against the vendors' equivalents (Baseline::run_lowp: MKL's
// cblas_gemm_bf16bf16f32 and cblas_gemm_s8u8s32, oneDNN's bf16 matmul and dnnl_gemm_*8s8s32),
// with the suite's transposes and leading dimensions, alpha 1, beta 0, no zero points. Checked
// against a reference in double (bf16: the bound of docs/LOWP.md) or int64 (int8: exact).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "core/lowp_problem.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/internal_access.hpp"
#include "harness/runner_parts.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"
#include "plan/plan.hpp"

namespace adaptcore::bench::detail {

namespace {

namespace am = adaptcore::measure;

LowpType lowp_type(BenchDtype d) {
  return d == BenchDtype::Bf16   ? LowpType::Bf16
         : d == BenchDtype::U8S8 ? LowpType::U8S8
                                 : LowpType::S8S8;
}

Trans op(bool t) { return t ? Trans::Yes : Trans::No; }

// Operand sets of one shape in the dtype's element types; C is fp32 (bf16) or int32.
class LowpPool {
 public:
  LowpPool(const SuiteShape& s, LowpType type, double pool_bytes) : s_(s), type_(type) {
    eb_ = type == LowpType::Bf16 ? 2 : 1;
    a_elems_ = static_cast<std::size_t>((s.trans_a ? s.k : s.m) * s.lda);
    b_elems_ = static_cast<std::size_t>((s.trans_b ? s.n : s.k) * s.ldb);
    c_elems_ = static_cast<std::size_t>(s.m * s.ldc);
    const std::size_t n = pool_sets(set_bytes(), pool_bytes);
    std::vector<float> tmp;
    for (std::size_t i = 0; i < n; ++i) {
      a_.push_back(make_bytes(a_elems_ * eb_));
      b_.push_back(make_bytes(b_elems_ * eb_));
      c_.push_back(make_bytes(c_elems_ * 4));
      fill(a_.back().get(), a_elems_, 11 + 2 * i, tmp);
      fill(b_.back().get(), b_elems_, 12 + 2 * i, tmp);
      std::memset(c_.back().get(), 0, c_elems_ * 4);
    }
  }
  double set_bytes() const {
    return static_cast<double>((a_elems_ + b_elems_) * eb_ + c_elems_ * 4);
  }
  std::size_t sets() const { return a_.size(); }
  double bytes() const { return static_cast<double>(sets()) * set_bytes(); }
  LowpGemmCall call(std::size_t i) const {
    i %= sets();
    return LowpGemmCall{type_,       s_.m,        s_.n,   s_.k,        s_.trans_a,
                        s_.trans_b,  a_[i].get(), s_.lda, b_[i].get(), s_.ldb,
                        c_[i].get(), s_.ldc,      0};
  }
  // NaN (fp32) or a fixed pattern (int32) in set 0's C: an entry a library does not write fails
  // the check (unless the pattern happens to be the exact value).
  void poison_output() {
    if (type_ == LowpType::Bf16) {
      std::fill_n(reinterpret_cast<float*>(c_[0].get()), c_elems_,
                  std::numeric_limits<float>::quiet_NaN());
    } else {
      std::memset(c_[0].get(), 0x5a, c_elems_ * 4);
    }
  }

 private:
  // bf16: uniform [-1, 1) rounded to bf16; int8: the same draws mapped onto all 256 byte values.
  void fill(unsigned char* p, std::size_t count, std::uint64_t seed,
            std::vector<float>& tmp) const {
    tmp.resize(count);
    am::fill_uniform(tmp.data(), count, seed);
    if (type_ == LowpType::Bf16) {
      auto* h = reinterpret_cast<std::uint16_t*>(p);
      for (std::size_t i = 0; i < count; ++i) h[i] = float_to_bf16(tmp[i]);
    } else {
      for (std::size_t i = 0; i < count; ++i)
        p[i] = static_cast<unsigned char>(std::clamp((tmp[i] + 1.0f) * 128.0f, 0.0f, 255.0f));
    }
  }

  SuiteShape s_;
  LowpType type_;
  std::size_t eb_ = 1, a_elems_ = 0, b_elems_ = 0, c_elems_ = 0;
  std::vector<Bytes> a_, b_, c_;
};

// op(A)[i][p], op(B)[p][j] of a call in double; int8 values as their signed or unsigned bytes.
double a_value(const LowpGemmCall& c, int64_t i, int64_t p) {
  const int64_t at = c.trans_a ? p * c.lda + i : i * c.lda + p;
  if (c.type == LowpType::Bf16) return bf16_to_float(static_cast<const std::uint16_t*>(c.a)[at]);
  if (c.type == LowpType::U8S8) return static_cast<const std::uint8_t*>(c.a)[at];
  return static_cast<const std::int8_t*>(c.a)[at];
}
double b_value(const LowpGemmCall& c, int64_t p, int64_t j) {
  const int64_t at = c.trans_b ? j * c.ldb + p : p * c.ldb + j;
  if (c.type == LowpType::Bf16) return bf16_to_float(static_cast<const std::uint16_t*>(c.b)[at]);
  return static_cast<const std::int8_t*>(c.b)[at];
}

// bf16: |c - ref| / sum |a b| (within bf16_error_tolerance); int8: |c - ref mod 2^32| as an
// integer (0 required). Infinity for a non-finite fp32 output.
CheckResult check_lowp(const LowpGemmCall& c, std::uint64_t seed) {
  CheckResult r;
  for (const auto& [i, j] : check_entries(c.m, c.n, c.k, 512, seed)) {
    double err;
    if (c.type == LowpType::Bf16) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double prod = a_value(c, i, p) * b_value(c, p, j);
        ref += prod;
        mag += std::fabs(prod);
      }
      const double got = static_cast<const float*>(c.c)[i * c.ldc + j];
      err = !std::isfinite(got) ? INFINITY
            : mag > 0           ? std::fabs(got - ref) / mag
                                : std::fabs(got - ref);
    } else {
      int64_t ref = 0;
      for (int64_t p = 0; p < c.k; ++p)
        ref += static_cast<int64_t>(a_value(c, i, p) - c.a_zero_point) *
               static_cast<int64_t>(b_value(c, p, j));
      const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(ref));
      const std::int32_t got = static_cast<const std::int32_t*>(c.c)[i * c.ldc + j];
      err = std::fabs(static_cast<double>(got) - static_cast<double>(want));
    }
    r.max_error = std::max(r.max_error, err);
    ++r.checked;
  }
  r.pass = c.type == LowpType::Bf16 ? r.max_error <= bf16_error_tolerance(c.k) : r.max_error == 0;
  return r;
}

LowpCall adaptcore_call(const LowpGemmCall& g) {
  LowpCall c;
  c.kind = g.type == LowpType::Bf16   ? LowpKind::Bf16F32
           : g.type == LowpType::U8S8 ? LowpKind::U8S8S32
                                      : LowpKind::S8S8S32;
  c.transa = op(g.trans_a), c.transb = op(g.trans_b);
  c.m = g.m, c.n = g.n, c.k = g.k;
  c.a = g.a, c.lda = g.lda, c.b = g.b, c.ldb = g.ldb, c.c = g.c, c.ldc = g.ldc;
  return c;
}

void run_adaptcore(Context& ctx, const LowpGemmCall& g) {
  Status st;
  const Trans ta = op(g.trans_a), tb = op(g.trans_b);
  switch (g.type) {
    case LowpType::Bf16:
      st = gemm_bf16(Layout::RowMajor, ta, tb, g.m, g.n, g.k, 1.0f, static_cast<const bf16*>(g.a),
                     g.lda, static_cast<const bf16*>(g.b), g.ldb, 0.0f, static_cast<float*>(g.c),
                     g.ldc, ctx);
      break;
    case LowpType::U8S8:
      st = gemm_u8s8s32(Layout::RowMajor, ta, tb, g.m, g.n, g.k,
                        static_cast<const std::uint8_t*>(g.a), g.lda, {},
                        static_cast<const std::int8_t*>(g.b), g.ldb, {}, 0,
                        static_cast<std::int32_t*>(g.c), g.ldc, ctx);
      break;
    default:
      st = gemm_s8s8s32(Layout::RowMajor, ta, tb, g.m, g.n, g.k,
                        static_cast<const std::int8_t*>(g.a), g.lda, {},
                        static_cast<const std::int8_t*>(g.b), g.ldb, {}, 0,
                        static_cast<std::int32_t*>(g.c), g.ldc, ctx);
      break;
  }
  if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
}

// --packed: adaptcore's pack_weights once per operand set (bf16 or s8 weights; for decode and
// prefill rows alike, not the shape's M), then gemm_packed.
void run_adaptcore_packed(Context& ctx, const LowpGemmCall& g, const PackedWeights& w) {
  Status st;
  const Trans ta = op(g.trans_a);
  switch (g.type) {
    case LowpType::Bf16:
      st = gemm_packed(Layout::RowMajor, ta, g.m, 1.0f, static_cast<const bf16*>(g.a), g.lda, w,
                       0.0f, static_cast<float*>(g.c), g.ldc, {}, ctx);
      break;
    case LowpType::U8S8:
      st = gemm_packed(Layout::RowMajor, ta, g.m, static_cast<const std::uint8_t*>(g.a), g.lda, {},
                       w, {}, 0, static_cast<std::int32_t*>(g.c), g.ldc, {}, {}, ctx);
      break;
    default:
      st = gemm_packed(Layout::RowMajor, ta, g.m, static_cast<const std::int8_t*>(g.a), g.lda, {},
                       w, {}, 0, static_cast<std::int32_t*>(g.c), g.ldc, {}, {}, ctx);
      break;
  }
  if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
}

Status pack_adaptcore(Context& ctx, const LowpGemmCall& g, PackedWeights& w) {
  const Trans tb = op(g.trans_b);
  if (g.type == LowpType::Bf16)
    return pack_weights(Layout::RowMajor, tb, g.k, g.n, static_cast<const bf16*>(g.b), g.ldb, w, {},
                        ctx);
  return pack_weights(Layout::RowMajor, tb, g.k, g.n, static_cast<const std::int8_t*>(g.b), g.ldb,
                      w, {}, ctx);
}

class LowpShape final : public ShapeBench {
 public:
  LowpShape(const SuiteShape& s, LowpType type, const RunEnv& env)
      : pool_(s, type, env.options.effective_pool_bytes()),
        env_(env),
        packed_(env.options.packed),
        handles_(packed_ ? pool_.sets() : 0),
        vendor_packed_(env.vendors.size(), false) {}
  ~LowpShape() override {
    for (std::size_t v = 0; v < vendor_packed_.size(); ++v)
      if (vendor_packed_[v])
        for (std::size_t i = 0; i < pool_.sets(); ++i)
          env_.vendors[v]->release_packed_lowp(pool_.call(i));
  }
  std::size_t sets() const override { return pool_.sets(); }
  double bytes() const override { return pool_.bytes(); }
  bool supports(std::size_t lib) const override {
    if (lib == 0) return true;
    Baseline& v = *env_.vendors[lib - 1];
    return packed_ ? v.supports_packed_lowp(pool_.call(0)) : v.supports_lowp(pool_.call(0));
  }
  double prepare(std::size_t lib) override {
    const LowpGemmCall g = pool_.call(0);
    if (packed_) {  // every set's weights packed; the setup reported is one pack
      double first = 0.0;
      for (std::size_t i = 0; i < pool_.sets(); ++i) {
        double t = 0.0;
        if (lib == 0) {
          Status st = Status::Ok;
          t = am::time_once([&] { st = pack_adaptcore(env_.ctx, pool_.call(i), handles_[i]); });
          if (st != Status::Ok)
            throw std::runtime_error(std::string("adaptcore pack: ") + to_string(st));
        } else {
          t = env_.vendors[lib - 1]->pack_lowp(pool_.call(i));
          vendor_packed_[lib - 1] = true;
        }
        if (i == 0) first = t;
      }
      if (lib == 0) {
        const LowpKind kind = adaptcore_call(g).kind;
        ::adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(env_.ctx);
        plan_ =
            impl.plan_for(impl.key_for(packed_lowp_problem(kind, g.m, g.n, g.k, g.trans_a, g.lda,
                                                           g.ldc, handles_[0].panel_cols()),
                                       pool_.sets() > 1));
        planned_ = true;
      }
      return first;
    }
    if (lib != 0) return env_.vendors[lib - 1]->prepare_lowp(g);
    // adaptcore's setup: planning the shape (a plan-cache miss), which a first call pays.
    LowpProblem prob;
    if (make_lowp_problem(adaptcore_call(g), prob) != Status::Ok)
      throw std::runtime_error("invalid shape");
    ::adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(env_.ctx);
    const ShapeKey key = impl.key_for(prob, pool_.sets() > 1);  // rotating sets: cold calls
    const double t = am::time_once([&] { plan_ = impl.plan_for(key); });
    planned_ = true;
    return t;
  }
  void run(std::size_t lib, std::size_t set) override {
    if (packed_) {
      if (lib == 0)
        run_adaptcore_packed(env_.ctx, pool_.call(set), handles_[set % pool_.sets()]);
      else
        env_.vendors[lib - 1]->run_packed_lowp(pool_.call(set));
      return;
    }
    if (lib == 0)
      run_adaptcore(env_.ctx, pool_.call(set));
    else
      env_.vendors[lib - 1]->run_lowp(pool_.call(set));
  }
  void check(std::size_t lib, std::uint64_t seed, Json& r) override {
    pool_.poison_output();
    run(lib, 0);
    const CheckResult c = check_lowp(pool_.call(0), seed);
    r["correct"] = c.pass;
    r["error"] = std::isfinite(c.max_error) ? Json(c.max_error) : Json(nullptr);
  }
  void describe(std::size_t lib, Json& r) override {
    if (lib != 0 || !planned_) return;
    r["plan"] = ::adaptcore::describe(plan_);
    r["predicted_us"] = plan_.predicted_us;
  }

 private:
  LowpPool pool_;
  const RunEnv& env_;
  bool packed_;
  std::vector<PackedWeights> handles_;  // --packed: adaptcore's handle of each set's weights
  std::vector<bool> vendor_packed_;     // --packed: vendors whose copies are to be released
  Plan plan_{};
  bool planned_ = false;
};

class LowpBench final : public DtypeBench {
 public:
  LowpBench(const RunEnv& env, BenchDtype dtype, Json& doc) : env_(env), dtype_(dtype) {
    names_.push_back("adaptcore");
    for (Baseline* v : env.vendors) names_.push_back(v->name());
    // The limit's compute rate: the measured peak of the dot-product instruction adaptcore's
    // kernels use here (vdpbf16ps / vpdpbusd), else the fp32 FMA peak its fallbacks run at.
    const int threads = env.ctx.threads();
    const am::FmaPath path =
        dtype == BenchDtype::Bf16 ? am::FmaPath::Bf16Dot : am::FmaPath::Int8Dot;
    peak_ = env.ctx.hardware().peak_gflops_per_core(env.ctx.isa()) * threads;
    std::string source = "fp32 FMA peak of the profile (no dot-product instruction)";
    if (am::path_supported(path) && env.ctx.isa() == Isa::Avx512) {
      peak_ = am::measure_peak(path, threads).gflops;
      source = std::string("measured ") + am::to_string(path);
    }
    doc["peak_gflops"] = peak_;
    doc["peak_source"] = source;
    doc["rate_unit"] = rate_unit(dtype);
  }
  const std::vector<std::string>& names() const override { return names_; }
  HardwareLimit limit(const SuiteShape& s) const override {
    const ElementBytes eb = element_bytes(dtype_);
    const double set = eb.a * static_cast<double>((s.trans_a ? s.k : s.m) * s.lda) +
                       eb.b * static_cast<double>((s.trans_b ? s.n : s.k) * s.ldb) +
                       4.0 * static_cast<double>(s.m * s.ldc);
    const double resident =
        static_cast<double>(pool_sets(set, env_.options.effective_pool_bytes())) * set;
    return hardware_limit(
        s.m, s.n, s.k, peak_,
        bandwidth_gbs(env_.ctx.hardware(), env_.ctx.threads(), resident, env_.dram_gbs), eb);
  }
  std::unique_ptr<ShapeBench> shape(const SuiteShape& s) override {
    return std::make_unique<LowpShape>(s, lowp_type(dtype_), env_);
  }

 private:
  RunEnv env_;
  BenchDtype dtype_;
  std::vector<std::string> names_;
  double peak_ = 0;
};

}  // namespace

std::unique_ptr<DtypeBench> make_lowp_bench(const RunEnv& env, BenchDtype dtype, Json& doc) {
  return std::make_unique<LowpBench>(env, dtype, doc);
}

}  // namespace adaptcore::bench::detail
