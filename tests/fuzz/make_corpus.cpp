// Writes the seed corpus of the plan-file fuzz target (tests/fuzz/corpus):
//   ninja -C build adaptcore_plan_file_fuzz_make_corpus
//   build/tests/fuzz/adaptcore_plan_file_fuzz_make_corpus tests/fuzz/corpus
// Inputs follow plan_file_fuzz.cpp's format (first byte: mode and ISA index). Plan files are tied
// to the library version, the ISA and the hardware fingerprint, so the corpus does not hold
// whole files of this machine except a few (which other machines reject at the header): it
// holds
//   m2-*   planner candidates (mode 2): the target plans the shape on the running machine, so
//          these execute everywhere; per dtype x layout x ISA index the first candidate and
//          the dot or in-place B candidate of this machine, plus invalid field overrides;
//   m1-*   raw entries (mode 1) of this machine's plans, one of every kind per dtype and ISA
//          (packed B, B in place, dot), wrapped by the target in the running machine's
//          header: accepted and executed wherever the ISA and kernels exist (native bf16/int8
//          tiles need AVX512-BF16 / VNNI), rejected by the entry checks elsewhere;
//   mut-*  the same entries with single fields corrupted (entry checks);
//   m0-*   whole files: this machine's, truncated, bad magic (header checks).
// ISA index i in the mode byte selects the i-th of the ISAs the running CPU has (Generic, Avx2,
// Avx512): the mode bytes are chosen so that index 2 falls back to Generic on a CPU without
// AVX-512 instead of another ISA.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "dispatch/plan_file.hpp"
#include "dispatch/planning.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "planner/planner.hpp"

namespace {

using namespace adaptcore;
namespace fs = std::filesystem;

fs::path g_dir;
int g_written = 0;

void write(const std::string& name, const std::string& bytes) {
  std::ofstream out(g_dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "make_corpus: cannot write %s\n", (g_dir / name).c_str());
    std::exit(1);
  }
  ++g_written;
}

// A mode byte with (byte % 3) == mode and (byte >> 2) % 6 == isa_index, so that the index is
// the same on CPUs with 2 or 3 ISAs (and 2 becomes 0 with 2).
std::uint8_t mode_byte(int mode, int isa_index) {
  for (int b = 0; b < 256; ++b)
    if (b % 3 == mode && (b >> 2) % 6 == isa_index) return static_cast<std::uint8_t>(b);
  std::abort();
}

// The key mode 2 of the target derives from its bytes (keep in step with mutated_candidate).
ShapeKey mode2_key(int m, int n, int k, bool ta, bool tb, DType d, Isa isa, int threads) {
  ShapeKey key;
  key.m = m, key.n = n, key.k = k;
  key.a_row_unit = !ta && key.k > 0;
  key.a_k_unit = !ta || key.m == 1;
  key.b_row_unit = !tb || key.k == 1;
  key.b_k_unit = tb;
  key.a_ld_log2 = 2 + 4;  // byte 4 -> 2 + 4 % 15
  key.b_ld_log2 = 2 + 4;
  key.isa = isa;
  key.threads = threads;
  key.dtype = d;
  return key;
}

Explanation explain(const ShapeKey& key, const HardwareProfile& hw) { return explain_key(key, hw); }

const char* dname(DType d) { return d == DType::F32 ? "f32" : d == DType::Bf16 ? "bf16" : "int8"; }
const char* kind(const Plan& p) { return p.is_dot() ? "dot" : p.pack_b ? "packed" : "inplace"; }

