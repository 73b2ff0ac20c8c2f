// libFuzzer target for the plan-file loader. The first byte picks how the rest is used:
//   0: a whole file image, as is (header parsing, lengths, checksum);
//   1: raw entries behind a valid header and checksum (every field of every entry);
//   2: a planner candidate for a small shape, with fuzzed field overrides (the boundary
//      between valid and invalid plans).
// Whatever the loader accepts is then executed on a problem matching its key, with small
// integer inputs so the result is exact, and compared with a reference: an accepted plan that
// crashes, reads or writes out of bounds (ASan) or computes a wrong result is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/context_impl.hpp"
#include "dispatch/plan_file.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/ukernel.hpp"
#include "plan/planner.hpp"

namespace {

using namespace adaptcore;

constexpr int kPoolThreads = 8;

// With ADAPTCORE_FUZZ_STATS set, how many files were accepted and plans executed is printed at
// exit (to see that the run reaches the execution checks at all).
struct Stats {
  std::uint64_t files = 0, accepted = 0, executed = 0;
  ~Stats() {
    if (std::getenv("ADAPTCORE_FUZZ_STATS") != nullptr)
      std::fprintf(stderr, "plan_file_fuzz: %llu files, %llu accepted, %llu plans executed\n",
                   static_cast<unsigned long long>(files),
                   static_cast<unsigned long long>(accepted),
                   static_cast<unsigned long long>(executed));
  }
};
Stats stats;

struct State {
  std::unique_ptr<Context> ctx;
  ThreadPool pool{kPoolThreads};
  std::vector<Isa> isas;
  State() {
    fresh_context();
    for (Isa isa : {Isa::Generic, Isa::Avx2, Isa::Avx512})
      if (detected_hardware().supports(isa) && kernels::kernels_for(isa) != nullptr)
        isas.push_back(isa);
  }
  void fresh_context() {
    ContextOptions o;
    o.threads = 1;
    o.read_environment = false;
    ctx = std::make_unique<Context>(o);
  }
};

State& state() {
  static State s;
  return s;
}

class Bytes {
 public:
  Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
  std::uint8_t u8() { return pos_ < n_ ? d_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(u8()) << (8 * i);
    return v;
  }
  std::uint64_t u64() { return u32() | static_cast<std::uint64_t>(u32()) << 32; }
  bool empty() const { return pos_ >= n_; }
  std::string_view rest() const {
    return {reinterpret_cast<const char*>(d_ + pos_), n_ - std::min(pos_, n_)};
  }

 private:
  const std::uint8_t* d_;
  std::size_t n_, pos_ = 0;
};

// A complete file: the real header for (hw, isa), the given entry bytes (whole entries only)
// and a valid checksum.
std::string wrap_entries(std::string_view entries, const HardwareProfile& hw, Isa isa) {
  std::string file = write_plan_bytes({}, hw, isa);
  file.resize(file.size() - 16);  // drop count and checksum
  const std::uint64_t count = entries.size() / kPlanEntryBytes;
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>(count >> (8 * i)));
  file.append(entries.substr(0, count * kPlanEntryBytes));
  const std::uint64_t h = fnv1a64(file);
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>(h >> (8 * i)));
  return file;
}

// Runs an accepted plan on a problem with its key's access pattern and checks it exactly.
void execute_checked(const ShapeKey& key, const Plan& plan, std::uint32_t seed) {
  if (key.m > 80 || key.n > 80 || key.k > 128 || key.threads > kPoolThreads) return;
  const int64_t m = key.m, n = key.n, k = key.k;
  GemmProblem g;
  g.m = m, g.n = n, g.k = k;
  // Strides with the key's flags: a_row_unit <=> a_rs != 1, a_k_unit <=> a_cs == 1,
  // b_row_unit <=> b_cs == 1, b_k_unit <=> b_rs == 1 (the loader rejects impossible keys).
  if (key.a_row_unit) g.a_rs = k + 1, g.a_cs = 1;
  else if (key.a_k_unit) g.a_rs = 1, g.a_cs = 1;
  else g.a_rs = 1, g.a_cs = m + 1;
  if (key.b_row_unit && key.b_k_unit) g.b_rs = 1, g.b_cs = 1;
  else if (key.b_row_unit) g.b_rs = n + 1, g.b_cs = 1;
  else g.b_rs = 1, g.b_cs = k + 1;
  const int64_t ldc = n + 3;
  std::vector<float> a(static_cast<std::size_t>((m - 1) * g.a_rs + (k - 1) * g.a_cs + 1));
  std::vector<float> b(static_cast<std::size_t>((k - 1) * g.b_rs + (n - 1) * g.b_cs + 1));
  std::vector<float> c(static_cast<std::size_t>(m * ldc)), c0;
  std::uint32_t x = seed | 1u;
  auto next = [&x] {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return static_cast<float>(static_cast<int>(x % 5u) - 2);
  };
  ++stats.executed;
  for (auto& v : a) v = next();
  for (auto& v : b) v = next();
  constexpr float kPad = 12345.0f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) c[static_cast<std::size_t>(i * ldc + j)] = j < n ? next() : kPad;
  c0 = c;
  g.a = a.data(), g.b = b.data(), g.c = c.data(), g.ldc = ldc;
  g.alpha = 1.0f;
  g.beta = (seed & 2u) != 0 ? 1.0f : 0.0f;

  const kernels::IsaKernels& ks = *kernels::kernels_for(key.isa);
  if (!execute_single_tile(plan, g, ks)) {
    if (execute(plan, g, ks, state().pool) != Status::Ok) return;  // e.g. out of memory
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const std::size_t at = static_cast<std::size_t>(i * ldc + j);
      if (j >= n) {
        if (c[at] != kPad) __builtin_trap();  // wrote outside C
        continue;
      }
      double ref = g.beta != 0.0f ? c0[at] : 0.0;
      for (int64_t p = 0; p < k; ++p)
        ref += static_cast<double>(a[static_cast<std::size_t>(i * g.a_rs + p * g.a_cs)]) *
               b[static_cast<std::size_t>(p * g.b_rs + j * g.b_cs)];
      if (static_cast<double>(c[at]) != ref) __builtin_trap();  // exact: small integers
    }
}

