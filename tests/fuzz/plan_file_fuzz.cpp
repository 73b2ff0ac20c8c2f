// libFuzzer target for the plan-file loader. The first byte picks how the rest is used:
//   0: a whole file image, as is (header parsing, lengths, checksum);
//   1: raw entries behind a valid header and checksum (every field of every entry);
//   2: a planner candidate for a small shape, with fuzzed field overrides (the boundary
//      between valid and invalid plans).
// Whatever the loader accepts is then executed on a problem matching its key, whatever its
// dtype: fp32 (blocked and dot plans) through the fp32 executor, bf16 (fp32 or bf16 C) and
// int8 (u8 x s8 or s8 x s8, with or without zero points; packed, in-place B and dot plans)
// through the low-precision executor with the kernels the context would use, and the
// weight-quantized types (W8A16, W8A8, W4A16, W4A8, fp32 or bf16 activations, per-column or
// grouped scales) through their executor. Inputs are small integers, so every product and sum
// is exact: fp32 and int32 results must equal the reference, a bf16 C must be within one bf16
// rounding of it, a weight-quantized C within the activation split's error bound. An accepted
// plan that crashes, reads or writes out of bounds (ASan) or computes a wrong result is a bug.
//
// Built with libFuzzer (ADAPTCORE_BUILD_FUZZ=ON, Clang) or, without it, into the corpus replay
// test (replay_main.cpp, every compiler), which runs tests/fuzz/corpus through this entry point.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/internal_access.hpp"
#include "core/lowp_problem.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/plan_file.hpp"
#include "dispatch/planning.hpp"
#include "exec/executor.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/executor_small.hpp"
#include "exec/executor_wq.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "kernels/ukernel.hpp"
#include "planner/planner.hpp"

