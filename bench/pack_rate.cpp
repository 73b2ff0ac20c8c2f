// The B packer of a registry level (fp32: IsaKernels::pack_b; bf16, u8s8: LowpKernels::pack_b),
// timed on a row-major block of kc x nc as the blocked executor packs it, by where the source
// comes from: cold (the calls rotate over source blocks filling --pool-mib, so every call reads
// DRAM) or warm (one block, read again). The destination is one buffer, as the executor's. Reports
// GB/s of source data and the time per call. fp32 also times the transposing copies: --layout
// cols packs B stored transposed (nc lines of kc steps, ldb apart), --layout a packs A stored
// row-major (nc rows of kc steps, ldb apart, into panels of --nr rows).
//
//   adaptcore_bench_pack_rate --kc KC --nc NC --ldb LDB [--nr NR] [--isa avx512|avx2|generic]
//                             [--dtype f32|bf16|u8s8] [--layout rows|cols|a] [--pool-mib P]
//                             [--reps R]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/hardware.hpp"
#include "candidate_timing.hpp"
#include "core/dtype.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "measure/bench_util.hpp"

namespace {

namespace am = adaptcore::measure;
using namespace adaptcore;

int usage() {
  std::fprintf(stderr,
               "usage: adaptcore_bench_pack_rate --kc KC --nc NC --ldb LDB [--nr NR] [--isa LEVEL] "
               "[--dtype f32|bf16|u8s8] [--layout rows|cols|a] "
               "[--pool-mib P] [--reps R]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> v;
  if (!bench::parse_pairs(
          argc, argv, {"kc", "nc", "ldb", "nr", "isa", "dtype", "layout", "pool-mib", "reps"}, v))
    return usage();
  const auto kc = static_cast<int64_t>(bench::number(v, "kc", 256));
  const auto nc = static_cast<int64_t>(bench::number(v, "nc", 1024));
  const auto ldb = static_cast<int64_t>(bench::number(v, "ldb", static_cast<double>(nc)));
  const auto reps = static_cast<int>(bench::number(v, "reps", 20));
  const double pool_mib = bench::number(v, "pool-mib", 512);
  const std::map<std::string, Isa> levels{
      {"auto", Isa::Auto},     {"generic", Isa::Generic},        {"avx2", Isa::Avx2},
      {"avx512", Isa::Avx512}, {"avx512_vnni", Isa::Avx512Vnni}, {"avx512_bf16", Isa::Avx512Bf16}};
  const auto level = levels.find(v.count("isa") != 0 ? v["isa"] : "auto");
  if (level == levels.end()) return usage();
  const Isa isa = level->second;
  const std::string layout = v.count("layout") != 0 ? v["layout"] : "rows";
  if (layout != "rows" && layout != "cols" && layout != "a") return usage();
  const bool lines_along_k = layout != "rows";  // the source's lines run along the depth
  if (kc < 1 || nc < 1 || ldb < (lines_along_k ? kc : nc) || reps < 1) return usage();
  const Isa run_level = isa == Isa::Auto ? kernels::best_level(detected_hardware().features) : isa;
  const kernels::IsaKernels* ks = kernels::kernels_for(run_level);
  if (ks == nullptr) {
    std::fprintf(stderr, "no kernels for that level on this CPU\n");
    return 1;
  }
  // --dtype bf16 / u8s8: the level's low-precision packer (groups of 2 / 4 depth values a
  // 32-bit word, int8 with its column sums) instead of the fp32 one.
  const std::string dtype = v.count("dtype") != 0 ? v["dtype"] : "f32";
  const kernels::LowpKernels* lk = nullptr;
  if (dtype == "bf16" || dtype == "u8s8") {
    lk = kernels::lowp_kernels_for(dtype == "bf16" ? DType::Bf16 : DType::U8S8, run_level);
    if (lk == nullptr) return usage();
  } else if (dtype != "f32") {
    return usage();
  }
  if (lk != nullptr && lines_along_k) return usage();
  const int64_t eb = dtype == "f32" ? 4 : dtype == "bf16" ? 2 : 1;
  const int group = lk != nullptr ? lk->group : 1;
  const int default_nr = lk != nullptr ? (lk->tiles.empty() ? lk->lanes : lk->tiles.front().nr)
                         : ks->tiles.empty() ? ks->lanes
                                             : ks->tiles.front().nr;
  const int nr = static_cast<int>(bench::number(v, "nr", default_nr));
  if (nr < 1) return usage();
  // The source blocks: each kc rows of ldb elements (the block reads nc of them), or with the
  // lines along the depth, nc lines of ldb (reading kc of each).
  const int64_t block = (lines_along_k ? nc : kc) * ldb * eb;
  const auto blocks = pool_mib <= 0
                          ? std::size_t{1}
                          : static_cast<std::size_t>(std::max<double>(
                                2.0, pool_mib * 1024 * 1024 / static_cast<double>(block)));
  std::vector<float> src(static_cast<std::size_t>(block) * blocks / 4 + 1);
  am::fill_uniform(src.data(), src.size(), 7);
  const auto* bytes = reinterpret_cast<const unsigned char*>(src.data());
  const int64_t panel_cols = (nc + nr - 1) / nr * nr;
  std::vector<std::uint32_t> dst(static_cast<std::size_t>((kc + group - 1) / group * panel_cols));
  std::vector<std::int32_t> colsum(static_cast<std::size_t>(panel_cols));
  std::vector<double> t;
  const std::size_t calls = static_cast<std::size_t>(reps) * blocks;
  for (std::size_t c = 0; c < calls; ++c) {
    const unsigned char* s = bytes + static_cast<int64_t>(c % blocks) * block;
    t.push_back(am::time_once([&] {
      if (lk != nullptr)
        lk->pack_b(kc, nc, s, ldb, 1, nr, 0u, dst.data(),
                   dtype == "u8s8" ? colsum.data() : nullptr);
      else if (layout == "a")
        ks->pack_a(nc, kc, reinterpret_cast<const float*>(s), ldb, 1, nr,
                   reinterpret_cast<float*>(dst.data()));
      else if (layout == "cols")
        ks->pack_b(kc, nc, reinterpret_cast<const float*>(s), 1, ldb, nr,
                   reinterpret_cast<float*>(dst.data()));
      else
        ks->pack_b(kc, nc, reinterpret_cast<const float*>(s), ldb, 1, nr,
                   reinterpret_cast<float*>(dst.data()));
    }));
  }
  const double med = am::median(t);
  std::printf("%s %s %s nr=%d kc=%ld nc=%ld ldb=%ld, %s source (%zu blocks): %.1f us, %.1f GB/s\n",
              layout == "a"      ? "pack_a"
              : layout == "cols" ? "pack_b (B transposed)"
                                 : "pack_b",
              dtype.c_str(), lk != nullptr ? lk->name : to_string(ks->isa), nr,
              static_cast<long>(kc), static_cast<long>(nc), static_cast<long>(ldb),
              blocks == 1 ? "warm" : "cold", blocks, med * 1e6,
              static_cast<double>(kc * nc * eb) / med * 1e-9);
  return dst[static_cast<std::size_t>(nc)] == 12345u ? 3 : 0;
}
