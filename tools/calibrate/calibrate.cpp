// Calibration micro-benchmarks. Every figure is the median of several timed samples taken after
// a warm-up; single-thread figures are taken on a thread pinned to one CPU (its affinity is
// restored afterwards) and timed by its CPU time (time preempted by other processes does not
// count), the all-core DRAM figure with one pinned thread per CPU over wall time.
#include "calibrate/calibrate.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <thread>
#include <vector>

#include "core/problem.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "hw/clock_probe.hpp"
#include "hw/fma_probe.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "measure/bench_util.hpp"
#include "measure/cpus.hpp"
#include "measure/peak_loops.hpp"
#include "measure/read_loops.hpp"
#include "measure/row_walk.hpp"
#include "model/model_constants.hpp"
#include "plan/plan.hpp"

namespace adaptcore {

namespace {

using Clock = std::chrono::steady_clock;
using ReadFn = measure::loops::ReadPass;
using measure::allowed_cpus;
using measure::median;
using measure::pin_this_thread;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of the calling thread, seconds. One-thread rates divide by it rather than by wall
// time, so that time the thread spends preempted by other processes does not count.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Sink for results the compiler must not drop.
std::atomic<float> g_sink{0.0f};

struct Freer {
  void operator()(float* p) const noexcept { std::free(p); }
};
using Buffer = std::unique_ptr<float[], Freer>;

// 64-byte aligned, every page touched (first-touch faults must not be timed); nullptr on failure.
Buffer make_buffer(std::int64_t bytes) {
  const auto size = static_cast<std::size_t>((bytes + 63) / 64 * 64);
  auto* p = static_cast<float*>(std::aligned_alloc(64, size));
  if (p == nullptr) return Buffer(nullptr);
  for (std::size_t i = 0; i < size / sizeof(float); ++i) p[i] = static_cast<float>(i & 255) * 1e-3f;
  return Buffer(p);
}

// Pins the calling thread to one CPU for its lifetime and restores the previous mask after.
class PinGuard {
 public:
  explicit PinGuard(int cpu) {
    CPU_ZERO(&old_);
    saved_ =
        pthread_getaffinity_np(pthread_self(), sizeof(old_), &old_) == 0 && pin_this_thread(cpu);
  }
  ~PinGuard() {
    if (saved_) pthread_setaffinity_np(pthread_self(), sizeof(old_), &old_);
  }
  PinGuard(const PinGuard&) = delete;
  PinGuard& operator=(const PinGuard&) = delete;

