// `adaptcore validate-model`: measures, for each shape of a sample, the candidates the planner
// enumerates (all, or the model's top 8 plus 8 others drawn at random) and reports how good
// the model's choice was (regret = time of the choice / time of the fastest measured), how
// well it ranks the candidates, and how close its predicted times are.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "hw/cpu_identity.hpp"
#include "measure/bench_util.hpp"
#include "model_validation.hpp"

namespace adaptcore::cli {
namespace {

struct ValidateArgs {
  ContextArgs ctx;
  std::string shapes_file;
  int sample = 0;
  std::uint64_t seed = 1;
  double max_gflop = 4.0;  // sampled shapes above this are redrawn (keeps a run to minutes)
  double target_s = 0.05;  // timed seconds per candidate
  std::size_t max_candidates = 16;
  std::string json_out;
  // Operands rotate over sets of buffers totalling this many MiB (0: one set, reused, so the
  // operands stay as warm as the caches allow), as `adaptcore bench` times the libraries.
  double pool_mib = 64;
  bool trans_b = false;  // sampled shapes with B stored n x k (a framework's weights)
};

struct Shape {
  int64_t m, n, k;
  bool ta = false, tb = false;
};

// "M N K", optionally followed by the layouts of A and B as N or T (the suite files' form).
std::string layout_of(const Shape& s) { return std::string(s.ta ? "T" : "N") + (s.tb ? "T" : "N"); }

std::vector<Shape> read_shapes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<Shape> out;
  std::string line;
  while (std::getline(in, line)) {
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::replace(line.begin(), line.end(), 'x', ' ');
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream ss(line);
    Shape s{};
    if (ss >> s.m >> s.n >> s.k) {
      if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > kMaxCliDim || s.n > kMaxCliDim || s.k > kMaxCliDim)
        throw std::runtime_error("bad shape line (dimensions in 1.." + std::to_string(kMaxCliDim) +
                                 "): " + line);
      std::string ta, tb;
      if (ss >> ta) {
        if (!(ss >> tb) || (ta != "N" && ta != "T") || (tb != "N" && tb != "T"))
          throw std::runtime_error("bad layouts (N or T for A and B): " + line);
        s.ta = ta == "T";
        s.tb = tb == "T";
      }
      out.push_back(s);
    }
  }
  return out;
}

// LLM-like shapes: M log-uniform in [1, 4096] (tokens), N and K from model widths.
std::vector<Shape> sample_shapes(int count, std::uint64_t seed, double max_gflop, bool trans_b) {
  static constexpr int64_t kWidths[] = {1024, 2048, 4096, 5120, 8192, 11008, 14336};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> logm(0.0, std::log(4096.0));
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWidths) - 1);
  std::vector<Shape> out;
  while (static_cast<int>(out.size()) < count) {
    Shape s{std::max<int64_t>(1, std::llround(std::exp(logm(rng)))), kWidths[pick(rng)],
            kWidths[pick(rng)], false, trans_b};
    if (2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <=
        max_gflop * 1e9)
      out.push_back(s);
  }
  return out;
}

