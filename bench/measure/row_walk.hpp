// The read pattern of a register tile reading B in place: per depth block of kc rows, per
// column tile of `tile_bytes`, those bytes of each of the kc rows, the rows `ld` bytes apart.
// Calibration times it against kc to measure how many row streams the prefetchers follow and
// what a core gets past them (HardwareProfile::l3_row_streams, l3_row_share_paged,
// l3_row_share).
#pragma once

#include <cstdint>

namespace adaptcore::measure {

// One pass over `rows` rows of `row_bytes` (a multiple of tile_bytes, tile_bytes a multiple of
// 64) at `base`, `ld` bytes apart, touching one 8-byte word of every 64-byte line (the lines
// are what costs: a vector load per line adds nothing a cache miss does not). Returns a sum so
// that the loads cannot be dropped.
std::uint64_t row_walk(const unsigned char* base, std::int64_t rows, std::int64_t ld,
                       std::int64_t row_bytes, std::int64_t kc, std::int64_t tile_bytes) noexcept;

}  // namespace adaptcore::measure
