// The low-precision B packers against the panel layout of kernels/lowp.hpp, word by word:
// every layout the native packers take (row-major, transposed with a leading dimension a
// multiple of 4 KiB, the LLM weight layout), depths with partial groups and several 16-group
// blocks, column counts with partial panels, the int8 flip and signed column sums.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"

namespace adaptcore {
namespace {

struct PackCase {
  int64_t k, n, ld;
  bool transposed;  // B stored n x k (columns contiguous along k)
  unsigned flags;
};

// The packed word of group g, column j (zero past k and n), as lowp.hpp defines it.
template <class T>
std::uint32_t want_word(const std::vector<T>& b, const PackCase& c, int group, int bits, int64_t g,
                        int64_t j) {
  if (j >= c.n) return 0;
  std::uint32_t w = 0;
  for (int q = 0; q < group; ++q) {
    const int64_t p = g * group + q;
    if (p >= c.k) break;
    const T x = c.transposed ? b[static_cast<std::size_t>(j * c.ld + p)]
                             : b[static_cast<std::size_t>(p * c.ld + j)];
    std::uint32_t v = static_cast<std::uint32_t>(x) & ((1u << bits) - 1u);
    if ((c.flags & kernels::kFlip) != 0) v ^= 0x80u;
    w |= v << (q * bits);
  }
  return w;
}

template <class T>
std::string check_pack(const kernels::LowpKernels& ks, const PackCase& c, std::mt19937_64& rng) {
  const int group = ks.group, bits = 32 / group;
  const std::size_t elems = static_cast<std::size_t>(c.transposed ? c.n * c.ld : c.k * c.ld);
  std::vector<T> b(elems);
  std::uniform_int_distribution<std::uint32_t> any(0, 0xFFFFFFFFu);
  for (T& x : b) x = static_cast<T>(any(rng));
  const int nr = ks.tiles[0].nr;
  const int64_t groups = (c.k + group - 1) / group, panels = (c.n + nr - 1) / nr;
  std::vector<std::uint32_t> out(static_cast<std::size_t>(panels * groups * nr), 0xDEADBEEFu);
  std::vector<std::int32_t> colsum(static_cast<std::size_t>(c.n), 5);
  const bool sums = ks.dtype != DType::Bf16;
  const int64_t rs = c.transposed ? 1 : c.ld, cs = c.transposed ? c.ld : 1;
  ks.pack_b(c.k, c.n, b.data(), rs, cs, nr, c.flags, out.data(), sums ? colsum.data() : nullptr);
  for (int64_t pn = 0; pn < panels; ++pn) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int j = 0; j < nr; ++j) {
        const std::uint32_t got = out[static_cast<std::size_t>((pn * groups + g) * nr + j)];
        const std::uint32_t want = want_word(b, c, group, bits, g, pn * nr + j);
        if (got != want)
          return "panel " + std::to_string(pn) + " group " + std::to_string(g) + " column " +
                 std::to_string(j) + ": " + std::to_string(got) + ", want " + std::to_string(want);
      }
    }
  }
  if (sums) {
    for (int64_t j = 0; j < c.n; ++j) {
      std::uint32_t s = 5;
      for (int64_t g = 0; g < groups; ++g) {
        const std::uint32_t w = want_word(b, c, group, bits, g, j);
        for (int q = 0; q < 4; ++q) {
          const auto byte = static_cast<std::uint8_t>(w >> (8 * q));
          s += (c.flags & kernels::kSigned) != 0
                   ? static_cast<std::uint32_t>(
                         static_cast<std::int32_t>(static_cast<std::int8_t>(byte)))
                   : byte;
        }
      }
      if (static_cast<std::uint32_t>(colsum[static_cast<std::size_t>(j)]) != s)
        return "column sum " + std::to_string(j) + ": " +
               std::to_string(colsum[static_cast<std::size_t>(j)]) + ", want " +
               std::to_string(static_cast<std::int32_t>(s));
    }
  }
  return {};
}

std::vector<PackCase> cases(int group) {
  std::vector<PackCase> out;
  for (const bool t : {true, false}) {
    for (const int64_t k : {int64_t{1}, int64_t{3}, int64_t{2 * 16 * group},
                            int64_t{37 * group + 1}, int64_t{2048}}) {
      for (const int64_t n : {int64_t{1}, int64_t{17}, int64_t{64}, int64_t{100}}) {
        // Leading dimensions: tight, and 4 KiB multiples (the set-conflict case) when transposed.
        const int64_t tight = t ? k : n;
        for (const int64_t ld : {tight, (tight + 4095) / 4096 * 4096 + 4096}) {
          for (const unsigned flags : {0u, kernels::kFlip | kernels::kSigned, kernels::kSigned})
            out.push_back({k, n, ld, t, flags});
        }
      }
    }
  }
  return out;
}

void run_all(DType dtype) {
  const HardwareProfile& hw = detected_hardware();
  const bool native = hw.supports(dtype == DType::Bf16 ? Isa::Avx512Bf16 : Isa::Avx512Vnni);
  ADAPTCORE_SKIP_WITHOUT(
      dtype == DType::Bf16 ? test::CpuFeature::Avx512Bf16 : test::CpuFeature::Avx512Vnni,
      native && hw.supports(Isa::Avx512));
  const kernels::LowpKernels* ks =
      kernels::lowp_kernels_for(dtype, dtype == DType::Bf16 ? Isa::Avx512Bf16 : Isa::Avx512Vnni);
  ASSERT_NE(ks, nullptr);
  std::mt19937_64 rng(5);
  for (PackCase c : cases(ks->group)) {
    if (dtype == DType::Bf16) c.flags = 0;  // bf16 takes no flags
    const std::string err = dtype == DType::Bf16 ? check_pack<std::uint16_t>(*ks, c, rng)
                                                 : check_pack<std::uint8_t>(*ks, c, rng);
    ASSERT_EQ(err, "") << "k=" << c.k << " n=" << c.n << " ld=" << c.ld
                       << (c.transposed ? " transposed" : " row-major") << " flags=" << c.flags;
  }
}

TEST(LowpPack, Bf16PanelsMatchTheLayout) { run_all(DType::Bf16); }
TEST(LowpPack, Int8PanelsAndColumnSumsMatchTheLayout) { run_all(DType::U8S8); }

}  // namespace
}  // namespace adaptcore
