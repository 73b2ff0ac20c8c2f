#include "harness/runner_moe.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"
#include "harness/moe_routing.hpp"
#include "measure/bench_util.hpp"

namespace adaptcore::bench {
namespace {

namespace am = adaptcore::measure;
using Json = nlohmann::ordered_json;

// One projection's experts: E matrices k x n (row-major, as a checkpoint stores them) and
// adaptcore's packed handles of them (packed once, for any M).
struct Experts {
  int64_t k = 0, n = 0;
  std::vector<am::FloatBuffer> raw;
  std::vector<PackedWeights> packed;
  std::vector<const PackedWeights*> handles;
  double pack_s = 0.0;  // adaptcore's packing of all of them
};

Experts make_experts(int experts, int64_t k, int64_t n, std::uint64_t seed, Context& ctx) {
  Experts x;
  x.k = k, x.n = n;
  x.packed.resize(static_cast<std::size_t>(experts));
  for (int e = 0; e < experts; ++e) {
    x.raw.push_back(am::make_buffer(static_cast<std::size_t>(k * n)));
    am::fill_uniform(x.raw.back().get(), static_cast<std::size_t>(k * n), seed * 1000 + e);
    const double t0 = am::now_seconds();
    const Status s = pack_weights(Layout::RowMajor, Trans::No, k, n, x.raw.back().get(), n,
                                  x.packed[static_cast<std::size_t>(e)], {}, ctx);
    x.pack_s += am::now_seconds() - t0;
    if (s != Status::Ok) throw std::runtime_error(std::string("pack_weights: ") + to_string(s));
    x.handles.push_back(&x.packed[static_cast<std::size_t>(e)]);
  }
  return x;
}

// A case: one half of one model's expert FFN for one routing of `tokens` tokens.
struct MoeCase {
  const MoeModel* model;
  bool up;  // hidden -> ffn with a gather of the tokens; else ffn -> hidden with the scatter
  Routing routing;
  int64_t tokens;
  MoeRouting route;
  std::vector<int64_t> first;  // each expert's first routed row
  int64_t routed() const { return route.routed(); }
};

// The operands of a case: input rows (tokens x hidden for up, routed x ffn for down) and the
// output (routed x ffn, or tokens x hidden), plus scratch for the baselines.
struct Buffers {
  am::FloatBuffer in, out;
  int64_t in_rows = 0, out_rows = 0;
};

// Evicts the caches between timed calls: a model's next MoE layer finds its experts in
// memory, not where the previous call of the same layer left them (the active experts of a
// decode step, 50-70 MB for two of the models, would otherwise partly stay in the L3).
class CacheFlush {
 public:
  CacheFlush() {
    const HardwareProfile& hw = detected_hardware();
    const auto bytes = static_cast<std::size_t>(std::max<int64_t>(
        int64_t{3} * std::max(hw.l3_warm_bytes, hw.l3_bytes) * hw.cores, int64_t{96} << 20));
    floats_ = bytes / sizeof(float);
    buf_ = am::make_buffer(floats_);
    std::memset(buf_.get(), 0, floats_ * sizeof(float));
  }
  // Reads one float per line: the caches end up holding clean lines of this buffer, which the
  // timed call evicts without writing anything back.
  void operator()() {
    const float* p = buf_.get();
    float sum = 0.0f;
    for (std::size_t i = 0; i < floats_; i += 16) sum += p[i];
    sink_ = sum;
  }

