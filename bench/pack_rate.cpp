// The fp32 B packer (IsaKernels::pack_b) of a registry level, timed on a row-major block of
// kc x nc as the blocked executor packs it, by where the source comes from: cold (the calls
// rotate over source blocks filling --pool-mib, so every call reads DRAM) or warm (one block,
// read again). The destination is one buffer, as the executor's. Reports GB/s of source data
// and the time per call.
//
//   adaptcore_bench_pack_rate --kc KC --nc NC --ldb LDB [--nr NR] [--isa avx512|avx2|generic]
//                             [--pool-mib P] [--reps R]
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "candidate_timing.hpp"
#include "kernels/registry.hpp"
#include "measure/bench_util.hpp"

namespace {

namespace am = adaptcore::measure;
using namespace adaptcore;

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_pack_rate --kc KC --nc NC --ldb LDB [--nr NR] [--isa LEVEL] "
               "[--pool-mib P] [--reps R]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> v;
  if (!bench::parse_pairs(argc, argv, {"kc", "nc", "ldb", "nr", "isa", "pool-mib", "reps"}, v))
    return usage();
  const auto kc = static_cast<int64_t>(bench::number(v, "kc", 256));
  const auto nc = static_cast<int64_t>(bench::number(v, "nc", 1024));
  const auto ldb = static_cast<int64_t>(bench::number(v, "ldb", static_cast<double>(nc)));
  const auto reps = static_cast<int>(bench::number(v, "reps", 20));
  const double pool_mib = bench::number(v, "pool-mib", 512);
  const std::map<std::string, Isa> levels{
      {"auto", Isa::Auto}, {"generic", Isa::Generic}, {"avx2", Isa::Avx2}, {"avx512", Isa::Avx512}};
  const auto level = levels.find(v.count("isa") != 0 ? v["isa"] : "auto");
  if (level == levels.end()) return usage();
  const Isa isa = level->second;
  if (kc < 1 || nc < 1 || ldb < nc || reps < 1) return usage();
  const kernels::IsaKernels* ks = kernels::kernels_for(
      isa == Isa::Auto ? kernels::best_level(detected_hardware().features) : isa);
  if (ks == nullptr) {
    std::fprintf(stderr, "no kernels for that level on this CPU\n");
    return 1;
  }
  const int nr = static_cast<int>(
      bench::number(v, "nr", ks->tiles.empty() ? ks->lanes : ks->tiles.front().nr));
  if (nr < 1) return usage();
  // The source blocks: each kc rows of ldb floats (the block reads nc of them).
  const int64_t block = kc * ldb;
  const auto blocks = pool_mib <= 0
                          ? std::size_t{1}
                          : static_cast<std::size_t>(std::max<double>(
                                2.0, pool_mib * 1024 * 1024 / (4.0 * static_cast<double>(block))));
  std::vector<float> src(static_cast<std::size_t>(block) * blocks);
  am::fill_uniform(src.data(), src.size(), 7);
  std::vector<float> dst(static_cast<std::size_t>(kc * ((nc + nr - 1) / nr * nr)));
  std::vector<double> t;
  const std::size_t calls = static_cast<std::size_t>(reps) * blocks;
  for (std::size_t c = 0; c < calls; ++c) {
    const float* s = src.data() + static_cast<int64_t>(c % blocks) * block;
    t.push_back(am::time_once([&] { ks->pack_b(kc, nc, s, ldb, 1, nr, dst.data()); }));
  }
  const double med = am::median(t);
  std::printf("pack_b %s nr=%d kc=%ld nc=%ld ldb=%ld, %s source (%zu blocks): %.1f us, %.1f GB/s\n",
              to_string(ks->isa), nr, static_cast<long>(kc), static_cast<long>(nc),
              static_cast<long>(ldb), blocks == 1 ? "warm" : "cold", blocks, med * 1e6,
              4.0 * static_cast<double>(kc * nc) / med * 1e-9);
  return dst[static_cast<std::size_t>(nc)] == 12345.0f ? 3 : 0;
}