namespace {

using namespace adaptcore;

constexpr int kPoolThreads = 8;

// With ADAPTCORE_FUZZ_STATS set, how many files were accepted and plans executed (per kind) is
// printed at exit (to see that the run reaches the execution checks at all); the replay test
// reads the same counts through adaptcore_plan_fuzz_counts.
struct Stats {
  std::uint64_t files = 0, accepted = 0;
  // Executed plans: [dtype][0 blocked, packed B / 1 blocked, B in place / 2 dot].
  std::uint64_t executed[kDTypeCount][3] = {};
  std::uint64_t executed_wq = 0;  // weight-quantized plans, every type
  ~Stats() {
    if (std::getenv("ADAPTCORE_FUZZ_STATS") == nullptr) return;
    std::fprintf(stderr, "plan_file_fuzz: %llu files, %llu accepted; plans executed",
                 static_cast<unsigned long long>(files), static_cast<unsigned long long>(accepted));
    for (int d = 0; d < kDTypeCount; ++d)
      std::fprintf(stderr, " %s %llu/%llu/%llu", to_string(static_cast<DType>(d)),
                   static_cast<unsigned long long>(executed[d][0]),
                   static_cast<unsigned long long>(executed[d][1]),
                   static_cast<unsigned long long>(executed[d][2]));
    std::fprintf(stderr, " (packed B/B in place/dot), weight-quantized %llu\n",
                 static_cast<unsigned long long>(executed_wq));
  }
};
Stats stats;

struct State {
  std::unique_ptr<Context> ctx;
  ThreadPool pool{kPoolThreads};
  std::vector<Isa> isas;
  State() {
    fresh_context();
    // Each fp32 table once, the best level (whose low-precision tables the others lack) in place
    // of the one whose fp32 table it runs.
    for (const Isa isa : kernels::built_levels())
      if (detected_hardware().supports(isa) && kernels::kernels_for(isa)->isa == isa)
        isas.push_back(isa);
    if (kernels::kernels_for(isas.back()) == kernels::kernels_for(detected_hardware().best_isa()))
      isas.back() = detected_hardware().best_isa();
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

// Element strides of op(A) (m x k) and op(B) (k x n) with the key's flags: a_row_unit <=>
// a_rs != 1, a_k_unit <=> a_cs == 1, b_row_unit <=> b_cs == 1, b_k_unit <=> b_rs == 1 (the
// loader rejects impossible keys); padded leading dimensions.
struct Strides {
  int64_t a_rs, a_cs, b_rs, b_cs;
};
Strides key_strides(const ShapeKey& key) {
  const int64_t m = key.m, n = key.n, k = key.k;
  Strides s{};
  if (key.a_row_unit)
    s.a_rs = k + 1, s.a_cs = 1;
  else if (key.a_k_unit)
    s.a_rs = 1, s.a_cs = 1;
  else
    s.a_rs = 1, s.a_cs = m + 1;
  if (key.b_row_unit && key.b_k_unit)
    s.b_rs = 1, s.b_cs = 1;
  else if (key.b_row_unit)
    s.b_rs = n + 1, s.b_cs = 1;
  else
    s.b_rs = 1, s.b_cs = k + 1;
  return s;
}

// Walks an m x n C stored with leading dimension ldc: each element of the border (columns n to
// ldc - 1, which no call may write) must pass untouched(at), each element of C right(i, j, at);
// a failure traps.
template <class Untouched, class Right>
void check_c(int64_t m, int64_t n, int64_t ldc, Untouched untouched, Right right) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      if (!(j < n ? right(i, j, at) : untouched(at))) __builtin_trap();
    }
}

// Runs an accepted plan on a problem with its key's access pattern and checks it exactly.
void execute_checked(const ShapeKey& key, const Plan& plan, std::uint32_t seed) {
  if (key.m > 80 || key.n > 80 || key.k > 128 || key.threads > kPoolThreads) return;
  const int64_t m = key.m, n = key.n, k = key.k;
  GemmProblem g;
  g.m = m, g.n = n, g.k = k;
  const Strides st = key_strides(key);
  g.a_rs = st.a_rs, g.a_cs = st.a_cs, g.b_rs = st.b_rs, g.b_cs = st.b_cs;
  const int64_t ldc = n + 3;
  std::vector<float> a(static_cast<std::size_t>((m - 1) * g.a_rs + (k - 1) * g.a_cs + 1));
  std::vector<float> b(static_cast<std::size_t>((k - 1) * g.b_rs + (n - 1) * g.b_cs + 1));
  std::vector<float> c(static_cast<std::size_t>(m * ldc)), c0;
  std::uint32_t x = seed | 1u;
  auto next = [&x] {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return static_cast<float>(static_cast<int>(x % 5u) - 2);
  };
  for (auto& v : a) v = next();
  for (auto& v : b) v = next();
  constexpr float kPad = 12345.0f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j)
      c[static_cast<std::size_t>(i * ldc + j)] = j < n ? next() : kPad;
  c0 = c;
  g.a = a.data(), g.b = b.data(), g.c = c.data(), g.ldc = ldc;
  g.alpha = 1.0f;
  g.beta = (seed & 2u) != 0 ? 1.0f : 0.0f;

  const kernels::IsaKernels& ks = *kernels::kernels_for(key.isa);
  if (const std::optional<SmallPlan> sp = small_plan(plan, g, ks)) {
    run_small(*sp, g, ks);
  } else if (execute(plan, g, ks, state().pool) != Status::Ok) {
    return;  // e.g. out of memory
  }
  ++stats.executed[0][plan.is_dot() ? 2 : plan.pack_b ? 0 : 1];
  check_c(
      m, n, ldc, [&](std::size_t at) { return c[at] == kPad; },
      [&](int64_t i, int64_t j, std::size_t at) {
        double ref = g.beta != 0.0f ? c0[at] : 0.0;
        for (int64_t p = 0; p < k; ++p)
          ref += static_cast<double>(a[static_cast<std::size_t>(i * g.a_rs + p * g.a_cs)]) *
                 b[static_cast<std::size_t>(p * g.b_rs + j * g.b_cs)];
        return static_cast<double>(c[at]) == ref;  // exact: small integers
      });
}