 private:
  std::size_t floats_ = 0;
  am::FloatBuffer buf_;
  volatile float sink_ = 0.0f;
};

// Median seconds of fn over about target_s of calls (at least 5, at most 200), each after the
// caches were flushed, after one warm-up.
double time_median(const std::function<void()>& fn, double target_s, CacheFlush& flush) {
  fn();
  flush();
  const double one = am::time_once(fn);
  const int reps = am::reps_for(one, target_s, 5, 200);
  std::vector<double> t{one};
  for (int i = 1; i < reps; ++i) {
    flush();
    t.push_back(am::time_once(fn));
  }
  return am::median(t);
}

// Sampled elements of the case's output against a double-precision reference. `at(row, col)`
// returns the library's value of output element (row, col) (for up: routed row r; for down:
// token t). Returns "ok" or the first mismatch.
std::string check_sampled(const MoeCase& c, const Experts& x, const Buffers& b,
                          const std::function<float(int64_t, int64_t)>& at) {
  const int64_t R = c.routed(), n = x.n, k = x.k;
  if (R == 0) return "ok";
  std::vector<int64_t> expert_of(static_cast<std::size_t>(R));
  for (std::size_t e = 0; e + 1 < c.first.size(); ++e)
    for (int64_t r = c.first[e]; r < c.first[e + 1]; ++r)
      expert_of[static_cast<std::size_t>(r)] = static_cast<int64_t>(e);
  auto product = [&](int64_t r, int64_t j, double& abs_sum) {
    const float* a =
        c.up ? b.in.get() + c.route.token[static_cast<std::size_t>(r)] * k : b.in.get() + r * k;
    const float* w = x.raw[static_cast<std::size_t>(expert_of[static_cast<std::size_t>(r)])].get();
    double s = 0.0;
    for (int64_t p = 0; p < k; ++p) {
      const double v = static_cast<double>(a[p]) * w[p * n + j];
      s += v, abs_sum += std::fabs(v);
    }
    return s;
  };
  const double eps = 1.1920929e-07;
  std::uint64_t s = 12345;
  auto next = [&](int64_t bound) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((s >> 33) % static_cast<std::uint64_t>(bound));
  };
  for (int sample = 0; sample < 48; ++sample) {
    const int64_t j = next(n);
    double ref = 0.0, abs_sum = 0.0;
    int64_t row = 0;
    if (c.up) {
      row = next(R);
      ref = product(row, j, abs_sum);
    } else {
      row = c.route.token[static_cast<std::size_t>(next(R))];
      for (int64_t r = 0; r < R; ++r)
        if (c.route.token[static_cast<std::size_t>(r)] == row) {
          double part = 0.0;
          const double wr = c.route.weight[static_cast<std::size_t>(r)];
          ref += wr * product(r, j, part);
          abs_sum += wr * part;
        }
    }
    const double got = at(row, j);
    if (!(std::fabs(got - ref) <= 4.0 * static_cast<double>(k + 4) * eps * abs_sum + 1e-30)) {
      std::ostringstream os;
      os << "wrong: (" << row << ", " << j << ") = " << got << ", reference " << ref;
      return os.str();
    }
  }
  return "ok";
}

// Copies the routed rows' inputs (gather) into `dst` in expert order, rows ld apart.
void gather_rows(const MoeCase& c, const float* x, int64_t k, float* dst) {
  for (int64_t r = 0; r < c.routed(); ++r)
    std::memcpy(dst + r * k, x + c.route.token[static_cast<std::size_t>(r)] * k,
                static_cast<std::size_t>(k) * sizeof(float));
}

// out[token] = sum over its routed rows of weight * y[row] (rows in expert order, ld n).
void scatter_rows(const MoeCase& c, const float* y, int64_t n, float* out) {
  std::memset(out, 0, static_cast<std::size_t>(c.tokens * n) * sizeof(float));
  for (int64_t r = 0; r < c.routed(); ++r) {
    float* o = out + c.route.token[static_cast<std::size_t>(r)] * n;
    const float w = c.route.weight[static_cast<std::size_t>(r)];
    const float* src = y + r * n;
    for (int64_t j = 0; j < n; ++j) o[j] += w * src[j];
  }
}

struct Lib {
  std::string name;
  std::function<void()> run;
  std::function<float(int64_t, int64_t)> at;  // the output element, after run
};

Json run_case(MoeCase& c, const Experts& x, Context& ctx, Baseline* mkl, Baseline* dnn,
              const RunOptions& o, CacheFlush& flush) {
  const int64_t R = c.routed(), k = x.k, n = x.n;
  Buffers b;
  b.in_rows = c.up ? c.tokens : R;
  b.out_rows = c.up ? R : c.tokens;
  b.in = am::make_buffer(static_cast<std::size_t>(b.in_rows * k));
  am::fill_uniform(b.in.get(), static_cast<std::size_t>(b.in_rows * k), 77 + c.tokens);
  b.out = am::make_buffer(static_cast<std::size_t>(b.out_rows * n));
  // Baselines' scratch: gathered inputs (up) or per-row results before the scatter (down).
  am::FloatBuffer mid = am::make_buffer(static_cast<std::size_t>(R * (c.up ? k : n)));
  std::vector<int64_t> active;
  int64_t max_rows = 0;
  for (std::size_t e = 0; e < c.route.expert_rows.size(); ++e)
    if (c.route.expert_rows[e] > 0) {
      active.push_back(static_cast<int64_t>(e));
      max_rows = std::max(max_rows, c.route.expert_rows[e]);
    }
  // adaptcore: one grouped call.
  GroupedGemm g;
  g.experts = static_cast<int64_t>(c.route.expert_rows.size());
  g.expert_rows = c.route.expert_rows.data();
  g.weights = x.handles.data();
  g.k = k, g.n = n;
  g.a = b.in.get(), g.lda = k, g.a_rows = b.in_rows;
  g.gather = c.up ? c.route.token.data() : nullptr;
  g.c = b.out.get(), g.ldc = n, g.c_rows = b.out_rows;
  g.scatter = c.up ? nullptr : c.route.token.data();
  g.scatter_weights = c.up ? nullptr : c.route.weight.data();
  std::vector<Lib> libs;
  libs.push_back({"adaptcore",
                  [&] {
                    const Status s = gemm_grouped(g, {}, ctx);
                    if (s != Status::Ok)
                      throw std::runtime_error(std::string("gemm_grouped: ") + to_string(s));
                  },
                  [&](int64_t r, int64_t j) { return b.out.get()[r * n + j]; }});
  // The expert calls of the baselines: rows of expert e at first[e] of the routed order.
  auto expert_call = [&](int64_t e, const float* a, float* out) {
    const int64_t r0 = c.first[static_cast<std::size_t>(e)];
    return GemmCall{c.route.expert_rows[static_cast<std::size_t>(e)],
                    n,
                    k,
                    false,
                    false,
                    a + r0 * k,
                    k,
                    x.raw[static_cast<std::size_t>(e)].get(),
                    n,
                    out + r0 * n,
                    n};
  };
  // A loop over the experts on a library's packed weights (its own layout per expert count:
  // packed for this case before timing).
  auto loop_over = [&](Baseline* lib) {
    for (const int64_t e : active) lib->pack(expert_call(e, b.in.get(), b.out.get()));
    return [&, lib] {
      if (c.up) {
        gather_rows(c, b.in.get(), k, mid.get());
        for (const int64_t e : active) lib->run_packed(expert_call(e, mid.get(), b.out.get()));
      } else {
        for (const int64_t e : active) lib->run_packed(expert_call(e, b.in.get(), mid.get()));
        scatter_rows(c, mid.get(), n, b.out.get());
      }
    };
  };
  auto out_at = [&](int64_t r, int64_t j) { return b.out.get()[r * n + j]; };
  const GemmCall first_call = expert_call(active.empty() ? 0 : active[0], b.in.get(), b.out.get());
  if (!active.empty() && mkl != nullptr && mkl->supports_packed(first_call))
    libs.push_back({"loop-mkl-packed", loop_over(mkl), out_at});
  if (!active.empty() && dnn != nullptr && dnn->supports_packed(first_call))
    libs.push_back({"loop-onednn-packed", loop_over(dnn), out_at});
  // MKL's batch: a group per expert, B as stored.
  am::FloatBuffer padded_in, padded_out;
  if (!active.empty() && mkl != nullptr && mkl->supports_batch()) {
    libs.push_back({"mkl-batch-groups",
                    [&] {
                      std::vector<GemmCall> calls;
                      if (c.up) {
                        gather_rows(c, b.in.get(), k, mid.get());
                        for (const int64_t e : active)
                          calls.push_back(expert_call(e, mid.get(), b.out.get()));
                        mkl->run_batch(calls, false);
                      } else {
                        for (const int64_t e : active)
                          calls.push_back(expert_call(e, b.in.get(), mid.get()));
                        mkl->run_batch(calls, false);
                        scatter_rows(c, mid.get(), n, b.out.get());
                      }
                    },
                    out_at});
    // Padded batch: every active expert max_rows rows (zero padding), one group.
    const auto slots = static_cast<int64_t>(active.size());
    padded_in = am::make_buffer(static_cast<std::size_t>(slots * max_rows * k));
    padded_out = am::make_buffer(static_cast<std::size_t>(slots * max_rows * n));
    std::memset(padded_in.get(), 0, static_cast<std::size_t>(slots * max_rows * k) * 4);
    libs.push_back(
        {"mkl-padded-batch",
         [&, slots] {
           std::vector<GemmCall> calls;
           for (int64_t s = 0; s < slots; ++s) {
             const int64_t e = active[static_cast<std::size_t>(s)];
             const int64_t r0 = c.first[static_cast<std::size_t>(e)];
             float* a = padded_in.get() + s * max_rows * k;
             const int64_t rows = c.route.expert_rows[static_cast<std::size_t>(e)];
             for (int64_t i = 0; i < rows; ++i)
               std::memcpy(a + i * k,
                           c.up ? b.in.get() + c.route.token[static_cast<std::size_t>(r0 + i)] * k
                                : b.in.get() + (r0 + i) * k,
                           static_cast<std::size_t>(k) * 4);
             calls.push_back(GemmCall{max_rows, n, k, false, false, a, k,
                                      x.raw[static_cast<std::size_t>(e)].get(), n,
                                      padded_out.get() + s * max_rows * n, n});
           }
           mkl->run_batch(calls, true);
           if (!c.up) {  // scatter from the padded rows
             std::memset(b.out.get(), 0, static_cast<std::size_t>(c.tokens * n) * 4);
             for (int64_t s = 0; s < slots; ++s) {
               const int64_t e = active[static_cast<std::size_t>(s)];
               const int64_t r0 = c.first[static_cast<std::size_t>(e)];
               for (int64_t i = 0; i < c.route.expert_rows[static_cast<std::size_t>(e)]; ++i) {
                 float* out = b.out.get() + c.route.token[static_cast<std::size_t>(r0 + i)] * n;
                 const float w = c.route.weight[static_cast<std::size_t>(r0 + i)];
                 const float* src = padded_out.get() + (s * max_rows + i) * n;
                 for (int64_t j = 0; j < n; ++j) out[j] += w * src[j];
               }
             }
           }
         },
         [&, slots](int64_t r, int64_t j) {
           if (!c.up) return b.out.get()[r * n + j];
           // Routed row r in the padded output: its expert's slot and row.
           for (int64_t s = 0; s < slots; ++s) {
             const int64_t e = active[static_cast<std::size_t>(s)];
             const int64_t r0 = c.first[static_cast<std::size_t>(e)];
             if (r >= r0 && r < r0 + c.route.expert_rows[static_cast<std::size_t>(e)])
               return padded_out.get()[(s * max_rows + (r - r0)) * n + j];
           }
           return 0.0f;
         }});
  }
  Json rec;
  rec["model"] = c.model->name;
  rec["half"] = c.up ? "up" : "down";
  rec["routing"] = to_string(c.routing);
  rec["tokens"] = c.tokens;
  rec["routed_rows"] = R;
  rec["active_experts"] = active.size();
  rec["max_rows"] = max_rows;
  rec["k"] = k;
  rec["n"] = n;
  rec["gflop"] =
      2.0 * static_cast<double>(R) * static_cast<double>(k) * static_cast<double>(n) / 1e9;
  // Two rounds, the order reversed in the second; each library's faster median counts.
  std::vector<double> best(libs.size(), 0.0);
  std::vector<std::string> checks(libs.size(), "ok");
  for (int round = 0; round < 2; ++round)
    for (std::size_t i0 = 0; i0 < libs.size(); ++i0) {
      const std::size_t i = round == 0 ? i0 : libs.size() - 1 - i0;
      if (o.settle_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.settle_s));
      try {
        const double t = time_median(libs[i].run, o.target_s, flush);
        best[i] = best[i] == 0.0 ? t : std::min(best[i], t);
        if (round == 0) checks[i] = check_sampled(c, x, b, libs[i].at);
      } catch (const std::exception& ex) {
        checks[i] = std::string("error: ") + ex.what();
        best[i] = -1.0;
      }
    }
  Json times = Json::object();
  double best_base = 0.0;
  std::string best_name;
  for (std::size_t i = 0; i < libs.size(); ++i) {
    times[libs[i].name] = {{"us", best[i] * 1e6}, {"check", checks[i]}};
    if (i > 0 && best[i] > 0 && checks[i] == "ok" && (best_base == 0.0 || best[i] < best_base))
      best_base = best[i], best_name = libs[i].name;
  }
  rec["libs"] = times;
  rec["adaptcore_us"] = best[0] * 1e6;
  rec["adaptcore_gflops"] = best[0] > 0 ? rec["gflop"].get<double>() / best[0] : 0.0;
  rec["best_baseline"] = best_name;
  rec["best_baseline_us"] = best_base * 1e6;
  rec["speedup"] = best[0] > 0 && best_base > 0 ? best_base / best[0] : 0.0;
  // The schedule: predicted and measured per-core times (median of 5 calls per core).
  GroupedSchedule sched;
  if (explain_grouped(g, sched, ctx) == Status::Ok) {
    std::vector<std::vector<double>> runs(static_cast<std::size_t>(sched.threads));
    for (int rep = 0; rep < 5; ++rep) {
      GroupedSchedule m;
      flush();
      if (gemm_grouped(g, {}, ctx, &m) != Status::Ok) break;
      for (std::size_t t = 0; t < runs.size() && t < m.core_measured_us.size(); ++t)
        runs[t].push_back(m.core_measured_us[t]);
    }
    std::vector<double> measured;
    for (auto& r : runs) measured.push_back(am::median(r));
    rec["units"] = sched.units.size();
    rec["core_predicted_us"] = sched.core_predicted_us;
    rec["core_measured_us"] = measured;
    rec["predicted_spread"] = core_spread(sched.core_predicted_us);
    rec["measured_spread"] = core_spread(measured);
  }
  return rec;
}