void check_and_run(const std::string& file, const PlanFileTarget& target, std::uint32_t seed) {
  std::vector<PlanEntry> entries;
  std::string why;
  ++stats.files;
  if (parse_plan_bytes(file, target, entries, &why) != Status::Ok) {
    if (!entries.empty() || why.empty()) __builtin_trap();  // rejected files load nothing
    return;
  }
  ++stats.accepted;
  for (const auto& [key, plan] : entries) {
    if (!check_plan_entry(key, plan, *target.hw).empty()) __builtin_trap();
    if (key.dtype != DType::F32) continue;  // low-precision plans run on their own executor
    execute_checked(key, plan, seed++);
  }
}

// Mode 2: a candidate of the planner for a small shape, then (field, value) overrides.
std::string mutated_candidate(Bytes& in, Isa isa, ShapeKey& key, const HardwareProfile& hw) {
  key.m = 1 + in.u8() % 80;
  key.n = 1 + in.u8() % 80;
  key.k = 1 + in.u8() % 128;
  const std::uint8_t layout = in.u8();
  const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
  key.a_row_unit = !ta && key.k > 0;
  key.a_k_unit = !ta || key.m == 1;
  key.b_row_unit = !tb || key.k == 1;
  key.b_k_unit = tb;
  key.a_ld_log2 = static_cast<std::uint8_t>(2 + in.u8() % 15);
  key.b_ld_log2 = static_cast<std::uint8_t>(2 + in.u8() % 15);
  key.isa = isa;
  key.threads = 1 + in.u8() % kPoolThreads;
  const Explanation e = explain_plan(key, hw, *kernels::kernels_for(isa));
  if (e.candidates.empty()) return {};
  Plan p = e.candidates[in.u8() % e.candidates.size()].plan;
  while (!in.empty()) {
    const std::uint8_t field = in.u8();
    const auto v = static_cast<std::int32_t>(in.u32());
    const auto small = static_cast<std::int8_t>(v);  // mostly near-valid values
    switch (field % 16) {
      case 0: p.tile = small; break;
      case 1: p.mr = small; break;
      case 2: p.nr = small; break;
      case 3: p.pack_a = !p.pack_a; break;
      case 4: p.pack_b = !p.pack_b; break;
      case 5: p.dot = !p.dot; break;
      case 6: p.mc = (field & 16) != 0 ? v : p.mc + small; break;
      case 7: p.nc = (field & 16) != 0 ? v : p.nc + small; break;
      case 8: p.kc = (field & 16) != 0 ? v : p.kc + small; break;
      case 9: p.pm = small; break;
      case 10: p.pn = small; break;
      case 11: p.pk = small; break;
      case 12: p.tail = static_cast<TailStrategy>(v & 1); break;
      case 13: key.threads = small; break;
      case 14: key.b_row_unit = !key.b_row_unit; break;
      case 15: key.a_row_unit = !key.a_row_unit; break;
    }
  }
  return write_plan_bytes({{key, p}}, hw, isa);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  State& st = state();
  if (size == 0 || st.isas.empty()) return 0;
  Bytes in(data, size);
  const std::uint8_t mode = in.u8();
  const Isa isa = st.isas[(mode >> 2) % st.isas.size()];
  const HardwareProfile& hw = st.ctx->hardware();
  const PlanFileTarget target{&hw, isa};
  const std::uint32_t seed = static_cast<std::uint32_t>(size) * 2654435761u + mode;
  switch (mode % 3) {
    case 0: {
      check_and_run(std::string(in.rest()), target, seed);
      // The context entry point too (its own ISA): never a crash, all or nothing.
      detail::ContextImpl& impl = st.ctx->impl();
      const std::size_t before = impl.cache().size();
      std::size_t loaded = 0;
      if (load_plan_bytes(impl, in.rest(), nullptr, &loaded) != Status::Ok &&
          impl.cache().size() != before)
        __builtin_trap();
      if (impl.cache().size() > 4096) st.fresh_context();
      break;
    }
    case 1:
      check_and_run(wrap_entries(in.rest(), hw, isa), target, seed);
      break;
    case 2: {
      ShapeKey key;
      const std::string file = mutated_candidate(in, isa, key, hw);
      if (!file.empty()) check_and_run(file, target, seed);
      break;
    }
  }
  return 0;
}