// The kernels a context with the detected profile uses for a low-precision dtype (the same
// selection the loader checked the plan against: kernel_select.hpp).
const kernels::LowpKernels* lowp_kernels(DType dtype, Isa isa) {
  return adaptcore::lowp_kernels_for(detected_hardware(), dtype, isa);
}

// Runs an accepted bf16 or int8 plan on a problem with its key's access pattern: bf16 with an
// fp32 or a bf16 C; int8 as u8 x s8 or s8 x s8 (A flipped by +128 as gemm_s8s8s32 does), the
// unsigned operand on either side (a column-major call swaps them), with none, one or per
// row / column zero points. Checked against a reference in 64-bit integers / doubles.
void execute_lowp_checked(const ShapeKey& key, const Plan& plan, std::uint32_t seed) {
  if (key.m > 80 || key.n > 80 || key.k > 128 || key.threads > kPoolThreads) return;
  const kernels::LowpKernels* ks = lowp_kernels(key.dtype, key.isa);
  if (ks == nullptr) __builtin_trap();  // the loader accepted a plan it has no kernels for
  const int64_t m = key.m, n = key.n, k = key.k;
  const Strides st = key_strides(key);
  const auto a_len = static_cast<std::size_t>((m - 1) * st.a_rs + (k - 1) * st.a_cs + 1);
  const auto b_len = static_cast<std::size_t>((k - 1) * st.b_rs + (n - 1) * st.b_cs + 1);
  const int64_t ldc = n + 3;
  const auto c_len = static_cast<std::size_t>(m * ldc);
  std::uint32_t x = seed | 1u;
  auto rnd = [&x] {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return x;
  };
  const std::uint32_t variant = rnd();
  LowpProblem g;
  g.m = m, g.n = n, g.k = k;
  g.ldc = ldc;
  g.a.rs = st.a_rs, g.a.cs = st.a_cs;
  g.b.rs = st.b_rs, g.b.cs = st.b_cs;

  if (key.dtype == DType::Bf16) {
    const bool bf16_c = (variant & 1u) != 0;
    g.kind = bf16_c ? LowpKind::Bf16Bf16 : LowpKind::Bf16F32;
    g.alpha = (variant & 2u) != 0 ? 0.5f : 1.0f;
    g.beta = (variant & 4u) != 0 ? 1.0f : 0.0f;
    std::vector<std::uint16_t> a(a_len), b(b_len);
    auto small = [&] { return static_cast<float>(static_cast<int>(rnd() % 7u) - 3); };
    for (auto& v : a) v = float_to_bf16(small());
    for (auto& v : b) v = float_to_bf16(small());
    std::vector<float> cf(c_len);
    std::vector<std::uint16_t> cb(c_len);
    constexpr float kPad = 12345.0f;
    const std::uint16_t kPadBf16 = float_to_bf16(kPad);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < ldc; ++j) {
        const auto at = static_cast<std::size_t>(i * ldc + j);
        cf[at] = j < n ? small() : kPad;
        cb[at] = float_to_bf16(cf[at]);
      }
    const std::vector<float> cf0 = cf;
    const std::vector<std::uint16_t> cb0 = cb;
    g.a.ptr = a.data(), g.b.ptr = b.data();
    g.c = bf16_c ? static_cast<void*>(cb.data()) : static_cast<void*>(cf.data());
    if (execute(plan, g, *ks, state().pool) != Status::Ok) return;
    check_c(
        m, n, ldc, [&](std::size_t at) { return bf16_c ? cb[at] == kPadBf16 : cf[at] == kPad; },
        [&](int64_t i, int64_t j, std::size_t at) {
          double acc = 0.0;
          for (int64_t p = 0; p < k; ++p)
            acc += static_cast<double>(
                       bf16_to_float(a[static_cast<std::size_t>(i * st.a_rs + p * st.a_cs)])) *
                   bf16_to_float(b[static_cast<std::size_t>(p * st.b_rs + j * st.b_cs)]);
          const double c0 = bf16_c ? bf16_to_float(cb0[at]) : cf0[at];
          const double ref = g.alpha * acc + (g.beta != 0.0f ? g.beta * c0 : 0.0);
          const double got = bf16_c ? bf16_to_float(cb[at]) : cf[at];
          // Exact in fp32 (small integers, alpha a power of two); a bf16 C is rounded once.
          const double tol = bf16_c ? std::abs(ref) * (1.0 / 256.0) : 1e-6 * (std::abs(ref) + 1.0);
          return std::abs(got - ref) <= tol;
        });
  } else {
    const bool s8s8 = (variant & 1u) != 0;     // gemm_s8s8s32: the u8 side holds s8 + 128
    const bool swapped = (variant & 2u) != 0;  // the s8 operand is the normalised A
    g.kind = s8s8 ? LowpKind::S8S8S32 : LowpKind::U8S8S32;
    g.ibeta = static_cast<std::int32_t>((variant >> 3) % 3u) - 1;  // -1, 0 or 1
    std::vector<std::uint8_t> a(a_len), b(b_len);
    for (auto& v : a) v = static_cast<std::uint8_t>(rnd());
    for (auto& v : b) v = static_cast<std::uint8_t>(rnd());
    // Zero points: none, one, or one per row of A / column of B, small values.
    std::vector<std::int32_t> zpa(static_cast<std::size_t>(m)), zpb(static_cast<std::size_t>(n));
    for (auto& z : zpa) z = static_cast<std::int32_t>(rnd() % 9u) - 4;
    for (auto& z : zpb) z = static_cast<std::int32_t>(rnd() % 9u) - 4;
    auto zp_count = [&](int sel, int64_t extent) -> int64_t {
      return sel == 0 ? 0 : sel == 1 ? 1 : extent;
    };
    LowpSide& us = swapped ? g.b : g.a;  // the unsigned (or flipped) side
    LowpSide& ss = swapped ? g.a : g.b;  // the signed side
    us.is_signed = false;
    us.flip = s8s8;
    us.zp_add = s8s8 ? 128 : 0;
    ss.is_signed = true;
    g.a.ptr = a.data(), g.b.ptr = b.data();
    g.a.zp = zpa.data(), g.a.zp_count = zp_count(static_cast<int>((variant >> 5) % 3u), m);
    g.b.zp = zpb.data(), g.b.zp_count = zp_count(static_cast<int>((variant >> 7) % 3u), n);
    std::vector<std::int32_t> c(c_len);
    constexpr std::int32_t kPad = 0x5a5a5a5a;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < ldc; ++j)
        c[static_cast<std::size_t>(i * ldc + j)] =
            j < n ? static_cast<std::int32_t>(rnd() % 201u) - 100 : kPad;
    const std::vector<std::int32_t> c0 = c;
    g.c = c.data();
    if (execute(plan, g, *ks, state().pool) != Status::Ok) return;
    // The value an operand byte stands for: s8, u8, or a flipped s8 read as u8 (x + 128).
    auto value = [](const LowpSide& sd, std::uint8_t byte) -> int64_t {
      if (sd.is_signed) return static_cast<std::int8_t>(byte);
      return sd.flip ? static_cast<std::uint8_t>(byte ^ 0x80u) : byte;
    };
    check_c(
        m, n, ldc, [&](std::size_t at) { return c[at] == kPad; },
        [&](int64_t i, int64_t j, std::size_t at) {
          int64_t ref = static_cast<int64_t>(g.ibeta) * c0[at];
          const int64_t za = g.a.zp_at(i), zb = g.b.zp_at(j);
          for (int64_t p = 0; p < k; ++p)
            ref += (value(g.a, a[static_cast<std::size_t>(i * st.a_rs + p * st.a_cs)]) - za) *
                   (value(g.b, b[static_cast<std::size_t>(p * st.b_rs + j * st.b_cs)]) - zb);
          return c[at] == static_cast<std::int32_t>(ref);  // exact
        });
  }
  ++stats.executed[static_cast<int>(key.dtype)][plan.is_dot() ? 2 : plan.pack_b ? 0 : 1];
}

