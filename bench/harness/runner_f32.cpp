// `adaptcore bench --dtype f32` (the default): adaptcore's gemm and every vendor's sgemm on fp32
// operands, checked against a double reference (grading.hpp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/packed_weights.hpp"
#include "core/problem.hpp"
#include "dispatch/internal_access.hpp"
#include "harness/runner_parts.hpp"
#include "measure/bench_util.hpp"
#include "plan/plan.hpp"

namespace adaptcore::bench::detail {

namespace {

namespace am = adaptcore::measure;

// One library as the loop sees it: adaptcore and every vendor adapter alike.
struct Contender {
  std::string name;
  std::function<bool(const GemmCall&)> supports;
  std::function<double(const GemmCall&)> prepare;  // setup seconds
  std::function<void(const GemmCall&)> run;
  // --packed: packs op(B) of a call (by its B pointer), seconds; frees the copy of a call's B.
  std::function<double(const GemmCall&)> pack;
  std::function<void(const GemmCall&)> release;
  std::function<int(const GemmCall&)> panel_cols;  // adaptcore --packed: the handle's nr
};

// Elements of one operand set of a shape (A, B and C as stored, leading dimensions included).
struct SetElems {
  std::size_t a, b, c;
  double bytes() const { return 4.0 * static_cast<double>(a + b + c); }
};
SetElems set_elems(const SuiteShape& s) {
  return {static_cast<std::size_t>((s.trans_a ? s.k : s.m) * s.lda),
          static_cast<std::size_t>((s.trans_b ? s.n : s.k) * s.ldb),
          static_cast<std::size_t>(s.m * s.ldc)};
}

// Operand sets the timed calls rotate over, so that neither the inputs nor the output of the
// previous call are still warm in the caches (a dynamic-shape caller rarely calls twice on the
// same buffers back to back; weights of the next layer are cold).
class BufferPool {
 public:
  BufferPool(const SuiteShape& s, double pool_bytes) : shape_(s) {
    const SetElems e = set_elems(s);
    a_elems_ = e.a, b_elems_ = e.b, c_elems_ = e.c;
    const std::size_t sets = pool_sets(e.bytes(), pool_bytes);
    for (std::size_t i = 0; i < sets; ++i) {
      a_.push_back(am::make_buffer(a_elems_));
      b_.push_back(am::make_buffer(b_elems_));
      c_.push_back(am::make_buffer(c_elems_));
      am::fill_uniform(a_.back().get(), a_elems_, 11 + 2 * i);
      am::fill_uniform(b_.back().get(), b_elems_, 12 + 2 * i);
      std::fill_n(c_.back().get(), c_elems_, 0.0f);
    }
  }
  std::size_t sets() const { return a_.size(); }
  double bytes() const {
    return static_cast<double>(sets()) * SetElems{a_elems_, b_elems_, c_elems_}.bytes();
  }
  GemmCall call(std::size_t i) const {
    i %= sets();
    return GemmCall{shape_.m,       shape_.n,    shape_.k,   shape_.trans_a,
                    shape_.trans_b, a_[i].get(), shape_.lda, b_[i].get(),
                    shape_.ldb,     c_[i].get(), shape_.ldc};
  }
  // A NaN output: a library that does not write every element of C fails the check.
  void poison_output(std::size_t i) {
    std::fill_n(c_[i % sets()].get(), c_elems_, std::numeric_limits<float>::quiet_NaN());
  }

