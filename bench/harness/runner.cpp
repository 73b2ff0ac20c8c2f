#include "harness/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <iomanip>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "harness/grading.hpp"
#include "measure/bench_util.hpp"
#include "plan/plan.hpp"

namespace adaptcore::bench {
namespace {

namespace am = adaptcore::measure;
using Json = nlohmann::ordered_json;

// One library as the loop sees it: adaptcore and every vendor adapter alike.
struct Contender {
  std::string name;
  std::function<bool(const GemmCall&)> supports;
  std::function<double(const GemmCall&)> prepare;  // setup seconds
  std::function<void(const GemmCall&)> run;
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
// Sets in a shape's pool: enough to total pool_bytes (at least one, at most 4096).
std::size_t pool_sets(const SetElems& e, double pool_bytes) {
  return static_cast<std::size_t>(std::clamp(std::ceil(pool_bytes / e.bytes()), 1.0, 4096.0));
}

// Operand sets the timed calls rotate over, so that neither the inputs nor the output of the
// previous call are still warm in the caches (a dynamic-shape caller rarely calls twice on the
// same buffers back to back; weights of the next layer are cold).
class BufferPool {
 public:
  BufferPool(const SuiteShape& s, double pool_bytes) : shape_(s) {
    const SetElems e = set_elems(s);
    a_elems_ = e.a, b_elems_ = e.b, c_elems_ = e.c;
    const std::size_t sets = pool_sets(e, pool_bytes);
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
    return GemmCall{shape_.m, shape_.n, shape_.k, shape_.trans_a, shape_.trans_b, a_[i].get(),
                    shape_.lda, b_[i].get(), shape_.ldb, c_[i].get(), shape_.ldc};
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

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::ostringstream os;
  os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return os.str();
}

std::string shape_text(const SuiteShape& s) {
  std::ostringstream os;
  os << s.m << 'x' << s.n << 'x' << s.k;
  if (s.trans_a || s.trans_b) os << ' ' << (s.trans_a ? 'T' : 'N') << (s.trans_b ? 'T' : 'N');
  return os.str();
}

std::string duration_text(double s) {
  std::ostringstream os;
  const auto total = static_cast<long>(std::max(0.0, s));
  if (total >= 3600) os << total / 3600 << 'h' << std::setw(2) << std::setfill('0') << total % 3600 / 60 << 'm';
  else if (total >= 60) os << total / 60 << 'm' << std::setw(2) << std::setfill('0') << total % 60 << 's';
  else os << total << 's';
  return os.str();
}

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
    detail::ContextImpl& impl = ctx.impl();
    const ShapeKey key = impl.key_for(prob);
    return am::time_once([&] { (void)impl.plan_for(key); });
  };
  c.run = [&ctx](const GemmCall& g) {
    const Status st = gemm(Layout::RowMajor, op(g.trans_a), op(g.trans_b), g.m, g.n, g.k, 1.0f,
                           g.a, g.lda, g.b, g.ldb, 0.0f, g.c, g.ldc, ctx);
    if (st != Status::Ok) throw std::runtime_error(std::string("adaptcore: ") + to_string(st));
  };
  return c;
}

Contender vendor_contender(Baseline& lib) {
  return Contender{lib.name(), [&lib](const GemmCall& g) { return lib.supports(g); },
                   [&lib](const GemmCall& g) { return lib.prepare(g); },
                   [&lib](const GemmCall& g) { lib.run(g); }};
}

// adaptcore's view of a shape: its plan and the model's predicted time of that plan.
struct ModelView {
  std::string plan;
  double predicted_us = 0;
};

ModelView model_view(Context& ctx, const SuiteShape& s) {
  // Operands are not read by planning: any non-null pointers of the right layout do.
  static const float dummy = 0.0f;
  float out = 0.0f;
  GemmProblem prob;
  if (make_problem(Layout::RowMajor, op(s.trans_a), op(s.trans_b), s.m, s.n, s.k, 0.0f, &dummy,
                   s.lda, &dummy, s.ldb, 0.0f, &out, s.ldc, prob) != Status::Ok)
    throw std::runtime_error("invalid shape " + shape_text(s));
  const detail::ContextImpl& impl = ctx.impl();
  const Explanation e = impl.explain(impl.key_for(prob));
  const CandidateCost& chosen = e.candidates.at(e.chosen);
  return ModelView{describe(chosen.plan), chosen.cost.total_us};
}

Json shape_fields(std::size_t index, const SuiteShape& s) {
  Json r;
  r["shape"] = index;
  r["m"] = s.m, r["n"] = s.n, r["k"] = s.k;
  r["trans_a"] = s.trans_a, r["trans_b"] = s.trans_b;
  r["lda"] = s.lda, r["ldb"] = s.ldb, r["ldc"] = s.ldc;
  r["tag"] = s.tag;
  r["m_class"] = m_class(s.m), r["n_class"] = n_class(s.n);
  return r;
}

// Warm-up (about 20 ms of calls) and one timed series of about target_s; returns its median
// and minimum. Calls rotate over the pool's operand sets, continuing from *next.
struct Series {
  double median_s = 0, min_s = 0;
  int reps = 0;
};
Series time_series(Contender& lib, const BufferPool& pool, const RunOptions& o, std::size_t* next) {
  std::vector<double> warm;
  double total = 0;
  do {
    const GemmCall g = pool.call((*next)++);
    warm.push_back(am::time_once([&] { lib.run(g); }));
    total += warm.back();
  } while (total < 0.02 && warm.size() < 200);
  const double est = warm.size() > 1 ? am::median({warm.begin() + 1, warm.end()}) : warm[0];
  const int reps = am::reps_for(est, o.target_s, o.min_reps, o.max_reps);
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const GemmCall g = pool.call((*next)++);
    t.push_back(am::time_once([&] { lib.run(g); }));
  }
  return Series{am::median(t), am::minimum(t), reps};
}

// A library's first turn on a shape: support, setup, the reference check, one timed series.
// Fills the record's result fields.
void grade_first(Contender& lib, BufferPool& pool, const RunOptions& o,
                 const HardwareLimit& limit, Json& r, std::size_t* next) {
  const GemmCall first = pool.call(0);
  if (!lib.supports(first)) {
    r["status"] = "unsupported";
    return;
  }
  try {
    r["setup_us"] = lib.prepare(first) * 1e6;
    pool.poison_output(0);
    lib.run(first);
    const CheckResult check = check_against_reference(first, 512, o.seed);
    r["correct"] = check.pass;
    r["error"] = std::isfinite(check.max_error) ? Json(check.max_error) : Json(nullptr);
    *next = 1;
    const Series t = time_series(lib, pool, o, next);
    r["status"] = "ok";
    r["round_medians_us"] = Json::array({t.median_s * 1e6});
    r["median_us"] = t.median_s * 1e6;
    r["min_us"] = t.min_s * 1e6;
    r["reps"] = t.reps;
    r["gflops"] = limit.flops / t.median_s * 1e-9;
    r["limit_fraction"] = limit.seconds / t.median_s;
  } catch (const std::exception& e) {
    r["status"] = "failed";
    r["message"] = e.what();
  }
}

// A further round: another timed series; the record keeps the fastest round's median (a burst
// of load from other tenants of the machine during one library's turn then costs it nothing).
void grade_again(Contender& lib, const BufferPool& pool, const RunOptions& o,
                 const HardwareLimit& limit, Json& r, std::size_t* next) {
  if (r["status"] != "ok") return;
  try {
    const Series t = time_series(lib, pool, o, next);
    r["round_medians_us"].push_back(t.median_s * 1e6);
    if (t.median_s * 1e6 < r["median_us"].get<double>()) {
      r["median_us"] = t.median_s * 1e6;
      r["gflops"] = limit.flops / t.median_s * 1e-9;
      r["limit_fraction"] = limit.seconds / t.median_s;
    }
    r["min_us"] = std::min(r["min_us"].get<double>(), t.min_s * 1e6);
  } catch (const std::exception& e) {
    r["status"] = "failed";
    r["message"] = e.what();
  }
}

// Bytes the operands of a shape's timed calls occupy: every set of its BufferPool.
double pool_total_bytes(const SuiteShape& s, double pool_bytes) {
  const SetElems e = set_elems(s);
  return static_cast<double>(pool_sets(e, pool_bytes)) * e.bytes();
}

// Bandwidth the operands come from in the timed calls: the level holding the whole pool (the
// cores' L2s, their L3 share, or DRAM), all threads reading.
double bandwidth_gbs(const HardwareProfile& hw, int threads, double resident_bytes) {
  const double t = threads;
  if (resident_bytes <= static_cast<double>(hw.l2_bytes) * t) return hw.bw_l2_gbs * t;
  if (resident_bytes <= static_cast<double>(hw.l3_bytes) * t) return hw.bw_l3_gbs * t;
  return std::min(hw.bw_dram_total_gbs, hw.bw_dram_core_gbs * t);
}

// adaptcore's context as the options ask: thread count, profile, kernel path.
std::unique_ptr<Context> bench_context(const RunOptions& o) {
  ContextOptions co;
  co.threads = o.threads;
  co.profile_path = o.profile;
  auto ctx = std::make_unique<Context>(co);
  if (ctx->init_status() != Status::Ok) throw std::runtime_error(ctx->init_message());
  if (o.isa != "auto") {
    Isa isa{};
    if (!parse_isa(o.isa, isa) || ctx->set_isa(isa) != Status::Ok)
      throw std::runtime_error("unsupported --isa " + o.isa);
  }
  return ctx;
}

// The hardware limit of a shape on ctx: its peak, and the bandwidth of where the shape's
// operand pool lives.
HardwareLimit shape_limit(const Context& ctx, const SuiteShape& s, double pool_bytes) {
  const int threads = ctx.threads();
  return hardware_limit(s.m, s.n, s.k, ctx.hardware().peak_gflops_per_core(ctx.isa()) * threads,
                        bandwidth_gbs(ctx.hardware(), threads, pool_total_bytes(s, pool_bytes)));
}

}  // namespace

