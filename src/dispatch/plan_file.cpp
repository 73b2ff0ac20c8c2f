#include "dispatch/plan_file.hpp"
#include "core/int_math.hpp"
#include "core/wq_weights.hpp"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "adaptcore/adaptcore.hpp"
#include "core/exception_status.hpp"
#include "core/file_read.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/planning.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"

namespace adaptcore {
namespace {

// Largest dimension a key may hold: far beyond any matrix that fits in memory, small enough
// that products of two dimensions cannot overflow 64 bits.
constexpr int64_t kMaxDim = int64_t{1} << 40;
// A plan file larger than this is not read (several million entries).
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 30;

// Key flag bits.
constexpr std::uint8_t kARowUnit = 1, kBRowUnit = 2, kAKUnit = 4, kBKUnit = 8, kABf16 = 16,
                       kCold = 32;
// Plan flag bits. kAWords: packed A blocks packed as 32-bit words (APacking::Words); a file
// written before the bit existed loads its plans with the group packer (same results).
// kPrefetchC: Plan::prefetch_c (a file written before it existed: no prefetching, same results);
// kPrefetchB likewise for Plan::prefetch_b. kTransposeC: Plan::transpose_c (the plan's fields
// describe the transposed problem).
constexpr std::uint8_t kPackA = 1, kPackB = 2, kAWords = 8, kPrefetchC = 16, kPrefetchB = 32,
                       kTransposeC = 64;

class Writer {
 public:
  void u8(std::uint8_t v) { s_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { little_endian(v); }
  void u64(std::uint64_t v) { little_endian(v); }
  void i32(int v) { u32(static_cast<std::uint32_t>(v)); }
  void i64(int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void bytes(std::string_view b) { s_.append(b); }
  std::string& str() { return s_; }

 private:
  // The file's byte order is little-endian, whatever the host's.
  template <class U>
  void little_endian(U v) {
    for (std::size_t i = 0; i < sizeof(U); ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
  }

  std::string s_;
};

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  std::size_t pos() const { return pos_; }
  bool u8(std::uint8_t& v) {
    if (b_.size() - pos_ < 1) return false;
    v = static_cast<std::uint8_t>(b_[pos_++]);
    return true;
  }
  bool u32(std::uint32_t& v) { return little_endian(v); }
  bool u64(std::uint64_t& v) { return little_endian(v); }
  bool i32(int& v) {
    std::uint32_t u = 0;
    if (!u32(u)) return false;
    v = static_cast<int>(static_cast<std::int32_t>(u));
    return true;
  }
  bool i64(int64_t& v) {
    std::uint64_t u = 0;
    if (!u64(u)) return false;
    v = static_cast<int64_t>(u);
    return true;
  }
  bool f64(double& v) {
    std::uint64_t u = 0;
    if (!u64(u)) return false;
    v = std::bit_cast<double>(u);
    return true;
  }
  bool bytes(std::size_t n, std::string_view& out) {
    if (b_.size() - pos_ < n) return false;
    out = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }

 private:
  template <class U>
  bool little_endian(U& v) {
    if (b_.size() - pos_ < sizeof(U)) return false;
    v = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i)
      v |= static_cast<U>(static_cast<unsigned char>(b_[pos_ + i])) << (8 * i);
    pos_ += sizeof(U);
    return true;
  }

  std::string_view b_;
  std::size_t pos_ = 0;
};

void write_entry(Writer& w, const ShapeKey& k, const Plan& p) {
  w.i64(k.m);
  w.i64(k.n);
  w.i64(k.k);
  w.u8(static_cast<std::uint8_t>((k.a_row_unit ? kARowUnit : 0) | (k.b_row_unit ? kBRowUnit : 0) |
                                 (k.a_k_unit ? kAKUnit : 0) | (k.b_k_unit ? kBKUnit : 0) |
                                 (k.a_bf16 ? kABf16 : 0) | (k.cold ? kCold : 0)));
  w.u8(k.a_ld_log2);
  w.u8(k.b_ld_log2);
  w.u8(k.b_panel_nr);
  w.u32(static_cast<std::uint32_t>(k.isa));
  w.i32(k.threads);
  w.u8(static_cast<std::uint8_t>(k.dtype));
  w.u32(k.wq_group);

  w.u8(static_cast<std::uint8_t>(p.kind));

  w.u32(static_cast<std::uint32_t>(p.isa));
  w.i32(p.tile);
  w.i32(p.mr);
  w.i32(p.nr);
  w.u8(static_cast<std::uint8_t>((p.pack_a ? kPackA : 0) | (p.pack_b ? kPackB : 0) |
                                 (p.a_packing == APacking::Words ? kAWords : 0) |
                                 (p.prefetch_c ? kPrefetchC : 0) | (p.prefetch_b ? kPrefetchB : 0) |
                                 (p.transpose_c ? kTransposeC : 0)));
  w.i64(p.mc);
  w.i64(p.nc);
  w.i64(p.kc);
  w.i32(p.pm);
  w.i32(p.pn);
  w.i32(p.pk);
  w.i32(p.quantize_threads);
  w.u8(static_cast<std::uint8_t>(p.tail));
  w.u8(static_cast<std::uint8_t>(p.cls.capacity));
  w.u8(static_cast<std::uint8_t>(p.cls.parallel));
  w.f64(p.predicted_us);
}

// A level of the lattice (built here or not: one this build lacks is refused later, as
// unrunnable, with a reason that names it).
bool known_isa(std::uint32_t v) {
  return v <= 0xffffu && kernels::lattice_row(static_cast<Isa>(v)) != nullptr;
}

// Reads one entry; false with a reason for field values no key or plan can hold (unknown flag
// bits or enum values), which are rejected before they are stored in enum-typed fields.
bool read_entry(Reader& r, ShapeKey& k, Plan& p, std::string& why) {
  std::uint8_t kflags = 0, dtype = 0, kind = 0, pflags = 0, tail = 0, cap = 0, par = 0;
  std::uint32_t kisa = 0, pisa = 0, group = 0;
  const bool ok = r.i64(k.m) && r.i64(k.n) && r.i64(k.k) && r.u8(kflags) && r.u8(k.a_ld_log2) &&
                  r.u8(k.b_ld_log2) && r.u8(k.b_panel_nr) && r.u32(kisa) && r.i32(k.threads) &&
                  r.u8(dtype) && r.u32(group) && r.u8(kind) && r.u32(pisa) && r.i32(p.tile) &&
                  r.i32(p.mr) && r.i32(p.nr) && r.u8(pflags) && r.i64(p.mc) && r.i64(p.nc) &&
                  r.i64(p.kc) && r.i32(p.pm) && r.i32(p.pn) && r.i32(p.pk) &&
                  r.i32(p.quantize_threads) && r.u8(tail) && r.u8(cap) && r.u8(par) &&
                  r.f64(p.predicted_us);
  if (!ok) {
    why = "truncated entry";
    return false;
  }
  if ((kflags & ~(kARowUnit | kBRowUnit | kAKUnit | kBKUnit | kABf16 | kCold)) != 0) {
    why = "unknown key flag bits";
    return false;
  }
  if ((pflags & ~(kPackA | kPackB | kAWords | kPrefetchC | kPrefetchB | kTransposeC)) != 0) {
    why = "unknown plan flag bits";
    return false;
  }
  if (!known_isa(kisa) || !known_isa(pisa)) {
    why = "unknown ISA value";
    return false;
  }
  if (dtype >= kAllDTypeCount) {
    why = "unknown data type";
    return false;
  }
  if (kind > static_cast<std::uint8_t>(PlanKind::Rows)) {
    why = "unknown plan kind";
    return false;
  }
  if (group > 0xffffu) {
    why = "weight group out of range";
    return false;
  }
  if (tail > static_cast<std::uint8_t>(TailStrategy::Padded)) {
    why = "unknown tail strategy";
    return false;
  }
  if (cap > static_cast<std::uint8_t>(CapacityClass::Dram) ||
      par > static_cast<std::uint8_t>(ParallelClass::FewTiles)) {
    why = "unknown shape class";
    return false;
  }
  k.a_row_unit = (kflags & kARowUnit) != 0;
  k.b_row_unit = (kflags & kBRowUnit) != 0;
  k.a_k_unit = (kflags & kAKUnit) != 0;
  k.b_k_unit = (kflags & kBKUnit) != 0;
  k.isa = static_cast<Isa>(kisa);
  k.dtype = static_cast<DType>(dtype);
  k.a_bf16 = (kflags & kABf16) != 0;
  k.cold = (kflags & kCold) != 0;
  k.wq_group = static_cast<std::uint16_t>(group);
  p.kind = static_cast<PlanKind>(kind);
  p.isa = static_cast<Isa>(pisa);
  p.pack_a = (pflags & kPackA) != 0;
  p.pack_b = (pflags & kPackB) != 0;
  p.a_packing = (pflags & kAWords) != 0 ? APacking::Words : APacking::Elements;
  p.prefetch_c = (pflags & kPrefetchC) != 0;
  p.prefetch_b = (pflags & kPrefetchB) != 0;
  p.transpose_c = (pflags & kTransposeC) != 0;
  p.tail = static_cast<TailStrategy>(tail);
  p.cls.capacity = static_cast<CapacityClass>(cap);
  p.cls.parallel = static_cast<ParallelClass>(par);
  return true;
}

std::string isa_name(std::uint32_t v) {
  return known_isa(v) ? to_string(static_cast<Isa>(v)) : "unknown ISA " + std::to_string(v);
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) noexcept {
  for (const char ch : bytes) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t hardware_fingerprint(const HardwareProfile& hw, Isa isa) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto add = [&h](std::uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
    h = fnv1a64(std::string_view(b, 8), h);
  };
  // Features and the level by name: a feature or level added to the lattice renumbers nothing
  // a stored file was fingerprinted with.
  for (int i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(1u << i);
    if (!hw.features.has(f)) continue;
    const std::string_view name = to_string(f);
    add(name.size());
    h = fnv1a64(name, h);
  }
  add(static_cast<std::uint64_t>(hw.cores));
  add(static_cast<std::uint64_t>(hw.l1d_bytes));
  add(static_cast<std::uint64_t>(hw.l2_bytes));
  add(static_cast<std::uint64_t>(hw.l3_bytes));
  add(static_cast<std::uint64_t>(hw.l3_warm_bytes));
  add(static_cast<std::uint64_t>(hw.l1d_ways));
  add(static_cast<std::uint64_t>(hw.l2_ways));
  add(static_cast<std::uint64_t>(hw.page_bytes));
  add(std::bit_cast<std::uint64_t>(hw.fma_per_cycle_512 + 0.0));
  add(std::bit_cast<std::uint64_t>(hw.fma_per_cycle_256 + 0.0));
  add(std::bit_cast<std::uint64_t>(hw.fma_per_cycle_128 + 0.0));
  add(std::bit_cast<std::uint64_t>(hw.dot_bf16_per_cycle + 0.0));
  add(std::bit_cast<std::uint64_t>(hw.dot_int8_per_cycle + 0.0));
  add(std::bit_cast<std::uint64_t>(hw.amx_tiles_per_cycle + 0.0));
  add(hw.name.size());
  h = fnv1a64(hw.name, h);
  const std::string_view level = to_string(isa);
  add(level.size());
  h = fnv1a64(level, h);
  return h;
}

std::string write_plan_bytes(const std::vector<PlanEntry>& entries, const HardwareProfile& hw,
                             Isa isa, std::string_view lib_version) {
  if (lib_version.empty()) lib_version = version();
  Writer w;
  w.bytes(std::string_view(kPlanFileMagic, sizeof kPlanFileMagic));
  w.u32(kPlanFileFormat);
  w.u32(static_cast<std::uint32_t>(lib_version.size()));
  w.bytes(lib_version);
  w.u32(static_cast<std::uint32_t>(isa));
  w.u64(hardware_fingerprint(hw, isa));
  w.u64(entries.size());
  w.str().reserve(w.str().size() + entries.size() * kPlanEntryBytes + 8);
  for (const auto& [key, plan] : entries) write_entry(w, key, plan);
  w.u64(fnv1a64(w.str()));
  return std::move(w.str());
}

std::string check_plan_entry(const ShapeKey& key, const Plan& p) {
  return check_plan_entry(key, p, detected_hardware());
}

namespace {

// Bounds on a plan's register tile and tile index far beyond any kernel table's (the planning
// implementation's check then holds the tile to its table): they keep products of a tile with
// a block or a dimension well inside 64 bits.
constexpr int kMaxTileIndex = 255;
constexpr int kMaxTileExtent = 1024;

// Every scalar field of an entry within its range, each on its own, before any rule below
// combines two of them (a block rounded to a tile, a remainder by nr, the grid's product):
// the one place a field of a file is checked before arithmetic uses it.
std::string check_entry_ranges(const ShapeKey& key, const Plan& p) {
  // The key: something a real call can produce.
  if (key.m < 1 || key.n < 1 || key.k < 1 || key.m > kMaxDim || key.n > kMaxDim || key.k > kMaxDim)
    return "dimensions out of range";
  if (static_cast<std::uint8_t>(key.dtype) >= kAllDTypeCount) return "unknown data type";
  if (key.a_ld_log2 > 16 || key.b_ld_log2 > 16) return "leading-dimension class out of range";
  if (key.threads < 1 || key.threads > kMaxThreads) return "thread count out of range";
  if (!known_isa(static_cast<std::uint32_t>(key.isa))) return "unknown ISA";
  if (key.wq_group > kWqMaxGroup) return "weight group out of range";
  // The plan.
  if (!known_isa(static_cast<std::uint32_t>(p.isa))) return "unknown plan ISA";
  if (static_cast<std::uint8_t>(p.kind) > static_cast<std::uint8_t>(PlanKind::Rows))
    return "unknown plan kind";
  if (p.tile < 0 || p.tile > kMaxTileIndex) return "tile index out of range";
  if (p.mr < 1 || p.nr < 1 || p.mr > kMaxTileExtent || p.nr > kMaxTileExtent)
    return "register tile out of range";
  if (p.mc < 1 || p.nc < 1 || p.kc < 1 || p.mc > kMaxDim || p.nc > kMaxDim || p.kc > kMaxDim)
    return "cache block out of range";
  if (p.pm < 1 || p.pn < 1 || p.pk < 1 || p.pm > key.threads || p.pn > key.threads ||
      p.pk > key.threads)
    return "core grid out of range";
  if (p.quantize_threads < 1 || p.quantize_threads > key.threads)
    return "activation split threads out of range";
  if (static_cast<std::uint8_t>(p.tail) > static_cast<std::uint8_t>(TailStrategy::Padded))
    return "unknown tail strategy";
  if (static_cast<std::uint8_t>(p.cls.capacity) > static_cast<std::uint8_t>(CapacityClass::Dram) ||
      static_cast<std::uint8_t>(p.cls.parallel) >
          static_cast<std::uint8_t>(ParallelClass::FewTiles))
    return "unknown shape class";
  if (!std::isfinite(p.predicted_us) || p.predicted_us < 0.0) return "invalid predicted time";
  return {};
}

}  // namespace

std::string check_plan_entry(const ShapeKey& key, const Plan& p, const HardwareProfile& hw) {
  if (std::string why = check_entry_ranges(key, p); !why.empty()) return why;
  // From here on every field is in range: the rules combine them.
  if (int64_t{p.pm} * p.pn * p.pk > key.threads)
    return "core grid larger than the key's thread count";
  if (key.a_row_unit && !key.a_k_unit) return "impossible A layout in key";
  if (!key.b_row_unit && !key.b_k_unit) return "impossible B layout in key";
  // Leading-dimension classes are log2 of bytes: at least the element size's. A
  // weight-quantized key has A's (fp32 or bf16 activations) and no B class (packed weights).
  if (is_weight_quantized(key.dtype)) {
    const int min_a = key.a_bf16 ? 1 : 2;
    if (key.a_ld_log2 < min_a || key.b_ld_log2 != 0) return "leading-dimension class out of range";
    const int64_t g = key.wq_group;
    if (g != 0 && (g < 32 || g % 32 != 0)) return "weight group out of range";
    if (!key.b_row_unit || key.b_k_unit) return "impossible B layout in a weight-quantized key";
    if (key.a_row_unit != key.a_k_unit) return "impossible A layout in a weight-quantized key";
    if (wq_dtype_int4(key.dtype) && g == 0) return "int4 weights without a group";
    if (p.quantize_threads != 1 && p.quantize_threads != p.threads())
      return "activation split on neither one thread nor all of the plan's";
  } else {
    const int min_ld = input_bytes(key.dtype) == 4 ? 2 : input_bytes(key.dtype) == 2 ? 1 : 0;
    if (key.a_ld_log2 < min_ld || key.b_ld_log2 < min_ld)
      return "leading-dimension class out of range";
    if (key.wq_group != 0 || key.a_bf16) return "weight-quantized fields in a key of another type";
    if (p.quantize_threads != 1) return "activation split threads in a plan of another type";
  }
  if (p.isa != key.isa) return "plan ISA differs from its key's";
  if (runnable_kernels(key.isa) == nullptr)
    return std::string("ISA ") + to_string(key.isa) + " not supported by this CPU or build";
  if (p.a_packing == APacking::Words && !p.pack_a) return "A packed as words but not packed";

  if (p.transpose_c && p.kind != PlanKind::Blocked)
    return "C stored transposed by a plan that is not a register-tile plan";
  // Prepacked weights: an fp32, bf16 or int8 key with B in panels, read by a register-tile plan
  // (whose validator, check_blocked_plan, holds the plan's rules: the tile's width, no packing
  // or prefetching of B, no transposed store, masked tails).
  if (key.b_panel_nr != 0) {
    if (key.dtype != DType::F32 && key.dtype != DType::Bf16 && key.dtype != DType::U8S8)
      return "prepacked B in a key of a type without prepacked weights";
    if (key.dtype != DType::F32 && p.kc % (key.dtype == DType::Bf16 ? 2 : 4) != 0 && p.kc < key.k)
      return "a depth block of prepacked low-precision B not on a packed word";
    if (!key.b_row_unit || key.b_k_unit) return "impossible B layout in a prepacked key";
    if (p.kind != PlanKind::Blocked)
      return "prepacked B read by a plan that is not a register-tile plan";
  }

  // The plan kind's own rules, by the implementation that plans the key (planning.hpp).
  if (const PlanningImpl* impl = planning_impl_for(key); impl == nullptr)
    return "no planner for the key's data type";
  else if (std::string why = impl->check(key, p, hw); !why.empty())
    return why;

  // Blocking within the shape (bounds the workspace the executor sizes); a transposed plan's
  // blocks are those of C^T.
  const ShapeKey blocked = p.transpose_c ? transposed_key(key) : key;
  if (p.mc > round_up(blocked.m, p.mr) || p.nc > round_up(blocked.n, p.nr) || p.kc > blocked.k)
    return "cache block larger than the shape";
  return {};
}

Status parse_plan_bytes(std::string_view bytes, const PlanFileTarget& target,
                        std::vector<PlanEntry>& out, std::string* reason) noexcept {
  out.clear();
  auto fail = [&](const std::string& why) {
    out.clear();
    if (reason != nullptr) *reason = why;
    return Status::InvalidPlanFile;
  };
  try {
    const std::string_view magic(kPlanFileMagic, sizeof kPlanFileMagic);
    if (bytes.size() < magic.size()) {
      if (bytes == magic.substr(0, bytes.size()))
        return fail("truncated (" + std::to_string(bytes.size()) + " bytes)");
      return fail("not a plan file (bad magic)");
    }
    if (bytes.substr(0, magic.size()) != magic) return fail("not a plan file (bad magic)");
    Reader r(bytes);
    std::string_view skip;
    r.bytes(magic.size(), skip);
    std::uint32_t format = 0, lib_len = 0, isa = 0;
    std::uint64_t fingerprint = 0, count = 0;
    const std::string truncated = "truncated (" + std::to_string(bytes.size()) + " bytes)";
    if (!r.u32(format)) return fail(truncated);
    if (format != kPlanFileFormat)
      return fail("format version " + std::to_string(format) + ", this library reads " +
                  std::to_string(kPlanFileFormat));
    if (!r.u32(lib_len)) return fail(truncated);
    if (lib_len == 0 || lib_len > kPlanLibVersionMax) return fail("malformed header");
    std::string_view lib;
    if (!r.bytes(lib_len, lib) || !r.u32(isa) || !r.u64(fingerprint) || !r.u64(count))
      return fail(truncated);
    const std::size_t header = r.pos();
    if (bytes.size() - header < 8) return fail(truncated);
    const std::size_t body = bytes.size() - header - 8;
    if (count > body / kPlanEntryBytes)
      return fail("entry count " + std::to_string(count) + " does not fit in a file of " +
                  std::to_string(bytes.size()) + " bytes (truncated or corrupt)");
    const std::size_t need = static_cast<std::size_t>(count) * kPlanEntryBytes;
    if (body > need)
      return fail(std::to_string(body - need) + " bytes of trailing garbage after " +
                  std::to_string(count) + " entries");
    std::uint64_t stored = 0;
    for (int i = 0; i < 8; ++i)
      stored |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[bytes.size() - 8 + i]))
                << (8 * i);
    if (fnv1a64(bytes.substr(0, bytes.size() - 8)) != stored) return fail("checksum mismatch");
    if (lib != version())
      return fail("made by adaptcore " + std::string(lib) + ", this is " + version());
    if (!known_isa(isa)) return fail("unknown ISA value " + std::to_string(isa));
    const Isa file_isa = static_cast<Isa>(isa);
    if (runnable_kernels(file_isa) == nullptr)
      return fail("plans for ISA " + isa_name(isa) + ", which this CPU or build lacks");
    if (file_isa != target.isa)
      return fail("plans for ISA " + isa_name(isa) + ", this context uses " +
                  to_string(target.isa));
    if (target.hw == nullptr) return fail("no hardware profile to compare with");
    const std::uint64_t ours = hardware_fingerprint(*target.hw, target.isa);
    if (fingerprint != ours)
      return fail("made for other hardware (fingerprint " + hex(fingerprint) + ", this machine " +
                  hex(ours) + ")");