 private:
  SuiteShape shape_;
  std::size_t a_elems_ = 0, b_elems_ = 0, c_elems_ = 0;
  std::vector<am::FloatBuffer> a_, b_, c_;
};

Trans op(bool t) { return t ? Trans::Yes : Trans::No; }

Contender adaptcore_contender(Context& ctx) {
  Contender c;
  c.name = "adaptcore";
  c.supports = [](const GemmCall&) { return true; };
  // Setup: planning the shape (a plan-cache miss), which a first call pays.
  c.prepare = [&ctx](const GemmCall& g) {
    GemmProblem prob;
    if (make_problem(Layout::RowMajor, op(g.trans_a), op(g.trans_b), g.m, g.n, g.k, 1.0f, g.a,
                     g.lda, g.b, g.ldb, 0.0f, g.c, g.ldc, prob) != Status::Ok)
      throw std::runtime_error("invalid shape");
    ::adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
    const ShapeKey key = impl.key_for(prob);
    return am::time_once([&] { (void)impl.plan_for(key); });
  };
  c.run = [&ctx](const GemmCall& g) {
    const Status st = gemm(Layout::RowMajor, op(g.trans_a), op(g.trans_b), g.m, g.n, g.k, 1.0f, g.a,
                           g.lda, g.b, g.ldb, 0.0f, g.c, g.ldc, ctx);
    if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
  };
  return c;
}

// --packed: adaptcore's pack_weights once per operand set (for the rows of decode and prefill
// alike, not for the shape's M: one handle serves every M), then gemm_packed.
Contender adaptcore_packed_contender(Context& ctx) {
  auto handles = std::make_shared<std::map<const float*, PackedWeights>>();
  Contender c;
  c.name = "adaptcore";
  c.supports = [](const GemmCall&) { return true; };
  c.pack = [&ctx, handles](const GemmCall& g) {
    PackedWeights& w = (*handles)[g.b];
    Status st = Status::Ok;
    const double s = am::time_once([&] {
      st = pack_weights(Layout::RowMajor, op(g.trans_b), g.k, g.n, g.b, g.ldb, w, {}, ctx);
    });
    if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
    return s;
  };
  c.run = [&ctx, handles](const GemmCall& g) {
    const auto it = handles->find(g.b);
    if (it == handles->end()) throw std::runtime_error("adaptcore: weights not packed");
    const Status st = gemm_packed(Layout::RowMajor, op(g.trans_a), g.m, 1.0f, g.a, g.lda,
                                  it->second, 0.0f, g.c, g.ldc, ctx);
    if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
  };
  c.release = [handles](const GemmCall& g) { handles->erase(g.b); };
  c.panel_cols = [handles](const GemmCall& g) {
    const auto it = handles->find(g.b);
    return it != handles->end() ? it->second.panel_cols() : 0;
  };
  return c;
}

Contender vendor_contender(Baseline& lib, bool packed) {
  if (packed)
    return Contender{lib.name(),
                     [&lib](const GemmCall& g) { return lib.supports_packed(g); },
                     {},
                     [&lib](const GemmCall& g) { lib.run_packed(g); },
                     [&lib](const GemmCall& g) { return lib.pack(g); },
                     [&lib](const GemmCall& g) { lib.release_packed(g); },
                     {}};
  return Contender{lib.name(),
                   [&lib](const GemmCall& g) { return lib.supports(g); },
                   [&lib](const GemmCall& g) { return lib.prepare(g); },
                   [&lib](const GemmCall& g) { lib.run(g); },
                   {},
                   {},
                   {}};
}

class F32Shape final : public ShapeBench {
 public:
  F32Shape(const SuiteShape& s, double pool_bytes, std::vector<Contender>& libs, Context& ctx)
      : shape_(s), pool_(s, pool_bytes), libs_(libs), ctx_(ctx) {}
  ~F32Shape() override {
    for (Contender& c : libs_)
      if (c.release)
        for (std::size_t i = 0; i < pool_.sets(); ++i) c.release(pool_.call(i));
  }
  F32Shape(const F32Shape&) = delete;
  F32Shape& operator=(const F32Shape&) = delete;
  std::size_t sets() const override { return pool_.sets(); }
  // With --packed, each library's packed copies of every set's B besides the pool (what the
  // chunking of shapes must count).
  double bytes() const override {
    double packed = 0.0;
    for (const Contender& c : libs_)
      if (c.pack)
        packed +=
            static_cast<double>(pool_.sets()) * 4.0 * static_cast<double>(set_elems(shape_).b);
    return pool_.bytes() + packed;
  }
  bool supports(std::size_t lib) const override { return libs_[lib].supports(pool_.call(0)); }
  // --packed: every operand set's weights packed; the setup reported is one pack.
  double prepare(std::size_t lib) override {
    if (!libs_[lib].pack) return libs_[lib].prepare(pool_.call(0));
    double first = 0.0;
    for (std::size_t i = 0; i < pool_.sets(); ++i) {
      const double s = libs_[lib].pack(pool_.call(i));
      if (i == 0) first = s;
    }
    return first;
  }
  void run(std::size_t lib, std::size_t set) override { libs_[lib].run(pool_.call(set)); }
  void check(std::size_t lib, std::uint64_t seed, Json& r) override {
    pool_.poison_output(0);
    const GemmCall first = pool_.call(0);
    libs_[lib].run(first);
    const CheckResult check = check_against_reference(first, 512, seed);
    r["correct"] = check.pass;
    r["error"] = std::isfinite(check.max_error) ? Json(check.max_error) : Json(nullptr);
  }