void run_validate(const ValidateArgs& args) {
  auto ctx = make_context(args.ctx);
  if (!ctx) throw CLI::RuntimeError(1);
  detail::ContextImpl& impl = ::adaptcore::detail::impl_of(*ctx);
  const std::vector<Shape> shapes =
      args.shapes_file.empty() ? sample_shapes(args.sample, args.seed, args.max_gflop, args.trans_b)
                               : read_shapes(args.shapes_file);
  if (shapes.empty()) {
    std::cerr << "error: no shapes (give --shapes FILE or --sample N)\n";
    throw CLI::RuntimeError(1);
  }
  ThreadPool pool(ctx->threads());
  std::mt19937_64 rng(args.seed ^ 0x5bd1e995ULL);

  std::vector<validation::ShapeResult> results;
  const double t_start = measure::now_seconds();
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    // The operand sets this shape's calls rotate over.
    const auto a_n = static_cast<std::size_t>(s.m * s.k), b_n = static_cast<std::size_t>(s.k * s.n),
               c_n = static_cast<std::size_t>(s.m * s.n);
    const double set_bytes = 4.0 * static_cast<double>(a_n + b_n + c_n);
    const std::size_t sets = measure::pool_sets(set_bytes, args.pool_mib * 1048576.0);
    std::vector<measure::FloatBuffer> bufs;
    std::vector<GemmProblem> probs(sets);
    for (std::size_t i = 0; i < sets; ++i) {
      bufs.push_back(measure::make_buffer(a_n));
      float* a = bufs.back().get();
      bufs.push_back(measure::make_buffer(b_n));
      float* b = bufs.back().get();
      bufs.push_back(measure::make_buffer(c_n));
      float* c = bufs.back().get();
      measure::fill_uniform(a, a_n, 1 + 2 * i);
      measure::fill_uniform(b, b_n, 2 + 2 * i);
      if (make_problem(Layout::RowMajor, s.ta ? Trans::Yes : Trans::No,
                       s.tb ? Trans::Yes : Trans::No, s.m, s.n, s.k, 1.0f, a, s.ta ? s.m : s.k, b,
                       s.tb ? s.k : s.n, 0.0f, c, s.n, probs[i]) != Status::Ok)
        throw std::runtime_error("invalid shape");
    }
    const GemmProblem& prob = probs[0];
    std::size_t next_set = 0;
    // The candidates run over rotating operand sets: the plans for operands in memory.
    const ShapeKey key = impl.key_for(prob, sets > 1);
    const Explanation e = impl.explain(key);
    // The model's ranking; its choice first.
    std::vector<std::size_t> order(e.candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return e.candidates[x].cost.total_us < e.candidates[y].cost.total_us;
    });
    std::vector<std::size_t> picked;
    if (order.size() <= args.max_candidates) {
      picked = order;
    } else {
      const std::size_t top = args.max_candidates / 2;
      picked.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top));
      std::vector<std::size_t> rest(order.begin() + static_cast<std::ptrdiff_t>(top), order.end());
      std::shuffle(rest.begin(), rest.end(), rng);
      picked.insert(picked.end(), rest.begin(),
                    rest.begin() + static_cast<std::ptrdiff_t>(args.max_candidates - top));
    }
    const kernels::IsaKernels& ks = impl.kernels();
    auto run = [&](std::size_t ci) {
      const Status st = execute(e.candidates[ci].plan, probs[next_set++ % sets], ks, pool);
      if (st != Status::Ok) throw std::runtime_error(std::string("execute: ") + to_string(st));
    };
    // Warm up each candidate, estimate its time, then interleave the timed rounds so drifts
    // of the machine hit every candidate alike.
    double slowest = 0;
    for (std::size_t ci : picked) {
      run(ci);
      slowest = std::max(slowest, measure::time_once([&] { run(ci); }));
    }
    const int rounds =
        static_cast<int>(std::clamp(args.target_s / std::max(slowest, 1e-7), 3.0, 25.0));
    std::vector<std::vector<double>> times(picked.size());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t i = 0; i < picked.size(); ++i)
        times[i].push_back(measure::time_once([&] { run(picked[i]); }));

    validation::ShapeResult res;
    res.m = s.m, res.n = s.n, res.k = s.k;
    res.trans_a = s.ta, res.trans_b = s.tb;
    res.cls = to_string(e.cls);
    for (std::size_t i = 0; i < picked.size(); ++i) {
      const auto& cand = e.candidates[picked[i]];
      res.candidates.push_back(
          {describe(cand.plan), cand.cost.total_us, measure::median(times[i]) * 1e6});
    }
    res.chosen = 0;  // picked[0] is the model's argmin
    if (const std::size_t best = res.best_measured(); best != res.chosen) {
      // Rematch: the choice (twice) against the selection's fastest, in fresh rounds.
      const std::size_t ids[3] = {picked[res.chosen], picked[best], picked[res.chosen]};
      const double pair_s =
          res.candidates[res.chosen].measured_us * 2e-6 + res.candidates[best].measured_us * 1e-6;
      const int confirm_rounds =
          static_cast<int>(std::clamp(args.target_s / std::max(pair_s / 3, 1e-7), 5.0, 41.0));
      std::vector<double> t[3];
      for (int r = 0; r < confirm_rounds; ++r)
        for (int i = 0; i < 3; ++i) t[i].push_back(measure::time_once([&] { run(ids[i]); }));
      res.confirm_chosen_us = measure::median(t[0]) * 1e6;
      res.confirm_best_us = measure::median(t[1]) * 1e6;
      res.confirm_chosen2_us = measure::median(t[2]) * 1e6;
    }
    results.push_back(res);

    const double elapsed = measure::now_seconds() - t_start;
    const double eta =
        elapsed / static_cast<double>(si + 1) * static_cast<double>(shapes.size() - si - 1);
    std::cerr << "\r[" << (si + 1) << '/' << shapes.size() << "] " << s.m << 'x' << s.n << 'x'
              << s.k << ' ' << layout_of(s) << " regret " << std::fixed << std::setprecision(3)
              << res.regret() << "  eta " << std::setprecision(0) << eta << " s      "
              << std::flush;
  }
  std::cerr << '\n';

  const validation::Summary sum = validation::summarize(results);
  // Regret is per host: name the CPU and the profile the model priced with.
  std::cout << "host                   " << ctx->hardware().name << " ("
            << to_string(cpu_identity()) << "); profile: " << ctx->hardware().source << '\n';
  std::cout << std::fixed << std::setprecision(3) << "shapes                 " << sum.shapes
            << " (threads " << ctx->threads() << ", isa " << to_string(ctx->isa()) << ")\n"
            << "geomean regret         " << sum.geomean_regret << " (selection pass alone "
            << sum.geomean_selection_regret << ")\n"
            << "noise (same plan twice) " << sum.geomean_noise << " geomean max/min\n"
            << "p95 regret             " << sum.p95_regret << '\n'
            << "max regret             " << sum.max_regret << '\n'
            << "picked the fastest     " << std::setprecision(1) << 100 * sum.picked_best_share
            << "%\n"
            << "regret <= 1.03         " << 100 * sum.within_3pct_share << "%\n"
            << "median |pred-meas|/meas " << 100 * sum.median_abs_error << "%\n"
            << "median rank corr.      " << std::setprecision(3) << sum.median_spearman << '\n';
  std::vector<std::pair<double, std::size_t>> worst;
  for (std::size_t i = 0; i < results.size(); ++i) worst.push_back({results[i].regret(), i});
  std::sort(worst.rbegin(), worst.rend());
  std::cout << "worst shapes:\n";
  for (std::size_t w = 0; w < std::min<std::size_t>(5, worst.size()); ++w) {
    const auto& r = results[worst[w].second];
    std::cout << "  " << r.m << 'x' << r.n << 'x' << r.k << ' '
              << layout_of({r.m, r.n, r.k, r.trans_a, r.trans_b}) << " regret " << worst[w].first
              << "\n    chose  " << r.candidates[r.chosen].plan << "\n    best   "
              << r.candidates[r.best_measured()].plan << '\n';
  }

  if (!args.json_out.empty()) {
    nlohmann::ordered_json j;
    j["format"] = "adaptcore-model-validation";
    j["version"] = 1;
    j["threads"] = ctx->threads();
    j["isa"] = to_string(ctx->isa());
    j["hardware"] = nlohmann::json::parse(to_json(ctx->hardware()));
    j["cpu"] = to_string(cpu_identity());
    j["summary"] = {{"shapes", sum.shapes},
                    {"geomean_regret", sum.geomean_regret},
                    {"geomean_selection_regret", sum.geomean_selection_regret},
                    {"geomean_noise", sum.geomean_noise},
                    {"p95_regret", sum.p95_regret},
                    {"max_regret", sum.max_regret},
                    {"picked_best_share", sum.picked_best_share},
                    {"within_3pct_share", sum.within_3pct_share},
                    {"median_abs_error", sum.median_abs_error},
                    {"median_spearman", sum.median_spearman}};
    for (const auto& r : results) {
      nlohmann::ordered_json js;
      js["m"] = r.m, js["n"] = r.n, js["k"] = r.k, js["trans_a"] = r.trans_a,
      js["trans_b"] = r.trans_b, js["class"] = r.cls;
      js["chosen"] = r.candidates[r.chosen].plan;
      js["best"] = r.candidates[r.best_measured()].plan;
      js["regret"] = r.regret();
      js["selection_regret"] = r.selection_regret();
      if (r.confirm_best_us > 0)
        js["confirmation"] = {{"chosen_us", r.confirm_chosen_us},
                              {"chosen_again_us", r.confirm_chosen2_us},
                              {"best_us", r.confirm_best_us}};
      js["spearman"] = r.spearman();
      for (const auto& cand : r.candidates)
        js["candidates"].push_back({{"plan", cand.plan},
                                    {"predicted_us", cand.predicted_us},
                                    {"measured_us", cand.measured_us}});
      j["shapes"].push_back(js);
    }
    std::ofstream out(args.json_out);
    out << j.dump(1) << '\n';
    if (!out) {
      std::cerr << "error: cannot write " << args.json_out << '\n';
      throw CLI::RuntimeError(1);
    }
    std::cout << "wrote " << args.json_out << '\n';
  }
}

}  // namespace