 private:
  cpu_set_t old_;
  bool saved_ = false;
};

struct Budget {
  int samples;      // timed samples per figure (the median is kept)
  double sample_s;  // target length of one sample
};

// Runs `once` (which does some work and returns its size in bytes or operations) for about
// `sample_s` per sample after a warm-up, and returns the median rate per second of this
// thread's CPU time.
template <class F>
double median_rate(const Budget& b, F&& once) {
  // Warm-up, and an estimate of one call's time to size the samples.
  const auto t0 = Clock::now();
  const double c0 = thread_cpu_seconds();
  int calls = 0;
  do {
    once();
    ++calls;
  } while (seconds_since(t0) < b.sample_s * 0.5);
  const double per_call = (thread_cpu_seconds() - c0) / calls;
  const int reps = std::max(1, static_cast<int>(b.sample_s / std::max(per_call, 1e-9)));
  std::vector<double> rates;
  for (int s = 0; s < b.samples; ++s) {
    double done = 0.0;
    const double c1 = thread_cpu_seconds();
    for (int r = 0; r < reps; ++r) done += once();
    const double t = thread_cpu_seconds() - c1;
    if (t > 0) rates.push_back(done / t);
  }
  return median(rates);
}

// GB/s of one pinned thread reading a buffer of `bytes` repeatedly.
double read_bandwidth(ReadFn fn, std::int64_t bytes, const Budget& b) {
  Buffer buf = make_buffer(bytes);
  if (!buf) return 0.0;
  const std::int64_t n = bytes / 4;
  float sink = 0.0f;
  const double rate = median_rate(b, [&] {
    sink += fn(buf.get(), n);
    return static_cast<double>(bytes);
  });
  g_sink.store(sink, std::memory_order_relaxed);
  return rate * 1e-9;
}

// GB/s of `threads` pinned threads, each reading its own slice of `buf` for `passes` passes at
// the same time: total bytes over the span from the first start to the last finish.
double all_core_bandwidth(ReadFn fn, const float* buf, std::int64_t bytes, int threads, int passes,
                          int samples, double* cpu_share) {
  const std::vector<int> cpus = allowed_cpus();
  const std::int64_t slice = bytes / threads / 512 * 512;  // multiple of 128 floats
  if (slice <= 0) return 0.0;
  std::vector<double> rates, shares;
  for (int s = 0; s < samples + 1; ++s) {  // the first sample is the warm-up
    std::vector<Clock::time_point> start(static_cast<std::size_t>(threads)), end(start.size());
    std::vector<double> cpu(start.size());
    std::atomic<int> ready{0};
    auto body = [&](int t) {
      if (!cpus.empty()) pin_this_thread(cpus[static_cast<std::size_t>(t) % cpus.size()]);
      const float* p = buf + static_cast<std::int64_t>(t) * (slice / 4);
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (ready.load(std::memory_order_acquire) < threads) std::this_thread::yield();
      float sink = 0.0f;
      start[static_cast<std::size_t>(t)] = Clock::now();
      const double c0 = thread_cpu_seconds();
      for (int r = 0; r < passes; ++r) sink += fn(p, slice / 4);
      cpu[static_cast<std::size_t>(t)] = thread_cpu_seconds() - c0;
      end[static_cast<std::size_t>(t)] = Clock::now();
      g_sink.store(sink, std::memory_order_relaxed);
    };
    std::vector<std::thread> pool;
    try {
      for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
    } catch (...) {
      ready.store(1 << 30);  // release the started threads
      for (auto& th : pool) th.join();
      return 0.0;
    }
    {
      PinGuard keep(cpus.empty() ? -1 : cpus[0]);
      body(0);
    }
    for (auto& th : pool) th.join();
    const auto first = *std::min_element(start.begin(), start.end());
    const auto last = *std::max_element(end.begin(), end.end());
    const double span = std::chrono::duration<double>(last - first).count();
    if (s > 0 && span > 0) {
      rates.push_back(static_cast<double>(slice) * threads * passes / span * 1e-9);
      double busy = 0.0;
      for (double c : cpu) busy += c;
      shares.push_back(busy / (span * threads));
    }
  }
  if (cpu_share != nullptr) *cpu_share = median(shares);
  return median(rates);
}

// The panel width the packing probes pack into: the level's first (widest) tile's, or its
// vector lanes where it has no tile.
int probe_nr(const kernels::IsaKernels& ks) {
  return ks.tiles.empty() ? ks.lanes : ks.tiles.front().nr;
}

// GB/s of source data that the ISA's pack_b turns into panels of the widest tile, for a
// row-major source block of kc x n that, with its packed copy, sits in L2.
double pack_rate(const kernels::IsaKernels& ks, std::int64_t l2_bytes, const Budget& b) {
  const int nr = probe_nr(ks);
  constexpr std::int64_t kc = 256;
  std::int64_t n = std::max<std::int64_t>(nr, l2_bytes / 4 / (kc * 4) / nr * nr);
  const std::int64_t src_bytes = kc * n * 4;
  Buffer src = make_buffer(src_bytes);
  Buffer dst = make_buffer(kc * ((n + nr - 1) / nr * nr) * 4);
  if (!src || !dst) return 0.0;
  const double rate = median_rate(b, [&] {
    ks.pack_b(kc, n, src.get(), n, 1, nr, dst.get());
    return static_cast<double>(src_bytes);
  });
  g_sink.store(dst[static_cast<std::size_t>(n)], std::memory_order_relaxed);
  return rate * 1e-9;
}

// Row streams read in place from L3 (HardwareProfile::l3_row_streams and the shares after
// it): a buffer of `bytes` (inside the L3 the cores share, read again and again) walked as a
// register tile walks B in place, 3-line column tiles (the 8x48 fp32 tile's 192 bytes), with
// kc rows at once against one row at once. Rows 16 KiB apart (a multiple of 4 KiB: the page
// and L1 set conflicts of power-of-two leading dimensions) and 16 KiB + 45 lines apart (no
// common set).
struct RowStreams {
  double streams = 0.0, share_paged = 0.0, share = 0.0;
  double gbs_one_row = 0.0;                   // paged stride, one row at a time
  double gbs_paged_256 = 0.0, gbs_256 = 0.0;  // 256 rows at a time
};

RowStreams row_streams(std::int64_t bytes, const Budget& b) {
  RowStreams out;
  constexpr std::int64_t kTile = 192, kPaged = 16 * 1024, kOdd = kPaged + 45 * 64;
  constexpr std::int64_t kRow = kPaged;  // bytes read per row (whole column tiles)
  const std::int64_t rows = std::max<std::int64_t>(512, bytes / kOdd);
  Buffer buf = make_buffer(rows * kOdd + kRow);
  if (!buf) return out;
  const auto* base = reinterpret_cast<const unsigned char*>(buf.get());
  std::uint64_t sink = 0;
  auto rate = [&](std::int64_t ld, std::int64_t kc) {
    // At least 256 rows, so that "256 rows at a time" is that many at either stride.
    const std::int64_t n = std::min(rows, std::max<std::int64_t>(256, bytes / ld));
    const std::int64_t row_bytes = kRow / kTile * kTile;
    return median_rate(b,
                       [&] {
                         sink += measure::row_walk(base, n, ld, row_bytes, kc, kTile);
                         return static_cast<double>(n * row_bytes);
                       }) *
           1e-9;
  };
  out.gbs_one_row = rate(kPaged, 1);
  if (out.gbs_one_row <= 0) return out;
  // The most rows at once that keep 85% of one row's rate (1 when even 4 do not).
  out.streams = 1.0;
  for (const std::int64_t kc : {4, 8, 16, 32, 64}) {
    if (rate(kPaged, kc) < 0.85 * out.gbs_one_row) break;
    out.streams = static_cast<double>(kc);
  }
  out.gbs_paged_256 = rate(kPaged, 256);
  const double odd_one = rate(kOdd, 1);
  out.gbs_256 = rate(kOdd, 256);
  g_sink.store(static_cast<float>(sink & 255), std::memory_order_relaxed);
  out.share_paged = std::clamp(out.gbs_paged_256 / out.gbs_one_row, 0.01, 1.0);
  out.share = odd_one > 0 ? std::clamp(out.gbs_256 / odd_one, 0.01, 1.0) : 0.0;
  return out;
}

// The paged re-read probe (HardwareProfile::l2_row_share_paged): each fp32 register tile of the
// level runs the executor's in-place plan (A and B in place, depth blocks of kPagedKc, column
// blocks whose next depth block fits half of L2, B's rows read ahead) on 4 row tiles x 4096
// x 256, B's rows 16 KiB apart (a multiple of 4 KiB: a column tile's rows pile into a few L1
// sets) and one line further apart (no common set). The paged plan's extra time is the loss of
// the three row tiles that re-read each column tile; against their compute at the tile's rate
// on packed panels in L2, it gives the share of that rate they keep. B (4 MiB) is warm, in L3
// on the hosts met so far: the re-reads that leave L2 come from there. The lowest share over
// the tiles is shipped: where any tile loses, the model takes the loss for every in-place plan.
struct PagedReread {
  double share = 0.0;                                     // 0: not measured
  int mr = 0, nr = 0;                                     // the tile of the lowest share
  double paged_us = 0.0, odd_us = 0.0, rereads_us = 0.0;  // the plan's, the re-reads' compute
};

constexpr int kPagedRowTiles = 4;
constexpr std::int64_t kPagedN = 4096, kPagedK = 256, kPagedKc = 64;

// GFLOP/s of a tile over packed panels in L2: kPagedRowTiles row tiles per column tile.
double packed_tile_gflops(const kernels::TileKernels& t, std::int64_t l2_bytes, const Budget& b) {
  const kernels::UKernelFn fn = t.get(kernels::AMode::RowUnit, t.mr);
  const std::int64_t kc = kPagedKc;
  const std::int64_t nb = std::max<std::int64_t>(t.nr, l2_bytes / 4 / (kc * 4) / t.nr * t.nr);
  Buffer panels = make_buffer(kc * nb * 4);
  Buffer a = make_buffer(kPagedRowTiles * t.mr * kc * 4);
  Buffer c = make_buffer(kPagedRowTiles * t.mr * nb * 4);
  if (fn == nullptr || !panels || !a || !c) return 0.0;
  const double flops = 2.0 * kPagedRowTiles * t.mr * static_cast<double>(nb * kc);
  const double rate = median_rate(b, [&] {
    for (std::int64_t jr = 0; jr < nb; jr += t.nr)
      for (int it = 0; it < kPagedRowTiles; ++it) {
        kernels::UKernelArgs args{kc,   a.get() + it * t.mr * kc,
                                  kc,   panels.get() + jr * kc,
                                  t.nr, c.get() + it * t.mr * nb + jr,
                                  nb,   1.0f,
                                  0.0f, t.nr};
        fn(args);
      }
    return flops;
  });
  g_sink.store(c[0], std::memory_order_relaxed);
  return rate * 1e-9;
}

// The kernel call probe (HardwareProfile::kernel_call_cycles): each fp32 register tile of the
// level runs the packed plan's inner loops (kCallRowTiles row tiles of an A block in L2 over one
// B sliver, C beside them) over kCallDepth values of k, once in depth blocks of kCallShallow and
// once of kCallDeep, in turns. The same multiply-adds in more calls: the extra time over the
// extra calls is one call's cycles, less the C tile's load and store the model prices apart
// (kStoreCyclesPerVector per row and vector); the largest over the tiles.
struct KernelCall {
  double cycles = -1.0;  // negative: not measured
  int mr = 0, nr = 0;
  double shallow_us = 0.0, deep_us = 0.0;
};

constexpr int kCallRowTiles = 32;
constexpr std::int64_t kCallDepth = 256, kCallShallow = 32, kCallDeep = 256;

KernelCall kernel_call(const kernels::IsaKernels& ks, double freq_ghz, const Budget& b) {
  KernelCall out;
  for (const kernels::TileKernels& t : ks.tiles) {
    const kernels::UKernelFn fn = t.get(kernels::AMode::ColUnit, t.mr);
    if (fn == nullptr || t.lanes <= 0) continue;
    Buffer a = make_buffer(kCallRowTiles * t.mr * kCallDepth * 4);
    Buffer panel = make_buffer(t.nr * kCallDepth * 4);
    Buffer c = make_buffer(kCallRowTiles * t.mr * t.nr * 4);
    if (!a || !panel || !c) return out;
    auto pass = [&](std::int64_t kc) {
      const auto t0 = Clock::now();
      for (std::int64_t pc = 0; pc < kCallDepth; pc += kc)
        for (int it = 0; it < kCallRowTiles; ++it) {
          kernels::UKernelArgs args{kc,   a.get() + (it * kCallDepth + pc) * t.mr,
                                    t.mr, panel.get() + pc * t.nr,
                                    t.nr, c.get() + it * t.mr * t.nr,
                                    t.nr, 1.0f,
                                    1.0f, t.nr};
          fn(args);
        }
      return seconds_since(t0);
    };
    // The two depths in turns, and the median of each pair's difference: a pair shares its
    // moment of the host.
    std::vector<double> shallow, deep, extra;
    for (int r = 0; r < 20; ++r) pass(kCallShallow), pass(kCallDeep);  // operands in L2, clock up
    const int rounds = std::max(50, b.samples * 12);
    for (int r = 0; r < rounds; ++r) {
      shallow.push_back(pass(kCallShallow));
      deep.push_back(pass(kCallDeep));
      extra.push_back(shallow.back() - deep.back());
    }
    g_sink.store(c[0], std::memory_order_relaxed);
    const double s_us = median(shallow) * 1e6, d_us = median(deep) * 1e6;
    const double extra_calls =
        kCallRowTiles * static_cast<double>(kCallDepth / kCallShallow - kCallDepth / kCallDeep);
    const double per_call = median(extra) * 1e9 * freq_ghz / extra_calls;
    const double store = model_constants::kStoreCyclesPerVector * t.mr *
                         std::ceil(static_cast<double>(t.nr) / t.lanes);
    const double cycles = std::max(0.0, per_call - store);
    if (cycles > out.cycles) out = {cycles, t.mr, t.nr, s_us, d_us};
  }
  return out;
}

// The blocks of a probe's plan (A in place): depth kc, nc columns, B read ahead or not, or
// packed.
struct ProbeBlocks {
  std::int64_t kc = 0, nc = 0;
  bool prefetch_b = true;
  bool pack_b = false;
};

// The in-place plan the paged re-read and in-place DRAM probes run: depth blocks of kPagedKc,
// column blocks whose next depth block fits half of L2, B read ahead.
ProbeBlocks read_ahead_blocks(const kernels::TileKernels& t, std::int64_t n,
                              std::int64_t l2_bytes) {
  return {kPagedKc, std::clamp<std::int64_t>(l2_bytes / 2 / (kPagedKc * 4) / t.nr * t.nr, t.nr, n),
          true};
}

// Median microseconds of the executor's plan of tile `ti` on row-major m x n x k (A in place,
// B ldb apart, the blocks given). 0 where it fails.
double probe_plan_us(const kernels::IsaKernels& ks, int ti, std::int64_t m, std::int64_t n,
                     std::int64_t k, const float* a, const float* bm, std::int64_t ldb, float* c,
                     const ProbeBlocks& blocks, ThreadPool& pool, const Budget& b) {
  const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(ti)];
  Plan plan;
  plan.kind = PlanKind::Blocked;
  plan.isa = ks.isa;
  plan.tile = ti, plan.mr = t.mr, plan.nr = t.nr;
  plan.mc = m, plan.kc = blocks.kc, plan.nc = blocks.nc;
  plan.prefetch_b = blocks.prefetch_b;
  plan.pack_b = blocks.pack_b;
  GemmProblem g;
  if (make_problem(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a, k, bm, ldb, 0.0f, c, n,
                   g) != Status::Ok)
    return 0.0;
  const double flops = 2.0 * static_cast<double>(m * n * k);
  const double rate =
      median_rate(b, [&] { return execute(plan, g, ks, pool) == Status::Ok ? flops : 0.0; });
  g_sink.store(c[0], std::memory_order_relaxed);
  return rate > 0 ? flops / rate * 1e6 : 0.0;
}

PagedReread paged_reread(const kernels::IsaKernels& ks, std::int64_t l2_bytes, const Budget& b) {
  PagedReread out;
  ThreadPool pool(1);
  for (int ti = 0; ti < static_cast<int>(ks.tiles.size()); ++ti) {
    const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(ti)];
    const double packed = packed_tile_gflops(t, l2_bytes, b);
    if (packed <= 0) continue;
    const std::int64_t m = kPagedRowTiles * t.mr, odd_ld = kPagedN + 64 / 4;
    Buffer a = make_buffer(m * kPagedK * 4);
    Buffer bb = make_buffer(kPagedK * odd_ld * 4);
    Buffer c = make_buffer(m * kPagedN * 4);
    if (!a || !bb || !c) return out;
    const double flops = 2.0 * static_cast<double>(m * kPagedN * kPagedK);
    auto us = [&](std::int64_t ldb) {
      return probe_plan_us(ks, ti, m, kPagedN, kPagedK, a.get(), bb.get(), ldb, c.get(),
                           read_ahead_blocks(t, kPagedN, l2_bytes), pool, b);
    };
    const double paged = us(kPagedN), odd = us(odd_ld);
    if (paged <= 0 || odd <= 0) continue;
    const double rereads_us =
        flops / (packed * 1e3) * (kPagedRowTiles - 1) / static_cast<double>(kPagedRowTiles);
    const double share = 1.0 / (1.0 + std::max(0.0, paged - odd) / rereads_us);
    if (out.share == 0.0 || share < out.share) out = {share, t.mr, t.nr, paged, odd, rereads_us};
  }
  return out;
}