Json predict_suite(const RunOptions& o, const std::vector<SuiteShape>& shapes) {
  const std::unique_ptr<Context> ctx_owner = bench_context(o);
  Context& ctx = *ctx_owner;
  Json records = Json::array();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const SuiteShape s = with_leading_dims(shapes[i]);
    const HardwareLimit limit = shape_limit(ctx, s, o.pool_bytes);
    const ModelView mv = model_view(ctx, s);
    Json r = shape_fields(i, s);
    r["lib"] = "adaptcore";
    r["status"] = "predicted";
    r["predicted_us"] = mv.predicted_us;
    r["plan"] = mv.plan;
    r["limit_us"] = limit.seconds * 1e6;
    r["limit_bound"] = limit.bound;
    r["predicted_limit_fraction"] = mv.predicted_us > 0 ? limit.seconds * 1e6 / mv.predicted_us : 0.0;
    records.push_back(std::move(r));
  }
  return records;
}

Json run_benchmark(const RunOptions& o, std::ostream* progress) {
  if (o.target_s <= 0 || o.min_reps < 1 || o.max_reps < o.min_reps || o.settle_s < 0 ||
      o.rounds < 1)
    throw std::runtime_error("bad timing options");
  std::vector<SuiteShape> shapes = load_suite(o.suite, "", o.seed, o.random_count);
  const bool full = o.suite == "full";
  if (full) {  // evenly spaced measured sample; the rest is graded by the model only
    std::vector<SuiteShape> sample;
    const std::size_t n = std::min(o.measure_sample, shapes.size());
    for (std::size_t i = 0; i < n; ++i) sample.push_back(shapes[i * shapes.size() / n]);
    shapes = std::move(sample);
  }

  const std::unique_ptr<Context> ctx_owner = bench_context(o);
  Context& ctx = *ctx_owner;
  const int threads = ctx.threads();
  const HardwareProfile& hw = ctx.hardware();
  const double peak = hw.peak_gflops_per_core(ctx.isa()) * threads;
  const double dram_bw = bandwidth_gbs(hw, threads, INFINITY);
  auto limit_of = [&](const SuiteShape& s) { return shape_limit(ctx, s, o.pool_bytes); };

  Json doc;
  doc["format"] = "adaptcore-bench";
  doc["version"] = 1;
  doc["suite"] = o.suite;
  doc["threads"] = threads;
  doc["date"] = utc_now();
  doc["peak_gflops"] = peak;
  doc["dram_gbs"] = dram_bw;
  doc["hardware"] = Json::parse(to_json(hw));
  doc["options"] = {{"target_s", o.target_s}, {"min_reps", o.min_reps}, {"max_reps", o.max_reps},
                    {"settle_s", o.settle_s}, {"max_gflop", o.max_gflop}, {"seed", o.seed},
                    {"pool_bytes", o.pool_bytes}, {"rounds", o.rounds}, {"isa", to_string(ctx.isa())}};

  // Libraries: adaptcore, then every vendor that loads (a missing one is listed as skipped).
  std::vector<Contender> contenders;
  contenders.push_back(adaptcore_contender(ctx));
  Json libs = Json::array();
  libs.push_back({{"name", "adaptcore"}, {"version", version()}, {"status", "ok"}});
  std::vector<std::unique_ptr<Baseline>> loaded;
  const std::vector<std::string> names =
      !o.vendors ? std::vector<std::string>{} : o.libs.empty() ? baseline_names() : o.libs;
  for (const std::string& name : names) {
    LoadedBaseline lb = load_baseline(name, threads);
    if (!lb.lib) {
      libs.push_back({{"name", name}, {"status", "skipped"}, {"message", lb.message}});
      if (progress != nullptr) *progress << "skipping " << name << ": " << lb.message << '\n';
      continue;
    }
    libs.push_back({{"name", name}, {"version", lb.lib->version()}, {"status", "ok"}});
    loaded.push_back(std::move(lb.lib));
    contenders.push_back(vendor_contender(*loaded.back()));
  }
  doc["libraries"] = libs;

  // Work estimate per shape for the ETA: its FMA time plus a fixed cost per library turn.
  std::vector<std::size_t> kept;
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    shapes[i] = with_leading_dims(shapes[i]);
    const double gflop = 2e-9 * static_cast<double>(shapes[i].m) * static_cast<double>(shapes[i].n) *
                         static_cast<double>(shapes[i].k);
    if (o.max_gflop > 0 && gflop > o.max_gflop) ++skipped;
    else kept.push_back(i);
  }
  doc["skipped_shapes"] = skipped;
  // Work estimate per (shape, library) for the ETA: a few calls at the hardware limit plus the
  // fixed warm-up and timing budget; each library's turn on a chunk adds one settle pause.
  auto weight = [&](const SuiteShape& s) {
    return 0.03 + o.target_s + 4 * limit_of(s).seconds;
  };
  double total_weight = 0, done_weight = 0;
  for (std::size_t i : kept)
    total_weight += weight(shapes[i]) * static_cast<double>(contenders.size() * o.rounds);

  // Libraries take turns on chunks of shapes: one settle pause per library and chunk, instead of
  // one per shape, while a chunk stays short enough that slow drifts of the machine (other
  // tenants, clocks) hit every library alike. A chunk's operand pools stay allocated for it.
  const bool tty = progress != nullptr && isatty(STDERR_FILENO) != 0;
  std::vector<Json> slots(kept.size() * contenders.size());
  const double t0 = am::now_seconds();
  double last_report = -1;
  for (std::size_t begin = 0; begin < kept.size();) {
    std::vector<std::unique_ptr<BufferPool>> pools;
    std::vector<ModelView> views;
    double chunk_bytes = 0;
    std::size_t end = begin;
    while (end < kept.size() && end - begin < o.chunk_shapes &&
           (end == begin || chunk_bytes < o.chunk_bytes)) {
      const SuiteShape& s = shapes[kept[end]];
      pools.push_back(std::make_unique<BufferPool>(s, o.pool_bytes));
      chunk_bytes += pools.back()->bytes();
      views.push_back(model_view(ctx, s));
      ++end;
    }
    // Rounds alternate the order of the libraries (forward, backward, ...).
    std::vector<std::size_t> next(end - begin, 0);
    for (int round = 0; round < o.rounds; ++round) {
      for (std::size_t step = 0; step < contenders.size(); ++step) {
        const std::size_t li = round % 2 == 0 ? step : contenders.size() - 1 - step;
        Contender& lib = contenders[li];
        std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));
        for (std::size_t idx = begin; idx < end; ++idx) {
          const SuiteShape& s = shapes[kept[idx]];
          const double elapsed = am::now_seconds() - t0;
          if (progress != nullptr && (tty || elapsed - last_report >= 10)) {
            last_report = elapsed;
            const double frac = total_weight > 0 ? done_weight / total_weight : 0;
            *progress << (tty ? "\r" : "") << "[" << idx + 1 << '/' << kept.size() << "] "
                      << std::setw(3) << static_cast<int>(100 * frac) << "%  eta "
                      << (frac > 0.01 ? duration_text(elapsed / frac - elapsed) : std::string("?"))
                      << "  " << shape_text(s) << ' ' << lib.name << (tty ? "          " : "\n")
                      << std::flush;
          }
          const HardwareLimit limit = limit_of(s);
          Json& r = slots[idx * contenders.size() + li];
          std::size_t* cursor = &next[idx - begin];
          if (round == 0) {
            r = shape_fields(kept[idx], s);
            r["lib"] = lib.name;
            r["limit_us"] = limit.seconds * 1e6;
            r["limit_bound"] = limit.bound;
            grade_first(lib, *pools[idx - begin], o, limit, r, cursor);
            if (li == 0) {  // adaptcore
              r["predicted_us"] = views[idx - begin].predicted_us;
              r["plan"] = views[idx - begin].plan;
            }
          } else {
            grade_again(lib, *pools[idx - begin], o, limit, r, cursor);
          }
          done_weight += weight(s);
        }
      }
    }
    begin = end;
  }
  if (progress != nullptr)
    *progress << (tty ? "\r" : "") << "done: " << kept.size() << " shapes in "
              << duration_text(am::now_seconds() - t0) << std::string(40, ' ') << '\n';
  Json records = Json::array();
  for (Json& r : slots) records.push_back(std::move(r));
  doc["records"] = std::move(records);
  return doc;
}

}  // namespace adaptcore::bench
