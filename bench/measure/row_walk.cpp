#include "measure/row_walk.hpp"

#include <algorithm>
#include <cstring>

namespace adaptcore::measure {

std::uint64_t row_walk(const unsigned char* base, std::int64_t rows, std::int64_t ld,
                       std::int64_t row_bytes, std::int64_t kc, std::int64_t tile_bytes) noexcept {
  std::uint64_t sum = 0;
  for (std::int64_t k0 = 0; k0 < rows; k0 += kc) {
    const std::int64_t k1 = std::min(rows, k0 + kc);
    for (std::int64_t j = 0; j < row_bytes; j += tile_bytes)
      for (std::int64_t r = k0; r < k1; ++r) {
        const unsigned char* p = base + r * ld + j;
        for (std::int64_t o = 0; o < tile_bytes; o += 64) {
          std::uint64_t w;
          std::memcpy(&w, p + o, sizeof w);
          sum += w;
        }
      }
  }
  return sum;
}

}  // namespace adaptcore::measure