// Runs an accepted weight-quantized plan: weights of small integers with power-of-two scales
// (per column, or per group of the key's size), activations of small integers (fp32 or bf16
// as the key says) in rows padded by the key's leading-dimension class, C with a border that
// must stay untouched. The activation split is exact to about 2^-14 of a group's maximum with
// two parts and 2^-7 with one (docs/QUANT.md): the check allows that much of sum |a w|.
void execute_wq_checked(const ShapeKey& key, const Plan& plan, std::uint32_t seed) {
  if (key.m > 80 || key.n > 80 || key.k > 128 || key.threads > kPoolThreads) return;
  if (key.b_panel_nr != 0) return;  // the loader rejects these keys
  const int64_t m = key.m, n = key.n, k = key.k;
  const bool int4 = wq_dtype_int4(key.dtype);
  const int parts = wq_dtype_parts(key.dtype);
  std::uint32_t x = seed | 1u;
  auto rnd = [&x] {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    return x;
  };
  // int4 weights need a group; the key's group 0 means per-column scales.
  WeightQuantSpec spec;
  spec.format = int4 ? WeightFormat::Int4 : WeightFormat::Int8;
  spec.group_size = key.wq_group;
  if (int4 && spec.group_size == 0) return;  // no such handle: the key is unreachable
  const int64_t groups = spec.group_size > 0 ? (k + spec.group_size - 1) / spec.group_size : 1;
  const int wmax = int4 ? 7 : 100;
  std::vector<std::int8_t> w(static_cast<std::size_t>(k * n));
  for (auto& v : w) v = static_cast<std::int8_t>(static_cast<int>(rnd() % (2 * wmax + 1)) - wmax);
  std::vector<float> scales(static_cast<std::size_t>(groups * n));
  for (auto& s : scales) s = (rnd() & 1u) != 0 ? 0.5f : 0.25f;
  QuantizedWeights qw;
  Context& ctx = *state().ctx;
  if (quantize_weights_s8(Layout::RowMajor, Trans::No, k, n, w.data(), n, scales.data(), spec, qw,
                          ctx) != Status::Ok)
    __builtin_trap();
  // op(A) row-major (k contiguous) or its transpose (m contiguous), its rows or columns lda
  // elements apart, lda the first at least as long whose byte distance has the key's class.
  const bool ta = !key.a_k_unit;
  const int elem = key.a_bf16 ? 2 : 4;
  const int64_t inner = ta ? m : k, outer = ta ? k : m;
  int64_t lda = inner;
  while (stride_log2(lda, elem) != key.a_ld_log2 && lda < inner + 65536) ++lda;
  if (stride_log2(lda, elem) != key.a_ld_log2) return;  // no distance has this class
  std::vector<float> af(static_cast<std::size_t>(outer * lda), 0.0f);
  std::vector<std::uint16_t> ab(af.size(), 0);
  for (auto& v : af) v = static_cast<float>(static_cast<int>(rnd() % 9u) - 4);
  for (std::size_t i = 0; i < af.size(); ++i) ab[i] = float_to_bf16(af[i]);
  auto a_at = [&](int64_t i, int64_t p) {
    return af[static_cast<std::size_t>(ta ? p * lda + i : i * lda + p)];
  };
  const int64_t ldc = n + 3;
  constexpr float kPad = 12345.0f;
  std::vector<float> c(static_cast<std::size_t>(m * ldc));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j)
      c[static_cast<std::size_t>(i * ldc + j)] =
          j < n ? static_cast<float>(static_cast<int>(rnd() % 5u) - 2) : kPad;
  const std::vector<float> c0 = c;
  const float beta = (rnd() & 1u) != 0 ? 1.0f : 0.0f;
  WqProblem prob;
  const void* a = key.a_bf16 ? static_cast<const void*>(ab.data()) : af.data();
  if (make_wq_problem(Layout::RowMajor, ta ? Trans::Yes : Trans::No, m, a, key.a_bf16, lda, qw,
                      beta, c.data(), ldc, parts == 2 ? ActivationParts::Two : ActivationParts::One,
                      prob) != Status::Ok)
    __builtin_trap();
  ShapeKey made = make_key(prob, key.isa, key.threads);
  made.cold = key.cold;
  if (!(made == key)) __builtin_trap();  // a key the loader accepts is one a call can make
  const kernels::WqKernels& ks = wq_kernels_for(ctx.hardware(), key.isa);
  if (execute(plan, prob, ks, state().pool) != Status::Ok) return;
  const double rel = parts == 2 ? 1.0 / 4096 : 1.0 / 64;
  check_c(
      m, n, ldc, [&](std::size_t at) { return c[at] == kPad; },
      [&](int64_t i, int64_t j, std::size_t at) {
        double ref = beta != 0.0f ? c0[at] : 0.0, mag = 0.0;
        for (int64_t p = 0; p < k; ++p) {
          const double s = scales[static_cast<std::size_t>(
              (spec.group_size > 0 ? p / spec.group_size : 0) * n + j)];
          const double t = a_at(i, p) * (s * w[static_cast<std::size_t>(p * n + j)]);
          ref += t;
          mag += std::abs(t);
        }
        return std::abs(c[at] - ref) <= rel * mag + 1e-4;
      });
  ++stats.executed_wq;
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
    if (key.dtype == DType::F32)
      execute_checked(key, plan, seed++);
    else if (is_weight_quantized(key.dtype))
      execute_wq_checked(key, plan, seed++);
    else
      execute_lowp_checked(key, plan, seed++);
  }
}