// The long-row re-read probe (HardwareProfile::l2_row_share_long): each fp32 register tile of
// the level runs the executor's in-place plan (A and B in place, one depth block of kPagedK
// rows, B warm in L3, rows a line off the page) over one row tile and over kLongRowTiles of
// them, kPagedN columns. The kc x nr sliver holds more lines than L1 keeps beside A, so the row
// tiles after the first kLongRowFreeTiles re-read it from L2: the extra tiles' time beyond
// their compute at the tile's packed rate, over the compute of those that lose, gives the share
// of that rate they keep. The lowest over the tiles is kept, as for the paged share
// (docs/MODEL.md M36).
constexpr int kLongRowTiles = 8;

struct LongReread {
  double share = 0.0;  // 0: not measured
  int mr = 0, nr = 0;
  double one_us = 0.0, many_us = 0.0, rereads_us = 0.0;
};

LongReread long_reread(const kernels::IsaKernels& ks, std::int64_t l2_bytes, const Budget& b) {
  LongReread out;
  ThreadPool pool(1);
  for (int ti = 0; ti < static_cast<int>(ks.tiles.size()); ++ti) {
    const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(ti)];
    const double packed = packed_tile_gflops(t, l2_bytes, b);
    if (packed <= 0) continue;
    const std::int64_t m = kLongRowTiles * t.mr, ld = kPagedN + 64 / 4;
    Buffer a = make_buffer(m * kPagedK * 4);
    Buffer bb = make_buffer(kPagedK * ld * 4);
    Buffer c = make_buffer(m * kPagedN * 4);
    if (!a || !bb || !c) return out;
    auto us = [&](std::int64_t rows) {
      return probe_plan_us(ks, ti, rows, kPagedN, kPagedK, a.get(), bb.get(), ld, c.get(),
                           {kPagedK, kPagedN, false, false}, pool, b);
    };
    const double one = us(t.mr), many = us(m);
    if (one <= 0 || many <= 0) continue;
    const double tile_us = 2.0 * t.mr * static_cast<double>(kPagedN * kPagedK) / (packed * 1e3);
    const double rereads_us = (kLongRowTiles - 1) * tile_us;
    const double losing_us = (kLongRowTiles - model_constants::kLongRowFreeTiles) * tile_us;
    const double share =
        std::clamp(1.0 / (1.0 + std::max(0.0, many - one - rereads_us) / losing_us), 0.01, 1.0);
    if (out.share == 0.0 || share < out.share) out = {share, t.mr, t.nr, one, many, rereads_us};
  }
  return out;
}