double geomean(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += std::log(x);
  return v.empty() ? 0.0 : std::exp(s / static_cast<double>(v.size()));
}

}  // namespace

double core_spread(const std::vector<double>& core_us) noexcept {
  if (core_us.empty()) return 0.0;
  double mean = 0.0, hi = 0.0;
  for (const double v : core_us) mean += v, hi = std::max(hi, v);
  mean /= static_cast<double>(core_us.size());
  return mean > 0.0 ? hi / mean - 1.0 : 0.0;
}

Json run_moe_suite(const RunOptions& o, std::ostream* progress) {
  ContextOptions co;
  co.threads = o.threads;
  Context ctx(co);
  if (o.isa != "auto") {
    Isa isa{};
    if (!parse_isa(o.isa, isa)) throw std::runtime_error("unknown --isa " + o.isa);
    if (ctx.set_isa(isa) != Status::Ok) throw std::runtime_error("--isa " + o.isa + " refused");
  }
  const int threads = ctx.threads();
  auto wanted = [&](const std::string& name) {
    return o.vendors &&
           (o.libs.empty() || std::find(o.libs.begin(), o.libs.end(), name) != o.libs.end());
  };
  LoadedBaseline mkl, dnn;
  if (wanted("mkl")) mkl = load_baseline("mkl", threads);
  if (wanted("onednn")) dnn = load_baseline("onednn", threads);
  Json doc;
  doc["suite"] = "moe";
  doc["threads"] = threads;
  doc["max_gflop"] = o.max_gflop;
  doc["libraries"] = {{"mkl", mkl.lib ? mkl.lib->version() : mkl.message},
                      {"onednn", dnn.lib ? dnn.lib->version() : dnn.message}};
  Json records = Json::array();
  CacheFlush flush;
  const Routing routings[] = {Routing::Uniform, Routing::Zipf, Routing::Hot};
  for (const MoeModel& model : moe_models()) {
    for (const bool up : {true, false}) {
      const int64_t k = up ? model.hidden : model.ffn, n = up ? model.ffn : model.hidden;
      // Cases of this half within the cap; the experts are made only if one remains.
      std::vector<MoeCase> cases;
      for (const int64_t tokens : moe_token_counts())
        for (const Routing routing : routings) {
          MoeCase c{&model, up, routing, tokens, route_tokens(model, tokens, routing, o.seed), {}};
          const double gflop = 2.0 * static_cast<double>(c.routed()) * static_cast<double>(k) *
                               static_cast<double>(n) / 1e9;
          if (o.max_gflop > 0 && gflop > o.max_gflop) continue;
          c.first.assign(c.route.expert_rows.size() + 1, 0);
          for (std::size_t e = 0; e < c.route.expert_rows.size(); ++e)
            c.first[e + 1] = c.first[e] + c.route.expert_rows[e];
          cases.push_back(std::move(c));
        }
      if (cases.empty()) continue;
      if (progress != nullptr)
        *progress << model.name << " " << (up ? "up" : "down") << ": packing " << model.experts
                  << " experts of " << k << " x " << n << "\n";
      const Experts x = make_experts(model.experts, k, n, o.seed + (up ? 0 : 7), ctx);
      for (MoeCase& c : cases) {
        Json rec = run_case(c, x, ctx, mkl.lib.get(), dnn.lib.get(), o, flush);
        rec["adaptcore_pack_s"] = x.pack_s;
        if (progress != nullptr)
          *progress << "  " << model.name << " " << (up ? "up  " : "down") << " "
                    << to_string(c.routing) << " tokens " << c.tokens << ": adaptcore "
                    << rec["adaptcore_us"].get<double>() << " us, best baseline "
                    << rec["best_baseline"].get<std::string>() << " "
                    << rec["best_baseline_us"].get<double>() << " us, x"
                    << rec["speedup"].get<double>() << "\n";
        records.push_back(std::move(rec));
      }
      // The vendors' packed copies of this half's experts are released with the half.
      for (const auto& r : x.raw) {
        const GemmCall any{1, n, k, false, false, nullptr, k, r.get(), n, nullptr, n};
        if (mkl.lib) mkl.lib->release_packed(any);
        if (dnn.lib) dnn.lib->release_packed(any);
      }
    }
  }
  doc["records"] = records;
  return doc;
}

