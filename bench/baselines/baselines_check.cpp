// adaptcore_baselines_check: which baselines load here (with what each says about itself), and
// optionally one shape timed per library with evidence of how many threads it really used.
//
//   adaptcore_baselines_check [--threads T] [--shape MxNxK] [--reps R] [name ...]
//
// Without --shape it only loads and prints. With it, per library: setup time (prepare), median
// time of R calls, GFLOP/s, the process CPU time over wall time during those calls (about T when
// T threads compute), the number of OS threads seen running during them, and the largest
// error of 64 sampled elements against a double-precision dot product; then the CPU time its
// idle worker threads burn (spinning) in the 400 ms after the last call.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "baselines/baseline.hpp"

namespace ab = adaptcore::bench;

namespace {

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return s(u.ru_utime) + s(u.ru_stime);
}

// Watches the process's OS threads while the calls run (every 2 ms) and collects those seen
// running, itself excluded. Sampling, not CPU-time accounting, because some libraries (BLIS's
// pthread flavour) start and join their workers inside each call: they are gone by the end.
class RunningThreads {
 public:
  RunningThreads()
      : sampler_([this](std::stop_token stop) {
          self_ = static_cast<long>(syscall(SYS_gettid));
          while (!stop.stop_requested()) {
            sample();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        }) {}

  std::size_t stop() {
    sampler_.request_stop();
    sampler_.join();
    return seen_.size();
  }

 private:
  void sample() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/task", ec)) {
      const long tid = std::atol(e.path().filename().c_str());
      if (tid == self_) continue;
      std::ifstream f(e.path() / "stat");
      std::string line;
      std::getline(f, line);
      const std::size_t close = line.rfind(')');  // the name may contain spaces
      if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'R') {
        seen_.insert(tid);
      }
    }
  }

  std::set<long> seen_;  // touched by the sampler thread only until stop() joins it
  long self_ = 0;
  std::jthread sampler_;
};

bool parse_shape(const std::string& s, int64_t& m, int64_t& n, int64_t& k) {
  return std::sscanf(s.c_str(), "%ldx%ldx%ld", &m, &n, &k) == 3 && m > 0 && n > 0 && k > 0;
}

void time_shape(ab::Baseline& lib, int64_t m, int64_t n, int64_t k, int reps) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
  std::vector<float> c(static_cast<std::size_t>(m * n));
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  const ab::GemmCall call{m, n, k, false, false, a.data(), k, b.data(), n, c.data(), n};
  if (!lib.supports(call)) {
    std::printf("  %ldx%ldx%ld: not supported\n", m, n, k);
    return;
  }
  const double setup = lib.prepare(call);
  lib.run(call);  // warm-up
  std::vector<double> times;
  RunningThreads running;
  const double cpu0 = process_cpu_seconds();
  const auto w0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    lib.run(call);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  const double cpu = process_cpu_seconds() - cpu0;
  const std::size_t seen = running.stop();
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  double max_err = 0;
  for (int s = 0; s < 64; ++s) {
    const int64_t i = static_cast<int64_t>(rng() % static_cast<uint32_t>(m));
    const int64_t j = static_cast<int64_t>(rng() % static_cast<uint32_t>(n));
    double ref = 0;
    for (int64_t p = 0; p < k; ++p) ref += static_cast<double>(a[i * k + p]) * b[p * n + j];
    max_err = std::max(max_err, std::fabs(ref - c[i * n + j]));
  }
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  std::printf(
      "  %ldx%ldx%ld: setup %.1f us, median %.3f ms, %.1f GFLOP/s, CPU/wall %.2f, "
      "threads seen running %zu, max error %.2g\n",
      m, n, k, setup * 1e6, median * 1e3, flops / median * 1e-9, cpu / wall, seen, max_err);
  // Worker threads that keep spinning after the last call take CPU from whatever runs next:
  // CPU time the process burns while this thread sleeps, in 100 ms windows.
  std::printf("  CPU ms per 100 ms idle after the calls:");
  for (int w = 0; w < 4; ++w) {
    const double before = process_cpu_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::printf(" %.0f", (process_cpu_seconds() - before) * 1e3);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 10;
  int64_t m = 0, n = 0, k = 0;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--shape" && i + 1 < argc) {
      if (!parse_shape(argv[++i], m, n, k)) {
        std::fprintf(stderr, "--shape wants MxNxK\n");
        return 2;
      }
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: %s [--threads T] [--shape MxNxK] [--reps R] [name ...]\n",
                   argv[0]);
      return 2;
    } else {
      names.push_back(arg);
    }
  }
  if (names.empty()) names = ab::baseline_names();
  int loaded = 0;
  for (const std::string& name : names) {
    ab::LoadedBaseline lb = ab::load_baseline(name, threads);
    if (!lb.lib) {
      std::printf("%-9s skipped: %s\n", name.c_str(), lb.message.c_str());
      continue;
    }
    ++loaded;
    std::printf("%-9s %s\n", name.c_str(), lb.lib->version().c_str());
    if (m > 0) time_shape(*lb.lib, m, n, k, reps);
  }
  std::printf("%d of %zu baselines loaded (%d threads)\n", loaded, names.size(), threads);
  return 0;
}