// The in-place DRAM probe (HardwareProfile::dram_in_place_loss and _share): each fp32 register
// tile of the level runs the executor's in-place plan for one row tile (its mr rows, depth
// blocks of kPagedKc, column blocks of many tiles, B read ahead) with the DRAM
// buffer as B: kInPlaceN columns a row, rows a line off the page (one row tile: no paged
// re-reads), as many rows as fill at most kInPlaceBytes, far beyond L3, so that every call
// reads B from DRAM. The plan's time less B at the core's stream rate and less the tile's
// compute at its packed rate, over its FMAs at the peak rate, is the loss; the largest over the
// tiles is shipped. The same run as a rate: B's time at the stream rate over the plan's time
// less the compute is the share of the stream B keeps beside the FMAs (that tile's).
struct InPlaceDram {
  double loss = -1.0;   // negative: not measured
  double share = -1.0;  // B's rate beside the FMAs over the stream rate (that tile's)
  int mr = 0, nr = 0;
  std::int64_t k = 0, n = 0;
  double us = 0.0, compute_us = 0.0;
};

constexpr std::int64_t kInPlaceN = 4096;
constexpr std::int64_t kInPlaceBytes = 512LL << 20;

InPlaceDram in_place_dram(const kernels::IsaKernels& ks, const float* big, std::int64_t big_bytes,
                          std::int64_t l2_bytes, double stream_gbs, double peak_gflops,
                          const Budget& b) {
  InPlaceDram out;
  const std::int64_t ldb = kInPlaceN + 64 / 4;
  const std::int64_t k = std::min(big_bytes, kInPlaceBytes) / 4 / ldb;
  if (big == nullptr || stream_gbs <= 0 || peak_gflops <= 0 || k < kPagedKc) return out;
  ThreadPool pool(1);
  for (int ti = 0; ti < static_cast<int>(ks.tiles.size()); ++ti) {
    const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(ti)];
    const double packed = packed_tile_gflops(t, l2_bytes, b);
    if (packed <= 0) continue;
    const std::int64_t m = t.mr;
    Buffer a = make_buffer(m * k * 4);
    Buffer c = make_buffer(m * kInPlaceN * 4);
    if (!a || !c) return out;
    const double flops = 2.0 * static_cast<double>(m * kInPlaceN * k);
    const double us = probe_plan_us(ks, ti, m, kInPlaceN, k, a.get(), big, ldb, c.get(),
                                    read_ahead_blocks(t, kInPlaceN, l2_bytes), pool, b);
    if (us <= 0) continue;
    const double compute_us = flops / (packed * 1e3);
    const double stream_us = 4.0 * static_cast<double>(k * kInPlaceN) / (stream_gbs * 1e3);
    const double fma_us = flops / (peak_gflops * 1e3);
    const double loss = std::clamp((us - stream_us - compute_us) / fma_us, 0.0, 20.0);
    const double share = std::clamp(stream_us / std::max(us - compute_us, 1e-3), 0.01, 2.0);
    if (loss > out.loss) out = {loss, share, t.mr, t.nr, k, kInPlaceN, us, compute_us};
  }
  return out;
}

// The DRAM packing probe (HardwareProfile::dram_pack_share): the level's pack_b packs a quarter
// of the DRAM buffer as a packed-B plan packs a B beyond L3, one kDramPackKc x kDramPackNc block
// after the other (rows kDramPackLd floats apart, an LLM weight's 16 KiB stride; column blocks
// outer, depth blocks inner, as one core's loops run) into one destination, which stays in
// cache as the executor's per-task buffer does; then the stream reader reads the next quarter.
// Samples pack quarters 1 and 3 and read 2 and 0 in turn, so that each quarter comes back after
// half the buffer (4 times the L3 or more) and is read from DRAM. The
// share is the median over the samples of the pack's rate over the read's beside it (a ratio
// of neighbours in time: a host whose speed drifts over seconds moved the rates of separate
// measurements apart by a third), times the ramp the model charges a run of kDramPackNc
// values (kDramRunRampBytes).
struct DramPack {
  double share = -1.0;                 // negative: not measured
  double gbs = 0.0, stream_gbs = 0.0;  // medians of the pack's and the reads' rates
};

constexpr std::int64_t kDramPackKc = 256, kDramPackNc = 2048, kDramPackLd = 4096;

