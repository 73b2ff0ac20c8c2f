// `adaptcore bench`: the project's main job. Runs a shape suite on adaptcore and the vendor
// libraries, grades every shape (correctness, time, speedup, fraction of the hardware limit)
// and writes results.json, results.csv and a self-contained report.html into --out.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_common.hpp"
#include "commands.hpp"
#include "harness/report_html.hpp"
#include "harness/report_model.hpp"
#include "harness/results_csv.hpp"
#include "harness/runner.hpp"
#include "harness/runner_moe.hpp"
#include "harness/suites.hpp"

namespace adaptcore::cli {
namespace {

// The cold pool by default: eight times the last-level cache the kernel reports for CPU 0
// (sysfs; the whole L3 it shares, which on a server part is hundreds of MiB and would hold a
// 64 MiB pool), at least 64 MiB, so that no call of a "cold" shape finds its operands in any
// cache. An L3 that does not evict in strict LRU order keeps part of a pool a few times its
// size: 11.5 MiB sets rotating through 64 MiB over a 32 MiB L3 ran at 1.08-1.19x their DRAM
// limit, through 128 MiB still at 1.07x (the Zen 4 guest, two threads). sysfs, not sysconf: glibc's
// _SC_LEVEL3_CACHE_SIZE said 320 MiB for a 32 MiB L3 on an AMD EPYC guest.
double auto_pool_mib() {
  double l3_mib = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty()) continue;
    double v = std::atof(size.c_str());
    if (size.back() == 'K')
      v /= 1024.0;
    else if (size.back() == 'M')
      v *= 1.0;
    else if (size.back() == 'G')
      v *= 1024.0;
    else
      v /= 1024.0 * 1024.0;
    if (level >= 3) l3_mib = std::max(l3_mib, v);
  }
  return std::max(64.0, 8.0 * l3_mib);
}

namespace fs = std::filesystem;
using adaptcore::bench::RunOptions;

struct BenchArgs {
  RunOptions run;
  std::string dtype = "f32";
  std::string libs = "all";
  std::string out = "bench-out";
  bool list = false;
  std::string operands = "cold";
  double pool_mib = 0;  // 0: auto_pool_mib()
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

// One line per summary: shapes compared, geomean speedup, share faster, losses, the worst shape.
void print_speedups(const adaptcore::bench::report::Model& m, const std::string& label,
                    const std::vector<adaptcore::bench::report::VendorSummary>& lines,
                    std::ostream& os) {
  std::size_t width = 16;
  for (const auto& v : lines) width = std::max(width, v.name.size() + 2);
  os << "\n  " << std::left << std::setw(static_cast<int>(width)) << label << std::right
     << "  shapes  geomean speedup  faster on  losses(<0.95)  worst\n";
  for (const auto& v : lines) {
    std::string worst = "-";
    if (v.worst_row >= 0) {
      const auto& r = m.rows[static_cast<std::size_t>(v.worst_row)];
      worst = std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k) + " (" +
              fixed(v.worst_speedup, 2) + "x)";
    }
    os << "  " << std::left << std::setw(static_cast<int>(width)) << v.name << std::right
       << std::setw(8) << v.compared << std::setw(16) << fixed(v.geomean, 3) << "x" << std::setw(10)
       << fixed(100 * v.share_faster, 0) << "%" << std::setw(15) << v.losses << "  " << worst
       << '\n';
  }
}

