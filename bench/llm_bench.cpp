// adaptcore_bench_llm: adaptcore versus OpenBLAS on LLM-like fp32 GEMM shapes, in one process.
//
// For each shape (row-major NN, alpha = 1, beta = 0, T threads for both libraries): each
// library in turn is left to settle (the other's worker threads stop spinning), warmed up and
// timed call by call (blocked, the default); --order interleaved alternates the calls instead,
// which evens out clock drift but lets one library's spinning workers slow the other's next
// call (OpenBLAS's poll for tens of milliseconds). Repetitions adapt to the shape's cost
// (about --target seconds per library, at least --min-reps). Reports median GFLOP/s per
// library, their ratio, the fraction of the measured FMA peak reached by adaptcore, and
// geometric means. Run it with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (scripts/ do).
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "measure/bench_util.hpp"
#include "measure/peak_probe.hpp"
#include "openblas_baseline.hpp"
#include "shapes.hpp"

namespace ab = adaptcore::bench;
namespace am = adaptcore::measure;

namespace {

struct Options {
  std::string suite = "demo";
  std::string shapes;
  int threads = 2;
  std::string isa = "auto";
  double target_s = 0.2;
  int min_reps = 3;
  int max_reps = 1000;
  std::string order = "blocked";
  std::string csv, json;
  bool peak = true;
  bool plans = false;
};

struct LibTiming {
  double median_s = 0, min_s = 0;
  int reps = 0;
  double gflops = 0;
};

struct Row {
  ab::Shape s{};
  LibTiming ac, ob;
  std::string plan;
  double max_rel_diff = 0;
};

const char* env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// Warm-up calls until about 20 ms (at least one); returns an estimate of one call's time (the
// first call, which may include planning or thread start-up, is excluded when others exist).
template <class F>
double warm_up(F&& f) {
  std::vector<double> t;
  double total = 0;
  do {
    t.push_back(am::time_once(f));
    total += t.back();
  } while (total < 0.02 && t.size() < 200);
  if (t.size() == 1) return t[0];
  t.erase(t.begin());
  return am::median(t);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(std::max(x, 1e-12));
  return std::exp(s / static_cast<double>(v.size()));
}

std::string fmt(double v, int d) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", d, v);
  return b;
}

