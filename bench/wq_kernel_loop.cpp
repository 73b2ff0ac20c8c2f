// The W8A16 kernel in the executor's loop, without the rest of a call (docs/QUANT.md, "Decode
// roofline"): per weight panel, `tiles` row tiles of `rows` rows over the whole depth, each
// reading its share of the next panel into L2 as executor_wq.cpp does, the panels taken in
// turn from a set that fills --pool-mib (from memory) or from one panel (cached). The weights
// lie in ordinary 4 KiB pages (aligned_array) or in the handles' storage (weight_storage.hpp,
// huge pages from 2 MiB on); the kinds run in interleaved rounds, medians reported. Also the
// activation split's time per value, native and portable. Two activation parts (W8A16) or one
// (W8A8, --parts 1: the tile's rows default to its 6). One core; pin it (taskset).
//   adaptcore_bench_wq_loop --k K [--parts 2] [--rows mr] [--tiles 4] [--pool-mib 256]
//                           [--rounds 5]
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "candidate_timing.hpp"
#include "core/aligned_array.hpp"
#include "core/weight_storage.hpp"
#include "kernels/registry.hpp"
#include "kernels/wq.hpp"
#include "measure/bench_util.hpp"

using namespace adaptcore;
namespace am = adaptcore::measure;

namespace {

constexpr int kQuadsPerGroup = 8;  // per-column weights: activation groups of 32

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_wq_loop --k K [--parts 1|2] [--rows 1..mr] [--tiles T] "
               "[--pool-mib P] [--rounds R]\n");
  return 2;
}

struct Loop {
  const kernels::WqKernels& ks;
  int parts_count, rows, tiles;
  int64_t quads;
  std::vector<std::int8_t> parts;  // tiles x the split layout of one tile
  std::vector<float> scale, row_factor, col_scale;
  std::vector<std::int32_t> comp;
  alignas(64) float c[kernels::kWqMaxMr * 32];

  int64_t groups() const { return quads / kQuadsPerGroup; }
  int64_t tile_bytes() const { return quads * ks.mr(parts_count) * parts_count * 4; }