void register_validate_model(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate-model", "measure the planner's candidates per shape: regret of the model's choice");
  add_context_options(*cmd, args->ctx);
  auto* file = cmd->add_option(
      "--shapes", args->shapes_file,
      "shape file: 'M N K [A B]' (A, B: N or T, as in suite files) or MxNxK per line");
  auto* sample = cmd->add_option("--sample", args->sample, "number of random LLM-like shapes")
                     ->check(CLI::Range(1, 100000));
  file->excludes(sample);
  cmd->add_flag("--transb", args->trans_b,
                "sampled shapes with B stored n x k (the weights of a framework's linear layer)");
  cmd->add_option("--seed", args->seed, "seed of the sample and of the random candidates");
  // At least the smallest shape the sampler draws (1 x 1024 x 1024, 0.0021 GFLOP), or the
  // sample never fills.
  cmd->add_option("--max-gflop", args->max_gflop, "largest sampled shape, GFLOP")
      ->check(finite_number() & CLI::Range(0.0021, 1e6));
  cmd->add_option("--target", args->target_s, "timed seconds per candidate")
      ->check(finite_number() & CLI::Range(1e-6, 3600.0));
  cmd->add_option("--candidates", args->max_candidates, "candidates measured per shape")
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--json", args->json_out, "write per-shape results and the summary");
  cmd->add_option("--pool-mib", args->pool_mib,
                  "operands rotate over buffers of this many MiB (0: one set, warm)")
      ->check(finite_number() & CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->callback([args] { run_validate(*args); });
}

}  // namespace adaptcore::cli
