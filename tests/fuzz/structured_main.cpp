// Structured fuzz of the plan-file loader, run by ctest on every build with any compiler (the
// libFuzzer build explores further; this one is deterministic and always runs). The checksum
// of a plan file is public, so a hostile file has a valid one: every file here has a valid
// header and checksum, and what varies is the entries.
//
// Seeds are real plans of this machine: every candidate kind the planners make (register
// tiles with packed or in-place B, transposed C, dot products, row updates, weight-quantized
// tiles) for small shapes of every dtype, layout and a few thread counts, on every ISA path
// the CPU has. Then, entry by entry:
//   - every field set, one at a time, to boundary values of its width (0, +-1, the extremes,
//     powers of two around the tile and block sizes, the seed's value +-1, x2, /2) and, for
//     one-byte fields, to all 256 values; doubles to 0, -0, NaN, +-Inf, extremes, denormals;
//   - two to six random fields at once, to random or boundary values;
//   - files of two to four entries, one or more of them mutated.
// Each file goes through the fuzz target's mode 1 (plan_file_fuzz.cpp), which parses it,
// checks that a rejected file loads nothing and that each accepted entry passes the entry
// check, and executes every accepted plan of a small shape against a reference. A crash, a
// trap or a sanitizer report fails the test; so does a run that executed no plan of a family
// (a stale seed set must not pass without checking anything).
//
//   adaptcore_plan_file_structured_fuzz [--random N] [--multi N] [--seed S]
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/plan_file.hpp"
#include "dispatch/planning.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" void adaptcore_plan_fuzz_counts(std::uint64_t* out);