  // Seconds for `calls` panels taken in turn from `panels` (0 .. count-1) of `w`.
  double run(const std::uint8_t* w, int64_t count, int64_t calls) {
    const int64_t panel_bytes = quads * 128;
    const int per =
        static_cast<int>((panel_bytes / 64 + tiles * groups() - 1) / (tiles * groups()));
    kernels::WqArgs a{};
    a.quads = quads;
    a.quads_per_group = kQuadsPerGroup;
    a.w_col_scale = col_scale.data();
    a.c = c, a.c_rs = 32, a.c_cs = 1, a.beta = 0.0f, a.n = 32;
    a.prefetch_lines = per;
    const kernels::WqFn fn = ks.get(parts_count, false, rows);
    const int mr = ks.mr(parts_count);
    return am::time_once([&] {
      for (int64_t i = 0; i < calls; ++i) {
        a.w = w + (i % count) * panel_bytes;
        const std::uint8_t* next = w + ((i + 1) % count) * panel_bytes;
        for (int t = 0; t < tiles; ++t) {
          a.a = {parts.data() + t * tile_bytes(), scale.data() + t * groups() * mr,
                 comp.data() + t * groups() * mr, row_factor.data(), mr};
          a.w_prefetch = next + t * per * groups() * 64;
          fn(a);
        }
      }
    });
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> v;
  if (!bench::parse_pairs(argc, argv, {"k", "parts", "rows", "tiles", "pool-mib", "rounds"}, v))
    return usage();
  auto num = [&](const char* name, double fallback) { return bench::number(v, name, fallback); };
  const auto k = static_cast<int64_t>(num("k", 0));
  const int parts = static_cast<int>(num("parts", 2));
  const int tiles = static_cast<int>(num("tiles", 4));
  const int rounds = static_cast<int>(num("rounds", 5));
  const double pool_mib = num("pool-mib", 256);
  const kernels::WqKernels* ks = kernels::wq_kernels_for(detected_hardware().best_isa());
  if (!ks->native) {
    std::printf("no AVX512-VNNI kernels on this machine\n");
    return 0;
  }
  if (parts != 1 && parts != 2) return usage();
  const int mr = ks->mr(parts);
  const int rows = static_cast<int>(num("rows", mr));
  if (k < 32 || k % 32 != 0 || rows < 1 || rows > mr || tiles < 1 || rounds < 1 || pool_mib <= 0)
    return usage();

  Loop loop{*ks, parts, rows, tiles, k / 4, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  std::vector<float> x(static_cast<std::size_t>(k));
  for (float& e : x) e = nd(rng);
  loop.parts.resize(static_cast<std::size_t>(tiles * loop.tile_bytes()));
  loop.scale.resize(static_cast<std::size_t>(tiles * loop.groups() * mr));
  loop.comp.resize(loop.scale.size());
  loop.row_factor.resize(static_cast<std::size_t>(mr));
  loop.col_scale.assign(32, 0.01f);
  kernels::WqQuantizeArgs q{x.data(), k,       kQuadsPerGroup * 4,     parts, 128, nullptr,
                            nullptr,  nullptr, loop.row_factor.data(), mr,    0};
  for (int t = 0; t < tiles; ++t)
    for (int r = 0; r < mr; ++r) {
      q.parts_out = loop.parts.data() + t * loop.tile_bytes();
      q.scale_out = loop.scale.data() + t * loop.groups() * mr;
      q.comp_out = loop.comp.data() + t * loop.groups() * mr;
      q.row = r;
      ks->quantize(q);
    }

  const int64_t panel_bytes = loop.quads * 128;
  const auto count = static_cast<int64_t>(pool_mib * 1048576.0 / static_cast<double>(panel_bytes));
  const auto bytes = static_cast<std::size_t>(std::max<int64_t>(count, 1) * panel_bytes);
  auto small_pages = aligned_array<std::uint8_t>(bytes);
  auto handle_pages = weight_bytes(bytes, true);
  for (std::size_t i = 0; i < bytes; ++i)
    small_pages.get()[i] = handle_pages.get()[i] = static_cast<std::uint8_t>(rng());
  const int64_t calls = std::max<int64_t>(count, 64);
  const double ops =
      2.0 * parts * rows * 32.0 * static_cast<double>(k) * tiles * static_cast<double>(calls);
  std::vector<double> t_small, t_huge, t_cached;
  for (int r = 0; r < rounds; ++r) {
    t_small.push_back(loop.run(small_pages.get(), count, calls));
    t_huge.push_back(loop.run(handle_pages.get(), count, calls));
    t_cached.push_back(loop.run(handle_pages.get(), 1, calls));
  }
  std::printf("%d x 32 tile (%s), %d row tiles a panel, k = %ld, %ld panels (%.0f MiB)\n", rows,
              parts == 2 ? "two parts" : "one part", tiles, static_cast<long>(k),
              static_cast<long>(count), static_cast<double>(bytes) / 1048576.0);
  std::printf("  weights from memory, 4 KiB pages  %8.1f GOP/s\n",
              ops / am::median(t_small) * 1e-9);
  std::printf("  weights from memory, handle pages %8.1f GOP/s\n", ops / am::median(t_huge) * 1e-9);
  std::printf("  one panel, cached                 %8.1f GOP/s\n",
              ops / am::median(t_cached) * 1e-9);

  // The split of one row: native against portable (the same bits, tests/wq_test.cpp).
  const int reps = 2000;
  const std::pair<const char*, kernels::WqQuantizeFn> splits[] = {
      {"native", ks->quantize}, {"portable", &kernels::wq_quantize_portable}};
  for (const auto& [name, fn] : splits) {
    std::vector<double> t;
    for (int r = 0; r < rounds; ++r)
      t.push_back(am::time_once([&] {
        for (int i = 0; i < reps; ++i) fn(q);
      }));
    std::printf("  activation split, %-8s          %8.3f ns a value\n", name,
                am::median(t) / reps / static_cast<double>(k) * 1e9);
  }
  return 0;
}
