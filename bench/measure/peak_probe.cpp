#include "measure/peak_probe.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "adaptcore/hardware.hpp"
#include "hw/fma_probe.hpp"
#include "measure/cpus.hpp"
#include "measure/peak_loops.hpp"

namespace adaptcore::measure {
namespace {

using Clock = std::chrono::steady_clock;

// Iterations per timed chunk: a fraction of a millisecond on any path, so the window overshoots
// `seconds` by little and the clock is read rarely.
constexpr std::uint64_t kChunk = 1u << 15;
constexpr double kWarmupSeconds = 0.01;

// The FMA paths run the core's probe loops (hw/fma_probe.hpp), the others peak_loops.hpp.
using LoopFn = FmaLoop;

LoopFn loop_for(FmaPath p) {
  switch (p) {
    case FmaPath::Avx512: return &probes::fma_loop_avx512;
    case FmaPath::Avx2: return &probes::fma_loop_avx2;
    case FmaPath::Sse: return &loops::mul_add_sse;
    case FmaPath::Bf16Dot: return &loops::dot_bf16_avx512;
    case FmaPath::Int8Dot: return &loops::dot_int8_vnni;
  }
  return &loops::mul_add_sse;
}

struct ThreadResult {
  Clock::time_point start, end;
  std::uint64_t flops = 0;
};

// One trial: every thread pins itself, warms up (clock ramp, AVX-512 power licence), meets the
// others at a barrier, then runs its timed window.
double run_trial(LoopFn fn, const std::vector<int>& cpus, double seconds,
                 std::vector<double>& per_thread) {
  const int threads = static_cast<int>(cpus.size());
  std::vector<ThreadResult> res(static_cast<std::size_t>(threads));
  std::atomic<int> ready{0};
  auto body = [&](int t) {
    pin_this_thread(cpus[static_cast<std::size_t>(t)]);
    const auto w0 = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - w0).count() < kWarmupSeconds) fn(kChunk);
    ready.fetch_add(1, std::memory_order_acq_rel);
    while (ready.load(std::memory_order_acquire) < threads) {
    }
    ThreadResult& r = res[static_cast<std::size_t>(t)];
    r.start = Clock::now();
    do {
      r.flops += fn(kChunk);
      r.end = Clock::now();
    } while (std::chrono::duration<double>(r.end - r.start).count() < seconds);
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (auto& th : pool) th.join();

  auto first = res.front().start;
  auto last = res.front().end;
  double flops = 0;
  per_thread.clear();
  for (const auto& r : res) {
    first = std::min(first, r.start);
    last = std::max(last, r.end);
    flops += static_cast<double>(r.flops);
    per_thread.push_back(static_cast<double>(r.flops) /
                         std::chrono::duration<double, std::nano>(r.end - r.start).count());
  }
  const double span_ns = std::chrono::duration<double, std::nano>(last - first).count();
  return span_ns > 0 ? flops / span_ns : 0.0;  // flops per ns == GFLOP/s
}

}  // namespace

const char* to_string(FmaPath p) noexcept {
  switch (p) {
    case FmaPath::Avx512: return "avx512";
    case FmaPath::Avx2: return "avx2";
    case FmaPath::Sse: return "sse";
    case FmaPath::Bf16Dot: return "avx512-bf16";
    case FmaPath::Int8Dot: return "avx512-vnni";
  }
  return "?";
}

bool path_supported(FmaPath p) noexcept {
#if defined(__x86_64__)
  switch (p) {
    case FmaPath::Avx512: return detected_hardware().supports(Isa::Avx512);
    case FmaPath::Avx2: return detected_hardware().supports(Isa::Avx2);
    case FmaPath::Sse: return true;
    case FmaPath::Bf16Dot: return detected_hardware().supports(Isa::Avx512Bf16);
    case FmaPath::Int8Dot: return detected_hardware().supports(Isa::Avx512Vnni);
  }
#else
  (void)p;
#endif
  return false;
}

FmaPath path_for(Isa isa) noexcept {
  // The probe of the level's fp32 vector width.
  const int lanes = HardwareProfile::fp32_lanes(isa);
  return lanes >= 16 ? FmaPath::Avx512 : lanes >= 8 ? FmaPath::Avx2 : FmaPath::Sse;
}

PeakResult measure_peak(FmaPath path, int threads, double seconds, int trials) {
  PeakResult out;
  out.path = path;
  out.threads = std::max(1, threads);
  if (!path_supported(path)) return out;
  const std::vector<int> allowed = allowed_cpus();
  for (int t = 0; t < out.threads; ++t)
    out.cpus.push_back(allowed.empty() ? -1
                                       : allowed[static_cast<std::size_t>(t) % allowed.size()]);
  const LoopFn fn = loop_for(path);
  std::vector<double> per_thread;
  for (int i = 0; i < std::max(1, trials); ++i) {
    const double g = run_trial(fn, out.cpus, seconds, per_thread);
    if (g > out.gflops) {
      out.gflops = g;
      out.per_thread = per_thread;
    }
  }
  return out;
}

}  // namespace adaptcore::measure