std::string timestamp() {
  const std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"adaptcore versus OpenBLAS on LLM-like fp32 GEMM shapes (row-major NN)"};
  app.add_option("--suite", opt.suite, std::string("shape suite: ") + ab::suite_names());
  app.add_option("--shapes", opt.shapes, "explicit shapes instead of a suite: MxNxK,MxNxK,...");
  app.add_option("-t,--threads", opt.threads, "threads for both libraries (default 2)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--isa", opt.isa, "adaptcore kernel path (auto, avx512, avx2, generic)");
  app.add_option("--target", opt.target_s, "timed seconds per shape and library (default 0.2)");
  app.add_option("--min-reps", opt.min_reps, "fewest timed calls per shape (default 3)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--max-reps", opt.max_reps, "most timed calls per shape (default 1000)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--order", opt.order,
                 "blocked (settle, then all A calls; then all B; default) or interleaved (A B A B ...)")
      ->check(CLI::IsMember({"interleaved", "blocked"}));
  app.add_option("--csv", opt.csv, "write per-shape results to this CSV file");
  app.add_option("--json", opt.json, "write results and metadata to this JSON file");
  app.add_flag("!--no-peak", opt.peak, "skip the FMA peak measurement");
  app.add_flag("--plans", opt.plans, "print adaptcore's plan for each shape");
  bool list_only = false;
  app.add_flag("--list", list_only, "print the shapes (M N K per line) and exit");
  CLI11_PARSE(app, argc, argv);

  std::vector<ab::Shape> shapes;
  std::string err;
  if (!opt.shapes.empty() ? !ab::parse_shapes(opt.shapes, shapes, err)
                          : !ab::suite_shapes(opt.suite, shapes)) {
    std::cerr << "error: " << (err.empty() ? "unknown suite '" + opt.suite + "'" : err) << '\n';
    return 2;
  }
  if (list_only) {
    for (const ab::Shape& s : shapes) std::cout << s.m << ' ' << s.n << ' ' << s.k << '\n';
    return 0;
  }
  if (opt.min_reps > opt.max_reps) opt.max_reps = opt.min_reps;

  adaptcore::ContextOptions co;
  co.threads = opt.threads;
  if (!adaptcore::parse_isa(opt.isa, co.isa)) {
    std::cerr << "error: unknown ISA '" << opt.isa << "'\n";
    return 2;
  }
  adaptcore::Context ctx(co);
  if (ctx.init_status() != adaptcore::Status::Ok) {
    std::cerr << "error: " << ctx.init_message() << '\n';
    return 2;
  }
  ab::openblas_threads(opt.threads);

  const auto& hw = ctx.hardware();
  const char* coretype = env_or("OPENBLAS_CORETYPE", "(unset)");
  const char* l2size = env_or("OPENBLAS_L2_SIZE", "(unset)");
  std::cout << "adaptcore " << adaptcore::version() << ": isa=" << adaptcore::to_string(ctx.isa())
            << " threads=" << ctx.threads() << " cpu=\"" << hw.name << "\" clock~"
            << fmt(hw.freq_ghz, 2) << " GHz\n"
            << "OpenBLAS: core=" << ab::openblas_corename() << " threads=" << opt.threads
            << " config=\"" << ab::openblas_config() << "\"\n"
            << "          OPENBLAS_CORETYPE=" << coretype << " OPENBLAS_L2_SIZE=" << l2size << '\n';
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::getenv("OPENBLAS_L2_SIZE") != nullptr)
    std::cout << "warning: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set: OpenBLAS may not run "
                 "its best kernels (run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`)\n";

  am::PeakResult peak;
  if (opt.peak) {
    peak = am::measure_peak(am::path_for(ctx.isa()), opt.threads);
    std::cout << "measured fp32 peak: " << fmt(peak.gflops, 1) << " GFLOP/s ("
              << am::to_string(peak.path) << " FMA probe, " << opt.threads << " threads); nominal "
              << fmt(hw.peak_gflops_per_core(ctx.isa()) * std::min(opt.threads, hw.cores), 1)
              << " GFLOP/s\n";
  }
  std::cout << shapes.size() << " shapes, row-major NN fp32, alpha=1 beta=0, " << opt.order << ", ~"
            << opt.target_s << " s per shape and library, median of >= " << opt.min_reps
            << " calls\n\n";
  std::printf("%6s %6s %6s  %10s %6s  %10s  %7s  %s\n", "M", "N", "K", "adaptcore", "%peak",
              "OpenBLAS", "ratio", "check");
  std::printf("%6s %6s %6s  %10s %6s  %10s  %7s\n", "", "", "", "GFLOP/s", "", "GFLOP/s", "ac/ob");

  std::vector<Row> rows;
  int bad = 0;
  for (const ab::Shape& s : shapes) {
    Row row;
    row.s = s;
    const auto a_n = static_cast<std::size_t>(s.m * s.k), b_n = static_cast<std::size_t>(s.k * s.n),
               c_n = static_cast<std::size_t>(s.m * s.n);
    am::FloatBuffer a = am::make_buffer(a_n), b = am::make_buffer(b_n);
    am::FloatBuffer c_ac = am::make_buffer(c_n), c_ob = am::make_buffer(c_n);
    am::fill_uniform(a.get(), a_n, 11);
    am::fill_uniform(b.get(), b_n, 12);
    am::fill_uniform(c_ac.get(), c_n, 13);  // beta = 0: must be overwritten, never read
    am::fill_uniform(c_ob.get(), c_n, 13);

    adaptcore::Status st = adaptcore::Status::Ok;
    auto run_ac = [&] {
      st = adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No,
                           s.m, s.n, s.k, 1.0f, a.get(), s.k, b.get(), s.n, 0.0f, c_ac.get(), s.n,
                           ctx);
    };
    auto run_ob = [&] {
      ab::openblas_sgemm_nn(s.m, s.n, s.k, 1.0f, a.get(), b.get(), 0.0f, c_ob.get());
    };

    std::vector<double> t_ac, t_ob;
    if (opt.order == "interleaved") {
      const double est_ac = warm_up(run_ac);
      const double est_ob = warm_up(run_ob);
      const int reps_ac = am::reps_for(est_ac, opt.target_s, opt.min_reps, opt.max_reps);
      const int reps_ob = am::reps_for(est_ob, opt.target_s, opt.min_reps, opt.max_reps);
      for (int i = 0; i < std::max(reps_ac, reps_ob); ++i) {
        if (i < reps_ac) t_ac.push_back(am::time_once(run_ac));
        if (i < reps_ob) t_ob.push_back(am::time_once(run_ob));
      }
    } else {
      // Each library alone: let the other's worker threads stop spinning first (OpenBLAS's
      // keep polling for tens of milliseconds after a call and would take a core from the
      // next library's workers), then warm up and time it.
      auto alone = [&](auto& run, std::vector<double>& t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        const double est = warm_up(run);
        const int reps = am::reps_for(est, opt.target_s, opt.min_reps, opt.max_reps);
        for (int i = 0; i < reps; ++i) t.push_back(am::time_once(run));
      };
      alone(run_ac, t_ac);
      alone(run_ob, t_ob);
    }
    if (st != adaptcore::Status::Ok) {
      std::cerr << "error: adaptcore::gemm failed: " << adaptcore::to_string(st) << '\n';
      return 1;
    }
    auto summarise = [&](const std::vector<double>& t) {
      LibTiming lt;
      lt.median_s = am::median(t);
      lt.min_s = am::minimum(t);
      lt.reps = static_cast<int>(t.size());
      lt.gflops = am::gemm_gflops(s.m, s.n, s.k, lt.median_s);
      return lt;
    };
    row.ac = summarise(t_ac);
    row.ob = summarise(t_ob);

    // Both results from the same inputs: they must agree to rounding.
    double maxd = 0, maxc = 0;
    for (std::size_t i = 0; i < c_n; ++i) {
      const double d = std::fabs(static_cast<double>(c_ac[i]) - c_ob[i]);
      maxd = std::isnan(d) ? INFINITY : std::max(maxd, d);
      maxc = std::max(maxc, std::fabs(static_cast<double>(c_ob[i])));
    }
    row.max_rel_diff = maxd / std::max(maxc, 1e-30);
    const bool ok = row.max_rel_diff < 1e-4;
    bad += ok ? 0 : 1;

    adaptcore::GemmProblem prob;
    adaptcore::make_problem(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No,
                            s.m, s.n, s.k, 1.0f, a.get(), s.k, b.get(), s.n, 0.0f, c_ac.get(), s.n,
                            prob);
    row.plan = adaptcore::describe(ctx.impl().plan_for(ctx.impl().key_for(prob)));

    const std::string pct =
        peak.gflops > 0 ? fmt(100.0 * row.ac.gflops / peak.gflops, 1) + "%" : "-";
    std::printf("%6lld %6lld %6lld  %10.2f %6s  %10.2f  %6.2fx  %s\n", static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), row.ac.gflops,
                pct.c_str(), row.ob.gflops, row.ac.gflops / std::max(row.ob.gflops, 1e-12),
                ok ? "ok" : ("MISMATCH " + fmt(row.max_rel_diff, 6)).c_str());
    if (opt.plans) std::printf("       plan: %s\n", row.plan.c_str());
    std::fflush(stdout);
    rows.push_back(row);
  }

  // The probe competes with whatever else runs on the machine; measured again after the suite,
  // the higher figure is the better estimate of what the cores sustain.
  if (opt.peak) {
    const am::PeakResult again = am::measure_peak(peak.path, opt.threads);
    if (again.gflops > peak.gflops * 1.02) {
      std::cout << "\nnote: FMA peak re-measured after the suite: " << fmt(again.gflops, 1)
                << " GFLOP/s (was " << fmt(peak.gflops, 1)
                << "); the %peak column above used the first figure, the summary and files "
                   "use the higher one\n";
      peak = again;
    }
  }

  // Geometric means, overall and by M range.
  struct Group {
    const char* name;
    int64_t lo, hi;
  };
  const Group groups[] = {{"all", 1, INT64_MAX},
                          {"M <= 16", 1, 16},
                          {"32 <= M <= 256", 32, 256},
                          {"M >= 512", 512, INT64_MAX}};
  nlohmann::ordered_json summary = nlohmann::ordered_json::array();
  std::cout << "\ngeometric means (GFLOP/s)\n";
  std::printf("%-16s %6s  %10s  %10s  %7s\n", "shapes", "count", "adaptcore", "OpenBLAS", "ratio");
  for (const Group& g : groups) {
    std::vector<double> ac, ob, ratio;
    for (const Row& r : rows) {
      if (r.s.m < g.lo || r.s.m > g.hi) continue;
      ac.push_back(r.ac.gflops);
      ob.push_back(r.ob.gflops);
      ratio.push_back(r.ac.gflops / std::max(r.ob.gflops, 1e-12));
    }
    if (ac.empty()) continue;
    std::printf("%-16s %6zu  %10.2f  %10.2f  %6.2fx\n", g.name, ac.size(), geomean(ac), geomean(ob),
                geomean(ratio));
    summary.push_back({{"group", g.name},
                       {"count", ac.size()},
                       {"adaptcore_gflops_geomean", geomean(ac)},
                       {"openblas_gflops_geomean", geomean(ob)},
                       {"ratio_geomean", geomean(ratio)}});
  }
  if (peak.gflops > 0) {
    std::vector<double> ac;
    ac.reserve(rows.size());
    for (const Row& r : rows) ac.push_back(r.ac.gflops);
    std::cout << "adaptcore geomean = " << fmt(100.0 * geomean(ac) / peak.gflops, 1)
              << "% of the measured peak (" << fmt(peak.gflops, 1) << " GFLOP/s)\n";
  }
  if (bad > 0) std::cout << "WARNING: " << bad << " shape(s) where the results disagree\n";

  if (!opt.csv.empty()) {
    std::ofstream f(opt.csv);
    f << "m,n,k,threads,adaptcore_gflops,adaptcore_median_us,adaptcore_min_us,adaptcore_reps,"
         "pct_of_measured_peak,openblas_gflops,openblas_median_us,openblas_min_us,openblas_reps,"
         "ratio,max_rel_diff,plan\n";
    for (const Row& r : rows)
      f << r.s.m << ',' << r.s.n << ',' << r.s.k << ',' << opt.threads << ',' << r.ac.gflops << ','
        << r.ac.median_s * 1e6 << ',' << r.ac.min_s * 1e6 << ',' << r.ac.reps << ','
        << (peak.gflops > 0 ? 100.0 * r.ac.gflops / peak.gflops : 0.0) << ',' << r.ob.gflops << ','
        << r.ob.median_s * 1e6 << ',' << r.ob.min_s * 1e6 << ',' << r.ob.reps << ','
        << r.ac.gflops / std::max(r.ob.gflops, 1e-12) << ',' << r.max_rel_diff << ",\"" << r.plan
        << "\"\n";
    std::cout << "wrote " << opt.csv << '\n';
  }
  if (!opt.json.empty()) {
    nlohmann::ordered_json j;
    j["meta"] = {{"timestamp", timestamp()},
                 {"adaptcore_version", adaptcore::version()},
                 {"cpu", hw.name},
                 {"clock_ghz", hw.freq_ghz},
                 {"isa", adaptcore::to_string(ctx.isa())},
                 {"threads", opt.threads},
                 {"suite", opt.shapes.empty() ? opt.suite : "custom"},
                 {"order", opt.order},
                 {"target_s", opt.target_s},
                 {"min_reps", opt.min_reps},
                 {"openblas_core", ab::openblas_corename()},
                 {"openblas_config", ab::openblas_config()},
                 {"OPENBLAS_CORETYPE", coretype},
                 {"OPENBLAS_L2_SIZE", l2size},
                 {"measured_peak_gflops", peak.gflops},
                 {"measured_peak_path", am::to_string(peak.path)}};
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Row& r : rows)
      arr.push_back(
          {{"m", r.s.m},
           {"n", r.s.n},
           {"k", r.s.k},
           {"adaptcore",
            {{"gflops", r.ac.gflops},
             {"median_us", r.ac.median_s * 1e6},
             {"min_us", r.ac.min_s * 1e6},
             {"reps", r.ac.reps}}},
           {"openblas",
            {{"gflops", r.ob.gflops},
             {"median_us", r.ob.median_s * 1e6},
             {"min_us", r.ob.min_s * 1e6},
             {"reps", r.ob.reps}}},
           {"ratio", r.ac.gflops / std::max(r.ob.gflops, 1e-12)},
           {"pct_of_measured_peak", peak.gflops > 0 ? 100.0 * r.ac.gflops / peak.gflops : 0.0},
           {"max_rel_diff", r.max_rel_diff},
           {"plan", r.plan}});
    j["results"] = arr;
    j["summary"] = summary;
    std::ofstream(opt.json) << j.dump(2) << '\n';
    std::cout << "wrote " << opt.json << '\n';
  }
  return bad > 0 ? 3 : 0;
}