namespace {

using namespace adaptcore;

// The entry's fields in file order (plan_file.cpp, write_entry): offset and width in bytes.
enum class FieldType { Int, Byte, Double };
struct Field {
  const char* name;
  int size;
  FieldType type;
};
constexpr Field kFields[] = {
    {"m", 8, FieldType::Int},           {"n", 8, FieldType::Int},
    {"k", 8, FieldType::Int},           {"key flags", 1, FieldType::Byte},
    {"a_ld_log2", 1, FieldType::Byte},  {"b_ld_log2", 1, FieldType::Byte},
    {"b_panel_nr", 1, FieldType::Byte}, {"key isa", 4, FieldType::Int},
    {"threads", 4, FieldType::Int},     {"dtype", 1, FieldType::Byte},
    {"wq_group", 4, FieldType::Int},    {"kind", 1, FieldType::Byte},
    {"plan isa", 4, FieldType::Int},    {"tile", 4, FieldType::Int},
    {"mr", 4, FieldType::Int},          {"nr", 4, FieldType::Int},
    {"plan flags", 1, FieldType::Byte}, {"mc", 8, FieldType::Int},
    {"nc", 8, FieldType::Int},          {"kc", 8, FieldType::Int},
    {"pm", 4, FieldType::Int},          {"pn", 4, FieldType::Int},
    {"pk", 4, FieldType::Int},          {"quantize_threads", 4, FieldType::Int},
    {"tail", 1, FieldType::Byte},       {"capacity", 1, FieldType::Byte},
    {"parallel", 1, FieldType::Byte},   {"predicted_us", 8, FieldType::Double},
};
constexpr int kFieldCount = static_cast<int>(std::size(kFields));

constexpr std::size_t entry_size() {
  std::size_t s = 0;
  for (const Field& f : kFields) s += static_cast<std::size_t>(f.size);
  return s;
}
static_assert(entry_size() == kPlanEntryBytes, "the field table must match the entry layout");

std::size_t offset_of(int field) {
  std::size_t o = 0;
  for (int i = 0; i < field; ++i) o += static_cast<std::size_t>(kFields[i].size);
  return o;
}

std::uint64_t get(const std::string& e, int field) {
  const std::size_t at = offset_of(field);
  std::uint64_t v = 0;
  for (int i = 0; i < kFields[field].size; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(e[at + i])) << (8 * i);
  return v;
}

void put(std::string& e, int field, std::uint64_t v) {
  const std::size_t at = offset_of(field);
  for (int i = 0; i < kFields[field].size; ++i) e[at + i] = static_cast<char>(v >> (8 * i));
}

// Sign-extends a field's raw value of `size` bytes.
int64_t as_signed(std::uint64_t v, int size) {
  if (size >= 8) return static_cast<int64_t>(v);
  const int bits = 8 * size;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  v &= (sign << 1) - 1;
  return static_cast<int64_t>((v ^ sign) - sign);
}

// Values a field is set to (raw, truncated to its width when stored).
std::vector<std::uint64_t> values_for(int field, std::uint64_t current) {
  const Field& f = kFields[field];
  std::vector<std::uint64_t> out;
  if (f.type == FieldType::Byte) {
    for (int v = 0; v < 256; ++v) out.push_back(static_cast<std::uint64_t>(v));
    return out;
  }
  if (f.type == FieldType::Double) {
    const double d[] = {0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::max(),
                        std::numeric_limits<double>::lowest(),
                        std::numeric_limits<double>::denorm_min(),
                        1e-308,
                        1e300};
    for (double x : d) {
      std::uint64_t u = 0;
      std::memcpy(&u, &x, sizeof u);
      out.push_back(u);
    }
    return out;
  }
  const int64_t cur = as_signed(current, f.size);
  // The seed's value moved, in unsigned arithmetic (wrapping is the point, not an overflow).
  const auto moved = [cur](std::uint64_t times, std::int64_t plus) {
    return static_cast<int64_t>(static_cast<std::uint64_t>(cur) * times +
                                static_cast<std::uint64_t>(plus));
  };
  const int64_t ints[] = {0,
                          1,
                          2,
                          3,
                          4,
                          -1,
                          -2,
                          5,
                          6,
                          7,
                          8,
                          12,
                          15,
                          16,
                          17,
                          24,
                          31,
                          32,
                          33,
                          47,
                          48,
                          63,
                          64,
                          65,
                          96,
                          127,
                          128,
                          255,
                          256,
                          257,
                          1023,
                          1024,
                          1025,
                          4096,
                          65535,
                          65536,
                          std::numeric_limits<std::int32_t>::max(),
                          std::numeric_limits<std::int32_t>::min(),
                          int64_t{1} << 31,
                          (int64_t{1} << 32) - 1,
                          int64_t{1} << 32,
                          (int64_t{1} << 40) - 1,
                          int64_t{1} << 40,
                          (int64_t{1} << 40) + 1,
                          int64_t{1} << 62,
                          std::numeric_limits<int64_t>::max(),
                          std::numeric_limits<int64_t>::min(),
                          moved(1, -1),
                          moved(1, 1),
                          moved(2, 0),
                          cur / 2,
                          moved(1, 32),
                          moved(1, -32),
                          moved(~std::uint64_t{0}, 0)};
  for (int64_t v : ints) out.push_back(static_cast<std::uint64_t>(v));
  return out;
}

class Rng {
 public:
  explicit Rng(std::uint64_t s) : s_(s * 0x9E3779B97F4A7C15ULL + 1) {}
  std::uint64_t next() {
    s_ ^= s_ << 13, s_ ^= s_ >> 7, s_ ^= s_ << 17;
    return s_;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t s_;
};

// One entry's bytes: a whole file of it without the header and the checksum.
std::string entry_bytes(const ShapeKey& key, const Plan& plan, const HardwareProfile& hw) {
  const std::string file = write_plan_bytes({{key, plan}}, hw, key.isa);
  return file.substr(file.size() - 8 - kPlanEntryBytes, kPlanEntryBytes);
}

struct Seed {
  int isa_index;
  std::string entry;
};

// The candidates of the planners for small shapes of every dtype and layout on each ISA path,
// a few per key (the first, the chosen one, the last: different kinds and tiles).
std::vector<Seed> make_seeds(const std::vector<Isa>& isas, const HardwareProfile& hw) {
  struct Shape {
    int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 37, 40}, {5, 9, 13},  {16, 32, 64}, {23, 6, 17},
                          {40, 3, 9},  {7, 40, 64}, {33, 17, 31}};
  std::vector<Seed> seeds;
  auto add = [&](int i, const ShapeKey& key) {
    const Explanation e = explain_key(key, hw);
    if (e.candidates.empty()) return;
    const std::size_t picks[] = {0, e.chosen, e.candidates.size() / 2, e.candidates.size() - 1};
    std::size_t last = ~std::size_t{0};
    for (std::size_t p : picks) {
      if (p == last || p >= e.candidates.size()) continue;
      last = p;
      seeds.push_back({i, entry_bytes(key, e.candidates[p].plan, hw)});
    }
  };
  for (int i = 0; i < static_cast<int>(isas.size()); ++i) {
    const Isa isa = isas[static_cast<std::size_t>(i)];
    for (const Shape& s : shapes) {
      for (int threads : {1, 2, 3}) {
        for (int dt = 0; dt < kDTypeCount; ++dt) {
          for (int layout = 0; layout < 4; ++layout) {
            const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
            ShapeKey key;
            key.m = s.m, key.n = s.n, key.k = s.k;
            key.a_row_unit = !ta;
            key.a_k_unit = !ta || key.m == 1;
            key.b_row_unit = !tb || key.k == 1;
            key.b_k_unit = tb;
            key.dtype = static_cast<DType>(dt);
            const int bytes = input_bytes(key.dtype);
            key.a_ld_log2 = stride_log2(ta ? s.m : s.k, bytes);
            key.b_ld_log2 = stride_log2(tb ? s.k : s.n, bytes);
            key.isa = isa;
            key.threads = threads;
            key.cold = (s.m + threads) % 2 == 0;
            add(i, key);
          }
        }
        for (DType dt : {DType::W8A16, DType::W8A8, DType::W4A16, DType::W4A8})
          for (bool a_bf16 : {false, true}) {
            const int64_t group = wq_dtype_int4(dt) || s.k > 32 ? 32 : 0;
            add(i, make_wq_shape_key(s.m, s.n, s.k, dt, group, a_bf16, isa, threads));
          }
      }
    }
  }
  return seeds;
}

// The fuzz target's mode byte for mode 1 and the ISA at index i of those the target found.
std::uint8_t mode_byte(int isa_index, int isa_count) {
  for (int b = 0; b < 256; ++b)
    if (b % 3 == 1 && (b >> 2) % isa_count == isa_index) return static_cast<std::uint8_t>(b);
  std::abort();
}

std::uint64_t g_files = 0;
void run(std::uint8_t mode, const std::string& entries) {
  std::string input(1, static_cast<char>(mode));
  input += entries;
  ++g_files;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t random_count = 60000, multi_count = 6000, seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::uint64_t v = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--random") == 0)
      random_count = v;
    else if (std::strcmp(argv[i], "--multi") == 0)
      multi_count = v;
    else if (std::strcmp(argv[i], "--seed") == 0)
      seed = v;
    else {
      std::fprintf(stderr, "usage: %s [--random N] [--multi N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  // The ISA paths in the order the fuzz target lists them.
  std::vector<Isa> isas;
  // Each fp32 table once, the best level (whose low-precision tables the others lack) in place
  // of the one whose fp32 table it runs.
  for (const Isa isa : kernels::built_levels())
    if (detected_hardware().supports(isa) && kernels::kernels_for(isa)->isa == isa)
      isas.push_back(isa);
  if (kernels::kernels_for(isas.back()) == kernels::kernels_for(detected_hardware().best_isa()))
    isas.back() = detected_hardware().best_isa();
  ContextOptions o;
  o.threads = 1;
  o.read_environment = false;
  const Context ctx(o);
  const HardwareProfile& hw = ctx.hardware();
  const std::vector<Seed> seeds = make_seeds(isas, hw);
  const int n_isas = static_cast<int>(isas.size());
  std::printf("structured fuzz: %zu seed entries on %d ISA paths\n", seeds.size(), n_isas);

  // Every field of every seed, one at a time.
  for (const Seed& s : seeds) {
    const std::uint8_t mode = mode_byte(s.isa_index, n_isas);
    run(mode, s.entry);  // the seed itself: accepted and executed
    for (int f = 0; f < kFieldCount; ++f)
      for (std::uint64_t v : values_for(f, get(s.entry, f))) {
        std::string e = s.entry;
        put(e, f, v);
        if (e != s.entry) run(mode, e);
      }
  }
  const std::uint64_t single = g_files;

  // Several fields at once, random values or the boundary values above.
  Rng rng(seed);
  auto mutate = [&](std::string& e, int fields) {
    for (int t = 0; t < fields; ++t) {
      const int f = static_cast<int>(rng.below(kFieldCount));
      const std::vector<std::uint64_t> vals = values_for(f, get(e, f));
      put(e, f, rng.below(4) == 0 ? rng.next() : vals[rng.below(vals.size())]);
    }
  };
  for (std::uint64_t i = 0; i < random_count; ++i) {
    const Seed& s = seeds[rng.below(seeds.size())];
    std::string e = s.entry;
    mutate(e, 2 + static_cast<int>(rng.below(5)));
    run(mode_byte(s.isa_index, n_isas), e);
  }
  // Files of several entries (one ISA each), some of them mutated.
  for (std::uint64_t i = 0; i < multi_count; ++i) {
    const int isa_index = static_cast<int>(rng.below(static_cast<std::uint64_t>(n_isas)));
    std::string entries;
    const int count = 2 + static_cast<int>(rng.below(3));
    for (int j = 0; j < count; ++j) {
      const Seed* s = nullptr;
      while (s == nullptr || s->isa_index != isa_index) s = &seeds[rng.below(seeds.size())];
      std::string e = s->entry;
      if (rng.below(2) == 0) mutate(e, 1 + static_cast<int>(rng.below(3)));
      entries += e;
    }
    run(mode_byte(isa_index, n_isas), entries);
  }

  std::uint64_t c[12] = {};
  adaptcore_plan_fuzz_counts(c);
  std::printf("structured fuzz: %llu files (%llu single-field), %llu accepted\n",
              static_cast<unsigned long long>(g_files), static_cast<unsigned long long>(single),
              static_cast<unsigned long long>(c[1]));
  const char* names[3] = {"f32", "bf16", "int8"};
  bool ok = c[0] == g_files;
  for (int d = 0; d < 3; ++d) {
    const std::uint64_t* e = c + 2 + 3 * d;
    std::printf("structured fuzz: %-4s plans executed: %llu packed B, %llu B in place, %llu dot\n",
                names[d], static_cast<unsigned long long>(e[0]),
                static_cast<unsigned long long>(e[1]), static_cast<unsigned long long>(e[2]));
    ok = ok && e[0] + e[1] + e[2] > 0;
  }
  std::printf("structured fuzz: weight-quantized plans executed: %llu\n",
              static_cast<unsigned long long>(c[11]));
  ok = ok && c[11] > 0;
  std::printf("structured fuzz: %s\n", ok ? "passed" : "FAILED: a family of plans never ran");
  return ok ? 0 : 1;
}