// Entry bytes of a file holding `entries` (header and checksum stripped).
std::string entry_bytes(const std::vector<PlanEntry>& entries, const HardwareProfile& hw, Isa isa) {
  const std::string head = write_plan_bytes({}, hw, isa);
  const std::string file = write_plan_bytes(entries, hw, isa);
  return file.substr(head.size() - 8, file.size() - head.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  g_dir = argv[1];
  fs::create_directories(g_dir);
  ContextOptions o;
  o.threads = 1;
  o.read_environment = false;
  Context ctx(o);
  const HardwareProfile& hw = ctx.hardware();
  std::vector<Isa> isas;
  // Each fp32 table once, the best level (whose low-precision tables the others lack) in place
  // of the one whose fp32 table it runs.
  for (const Isa isa : kernels::built_levels())
    if (detected_hardware().supports(isa) && kernels::kernels_for(isa)->isa == isa)
      isas.push_back(isa);
  if (kernels::kernels_for(isas.back()) == kernels::kernels_for(detected_hardware().best_isa()))
    isas.back() = detected_hardware().best_isa();

  const DType dtypes[3] = {DType::F32, DType::Bf16, DType::U8S8};
  struct Shape {
    int m, n, k, threads;
  };
  // The third shape (one row) is where the planners offer int8 B in place.
  const Shape shapes[3] = {{17, 33, 40, 1}, {64, 48, 96, 4}, {1, 40, 64, 1}};

  // Mode 2: per ISA index, dtype and layout (A not transposed; B not transposed or
  // transposed, the dot layout), the planner's first candidate; then the dot and in-place B
  // candidates where this machine has them.
  for (int ii = 0; ii < static_cast<int>(isas.size()); ++ii)
    for (DType d : dtypes)
      for (int layout : {0, 2, 4}) {  // 4: layout 0 on the one-row shape
        const bool ta = false, tb = (layout & 2) != 0;
        const Shape& s = shapes[layout == 4 ? 2 : ii & 1];
        const ShapeKey key = mode2_key(s.m, s.n, s.k, ta, tb, d, isas[ii], s.threads);
        const Explanation e = explain(key, hw);
        auto input = [&](std::size_t cand) {
          std::string b;
          b.push_back(static_cast<char>(mode_byte(2, ii)));
          b.push_back(static_cast<char>(s.m - 1));
          b.push_back(static_cast<char>(s.n - 1));
          b.push_back(static_cast<char>(s.k - 1));
          b.push_back(static_cast<char>((layout & 3) | (static_cast<int>(d) << 2)));
          b.push_back(4);
          b.push_back(4);
          b.push_back(static_cast<char>(s.threads - 1));
          b.push_back(static_cast<char>(cand));
          return b;
        };
        const std::string base = std::string("m2-") + dname(d) + "-isa" + std::to_string(ii) + "-" +
                                 (ta ? "t" : "n") + (tb ? "t" : "n") + (layout == 4 ? "-row" : "");
        write(base + "-first", input(0));
        bool dot = false, inplace = false;
        for (std::size_t c = 0; c < e.candidates.size() && c < 256; ++c) {
          const Plan& p = e.candidates[c].plan;
          if (p.is_dot() && !dot) dot = true, write(base + "-dot", input(c));
          if (!p.is_dot() && !p.pack_b && !inplace)
            inplace = true, write(base + "-inplace", input(c));
        }
      }
  // Mode 2 with overrides (field byte, u32 value): mostly invalid plans.
  {
    struct Override {
      const char* name;
      std::uint8_t field;
      std::uint32_t value;
    };
    const Override ovs[] = {{"tile99", 0, 99},  {"nr-1", 2, 0xff}, {"packa", 3, 0},
                            {"packb", 4, 0},    {"dot", 5, 0},     {"nc-huge", 16 + 7, 0x7fffffff},
                            {"kc+3", 8, 3},     {"pk2", 11, 2},    {"padded", 12, 1},
                            {"threads0", 13, 0}};
    for (DType d : dtypes)
      for (const Override& ov : ovs) {
        std::string b;
        b.push_back(static_cast<char>(mode_byte(2, 0)));
        b.push_back(static_cast<char>(16 - 1));
        b.push_back(static_cast<char>(24 - 1));
        b.push_back(static_cast<char>(32 - 1));
        b.push_back(static_cast<char>(2 | (static_cast<int>(d) << 2)));  // A n, B t
        b.push_back(4);
        b.push_back(4);
        b.push_back(static_cast<char>(2 - 1));
        b.push_back(0);
        b.push_back(static_cast<char>(ov.field));
        for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>(ov.value >> (8 * i)));
        write(std::string("m2-") + dname(d) + "-override-" + ov.name, b);
      }
  }

  // Mode 1: raw entries of every plan kind this machine plans, per ISA index.
  std::vector<std::pair<std::string, std::string>> mode1;  // name, input
  for (int ii = 0; ii < static_cast<int>(isas.size()); ++ii) {
    std::vector<PlanEntry> all;
    for (DType d : dtypes) {
      bool seen[3] = {};  // one entry per kind (packed B, B in place, dot) and dtype
      for (int layout = 0; layout < 12; ++layout) {
        const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
        const Shape& s = shapes[layout >> 2];
        const ShapeKey key = mode2_key(s.m, s.n, s.k, ta, tb, d, isas[ii], s.threads);
        const Explanation e = explain(key, hw);
        for (const CandidateCost& c : e.candidates) {
          const Plan& p = c.plan;
          const int kd = p.is_dot() ? 2 : p.pack_b ? 0 : 1;
          if (seen[kd] || !check_plan_entry(key, p).empty()) continue;
          seen[kd] = true;
          all.emplace_back(key, p);
          std::string b(1, static_cast<char>(mode_byte(1, ii)));
          b += entry_bytes({{key, p}}, hw, isas[ii]);
          mode1.emplace_back(std::string("m1-") + dname(d) + "-isa" + std::to_string(ii) + "-" +
                                 (ta ? "t" : "n") + (tb ? "t" : "n") + "-" + kind(p),
                             b);
        }
      }
    }
    // Every kind in one file (all or nothing).
    std::string b(1, static_cast<char>(mode_byte(1, ii)));
    b += entry_bytes(all, hw, isas[ii]);
    write("m1-all-isa" + std::to_string(ii), b);
    // Whole files (mode 0): valid on this machine only; truncated; bad magic.
    const std::string file = write_plan_bytes(all, hw, isas[ii]);
    const std::string m0(1, static_cast<char>(mode_byte(0, ii)));
    write("m0-file-isa" + std::to_string(ii), m0 + file);
    if (ii == 0) {
      write("m0-truncated", m0 + file.substr(0, file.size() - 37));
      std::string bad = file;
      bad[0] = 'X';
      write("m0-bad-magic", m0 + bad);
      write("m0-header-only", m0 + write_plan_bytes({}, hw, isas[ii]));
    }
  }
  for (const auto& [name, b] : mode1) write(name, b);

  // Mutations of single entries: one byte of the 100-byte entry (after the mode byte) set to a
  // value that breaks one check (or not: the checks decide). Entry layout (plan_file.cpp
  // write_entry): m 0, n 8, k 16 (i64), key flags 24, a_ld 25, b_ld 26, key ISA 27 (u32),
  // threads 31 (i32), dtype 35, plan ISA 36 (u32), tile 40, mr 44, nr 48 (i32), plan flags 52,
  // mc 53, nc 61, kc 69 (i64), pm 77, pn 81, pk 85 (i32), tail 89, classes 90 and 91,
  // predicted time 92 (f64).
  const struct {
    const char* name;
    std::size_t offset;
    std::uint8_t value;
  } muts[] = {{"m0", 0, 0},        {"k-huge", 23, 0x7f},  {"kflags0", 24, 0},
              {"ald17", 25, 17},   {"isa9", 27, 9},       {"threads0", 31, 0},
              {"dtype-wq", 35, 3}, {"dtype-bf16", 35, 1}, {"tile7", 40, 7},
              {"mr1", 44, 1},      {"pflags0", 52, 0},    {"kc255", 69, 0xff},
              {"pm0", 77, 0},      {"pk2", 85, 2},        {"tail1", 89, 1},
              {"class9", 90, 9},   {"time-neg", 99, 0xff}};
  // Each mutation on two of the entries above, taken in turn.
  std::size_t next = 0;
  for (const auto& mu : muts)
    for (int rep = 0; rep < 2 && !mode1.empty(); ++rep) {
      const auto& [name, b] = mode1[next++ % mode1.size()];
      std::string x = b;
      x[1 + mu.offset] = static_cast<char>(mu.value);
      write("mut-" + name.substr(3) + "-" + mu.name, x);
    }
  std::printf("make_corpus: %d inputs written to %s\n", g_written, g_dir.c_str());
  return 0;
}
