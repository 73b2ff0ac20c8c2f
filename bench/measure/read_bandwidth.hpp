// DRAM read bandwidth measured in the run itself: `threads` threads each stream their share of
// a buffer far beyond the last-level cache with the path's widest loads (read_loops.hpp), best
// of several passes. The weight-quantized decode records of `adaptcore bench` and `adaptcore run
// --dtype w8a16|w4a16` state their weight GB/s as a fraction of it.
#pragma once

#include <cstdint>

namespace adaptcore::measure {

// GB/s (1e9 bytes per second) over `bytes` (rounded down to whole 64-byte lines per thread),
// best of `passes` (in turn the path's plain read loop, the one that prefetches ahead and the
// two that read several streams at once, in long runs and in short visits; a multiple of
// kReadLoops gives each as many); 0 if the buffer cannot be allocated.
inline constexpr int kReadLoops = 4;
double measure_read_bandwidth(int threads, std::int64_t bytes = 256ll << 20,
                              int passes = 3 * kReadLoops);

// The stream rate `adaptcore calibrate` stores as the DRAM bandwidth, taken now and as it takes
// it: the faster of the plain and the prefetching single-stream loops (each thread one stream
// over its share), each loop's median of `passes` passes. Decode targets are stated against it, and
// this host's DRAM moves by a third within minutes, so a benchmark takes it beside the shapes it
// grades.
double measure_stream_bandwidth(int threads, std::int64_t bytes = 256ll << 20, int passes = 5);

}  // namespace adaptcore::measure