    out.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
      ShapeKey key;
      Plan plan;
      std::string why;
      if (read_entry(r, key, plan, why)) {
        if (key.isa != file_isa)
          why = "key ISA differs from the file's";
        else
          why = check_plan_entry(key, plan, *target.hw);
      }
      if (!why.empty()) {
        std::ostringstream os;
        os << "entry " << i << " (m=" << key.m << " n=" << key.n << " k=" << key.k
           << " threads=" << key.threads << "): " << why;
        return fail(os.str());
      }
      out.emplace_back(key, plan);
    }
    return Status::Ok;
  } catch (...) {
    out.clear();
    return exception_status(reason);
  }
}

Status load_plan_bytes(detail::ContextImpl& ctx, std::string_view bytes, std::string* error,
                       std::size_t* loaded) noexcept {
  if (loaded != nullptr) *loaded = 0;
  try {
    std::vector<PlanEntry> entries;
    const auto section = ctx.reading();
    const detail::ContextImpl::Config cfg = ctx.config();
    const PlanFileTarget target{cfg.hw, cfg.isa};
    const Status s = parse_plan_bytes(bytes, target, entries, error);
    if (s != Status::Ok) return s;
    std::size_t n = 0;
    for (const auto& [key, plan] : entries) {
      // Stops at a full cache, or a profile replaced meanwhile (the file was checked against
      // the old one).
      if (!ctx.cache_plan(key, plan, cfg)) break;
      ++n;
    }
    if (loaded != nullptr) *loaded = n;
    return Status::Ok;
  } catch (...) {
    return exception_status(error);
  }
}

