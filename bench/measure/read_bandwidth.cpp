#include "measure/read_bandwidth.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "measure/read_loops.hpp"

namespace adaptcore::measure {

double measure_read_bandwidth(int threads, std::int64_t bytes, int passes) {
  threads = std::max(1, threads);
  // Per thread a multiple of 128 floats (what the read pass takes).
  const std::int64_t per_thread = bytes / threads / 512 * 128;
  if (per_thread <= 0) return 0;
  const std::size_t total = static_cast<std::size_t>(per_thread * threads) * sizeof(float);
  auto* buf = static_cast<float*>(std::aligned_alloc(64, total));
  if (buf == nullptr) return 0;
  std::memset(buf, 0, total);  // touch every page before timing
  // The path's widest loads, the prefetching loop and several streams at once in turn: the
  // fastest is what a kernel can reach (the in-place kernels prefetch, and read many rows).
  const loops::ReadPass plain =
      loops::read_pass_for(32 * HardwareProfile::fp32_lanes(detected_hardware().best_isa()));
  const loops::ReadPass reads[] = {plain, &loops::read_pass_prefetch, &loops::read_pass_streams};
  double best = 0;
  std::atomic<float> sink{0};
  for (int pass = 0; pass < passes; ++pass) {
    const loops::ReadPass read = reads[pass % 3];
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
    if (span > 0) best = std::max(best, static_cast<double>(total) / span * 1e-9);
  }
  std::free(buf);
  return best;
}

}  // namespace adaptcore::measure
