// The fp32 pack functions of every kernel table against a scalar reference: panels of mr rows
// of A (out[panel][p * mr + i]) and of nr columns of op(B) (out[panel][p * nr + j]), zero
// padded, for every stride layout the executor passes (row- and column-contiguous, lines
// stored back to back or apart), depths below, at and past a 16-step block, and partial
// panels. The vector packers take different routes for these (the 16 x 16 transpose, its
// masked last block, the deinterleave of a few steps stored as one run), each checked here.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <cstdint>
#include <random>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore::test {
namespace {

// Element (r, c) of a matrix at src[r * rs + c * cs].
float at(const std::vector<float>& src, int64_t r, int64_t c, int64_t rs, int64_t cs) {
  return src[static_cast<std::size_t>(r * rs + c * cs)];
}

struct Layout2 {
  bool lines_contiguous;  // the panel's lines (A rows, op(B) columns) contiguous along k
  int64_t pad;            // elements between the end of one line and the next
};

class Packing : public ::testing::TestWithParam<Isa> {};

TEST_P(Packing, PanelsMatchTheScalarReference) {
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int checked = 0;
  for (const kernels::TileKernels& tile : ks.tiles) {
    for (const int64_t lines : {1, 5, 16, 17, 37, 64}) {
      for (const int64_t k : {1, 2, 3, 5, 8, 9, 16, 19, 40}) {
        for (const Layout2 lay :
             {Layout2{true, 0}, Layout2{true, 3}, Layout2{false, 0}, Layout2{false, 2}}) {
          // Lines along k (a row-major A, a transposed B) or across it.
          const int64_t ld = lay.lines_contiguous ? k + lay.pad : lines + lay.pad;
          const int64_t line_stride = lay.lines_contiguous ? ld : 1;
          const int64_t step_stride = lay.lines_contiguous ? 1 : ld;
          std::vector<float> src(
              static_cast<std::size_t>((lay.lines_contiguous ? lines : k) * ld + 16));
          for (float& x : src) x = u(rng);
          for (const bool is_a : {true, false}) {
            const int w = is_a ? tile.mr : tile.nr;
            const int64_t panels = (lines + w - 1) / w;
            std::vector<float> out(static_cast<std::size_t>(panels * w * k + 16), 7.0f);
            if (is_a)
              ks.pack_a(lines, k, src.data(), line_stride, step_stride, w, out.data());
            else
              ks.pack_b(k, lines, src.data(), step_stride, line_stride, w, out.data());
            int wrong = 0;
            for (int64_t pn = 0; pn < panels; ++pn)
              for (int64_t p = 0; p < k; ++p)
                for (int64_t l = 0; l < w; ++l) {
                  const int64_t line = pn * w + l;
                  const float want =
                      line < lines ? at(src, line, p, line_stride, step_stride) : 0.0f;
                  const float got = out[static_cast<std::size_t>(pn * w * k + p * w + l)];
                  if (got != want && ++wrong <= 3)
                    ADD_FAILURE() << (is_a ? "pack_a" : "pack_b") << " w=" << w
                                  << " lines=" << lines << " k=" << k << " ld=" << ld
                                  << (lay.lines_contiguous ? " along k" : " across k") << ": panel "
                                  << pn << " step " << p << " lane " << l << " = " << got
                                  << ", want " << want;
                }
            // Nothing written past the panels.
            for (std::size_t i = static_cast<std::size_t>(panels * w * k); i < out.size(); ++i)
              EXPECT_EQ(out[i], 7.0f) << "write past the panels";
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// The block transpose (the dot plans' copy of a narrow B): out[j * out_ld + i] = src[i * ld +
// j], nothing else written; rows dense (ld == cols, the deinterleave for up to 8 columns) and
// padded, row counts below, at and past 16, column counts below and past a 16-step block.
TEST_P(Packing, BlockTransposeMatchesTheScalarReference) {
  const Isa isa = GetParam();
  ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa);
  const kernels::IsaKernels& ks = *kernels::kernels_for(isa);
  ASSERT_NE(ks.transpose, nullptr);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const int64_t rows : {1, 3, 16, 17, 150, 931}) {
    for (const int64_t cols : {1, 2, 3, 5, 8, 11, 16, 21}) {
      for (const int64_t pad : {0, 3}) {
        const int64_t ld = cols + pad, out_ld = rows + 2;
        std::vector<float> src(static_cast<std::size_t>(rows * ld + 16));
        for (float& x : src) x = u(rng);
        std::vector<float> out(static_cast<std::size_t>(cols * out_ld + 16), 7.0f);
        ks.transpose(rows, cols, src.data(), ld, out.data(), out_ld);
        int wrong = 0;
        for (int64_t j = 0; j < cols; ++j)
          for (int64_t i = 0; i < out_ld; ++i) {
            const float want = i < rows ? src[static_cast<std::size_t>(i * ld + j)] : 7.0f;
            const float got = out[static_cast<std::size_t>(j * out_ld + i)];
            if (got != want && ++wrong <= 3)
              ADD_FAILURE() << "rows=" << rows << " cols=" << cols << " ld=" << ld << ": out(" << j
                            << ", " << i << ") = " << got << ", want " << want;
          }
        for (std::size_t i = static_cast<std::size_t>(cols * out_ld); i < out.size(); ++i)
          EXPECT_EQ(out[i], 7.0f) << "write past the block";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, Packing, ::testing::Values(Isa::Generic, Isa::Avx2, Isa::Avx512),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace adaptcore::test