DramPack dram_pack(const kernels::IsaKernels& ks, ReadFn reader, const float* big,
                   std::int64_t big_bytes, int samples) {
  DramPack out;
  const std::int64_t quarter_rows = big_bytes / 4 / 4 / kDramPackLd / kDramPackKc * kDramPackKc;
  if (big == nullptr || quarter_rows < kDramPackKc) return out;
  const int nr = probe_nr(ks);
  Buffer dst = make_buffer((kDramPackNc + nr - 1) / nr * nr * kDramPackKc * 4);
  if (!dst) return out;
  const std::int64_t quarter = quarter_rows * kDramPackLd;  // floats
  auto pack_quarter = [&](const float* q) {
    for (std::int64_t jc = 0; jc < kDramPackLd; jc += kDramPackNc)
      for (std::int64_t pc = 0; pc < quarter_rows; pc += kDramPackKc)
        ks.pack_b(kDramPackKc, kDramPackNc, q + pc * kDramPackLd + jc, kDramPackLd, 1, nr,
                  dst.get());
  };
  float sink = 0.0f;
  pack_quarter(big);  // warm-up (TLB, clock)
  std::vector<double> packs, reads, ratios;
  const double bytes = 4.0 * static_cast<double>(quarter);
  for (int s = 0; s < samples; ++s) {
    const float* q = big + (2 * s + 1) % 4 * quarter;
    const float* r = big + (2 * s + 2) % 4 * quarter;
    const double c0 = thread_cpu_seconds();
    pack_quarter(q);
    const double c1 = thread_cpu_seconds();
    sink += reader(r, quarter);
    const double c2 = thread_cpu_seconds();
    if (c1 <= c0 || c2 <= c1) continue;
    packs.push_back(bytes / (c1 - c0) * 1e-9);
    reads.push_back(bytes / (c2 - c1) * 1e-9);
    ratios.push_back((c2 - c1) / (c1 - c0));
  }
  g_sink.store(sink + dst[static_cast<std::size_t>(nr)], std::memory_order_relaxed);
  if (ratios.empty()) return out;
  out.gbs = median(packs), out.stream_gbs = median(reads);
  out.share = std::clamp(
      median(ratios) * (1.0 + model_constants::kDramRunRampBytes / (4.0 * kDramPackNc)), 0.05, 2.0);
  return out;
}

// The self-streaming probe (HardwareProfile::dram_self_streaming_rows and _row_bytes): one row
// tile of h rows (the tile of fewest rows that holds them) runs the decode plan the planner
// offers (A and B in place, depth blocks of kSelfStreamingKc over B's whole width) on the DRAM
// buffer as B, once with the read-ahead and once leaving B's rows to the hardware prefetchers,
// and the packed plan that competes with them (B packed in blocks of kSelfStreamingPackKc x
// kSelfStreamingPackNc). First the rows: h = 3, 4, 5, 6 and 8 (up to the level's tallest tile)
// on rows of kSelfStreamingN columns (32 KiB, an LLM weight's stride); they stream by
// themselves at h where the plain plan is no slower than either (the model then prices it at
// B's stream rate, without the in-place DRAM loss), up to the largest h at which every height
// so far does (2 where 3 rows do not: the planner's rule before). Then the rows' length: one
// row and that many rows on rows of 8, 4 and 2 KiB, down to the shortest at which plain is
// still no slower than the read-ahead (16 KiB, the rule before, where 8 KiB is not). On a Zen 3
// core: six rows, down to 4 or 2 KiB (docs/MODEL.md M24, M25).
constexpr std::int64_t kSelfStreamingKc = 8;
constexpr std::int64_t kSelfStreamingN = 8192;
constexpr std::int64_t kSelfStreamingPackKc = 256, kSelfStreamingPackNc = 2048;
constexpr int kSelfStreamingHeights[] = {3, 4, 5, 6, 8};
constexpr std::int64_t kSelfStreamingRowBytes[] = {8192, 4096, 2048};
constexpr std::int64_t kSelfStreamingDefaultRowBytes = 16384;

struct SelfStreaming {
  int rows = -1;                // negative: not measured
  std::int64_t row_bytes = -1;  // likewise
  std::vector<CalibrationReport::SelfStreamingHeight> heights;
};

// The level's tile of fewest rows that holds h rows; -1 where none does.
int fewest_rows_tile(const kernels::IsaKernels& ks, int h) {
  int ti = -1;
  for (int i = 0; i < static_cast<int>(ks.tiles.size()); ++i) {
    const int mr = ks.tiles[static_cast<std::size_t>(i)].mr;
    if (mr >= h && (ti < 0 || mr < ks.tiles[static_cast<std::size_t>(ti)].mr)) ti = i;
  }
  return ti;
}

// One height of the probe over rows of n columns: plain, read ahead and (with `packed`) the
// packed plan; rows = 0 where no tile holds h rows or a plan failed.
CalibrationReport::SelfStreamingHeight self_streaming_height(const kernels::IsaKernels& ks,
                                                             const float* big,
                                                             std::int64_t big_bytes, int h,
                                                             std::int64_t n, bool packed,
                                                             ThreadPool& pool, const Budget& b) {
  CalibrationReport::SelfStreamingHeight out;
  const std::int64_t k =
      std::min(big_bytes, kInPlaceBytes) / 4 / n / kSelfStreamingPackKc * kSelfStreamingPackKc;
  const int ti = fewest_rows_tile(ks, h);
  if (ti < 0 || k < 2 * kSelfStreamingPackKc) return out;
  const kernels::TileKernels& t = ks.tiles[static_cast<std::size_t>(ti)];
  Buffer a = make_buffer(h * k * 4);
  Buffer c = make_buffer(h * n * 4);
  if (!a || !c) return out;
  auto us = [&](const ProbeBlocks& blocks) {
    return probe_plan_us(ks, ti, h, n, k, a.get(), big, n, c.get(), blocks, pool, b);
  };
  const std::int64_t pack_nc = std::max<std::int64_t>(t.nr, kSelfStreamingPackNc / t.nr * t.nr);
  out.plain_us = us({kSelfStreamingKc, n, false, false});
  out.read_ahead_us = us({kSelfStreamingKc, n, true, false});
  out.packed_us = packed ? us({kSelfStreamingPackKc, pack_nc, false, true}) : 0.0;
  if (out.plain_us <= 0 || out.read_ahead_us <= 0 || (packed && out.packed_us <= 0)) return out;
  out.rows = h, out.mr = t.mr, out.nr = t.nr, out.k = k, out.n = n;
  return out;
}

// `quick`: fewer samples, and rows of 4 KiB only for the length (calibrate --quick stays within
// its 10 s with the other CPU busy).
SelfStreaming self_streaming(const kernels::IsaKernels& ks, const float* big,
                             std::int64_t big_bytes, const Budget& full, bool quick) {
  SelfStreaming out;
  if (big == nullptr) return out;
  const Budget b = quick ? Budget{3, 0.002} : full;
  const std::span<const std::int64_t> lengths =
      quick ? std::span<const std::int64_t>(kSelfStreamingRowBytes).subspan(1, 1)
            : std::span<const std::int64_t>(kSelfStreamingRowBytes);
  ThreadPool pool(1);
  int rows = 2;
  for (const int h : kSelfStreamingHeights) {
    const auto r = self_streaming_height(ks, big, big_bytes, h, kSelfStreamingN, true, pool, b);
    if (r.rows == 0) break;
    out.heights.push_back(r);
    if (r.plain_us > r.read_ahead_us || r.plain_us > r.packed_us) break;
    rows = h;
  }
  if (out.heights.empty()) return out;
  out.rows = rows;
  out.row_bytes = kSelfStreamingDefaultRowBytes;
  for (const std::int64_t bytes : lengths) {
    for (const int h : {1, rows}) {
      const auto r = self_streaming_height(ks, big, big_bytes, h, bytes / 4, false, pool, b);
      if (r.rows == 0) return out;
      out.heights.push_back(r);
      if (r.plain_us > r.read_ahead_us) return out;
    }
    out.row_bytes = bytes;
  }
  return out;
}