// Mode 2: a candidate of the planner for a small shape (bits 2-3 of the layout byte pick the
// dtype: fp32, bf16, int8), then (field, value) overrides.
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
  key.dtype = static_cast<DType>((layout >> 2) % kDTypeCount);
  const Explanation e = explain_key(key, hw);
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
      case 5: p.kind = p.is_dot() ? PlanKind::Blocked : PlanKind::Dot; break;
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

// For the drivers: files, accepted files, then the executed plans per dtype (f32, bf16, int8)
// and kind (packed B, B in place, dot), then the weight-quantized plans: 2 + 3 x 3 + 1 values.
extern "C" void adaptcore_plan_fuzz_counts(std::uint64_t* out) {
  out[0] = stats.files;
  out[1] = stats.accepted;
  for (int d = 0; d < kDTypeCount; ++d)
    for (int i = 0; i < 3; ++i) out[2 + 3 * d + i] = stats.executed[d][i];
  out[11] = stats.executed_wq;
}

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
      detail::ContextImpl& impl = ::adaptcore::detail::impl_of(*st.ctx);
      const std::size_t before = impl.cache().size();
      std::size_t loaded = 0;
      if (load_plan_bytes(impl, in.rest(), nullptr, &loaded) != Status::Ok &&
          impl.cache().size() != before)
        __builtin_trap();
      if (impl.cache().size() > 4096) st.fresh_context();
      break;
    }
    case 1: check_and_run(wrap_entries(in.rest(), hw, isa), target, seed); break;
    case 2: {
      ShapeKey key;
      const std::string file = mutated_candidate(in, isa, key, hw);
      if (!file.empty()) check_and_run(file, target, seed);
      break;
    }
  }
  return 0;
}