// The terminal summary: per vendor library and over the best one per shape, then per class.
void print_summary(const nlohmann::ordered_json& doc, std::ostream& os) {
  namespace rp = adaptcore::bench::report;
  const rp::Model m = rp::build_model(nlohmann::json::parse(doc.dump()));
  // The host graded, as `adaptcore hw` names it: figures are per host.
  if (const auto hw = doc.find("hardware"); hw != doc.end() && hw->contains("name"))
    os << "\nhost " << (*hw)["name"].get<std::string>() << " ("
       << (hw->contains("cores") ? std::to_string((*hw)["cores"].get<int>()) : std::string("?"))
       << " cores; profile: "
       << (hw->contains("source") ? (*hw)["source"].get<std::string>() : std::string("?")) << ")";
  os << "\nsuite " << m.suite << ", " << m.rows.size() << " shapes, " << fixed(m.threads, 0)
     << " threads; peak " << fixed(m.peak_gflops, 0) << " GFLOP/s, DRAM " << fixed(m.dram_gbs, 0)
     << " GB/s\n";
  for (const auto& lib : m.libraries)
    if (lib.status != "ok")
      os << "  " << lib.name << ": " << lib.status << " (" << lib.message << ")\n";
  print_speedups(m, "adaptcore vs", m.vendors, os);
  if (!m.by_taxonomy.empty()) {
    os << "\n  speedup over the best vendor library per taxonomy class (capacity x parallelism):\n";
    print_speedups(m, "class", m.by_taxonomy, os);
  }
  if (m.by_part.size() > 1) {
    os << "\n  speedup over the best vendor library per suite part (tag):\n";
    print_speedups(m, "part", m.by_part, os);
  }
  // Speedup over the best vendor by M class (rows) and N class (columns).
  os << "\n  geomean speedup over the best vendor library, by M (rows) x N (columns):\n  "
     << std::setw(10) << "";
  for (const auto& nc : m.n_classes) os << std::setw(12) << nc;
  os << '\n';
  for (const auto& mc : m.m_classes) {
    os << "  " << std::setw(10) << mc;
    for (const auto& nc : m.n_classes) {
      std::vector<double> v;
      for (const auto& r : m.rows)
        if (r.m_class == mc && r.n_class == nc && std::isfinite(r.speedup_best))
          v.push_back(r.speedup_best);
      const double g = rp::geomean(v);
      os << std::setw(12) << (v.empty() ? "-" : fixed(g, 2) + (g < rp::kLoseBelow ? "!" : ""));
    }
    os << '\n';
  }
  // Decode shapes (cold) against the calibration's stream rate read beside them.
  if (const auto d = doc.find("decode_stream"); d != doc.end()) {
    const auto& v = *d;
    os << "\n  decode (M <= 16, >= 16 MiB read, cold): adaptcore's bytes / time over the stream "
          "rate `adaptcore calibrate` reads, taken beside each chunk\n";
    auto line = [&](const std::string& label, const nlohmann::ordered_json& p) {
      os << "  " << std::left << std::setw(10) << label << std::right << std::setw(4)
         << p["shapes"].get<int>() << " shapes  min " << fixed(p["min"].get<double>(), 2)
         << "  median " << fixed(p["median"].get<double>(), 2) << "  " << p["at_least"].get<int>()
         << " at " << fixed(v["share"].get<double>(), 2) << " or more\n";
    };
    line("all", v);
    for (const auto& [rows, p] : v["by_m"].items()) line("M = " + rows, p);
  }
  int wrong = 0;
  for (const auto& c : m.correctness) wrong += c.wrong + c.failed;
  os << "\n  correctness: "
     << (wrong == 0 ? "every checked result within the bound"
                    : std::to_string(wrong) + " wrong or failed results (see the report)")
     << '\n';
  // A result faster than its limit means the limit is wrong for this host (a bandwidth or peak
  // of the profile below what the code reached): said, never hidden by clamping.
  int over = 0;
  for (const auto& r : m.rows)
    over += (std::isfinite(r.ac_limit_fraction) && r.ac_limit_fraction > 1.0) +
            (std::isfinite(r.best_limit_fraction) && r.best_limit_fraction > 1.0);
  if (over > 0)
    os << "  limits: " << over
       << " results above 1.0 of their hardware limit: the profile's bandwidth or peak is below "
          "what ran here (`adaptcore calibrate`)\n";
}