// The few-row stream probe (HardwareProfile::few_row_stream_exponent): one row of C over a B
// read in place (B's rows left to the hardware prefetchers: the plan a one-row call gets), the
// tile of fewest rows, in depth blocks of kStreamsTracked rows and of kFewRowDeepFactor times as
// many, in turns. Where the deeper blocks take t times as long, the rate falls as
// (tracked / rows)^e with e = log t / log kFewRowDeepFactor (the shallow blocks' extra kernel
// calls only lower e). Run on the DRAM buffer (rows of kSelfStreamingN columns) and on a B that
// stays in L3 (rows of kFewRowL3N columns, the L3 probe's size); the larger exponent is kept:
// the planner does not know which level a warm call's B really comes from, and the shallow
// blocks lose little where the deep ones lose most (docs/MODEL.md M35).
constexpr std::int64_t kFewRowDeepFactor = 4;
constexpr std::int64_t kFewRowL3N = 2048;
constexpr std::int64_t kQuickFewRowBytes = 128LL << 20;

struct FewRowStreams {
  double exponent = -1.0;  // negative: not measured
  int mr = 0, nr = 0;
  std::int64_t k = 0, n = 0;
  double shallow_us = 0.0, deep_us = 0.0;
};

FewRowStreams few_row_streams(const kernels::IsaKernels& ks, const float* big,
                              std::int64_t big_bytes, std::int64_t n, const Budget& b) {
  FewRowStreams out;
  const int ti = fewest_rows_tile(ks, 1);
  if (big == nullptr || ti < 0) return out;
  const std::int64_t tracked = static_cast<std::int64_t>(model_constants::kStreamsTracked);
  const std::int64_t deep = tracked * kFewRowDeepFactor;
  const std::int64_t k = std::min(big_bytes, kInPlaceBytes) / 4 / n / deep * deep;
  if (k < 4 * deep) return out;
  Buffer a = make_buffer(k * 4);
  Buffer c = make_buffer(n * 4);
  if (!a || !c) return out;
  ThreadPool pool(1);
  std::vector<double> shallow, deeper;
  const Budget one{1, b.sample_s};
  for (int round = 0; round < b.samples; ++round) {
    shallow.push_back(probe_plan_us(ks, ti, 1, n, k, a.get(), big, n, c.get(),
                                    {tracked, n, false, false}, pool, one));
    deeper.push_back(probe_plan_us(ks, ti, 1, n, k, a.get(), big, n, c.get(),
                                   {deep, n, false, false}, pool, one));
  }
  out.shallow_us = median(shallow), out.deep_us = median(deeper);
  if (out.shallow_us <= 0 || out.deep_us <= 0) return out;
  const auto& t = ks.tiles[static_cast<std::size_t>(ti)];
  out.mr = t.mr, out.nr = t.nr, out.k = k, out.n = n;
  out.exponent = std::clamp(std::log(std::max(1.0, out.deep_us / out.shallow_us)) /
                                std::log(static_cast<double>(kFewRowDeepFactor)),
                            0.0, 4.0);
  return out;
}