std::string moe_csv(const Json& doc) {
  std::ostringstream os;
  os << "model,half,routing,tokens,routed_rows,active_experts,max_rows,k,n,gflop,adaptcore_us,"
        "adaptcore_gflops,best_baseline,best_baseline_us,speedup,loop_mkl_packed_us,"
        "loop_onednn_packed_us,mkl_batch_groups_us,mkl_padded_batch_us,predicted_spread,"
        "measured_spread,checks\n";
  for (const auto& r : doc["records"]) {
    auto lib_us = [&](const char* name) {
      return r["libs"].contains(name) ? r["libs"][name]["us"].get<double>() : 0.0;
    };
    std::string checks;
    for (const auto& [name, v] : r["libs"].items())
      if (v["check"] != "ok") checks += name + ":" + v["check"].get<std::string>() + " ";
    os << r["model"].get<std::string>() << ',' << r["half"].get<std::string>() << ','
       << r["routing"].get<std::string>() << ',' << r["tokens"] << ',' << r["routed_rows"] << ','
       << r["active_experts"] << ',' << r["max_rows"] << ',' << r["k"] << ',' << r["n"] << ','
       << r["gflop"].get<double>() << ',' << r["adaptcore_us"].get<double>() << ','
       << r["adaptcore_gflops"].get<double>() << ',' << r["best_baseline"].get<std::string>() << ','
       << r["best_baseline_us"].get<double>() << ',' << r["speedup"].get<double>() << ','
       << lib_us("loop-mkl-packed") << ',' << lib_us("loop-onednn-packed") << ','
       << lib_us("mkl-batch-groups") << ',' << lib_us("mkl-padded-batch") << ','
       << r.value("predicted_spread", 0.0) << ',' << r.value("measured_spread", 0.0) << ','
       << (checks.empty() ? "ok" : checks) << '\n';
  }
  return os.str();
}