// The weight-quantized comparison table (quant_summary): adaptcore's two-part GEMM against
// path (a) dequantize + fp32 GEMM, (b) bf16 GEMM, (c) oneDNN's int8, marked against the targets.
void print_quant_summary(const nlohmann::ordered_json& doc, std::ostream& os) {
  if (!doc.contains("quant_summary")) return;
  os << "\n  weight-quantized comparison (time ratio = path / adaptcore; err = relative Frobenius "
        "error)\n  "
     << std::left << std::setw(20) << "shape" << std::right << std::setw(11) << "adaptcore"
     << std::setw(10) << "err" << std::setw(10) << "x(a)" << std::setw(10) << "x bf16"
     << std::setw(10) << "bf16 err" << std::setw(10) << "x int8" << std::setw(10) << "int8 err"
     << std::setw(8) << "GB/s" << std::setw(8) << "DRAM"
     << "  targets\n";
  auto get = [](const nlohmann::ordered_json& row, const char* path, const char* key) {
    return row.contains(path) && row[path].contains(key) ? row[path][key].get<double>() : NAN;
  };
  auto val = [](const nlohmann::ordered_json& row, const char* key) {
    return row.contains(key) ? row[key].get<double>() : NAN;
  };
  auto sci = [](double v) {
    if (!std::isfinite(v)) return std::string("-");
    std::ostringstream s;
    s << std::scientific << std::setprecision(1) << v;
    return s.str();
  };
  for (const auto& row : doc["quant_summary"]) {
    const std::string shape = std::to_string(row["m"].get<long>()) + "x" +
                              std::to_string(row["n"].get<long>()) + "x" +
                              std::to_string(row["k"].get<long>());
    std::string marks;
    if (row.contains("targets"))
      for (const auto& [name, ok] : row["targets"].items())
        marks += (marks.empty() ? "" : " ") + name + (ok.get<bool>() ? ":met" : ":MISSED");
    os << "  " << std::left << std::setw(20) << shape << std::right << std::setw(9)
       << fixed(val(row, "adaptcore_us"), 0) << "us" << std::setw(10)
       << sci(val(row, "adaptcore_fro_error")) << std::setw(10)
       << fixed(get(row, "dequant_best", "speedup"), 2) << std::setw(10)
       << fixed(get(row, "bf16_best", "speedup"), 2) << std::setw(10)
       << sci(get(row, "bf16_best", "fro_error")) << std::setw(10)
       << fixed(get(row, "int8", "speedup"), 2) << std::setw(10)
       << sci(get(row, "int8", "fro_error")) << std::setw(8) << fixed(val(row, "weight_gbs"), 1)
       << std::setw(7) << fixed(100 * val(row, "dram_fraction"), 0) << "%  " << marks << '\n';
  }
}

// `--list`: the suite's shapes in the suite file format, after a line saying where they come
// from; nothing is run or written.
void list_suite(const RunOptions& run, std::ostream& os) {
  const auto shapes = bench::load_suite(run.suite, "", run.seed, run.random_count);
  const std::string file = bench::suite_file(run.suite, "");
  os << "# suite " << run.suite << ": "
     << (file.empty() ? "generated, seed " + std::to_string(run.seed) : file) << ", "
     << shapes.size() << " shapes\n";
  for (const auto& s : shapes) os << bench::format_shape(s) << '\n';
}

void run_bench(BenchArgs& a) {
  if (a.list) {
    list_suite(a.run, std::cout);
    return;
  }
  if (!bench::parse_dtype(a.dtype, a.run.dtype))
    throw std::runtime_error("unknown --dtype " + a.dtype);
  if (a.run.packed && a.run.dtype != bench::BenchDtype::F32 &&
      a.run.dtype != bench::BenchDtype::Bf16 && a.run.dtype != bench::BenchDtype::U8S8 &&
      a.run.dtype != bench::BenchDtype::S8S8)
    throw std::runtime_error(
        "--packed is for --dtype f32, bf16, u8s8 or s8s8 (weight-quantized dtypes pack by "
        "design)");
  a.run.vendors = a.libs != "none";
  a.run.warm = a.operands == "warm";
  a.run.pool_bytes = (a.pool_mib > 0 ? a.pool_mib : auto_pool_mib()) * 1024 * 1024;
  if (a.libs != "all" && a.libs != "none") {
    std::stringstream ss(a.libs);
    std::string name;
    while (std::getline(ss, name, ','))
      if (!name.empty()) a.run.libs.push_back(name);
  }
  fs::create_directories(a.out);
  if (a.run.suite == "moe") {
    // Mixture-of-Experts: whole expert FFN halves, grouped (harness/runner_moe.hpp).
    const nlohmann::ordered_json doc = bench::run_moe_suite(a.run, &std::cerr);
    write_file(fs::path(a.out) / "moe.json", doc.dump(1) + "\n");
    write_file(fs::path(a.out) / "moe.csv", bench::moe_csv(doc));
    bench::print_moe_summary(doc, std::cout);
    std::cout << "\nrecords: " << (fs::path(a.out) / "moe.json").string() << ", "
              << (fs::path(a.out) / "moe.csv").string() << '\n';
    return;
  }
  nlohmann::ordered_json doc = bench::run_benchmark(a.run, &std::cerr);
  if (a.run.suite == "full") {
    // Every shape of the full suite graded by the model (no run); written apart, not in the report.
    const auto shapes = bench::load_suite("full", "", a.run.seed);
    const auto predicted = bench::predict_suite(a.run, shapes);
    write_file(fs::path(a.out) / "predicted.csv", bench::predicted_csv(predicted));
    doc["model_only"] = {{"shapes", predicted.size()}, {"file", "predicted.csv"}};
  }
  write_file(fs::path(a.out) / "results.json", doc.dump(1) + "\n");
  write_file(fs::path(a.out) / "results.csv", bench::results_csv(doc));
  write_file(fs::path(a.out) / "report.html",
             bench::render_html_report(nlohmann::json::parse(doc.dump())));
  print_summary(doc, std::cout);
  print_quant_summary(doc, std::cout);
  std::cout << "\nreport: " << fs::absolute(fs::path(a.out) / "report.html").string()
            << "\nrecords: " << (fs::path(a.out) / "results.json").string() << ", "
            << (fs::path(a.out) / "results.csv").string() << '\n';
}

}  // namespace