  void describe(std::size_t lib, Json& r) override {
    if (lib != 0) return;
    // Rotating operand sets: every timed call finds other operands than the previous one's,
    // so it runs the plan for operands in memory (Residency::Auto).
    const int nr = libs_[lib].panel_cols ? libs_[lib].panel_cols(pool_.call(0)) : 0;
    const ModelView mv = model_view(ctx_, shape_, pool_.sets() > 1, nr);
    mv.write(r);
  }

 private:
  SuiteShape shape_;
  BufferPool pool_;
  std::vector<Contender>& libs_;
  Context& ctx_;
};

class F32Bench final : public DtypeBench {
 public:
  explicit F32Bench(const RunEnv& env) : env_(env) {
    const bool packed = env.options.packed;
    libs_.push_back(packed ? adaptcore_packed_contender(env.ctx) : adaptcore_contender(env.ctx));
    for (Baseline* v : env.vendors) libs_.push_back(vendor_contender(*v, packed));
    for (const Contender& c : libs_) names_.push_back(c.name);
  }
  const std::vector<std::string>& names() const override { return names_; }
  HardwareLimit limit(const SuiteShape& s) const override {
    return f32_shape_limit(env_.ctx, s, env_.options.effective_pool_bytes(), env_.dram_gbs);
  }
  std::unique_ptr<ShapeBench> shape(const SuiteShape& s) override {
    return std::make_unique<F32Shape>(s, env_.options.effective_pool_bytes(), libs_, env_.ctx);
  }

 private:
  RunEnv env_;
  std::vector<Contender> libs_;
  std::vector<std::string> names_;
};

}  // namespace

std::string shape_text(const SuiteShape& s) {
  std::ostringstream os;
  os << s.m << 'x' << s.n << 'x' << s.k;
  if (s.trans_a || s.trans_b) os << ' ' << (s.trans_a ? 'T' : 'N') << (s.trans_b ? 'T' : 'N');
  return os.str();
}

ModelView model_view(Context& ctx, const SuiteShape& s, bool cold, int panel_nr) {
  // Operands are not read by planning: any non-null pointers of the right layout do.
  static const float dummy = 0.0f;
  float out = 0.0f;
  GemmProblem prob;
  if (make_problem(Layout::RowMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 0.0f, &dummy,
                   s.lda, &dummy, s.ldb, 0.0f, &out, s.ldc, prob) != Status::Ok)
    throw std::runtime_error("invalid shape " + shape_text(s));
  if (panel_nr > 0) prob = packed_problem(s.m, s.n, s.k, s.trans_a, s.lda, s.ldc, panel_nr);
  const ::adaptcore::detail::ContextImpl& impl = ::adaptcore::detail::impl_of(ctx);
  const Explanation e = impl.explain(impl.key_for(prob, cold));
  const CandidateCost& chosen = e.candidates.at(e.chosen);
  return ModelView{describe(chosen.plan), to_string(e.cls), chosen.cost.total_us};
}

HardwareLimit f32_shape_limit(const Context& ctx, const SuiteShape& s, double pool_bytes,
                              double measured_dram_gbs) {
  const int threads = ctx.threads();
  const SetElems e = set_elems(s);
  const double resident = static_cast<double>(pool_sets(e.bytes(), pool_bytes)) * e.bytes();
  return hardware_limit(s.m, s.n, s.k, ctx.hardware().peak_gflops_per_core(ctx.isa()) * threads,
                        bandwidth_gbs(ctx.hardware(), threads, resident, measured_dram_gbs));
}

std::unique_ptr<DtypeBench> make_f32_bench(const RunEnv& env) {
  return std::make_unique<F32Bench>(env);
}

}  // namespace adaptcore::bench::detail
