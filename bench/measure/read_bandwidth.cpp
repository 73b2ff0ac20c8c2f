#include "measure/read_bandwidth.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "measure/bench_util.hpp"
#include "measure/read_loops.hpp"

namespace adaptcore::measure {

namespace {

// GB/s of each pass, the loops taken in turn (pass p runs reads[p % size]); empty if the buffer
// cannot be allocated.
std::vector<double> read_rates(int threads, std::int64_t bytes, int passes,
                               const std::vector<loops::ReadPass>& reads) {
  std::vector<double> rates;
  threads = std::max(1, threads);
  // Per thread a multiple of 128 floats (what the read pass takes).
  const std::int64_t per_thread = bytes / threads / 512 * 128;
  if (per_thread <= 0) return rates;
  const std::size_t total = static_cast<std::size_t>(per_thread * threads) * sizeof(float);
  auto* buf = static_cast<float*>(std::aligned_alloc(64, total));
  if (buf == nullptr) return rates;
  std::memset(buf, 0, total);  // touch every page before timing
  std::atomic<float> sink{0};
  for (int pass = 0; pass < passes; ++pass) {
    const loops::ReadPass read = reads[static_cast<std::size_t>(pass) % reads.size()];
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    std::vector<double> start(static_cast<std::size_t>(threads)), stop(start.size());
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        const auto t0 = std::chrono::steady_clock::now();
        const float s = read(
            buf + static_cast<std::size_t>(t) * static_cast<std::size_t>(per_thread), per_thread);
        const auto t1 = std::chrono::steady_clock::now();
        start[static_cast<std::size_t>(t)] =
            std::chrono::duration<double>(t0.time_since_epoch()).count();
        stop[static_cast<std::size_t>(t)] =
            std::chrono::duration<double>(t1.time_since_epoch()).count();
        sink.store(sink.load() + s);
      });
    }
    while (ready.load() < threads) std::this_thread::yield();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    const double span =
        *std::max_element(stop.begin(), stop.end()) - *std::min_element(start.begin(), start.end());
    rates.push_back(span > 0 ? static_cast<double>(total) / span * 1e-9 : 0.0);
  }
  std::free(buf);
  return rates;
}

loops::ReadPass plain_pass() {
  return loops::read_pass_for(32 * HardwareProfile::fp32_lanes(detected_hardware().best_isa()));
}

}  // namespace

double measure_read_bandwidth(int threads, std::int64_t bytes, int passes) {
  // The path's widest loads, the prefetching loop and several streams at once (in long runs
  // and in a tile's short visits) in turn: the fastest is what a kernel can reach (the
  // in-place kernels prefetch, and read many rows a few lines at a time).
  const std::vector<double> rates =
      read_rates(threads, bytes, passes,
                 {plain_pass(), &loops::read_pass_prefetch, &loops::read_pass_streams,
                  &loops::read_pass_short_streams});
  return rates.empty() ? 0.0 : *std::max_element(rates.begin(), rates.end());
}

double measure_stream_bandwidth(int threads, std::int64_t bytes, int passes) {
  // As the calibration takes it: each loop's median pass, the faster loop.
  const std::vector<double> rates =
      read_rates(threads, bytes, 2 * passes, {plain_pass(), &loops::read_pass_prefetch});
  double best = 0;
  for (std::size_t loop = 0; loop < 2; ++loop) {
    std::vector<double> one;
    for (std::size_t i = loop; i < rates.size(); i += 2) one.push_back(rates[i]);
    best = std::max(best, median(one));
  }
  return best;
}

}  // namespace adaptcore::measure