void register_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "grade adaptcore against the vendor libraries on a shape suite (HTML report)");
  std::string names;
  for (const auto& n : bench::suite_names()) names += (names.empty() ? "" : ", ") + n;
  names += ", moe";
  cmd->add_option("--suite", a->run.suite, "suite name (" + names + ") or a suite file")
      ->capture_default_str();
  std::string dtypes;
  for (const auto& n : bench::dtype_names()) dtypes += (dtypes.empty() ? "" : ", ") + n;
  cmd->add_option(
         "--dtype", a->dtype,
         "element types (" + dtypes +
             "): f32 sgemm; bf16/u8s8/s8s8 against the vendors' "
             "low-precision GEMMs; w8a16/w4a16 weight-quantized against dequant+fp32, bf16 "
             "and int8 paths")
      ->check(CLI::IsMember(bench::dtype_names()))
      ->capture_default_str();
  cmd->add_option("--group", a->run.weight_group,
                  "w8a16/w4a16: K values per weight scale (0: per output channel for w8a16, 128 "
                  "for w4a16)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30))
      ->capture_default_str();
  cmd->add_option("--libs", a->libs,
                  "vendor libraries, comma-separated (mkl,onednn,openblas,blis,eigen,libxsmm), "
                  "'all' or 'none'")
      ->capture_default_str();
  cmd->add_option("-t,--threads", a->run.threads, "threads for every library (0: all cores)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--out", a->out, "output folder")->capture_default_str();
  cmd->add_option(
      "--isa", a->run.isa,
      "adaptcore's registry level: auto, generic, avx2, avx512, avx512_vnni, avx512_bf16, amx");
  cmd->add_option("--profile", a->run.profile,
                  "hardware profile JSON (e.g. from `adaptcore calibrate`)");
  cmd->add_option("--target", a->run.target_s, "timed seconds per library and shape")
      ->check(finite_number() & CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--rounds", a->run.rounds,
                  "timed rounds per library and shape (the fastest counts)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--settle", a->run.settle_s, "pause before each library's turn, seconds")
      ->check(finite_number() & CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--max-gflop", a->run.max_gflop, "skip shapes above this work (0: none)")
      ->check(finite_number() & CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seed", a->run.seed, "seed of the random and full suites")
      ->capture_default_str();
  cmd->add_option("--count", a->run.random_count, "shapes of the random suite")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--operands", a->operands,
                  "cold: calls rotate over operand sets filling --pool-mib (no call finds the "
                  "previous one's data cached); warm: every call reuses the same buffers")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd->add_option("--pool-mib", a->pool_mib,
                  "cold operands: MiB the rotating sets fill at least (0: twice the largest "
                  "cache the OS reports, at least 64)")
      ->check(finite_number() & CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_flag("--packed", a->run.packed,
                "f32, bf16, u8s8, s8s8: weights (B) packed once ahead of the timed calls: "
                "adaptcore pack_weights, MKL cblas_sgemm_pack / cblas_gemm_bf16bf16f32_pack / "
                "cblas_gemm_s8u8s32_pack, oneDNN matmul on weights reordered to its layout "
                "(setup = one pack; libraries without a packed API are unsupported)");
  cmd->add_flag("--list", a->list,
                "print the suite's shapes and the file they are read from, run nothing");
  cmd->add_option("--sample", a->run.measure_sample,
                  "full suite: shapes measured (the rest is predicted)")
      ->check(CLI::Range(0, 80000))
      ->capture_default_str();
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace adaptcore::cli