Status load_plan_file(detail::ContextImpl& ctx, const std::string& path,
                      std::string* error) noexcept {
  std::string why;
  Status s = Status::InvalidPlanFile;
  try {
    // The magic is checked before the size and before the rest is read: a large file that is
    // not a plan file is rejected for what it is, without reading it.
    std::string bytes;
    s = read_regular_file(path, kMaxFileBytes, bytes, &why,
                          std::string_view(kPlanFileMagic, sizeof kPlanFileMagic));
    if (s == Status::Ok) s = load_plan_bytes(ctx, bytes, &why);
  } catch (const std::bad_alloc&) {
    s = Status::OutOfMemory;
    why = "out of memory";
  } catch (...) {
    s = Status::InvalidPlanFile;
    why = "cannot read";
  }
  if (s == Status::Ok) return s;
  if (s != Status::OutOfMemory && s != Status::InternalError) s = Status::InvalidPlanFile;
  if (error != nullptr) *error = why;
  std::fprintf(stderr, "adaptcore: plan file %s ignored: %s\n", path.c_str(), why.c_str());
  return s;
}

Status write_plan_file(const std::string& path, const std::vector<PlanEntry>& entries,
                       const HardwareProfile& hw, Isa isa, std::string* error) noexcept {
  try {
    const std::string bytes = write_plan_bytes(entries, hw, isa);
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) {
        if (error != nullptr) *error = "cannot create " + tmp + ": " + std::strerror(errno);
        return Status::InvalidArgument;
      }
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.flush();
      if (!out) {
        if (error != nullptr) *error = "cannot write " + tmp;
        std::remove(tmp.c_str());
        return Status::InvalidArgument;
      }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      if (error != nullptr)
        *error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
      return Status::InvalidArgument;
    }
    return Status::Ok;
  } catch (...) {
    return exception_status(error);
  }
}

Status save_plan_file(detail::ContextImpl& ctx, const std::string& path,
                      std::string* error) noexcept {
  try {
    const auto section = ctx.reading();
    const detail::ContextImpl::Config cfg = ctx.config();
    std::vector<PlanEntry> entries = ctx.cache().snapshot();
    std::erase_if(entries, [&cfg](const PlanEntry& e) { return e.first.isa != cfg.isa; });
    return write_plan_file(path, entries, *cfg.hw, cfg.isa, error);
  } catch (...) {
    return exception_status(error);
  }
}

}  // namespace adaptcore