void print_moe_summary(const Json& doc, std::ostream& os) {
  std::map<std::string, std::vector<double>> by;
  std::vector<double> all, spreads_ok;
  int spread_cases = 0, wrong = 0;
  for (const auto& r : doc["records"]) {
    for (const auto& [name, v] : r["libs"].items())
      if (v["check"] != "ok") ++wrong;
    const double s = r["speedup"].get<double>();
    if (!(s > 0)) continue;
    all.push_back(s);
    by["model " + r["model"].get<std::string>()].push_back(s);
    by["half " + r["half"].get<std::string>()].push_back(s);
    by["routing " + r["routing"].get<std::string>()].push_back(s);
    by["tokens " + std::to_string(r["tokens"].get<int64_t>())].push_back(s);
    // "Where the work allows": at least two units per core and 1 ms of predicted work per core.
    const auto units = r.value("units", 0);
    const auto pred = r.value("core_predicted_us", std::vector<double>{});
    double mean = 0.0;
    for (const double v : pred) mean += v;
    if (!pred.empty()) mean /= static_cast<double>(pred.size());
    if (units >= 2 * static_cast<int>(pred.size()) && mean >= 1000.0) {
      ++spread_cases;
      if (r.value("measured_spread", 1.0) <= 0.10) spreads_ok.push_back(1.0);
    }
  }
  os << "\nmoe suite, " << doc["threads"] << " thread(s), " << all.size() << " cases"
     << (doc["max_gflop"].get<double>() > 0
             ? " (<= " + std::to_string(doc["max_gflop"].get<double>()) + " GFLOP per half)"
             : std::string())
     << "; checks failed: " << wrong << "\n";
  os << "  speedup over the best baseline per case, geomean: " << geomean(all) << "\n";
  for (const auto& [key, v] : by)
    os << "    " << key << ": " << geomean(v) << " (" << v.size() << " cases, min "
       << *std::min_element(v.begin(), v.end()) << ")\n";
  os << "  measured per-core spread <= 10%: " << spreads_ok.size() << " of " << spread_cases
     << " cases with >= 2 units and >= 1 ms of predicted work per core\n";
}

}  // namespace adaptcore::bench