// Median round trip of ThreadPool::run with an empty task on `threads` threads, microseconds.
double fork_join(int threads, int rounds) {
  try {
    ThreadPool pool(threads);
    std::atomic<int> touched{0};
    auto task = [&](int) { touched.fetch_add(1, std::memory_order_relaxed); };
    for (int i = 0; i < rounds / 4 + 100; ++i) pool.run(threads, task);  // warm-up
    std::vector<double> us;
    us.reserve(static_cast<std::size_t>(rounds));
    for (int i = 0; i < rounds; ++i) {
      const auto t0 = Clock::now();
      pool.run(threads, task);
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    return median(std::move(us));
  } catch (...) {
    return -1.0;
  }
}

double round_half(double x) { return std::max(0.5, std::round(x * 2.0) / 2.0); }

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

HardwareProfile calibrate(const CalibrationOptions& options, const HardwareProfile& base,
                          CalibrationReport* report) {
  const auto t_start = Clock::now();
  CalibrationReport rep;
  rep.timestamp = utc_timestamp();
  HardwareProfile hw = base;
  hw.source = "calibrated";
  const HardwareProfile& real = detected_hardware();
  const Budget b = options.quick ? Budget{5, 0.004} : Budget{9, 0.03};
  const int threads = options.threads > 0 ? options.threads : std::max(1, base.cores);
  rep.threads = threads;
  // The best level both allow, reported as the level whose fp32 table (loads, pack_b) it runs.
  const Isa level = kernels::best_level(real.features & base.features);
  const Isa isa = kernels::kernels_for(level)->isa;
  rep.isa = isa;
  const ReadFn reader = measure::loops::read_pass_for(32 * HardwareProfile::fp32_lanes(isa));
  const std::vector<int> cpus = allowed_cpus();
  Buffer big;  // the DRAM buffer, shared by the one-thread and all-thread figures

  {
    PinGuard pin(cpus.empty() ? -1 : cpus[0]);

    // Clock: median of several dependent-add probes (each already the best of 5 samples).
    std::vector<double> ghz;
    for (int i = 0; i < (options.quick ? 3 : 7); ++i) ghz.push_back(measure_clock_ghz());
    hw.freq_ghz = median(ghz);

    // FMA issue rate per vector width: sustained GFLOP/s / (2 flops x lanes x clock), to 0.5.
    // The probe divides by wall time; rescaled by wall / CPU time of the call, time spent
    // preempted by other processes does not count.
    auto fma_rate = [&](int bits) {
      std::vector<double> g;
      measure_fma_gflops(bits, b.sample_s);  // warm-up (clock ramp, AVX-512 licence)
      for (int i = 0; i < b.samples; ++i) {
        const auto t0 = Clock::now();
        const double c0 = thread_cpu_seconds();
        const double gflops = measure_fma_gflops(bits, b.sample_s);
        const double cpu = thread_cpu_seconds() - c0, wall = seconds_since(t0);
        g.push_back(cpu > 0 ? gflops * std::max(1.0, wall / cpu) : gflops);
      }
      return median(g);
    };
    if (fma_loop(512, real.features) != nullptr) {
      rep.fma_gflops_512 = fma_rate(512);
      if (rep.fma_gflops_512 > 0)
        hw.fma_per_cycle_512 = round_half(rep.fma_gflops_512 / (2.0 * 16 * hw.freq_ghz));
    }
    if (fma_loop(256, real.features) != nullptr) {
      rep.fma_gflops_256 = fma_rate(256);
      if (rep.fma_gflops_256 > 0)
        hw.fma_per_cycle_256 = round_half(rep.fma_gflops_256 / (2.0 * 8 * hw.freq_ghz));
    }

    // The dot-product instructions of the low-precision kernels, per cycle (to 0.5): flops
    // of the probe loop over 64 (vdpbf16ps: 16 lanes x 2 multiply-adds) or 128 (vpdpbusd: 16
    // lanes x 4) per instruction and the clock.
    auto dot_rate = [&](std::uint64_t (*loop)(std::uint64_t), double ops_per_instr) {
      const double flops = median_rate(b, [&] { return static_cast<double>(loop(1 << 16)); });
      return flops > 0 ? round_half(flops / (ops_per_instr * hw.freq_ghz * 1e9)) : 0.0;
    };
    if (level >= Isa::Avx512Vnni)
      if (const double v = dot_rate(&measure::loops::dot_int8_vnni, 128.0); v > 0)
        hw.dot_int8_per_cycle = v, rep.dot_int8_measured = true;
    if (level >= Isa::Avx512Bf16)
      if (const double v = dot_rate(&measure::loops::dot_bf16_avx512, 64.0); v > 0)
        hw.dot_bf16_per_cycle = v, rep.dot_bf16_measured = true;
    // The AMX unit's tile products per cycle (to 1/1000 of a product), where the process holds
    // the tile state; the loop answers 0 elsewhere.
    if (level >= Isa::Amx) {
      const double tiles = median_rate(
          b, [&] { return static_cast<double>(measure::loops::amx_bf16_tiles(1 << 12)); });
      if (tiles > 0)
        hw.amx_tiles_per_cycle = std::round(tiles / (hw.freq_ghz * 1e9) * 1000.0) / 1000.0,
        rep.amx_tiles_measured = true;
    }

    // Read bandwidth of each level: a buffer well inside it (half of L1, a quarter of L2, and
    // 8 MiB or half of the L3 the cores share, whichever is smaller, but at least 4 x L2).
    auto round512 = [](std::int64_t x) { return std::max<std::int64_t>(512, x / 512 * 512); };
    rep.l1_buffer = round512(base.l1d_bytes / 2);
    rep.l2_buffer = round512(std::max(base.l2_bytes / 4, base.l1d_bytes * 4));
    const std::int64_t l3_total = base.l3_bytes * std::max(1, base.cores);
    rep.l3_buffer =
        round512(std::max(std::min<std::int64_t>(8LL << 20, l3_total / 2), base.l2_bytes * 4));
    if (const double v = read_bandwidth(reader, rep.l1_buffer, b); v > 0) hw.bw_l1_gbs = v;
    if (const double v = read_bandwidth(reader, rep.l2_buffer, b); v > 0) hw.bw_l2_gbs = v;
    if (const double v = read_bandwidth(reader, rep.l3_buffer, b); v > 0) hw.bw_l3_gbs = v;

    // DRAM: a buffer far larger than every cache (256 MiB, or 8 x the whole L3 if larger,
    // capped at 2 GiB), read by one thread and then by all threads at once. The whole L3 is the
    // one the CPU reports (a 300 MiB part's, not the capped share: 256 MiB would fit in it).
    const std::int64_t l3_whole =
        std::max(l3_total, base.l3_warm_bytes * static_cast<std::int64_t>(std::max(1, base.cores)));
    rep.dram_buffer = round512(std::clamp<std::int64_t>(8 * l3_whole, 256LL << 20, 2LL << 30));
    big = make_buffer(rep.dram_buffer);
    if (!big) {
      rep.dram_buffer = 0;
    } else {
      const std::int64_t n = rep.dram_buffer / 4;
      const int dram_samples = options.quick ? 3 : 5;
      // With the hardware prefetchers alone and with software prefetches ahead: the faster is
      // what the model's DRAM terms were fitted to (the in-place kernels prefetch). The same
      // bytes as several streams at once are reported beside them, not used: kernels reading
      // many rows reach it (the benchmark's DRAM limit takes it), but every DRAM term of the
      // model was fitted to the single-stream rate, and no validation of them against the
      // faster figure has been run (docs/MODEL.md, *DRAM read rate*).
      double best = 0.0;
      for (const ReadFn fn :
           {reader, &measure::loops::read_pass_prefetch, &measure::loops::read_pass_streams}) {
        std::vector<double> one;
        float sink = fn(big.get(), n);  // warm-up (TLB, clock)
        for (int s = 0; s < dram_samples; ++s) {
          const double c0 = thread_cpu_seconds();
          sink += fn(big.get(), n);
          const double t = thread_cpu_seconds() - c0;
          if (t > 0) one.push_back(static_cast<double>(rep.dram_buffer) / t * 1e-9);
        }
        g_sink.store(sink, std::memory_order_relaxed);
        const double v = median(one);
        if (fn == reader)
          rep.dram_core_plain_gbs = v;
        else if (fn == &measure::loops::read_pass_prefetch)
          rep.dram_core_prefetch_gbs = v;
        else
          rep.dram_core_streams_gbs = v;
        if (fn != &measure::loops::read_pass_streams) best = std::max(best, v);
      }
      if (best > 0) hw.bw_dram_core_gbs = best;
    }

    // The L3 a core's hot loop keeps, as the running code sees it (other tenants fill the rest
    // of a shared L3): buffers doubling from 4 x L2 to twice the L3 the CPU reports, read
    // again and again; the largest that still reads at the geometric mean of the L3 and DRAM
    // rates or faster is in L3: l3_warm_bytes, the L3 one core's hot loop keeps (a call on T
    // threads counts T times it, as it does detection's share).
    if (hw.bw_dram_core_gbs < hw.bw_l3_gbs) {
      const double mid = std::sqrt(hw.bw_l3_gbs * hw.bw_dram_core_gbs);
      const Budget sweep = options.quick ? Budget{3, 0.002} : Budget{5, 0.01};
      std::int64_t seen = 0;
      for (std::int64_t s = round512(base.l2_bytes * 4);
           s <= std::min<std::int64_t>(2 * l3_whole, 1LL << 30); s *= 2) {
        const double v = read_bandwidth(reader, s, sweep);
        rep.l3_sweep.emplace_back(s, v);
        if (v < mid) break;
        seen = s;
      }
      rep.l3_seen_bytes = seen;
      // Never above the share per processor the CPU reports: a thread alone may see more of a
      // shared L3 than each of T threads gets, and a call on T threads counts T times it.
      if (seen > 0)
        hw.l3_warm_bytes = std::clamp<std::int64_t>(seen, base.l2_bytes,
                                                    std::max(base.l2_bytes, base.l3_warm_bytes));
    }

    // Row streams from L3, as a register tile reads B in place.
    const RowStreams rs = row_streams(rep.l3_buffer, b);
    if (rs.streams > 0 && rs.share > 0) {
      hw.l3_row_streams = rs.streams;
      hw.l3_row_share_paged = rs.share_paged;
      hw.l3_row_share = rs.share;
    }
    rep.row_gbs_one = rs.gbs_one_row;
    rep.row_gbs_paged_256 = rs.gbs_paged_256;
    rep.row_gbs_256 = rs.gbs_256;

    // Packing with the level's pack_b, source and destination in L2; the level's tiles
    // re-reading B in place from L2 at a paged stride.
    if (const kernels::IsaKernels* ks = kernels::kernels_for(isa)) {
      if (const double v = pack_rate(*ks, base.l2_bytes, b); v > 0) hw.pack_gbs = v;
      const PagedReread pr = paged_reread(*ks, base.l2_bytes, b);
      if (pr.share > 0) hw.l2_row_share_paged = std::max(0.01, pr.share);
      // The probes added last take the quick budget of the self-streaming probe under
      // --quick (which stays within its 10 s with the other CPU busy), and a B from DRAM of
      // kQuickFewRowBytes, still beyond L3.
      const Budget lean = options.quick ? Budget{3, 0.002} : b;
      const LongReread lr = long_reread(*ks, base.l2_bytes, lean);
      if (lr.share > 0) hw.l2_row_share_long = lr.share;
      rep.long_mr = lr.mr, rep.long_nr = lr.nr, rep.long_one_us = lr.one_us;
      rep.long_many_us = lr.many_us, rep.long_rereads_us = lr.rereads_us;
      rep.paged_mr = pr.mr, rep.paged_nr = pr.nr;
      rep.paged_m = kPagedRowTiles * pr.mr, rep.paged_n = kPagedN, rep.paged_k = kPagedK;
      rep.paged_us = pr.paged_us, rep.paged_odd_us = pr.odd_us;
      rep.paged_rereads_us = pr.rereads_us;
      const InPlaceDram ip = in_place_dram(*ks, big.get(), rep.dram_buffer, base.l2_bytes,
                                           hw.bw_dram_core_gbs, hw.peak_gflops_per_core(isa), b);
      if (ip.loss >= 0) hw.dram_in_place_loss = ip.loss;
      if (ip.share > 0) hw.dram_in_place_share = ip.share;
      const DramPack dp =
          dram_pack(*ks, reader, big.get(), rep.dram_buffer, options.quick ? 4 : 12);
      if (dp.share > 0) hw.dram_pack_share = dp.share;
      rep.dram_pack_gbs = dp.gbs, rep.dram_pack_stream_gbs = dp.stream_gbs;
      rep.in_place_mr = ip.mr, rep.in_place_nr = ip.nr;
      rep.in_place_k = ip.k, rep.in_place_n = ip.n;
      rep.in_place_us = ip.us, rep.in_place_compute_us = ip.compute_us;
      const KernelCall kc = kernel_call(*ks, hw.freq_ghz, b);
      if (kc.cycles >= 0) hw.kernel_call_cycles = kc.cycles;
      rep.call_mr = kc.mr, rep.call_nr = kc.nr;
      rep.call_shallow_us = kc.shallow_us, rep.call_deep_us = kc.deep_us;
      const SelfStreaming ss = self_streaming(*ks, big.get(), rep.dram_buffer, b, options.quick);
      if (ss.rows >= 0) hw.dram_self_streaming_rows = ss.rows;
      if (ss.row_bytes > 0) hw.dram_self_streaming_row_bytes = ss.row_bytes;
      rep.self_streaming = ss.heights;
      const std::int64_t few_row_bytes =
          options.quick ? std::min(rep.dram_buffer, kQuickFewRowBytes) : rep.dram_buffer;
      const FewRowStreams fr =
          few_row_streams(*ks, big.get(), few_row_bytes, kSelfStreamingN, lean);
      Buffer l3b = make_buffer(rep.l3_buffer);
      const FewRowStreams fr3 = few_row_streams(*ks, l3b.get(), rep.l3_buffer, kFewRowL3N, lean);
      const double e = std::max(fr.exponent, fr3.exponent);
      if (e >= 0) hw.few_row_stream_exponent = e;
      rep.few_row_mr = fr.mr, rep.few_row_nr = fr.nr, rep.few_row_k = fr.k, rep.few_row_n = fr.n;
      rep.few_row_shallow_us = fr.shallow_us, rep.few_row_deep_us = fr.deep_us;
      rep.few_row_l3_k = fr3.k, rep.few_row_l3_n = fr3.n;
      rep.few_row_l3_shallow_us = fr3.shallow_us, rep.few_row_l3_deep_us = fr3.deep_us;
    }
  }

  // All threads reading the DRAM buffer at once, each its own slice (outside the pin above:
  // each thread pins itself to its own CPU).
  if (big) {
    const int passes = options.quick ? 1 : 2;
    double best = 0.0;
    for (const ReadFn fn : {reader, &measure::loops::read_pass_prefetch}) {
      double share = 0.0;
      const double v = all_core_bandwidth(fn, big.get(), rep.dram_buffer, threads, passes,
                                          options.quick ? 3 : 5, &share);
      if (v > best) best = v, rep.dram_total_cpu_share = share;
    }
    if (best > 0) hw.bw_dram_total_gbs = best;
    // All cores together never read slower than one of them alone; a lower figure means
    // other processes held the CPUs (see dram_total_cpu_share).
    hw.bw_dram_total_gbs = std::max(hw.bw_dram_total_gbs, hw.bw_dram_core_gbs);
  }
  big.reset();

  // Fork/join of the library's own pool, as a GEMM call sees it (workers unpinned, back-to-back
  // calls find them spinning).
  const int fj_threads = std::max(2, threads);
  // The smallest of four batch medians: a batch during which another process held a CPU waits
  // for it, and a figure far above a spinning pool's round trip is that wait, not the pool's
  // (2 ms on a host whose second vCPU was busy): the default stays, and the report says so.
  double fj = -1.0;
  for (int batch = 0; batch < 4; ++batch)
    if (const double v = fork_join(fj_threads, options.quick ? 500 : 5000); v >= 0)
      fj = fj < 0 ? v : std::min(fj, v);
  rep.fork_join_measured_us = fj;
  rep.fork_join_busy = fj > kForkJoinBusyUs;
  if (fj >= 0 && !rep.fork_join_busy) hw.fork_join_us = fj;

  rep.seconds = seconds_since(t_start);
  if (report != nullptr) *report = rep;
  return hw;
}

std::string calibrated_profile_json(const HardwareProfile& hw, const CalibrationReport& report) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(to_json(hw));
  j["calibrated"] = true;
  j["calibrated_at"] = report.timestamp;
  j["calibration_threads"] = report.threads;
  return j.dump(2);
}

}  // namespace adaptcore
