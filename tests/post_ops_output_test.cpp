// The post-op outputs (SwiGlu, Store; fp32 and bf16) and the post-ops of every GEMM type: fp32
// on every plan kind and both layouts (a column-major C runs SwiGlu as a pass), gemm_packed, the
// bf16 GEMM with an fp32 and a bf16 C, the int8 GEMMs (with a C offset), gemm_quantized and
// grouped calls; against the double-precision reference; the errors and the C API.
#include <gtest/gtest.h>

#include <cstring>

#include "adaptcore/adaptcore.h"
#include "post_ops_util.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

constexpr std::uint16_t kHalfSentinel = 0x7fa5;

// An output of rows x cols in `layout` (ld padded): fp32 in a Stored, or bf16 in a buffer of
// the same shape whose padding and guards hold kHalfSentinel.
struct Output {
  bool bf16 = false;
  Stored f;
  std::vector<std::uint16_t> h;

  Output(int64_t rows, int64_t cols, Layout layout, bool half)
      : bf16(half), f(rows, cols, layout, (layout == Layout::RowMajor ? cols : rows) + 3, 0) {
    if (bf16) h.assign(f.memory().size(), kHalfSentinel);
  }
  void* data() {
    return bf16 ? static_cast<void*>(h.data() + (f.data() - f.memory().data()))
                : static_cast<void*>(f.data());
  }
  // The fp32 view of what was written (a bf16 padding value other than the sentinel becomes
  // a non-sentinel float, so check_result reports it).
  Stored result() const {
    if (!bf16) return f;
    Stored s = f;
    for (std::size_t x = 0; x < h.size(); ++x)
      s.memory()[x] = h[x] == kHalfSentinel ? sentinel() : bf16_to_float(h[x]);
    return s;
  }
  PostOp op(PostOpKind kind) {
    PostOp o;
    o.kind = kind;
    o.out = data();
    o.ld = f.ld();
    o.out_type = bf16 ? OutputType::Bf16 : OutputType::F32;
    return o;
  }
};

// The output's reference from C's (the chain before the output applied): SwiGlu pairs columns
// (2p, 2p + 1); its bound adds the propagated errors, fp32 rounding and a bf16 rounding.
Reference output_reference(const Reference& r, PostOpKind kind, bool bf16) {
  Reference o;
  const bool swiglu = kind == PostOpKind::SwiGlu;
  o.m = r.m, o.n = swiglu ? r.n / 2 : r.n;
  o.ref.assign(static_cast<std::size_t>(o.m * o.n), 0.0);
  o.bound.assign(o.ref.size(), 0.0);
  for (int64_t i = 0; i < o.m; ++i)
    for (int64_t j = 0; j < o.n; ++j) {
      double v, b;
      if (swiglu) {
        const double g = r.at(i, 2 * j), u = r.at(i, 2 * j + 1);
        const double bg = r.tol(i, 2 * j), bu = r.tol(i, 2 * j + 1);
        const double sg = act(PostOpKind::Silu, g);
        v = sg * u;
        b = 1.13 * bg * (std::fabs(u) + bu) + (std::fabs(sg) + 1.13 * bg) * bu;
      } else {
        v = r.at(i, j);
        b = r.tol(i, j);
      }
      b += 8.0 * std::numeric_limits<float>::epsilon() * std::fabs(v) + 1e-7;
      if (bf16) b += std::ldexp(std::fabs(v), -8);
      o.ref[static_cast<std::size_t>(i * o.n + j)] = v;
      o.bound[static_cast<std::size_t>(i * o.n + j)] = b;
    }
  return o;
}

// Chains ending in an output: the ops before it (kinds), the output, its type.
struct OutChain {
  std::vector<PostOpKind> before;
  PostOpKind out;
  bool bf16;
};
const OutChain kOutChains[] = {
    {{}, PostOpKind::SwiGlu, false},
    {{PostOpKind::Bias}, PostOpKind::SwiGlu, true},
    {{PostOpKind::Scale, PostOpKind::Residual}, PostOpKind::SwiGlu, false},
    {{}, PostOpKind::Store, true},
    {{PostOpKind::Bias, PostOpKind::GeluErf}, PostOpKind::Store, false},
};

// Shapes with an even n that reach every fp32 plan kind (kShapes' kinds).
const Shape kEvenShapes[] = {
    {1, 2, 1, Trans::No, Trans::No},
    {7, 14, 29, Trans::No, Trans::No},
    {64, 96, 300, Trans::No, Trans::No},
    {33, 70, 700, Trans::Yes, Trans::No},
    {4, 40, 3000, Trans::No, Trans::No},
    {3, 38, 64, Trans::No, Trans::Yes},
    {600, 300, 2, Trans::No, Trans::No},
    {200, 6, 40, Trans::No, Trans::No},
    {150, 4, 17, Trans::Yes, Trans::Yes},
    {9, 12, 0, Trans::No, Trans::No},
    {1, 258, 100, Trans::No, Trans::No},
    {130, 2, 70, Trans::Yes, Trans::No},
    // Transposed plans whose loops' row tiles (C's columns) may be of odd heights.
    {300, 10, 50, Trans::No, Trans::No},
    {300, 14, 33, Trans::No, Trans::Yes},
    {257, 10, 7, Trans::Yes, Trans::No},
};

// One call's chain data with its output appended.
struct ChainCase {
  PostData d;
  Output out;
  ChainCase(const OutChain& oc, int64_t m, int64_t n, Layout layout, std::mt19937& rng)
      : d(make_ops(oc.before, m, n, layout, rng)),
        out(m, oc.out == PostOpKind::SwiGlu ? n / 2 : n, layout, oc.bf16) {
    d.ops.push_back(out.op(oc.out));
  }
};

// Checks C (the chain before the output) and the output against the product's reference.
std::string check_chain(const Stored& c, const ChainCase& cc, const OutChain& oc, Reference ref) {
  apply_reference(cc.d, ref);
  std::string err = check_result(c, ref);
  const std::string oerr = check_result(cc.out.result(), output_reference(ref, oc.out, oc.bf16));
  if (!oerr.empty()) err += " output:" + oerr;
  return err;
}

TEST(PostOpOutputs, Fp32OnEveryPlanKind) {
  std::mt19937 rng(41);
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs())
    for (const Shape& s : kEvenShapes)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (std::size_t ci = 0; ci < std::size(kOutChains); ++ci) {
          if ((calls + ci) % 2 != 0 && ci != 1) {
            ++calls;
            continue;
          }
          const OutChain& oc = kOutChains[ci];
          const float alpha = 1.5f, beta = ci % 2 ? 0.5f : 0.0f;
          const Operands x = make_operands(s, layout, beta, rng);
          ChainCase cc(oc, s.m, s.n, layout, rng);
          Stored c = x.c0;
          const Status st =
              gemm(layout, s.ta, s.tb, s.m, s.n, s.k, alpha, x.a.data(), x.a.ld(), x.b.data(),
                   x.b.ld(), beta, c.data(), c.ld(), options_of(cc.d), *cfg.ctx);
          ++calls;
          const std::string err = st == Status::Ok
                                      ? check_chain(c, cc, oc,
                                                    reference_gemm(s.ta, s.tb, s.m, s.n, s.k, alpha,
                                                                   x.a, x.b, beta, x.c0))
                                      : to_string(st);
          if (!err.empty() && ++failures <= 10)
            ADD_FAILURE() << case_name(cfg, s, layout, ci) << err;
        }
  EXPECT_GT(calls, 200);
}

TEST(PostOpOutputs, PackedWeights) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& cfg : all_configs()) {
    const int64_t k = 150, n = 98;
    Stored b(k, n, Layout::RowMajor, n, 0);
    b.fill([&](int64_t, int64_t) { return u(rng); });
    PackedWeights w;
    ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, k, n, b.data(), b.ld(), w, {}, *cfg.ctx),
              Status::Ok);
    for (const int64_t m : {1, 5, 77})
      for (const OutChain& oc : kOutChains) {
        Stored a(m, k, Layout::RowMajor, k, 0);
        a.fill([&](int64_t, int64_t) { return u(rng); });
        Stored c(m, n, Layout::RowMajor, n, 0);
        ChainCase cc(oc, m, n, Layout::RowMajor, rng);
        ASSERT_EQ(gemm_packed(Layout::RowMajor, Trans::No, m, 1.0f, a.data(), a.ld(), w, 0.0f,
                              c.data(), c.ld(), options_of(cc.d), *cfg.ctx),
                  Status::Ok);
        Stored c0(m, n, Layout::RowMajor, n, 0);
        c0.fill([](int64_t, int64_t) { return qnan(); });
        EXPECT_EQ(check_chain(c, cc, oc,
                              reference_gemm(Trans::No, Trans::No, m, n, k, 1.0f, a, b, 0.0f, c0)),
                  "")
            << cfg.name() << " m " << m;
      }
  }
}

// bf16 inputs, fp32 or bf16 C: the chain in fp32 before the store (a bf16 C rounded once).
TEST(PostOpOutputs, Bf16Gemm) {
  std::mt19937 rng(43);
  auto bf16_round = +[](float x) { return bf16_to_float(float_to_bf16(x)); };
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs())
    for (const Shape& s : kEvenShapes)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (const bool c_bf16 : {false, true}) {
          const std::size_t ci = static_cast<std::size_t>(calls) % std::size(kOutChains);
          const OutChain& oc = kOutChains[ci];
          const float alpha = 1.5f, beta = calls % 2 ? 0.5f : 0.0f;
          Operands x = make_operands(s, layout, beta, rng, bf16_round);
          if (c_bf16)  // C's old values as a bf16 C holds them
            for (float& v : x.c0.memory())
              if (!is_sentinel(v) && !std::isnan(v)) v = bf16_round(v);
          auto to16 = [](const Stored& m) {
            std::vector<bf16> v(m.memory().size());
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = bf16(m.memory()[i]);
            return v;
          };
          const std::vector<bf16> a16 = to16(x.a), b16 = to16(x.b);
          const bf16* ap = a16.data() + (x.a.data() - x.a.memory().data());
          const bf16* bp = b16.data() + (x.b.data() - x.b.memory().data());
          ChainCase cc(oc, s.m, s.n, layout, rng);
          Stored c = x.c0;
          Status st;
          if (!c_bf16) {
            st = gemm_bf16(layout, s.ta, s.tb, s.m, s.n, s.k, alpha, ap, x.a.ld(), bp, x.b.ld(),
                           beta, c.data(), c.ld(), options_of(cc.d), *cfg.ctx);
          } else {
            std::vector<bf16> c16 = to16(x.c0);
            bf16* cp = c16.data() + (x.c0.data() - x.c0.memory().data());
            st = gemm_bf16(layout, s.ta, s.tb, s.m, s.n, s.k, alpha, ap, x.a.ld(), bp, x.b.ld(),
                           beta, cp, c.ld(), options_of(cc.d), *cfg.ctx);
            for (std::size_t i = 0; i < c16.size(); ++i)
              c.memory()[i] = is_sentinel(x.c0.memory()[i]) && c16[i].bits == bf16(sentinel()).bits
                                  ? sentinel()
                                  : static_cast<float>(c16[i]);
          }
          ++calls;
          Reference ref = reference_gemm(s.ta, s.tb, s.m, s.n, s.k, alpha, x.a, x.b, beta, x.c0);
          std::string err;
          if (st != Status::Ok) {
            err = to_string(st);
          } else {
            apply_reference(cc.d, ref);
            Reference cref = ref;
            if (c_bf16)
              for (std::size_t i = 0; i < cref.bound.size(); ++i)
                cref.bound[i] += std::ldexp(std::fabs(cref.ref[i]), -8);
            err = check_result(c, cref);
            // A column-major C's SwiGlu reads C as stored (bf16): its inputs carry that rounding.
            if (c_bf16 && layout == Layout::ColMajor) ref = cref;
            const std::string oerr =
                check_result(cc.out.result(), output_reference(ref, oc.out, oc.bf16));
            if (!oerr.empty()) err += " output:" + oerr;
          }
          if (!err.empty() && ++failures <= 10)
            ADD_FAILURE() << case_name(cfg, s, layout, ci) << (c_bf16 ? " bf16 C" : " f32 C")
                          << err;
        }
  EXPECT_GT(calls, 100);
}

// u8 x s8 -> int32, then Scale (dequantization), Bias, an activation and an fp32 or bf16 output;
// with and without a C offset (which comes before the post-ops), both layouts.
TEST(PostOpOutputs, Int8Gemm) {
  std::mt19937 rng(44);
  std::uniform_int_distribution<int> ua(0, 255), ub(-128, 127);
  int failures = 0, calls = 0;
  for (auto& cfg : all_configs())
    for (const Shape& s0 : kEvenShapes)
      for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        const Shape s{s0.m, s0.n, s0.k, Trans::No, Trans::No};
        const bool row = layout == Layout::RowMajor;
        const std::size_t ci = static_cast<std::size_t>(calls) % std::size(kOutChains);
        const OutChain& oc = kOutChains[ci];
        const bool offset = calls % 3 == 1;
        const int64_t lda = row ? s.k : s.m, ldb = row ? s.n : s.k, ldc = row ? s.n : s.m;
        std::vector<std::uint8_t> a(static_cast<std::size_t>(std::max<int64_t>(1, s.m * s.k)));
        std::vector<std::int8_t> b(static_cast<std::size_t>(std::max<int64_t>(1, s.k * s.n)));
        for (auto& v : a) v = static_cast<std::uint8_t>(ua(rng));
        for (auto& v : b) v = static_cast<std::int8_t>(ub(rng));
        std::vector<std::int32_t> c(static_cast<std::size_t>(s.m * s.n), 7);
        std::vector<std::int32_t> co(static_cast<std::size_t>(s.n));
        for (auto& v : co) v = ub(rng) * 3;
        ChainCase cc(oc, s.m, s.n, layout, rng);
        // Scales so that the activations see values of order 1.
        for (float& v : cc.d.scale) v *= 1.0f / (64.0f * std::sqrt(static_cast<float>(s.k + 1)));
        const Status st = gemm_u8s8s32(
            layout, Trans::No, Trans::No, s.m, s.n, s.k, a.data(), std::max<int64_t>(1, lda), {},
            b.data(), std::max<int64_t>(1, ldb), {}, 1, c.data(), std::max<int64_t>(1, ldc),
            offset ? COffset{OffsetKind::PerColumn, co.data()} : COffset{}, options_of(cc.d),
            *cfg.ctx);
        ++calls;
        std::string err;
        if (st != Status::Ok) {
          err = to_string(st);
        } else {
          // The exact int32 result, then the chain in double.
          Reference ref;
          ref.m = s.m, ref.n = s.n;
          ref.ref.assign(static_cast<std::size_t>(s.m * s.n), 0.0);
          ref.bound.assign(ref.ref.size(), 0.0);
          for (int64_t i = 0; i < s.m; ++i)
            for (int64_t j = 0; j < s.n; ++j) {
              int64_t acc = 7 + (offset ? co[static_cast<std::size_t>(j)] : 0);
              for (int64_t p = 0; p < s.k; ++p)
                acc += int64_t{a[static_cast<std::size_t>(row ? i * lda + p : p * lda + i)]} *
                       b[static_cast<std::size_t>(row ? p * ldb + j : j * ldb + p)];
              const auto got = c[static_cast<std::size_t>(row ? i * ldc + j : j * ldc + i)];
              if (got != acc && err.empty()) err = " int32 C differs";
              ref.ref[static_cast<std::size_t>(i * s.n + j)] = static_cast<double>(acc);
              ref.bound[static_cast<std::size_t>(i * s.n + j)] =
                  std::ldexp(std::fabs(static_cast<double>(acc)), -23);  // int32 -> fp32
            }
          apply_reference(cc.d, ref);
          err += check_result(cc.out.result(), output_reference(ref, oc.out, oc.bf16));
        }
        if (!err.empty() && ++failures <= 10)
          ADD_FAILURE() << case_name(cfg, s, layout, ci) << (offset ? " offset" : "") << err;
      }
  EXPECT_GT(calls, 50);
  // An int32 C cannot take a list without an output.
  const PostOp relu{PostOpKind::Relu};
  CallOptions o;
  o.post_ops = &relu;
  o.post_op_count = 1;
  std::uint8_t a1 = 1;
  std::int8_t b1 = 1;
  std::int32_t c1 = 0;
  EXPECT_EQ(gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, 1, 1, 1, &a1, 1, {}, &b1, 1, {}, 0,
                         &c1, 1, COffset{}, o),
            Status::InvalidArgument);
}

// gemm_quantized with post-ops against the same call without them plus the chain in double
// (the quantization error is the GEMM's own, not the epilogue's).
TEST(PostOpOutputs, WeightQuantized) {
  std::mt19937 rng(45);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& cfg : all_configs())
    for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (const int64_t m : {1, 6, 37}) {
        const int64_t k = 96, n = 160;
        const bool row = layout == Layout::RowMajor;
        Stored w(k, n, layout, row ? n : k, 0);
        w.fill([&](int64_t, int64_t) { return u(rng); });
        QuantizedWeights q;
        ASSERT_EQ(quantize_weights(layout, Trans::No, k, n, w.data(), w.ld(), {}, q, *cfg.ctx),
                  Status::Ok);
        Stored a(m, k, layout, row ? k : m, 0);
        a.fill([&](int64_t, int64_t) { return u(rng); });
        Stored plain(m, n, layout, row ? n : m, 0);
        ASSERT_EQ(gemm_quantized(layout, Trans::No, m, a.data(), a.ld(), q, 0.0f, plain.data(),
                                 plain.ld(), ActivationParts::Two, *cfg.ctx),
                  Status::Ok);
        for (const OutChain& oc : kOutChains) {
          ChainCase cc(oc, m, n, layout, rng);
          Stored c(m, n, layout, row ? n : m, 0);
          ASSERT_EQ(gemm_quantized(layout, Trans::No, m, a.data(), a.ld(), q, 0.0f, c.data(),
                                   c.ld(), options_of(cc.d), ActivationParts::Two, *cfg.ctx),
                    Status::Ok);
          Reference ref;
          ref.m = m, ref.n = n;
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) ref.ref.push_back(plain.at(i, j));
          ref.bound.assign(ref.ref.size(), 0.0);
          EXPECT_EQ(check_chain(c, cc, oc, ref), "")
              << cfg.name() << " " << name(layout) << " m " << m;
        }
      }
}

// Grouped calls: a SwiGlu output per routed row (the up half of an MoE FFN) against
// gemm_packed per expert; with a scatter an output is InvalidArgument.
TEST(PostOpOutputs, Grouped) {
  std::mt19937 rng(46);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& cfg : all_configs()) {
    const int64_t k = 64, n = 130, experts = 3;
    const std::vector<int64_t> rows = {5, 0, 40};
    std::vector<PackedWeights> w(experts);
    std::vector<const PackedWeights*> wp;
    std::vector<Stored> b;
    for (int64_t e = 0; e < experts; ++e) {
      b.emplace_back(k, n, Layout::RowMajor, n, 0);
      b.back().fill([&](int64_t, int64_t) { return u(rng); });
      ASSERT_EQ(
          pack_weights(Layout::RowMajor, Trans::No, k, n, b.back().data(), n, w[e], {}, *cfg.ctx),
          Status::Ok);
      wp.push_back(&w[e]);
    }
    const int64_t R = 45;
    Stored a(R, k, Layout::RowMajor, k, 0);
    a.fill([&](int64_t, int64_t) { return u(rng); });
    Stored c(R, n, Layout::RowMajor, n, 0);
    ChainCase cc(kOutChains[1], R, n, Layout::RowMajor, rng);
    GroupedGemm g;
    g.experts = experts;
    g.expert_rows = rows.data();
    g.weights = wp.data();
    g.k = k, g.n = n;
    g.a = a.data(), g.lda = k, g.a_rows = R;
    g.c = c.data(), g.ldc = n, g.c_rows = R;
    ASSERT_EQ(gemm_grouped(g, options_of(cc.d), *cfg.ctx), Status::Ok);
    // Per expert: the reference over its rows, assembled into one.
    Reference ref;
    ref.m = R, ref.n = n;
    int64_t r0 = 0;
    for (int64_t e = 0; e < experts; ++e) {
      Stored ae(std::max<int64_t>(rows[e], 1), k, Layout::RowMajor, k, 0);
      for (int64_t i = 0; i < rows[e]; ++i)
        for (int64_t p = 0; p < k; ++p) ae.at(i, p) = a.at(r0 + i, p);
      Stored c0(std::max<int64_t>(rows[e], 1), n, Layout::RowMajor, n, 0);
      const Reference re =
          reference_gemm(Trans::No, Trans::No, rows[e], n, k, 1.0f, ae, b[e], 0.0f, c0);
      ref.ref.insert(ref.ref.end(), re.ref.begin(), re.ref.end());
      ref.bound.insert(ref.bound.end(), re.bound.begin(), re.bound.end());
      r0 += rows[e];
    }
    EXPECT_EQ(check_chain(c, cc, kOutChains[1], ref), "") << cfg.name();
    // With a scatter: InvalidArgument.
    std::vector<int64_t> scatter(R, 0);
    g.scatter = scatter.data();
    g.c_rows = 1;
    EXPECT_EQ(gemm_grouped(g, options_of(cc.d), *cfg.ctx), Status::InvalidArgument);
  }
}

TEST(PostOpOutputs, Errors) {
  constexpr int64_t m = 4, n = 6, k = 3;
  std::vector<float> a(m * k, 1.0f), b(k * n, 1.0f), c(m * n, 0.0f), out(m * n, 0.0f);
  std::vector<float> bias(n, 0.0f);
  auto call = [&](std::vector<PostOp> ops, int64_t nn = 6) {
    CallOptions o;
    o.post_ops = ops.data();
    o.post_op_count = static_cast<int>(ops.size());
    return gemm(Layout::RowMajor, Trans::No, Trans::No, m, nn, k, 1.0f, a.data(), k, b.data(), n,
                0.0f, c.data(), n, o);
  };
  PostOp sw{PostOpKind::SwiGlu, nullptr, n / 2, out.data(), OutputType::F32};
  PostOp st{PostOpKind::Store, nullptr, n, out.data(), OutputType::Bf16};
  const PostOp relu{PostOpKind::Relu};
  EXPECT_EQ(call({sw}), Status::Ok);
  EXPECT_EQ(call({st}), Status::Ok);
  EXPECT_EQ(call({sw, relu}), Status::InvalidArgument);  // an output only last
  EXPECT_EQ(call({st, sw}), Status::InvalidArgument);
  EXPECT_EQ(call({sw}, 5), Status::ShapeMismatch);  // odd n: SwiGlu pairs C's columns
  PostOp bad = sw;
  bad.out_type = static_cast<OutputType>(7);
  EXPECT_EQ(call({bad}), Status::InvalidArgument);
  bad = sw;
  bad.out = nullptr;
  EXPECT_EQ(call({bad}), Status::NullPointer);
  bad = sw;
  bad.ld = n / 2 - 1;
  EXPECT_EQ(call({bad}), Status::InvalidLeadingDimension);
  bad = st;
  bad.out = c.data() + 3;  // over C
  EXPECT_EQ(call({bad}), Status::Aliasing);
  bad = sw;
  bad.out = bias.data();  // over the bias vector read before it
  EXPECT_EQ(call({PostOp{PostOpKind::Bias, bias.data()}, bad}), Status::Aliasing);
  bad = st;
  bad.out = a.data();  // over A, which other cores may still read
  EXPECT_EQ(call({bad}), Status::Aliasing);
  bad.out = b.data() + 2;  // over B
  EXPECT_EQ(call({bad}), Status::Aliasing);
  // Nothing written: only count, kinds and order are checked.
  EXPECT_EQ(call({sw, relu}, 0), Status::InvalidArgument);
}

// A row-major one-column C solved as its transpose (the normalised problem is 1 x m): a Store
// into one column of a wider matrix writes that column's elements, ld apart, and nothing else.
TEST(PostOpOutputs, StoreOfAOneColumnC) {
  for (auto& cfg : all_configs()) {
    const int64_t m = 37, k = 20, ld = 3;
    std::vector<float> a(static_cast<std::size_t>(k * m)), b(static_cast<std::size_t>(k)), c(m);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) * 0.25f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3) - 1.0f;
    std::vector<float> out(static_cast<std::size_t>(m * ld), -7.0f);
    const PostOp st{PostOpKind::Store, nullptr, ld, out.data() + 1, OutputType::F32};
    CallOptions o;
    o.post_ops = &st;
    o.post_op_count = 1;
    // op(A) = A^T: A stored k x m, its columns the rows of op(A).
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::Yes, Trans::No, m, 1, k, 1.0f, a.data(), m, b.data(), 1,
                   0.0f, c.data(), 1, o, *cfg.ctx),
              Status::Ok);
    for (int64_t r = 0; r < m; ++r) {
      EXPECT_EQ(out[static_cast<std::size_t>(r * ld + 1)], c[static_cast<std::size_t>(r)])
          << cfg.name() << " row " << r;
      EXPECT_EQ(out[static_cast<std::size_t>(r * ld)], -7.0f);
      EXPECT_EQ(out[static_cast<std::size_t>(r * ld + 2)], -7.0f);
    }
  }
}

TEST(PostOpOutputs, CApi) {
  const int64_t m = 3, n = 4, k = 2;
  std::vector<float> a(m * k, 1.0f), b(k * n, 0.5f), c(m * n, 0.0f), out(m * n / 2, 0.0f);
  ac_post_op sw{AC_POST_SWIGLU, nullptr, n / 2, out.data(), AC_OUT_F32};
  ASSERT_EQ(ac_sgemm_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                          b.data(), n, 0.0f, c.data(), n, &sw, 1),
            AC_STATUS_OK);
  const float x = 1.0f;  // g = u = 2 * 0.5
  for (const float v : out) EXPECT_NEAR(v, x / (1.0f + std::exp(-x)) * x, 1e-6f);
  // int8 with a bf16 store.
  std::vector<std::uint8_t> a8(m * k, 2);
  std::vector<std::int8_t> b8(k * n, -3);
  std::vector<std::int32_t> c32(m * n, 0);
  std::vector<std::uint16_t> o16(m * n, 0);
  ac_post_op st{AC_POST_STORE, nullptr, n, o16.data(), AC_OUT_BF16};
  ASSERT_EQ(ac_gemm_u8s8s32_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, a8.data(), k,
                                 nullptr, 0, b8.data(), n, nullptr, 0, 0, c32.data(), n,
                                 AC_OFFSET_NONE, nullptr, &st, 1),
            AC_STATUS_OK);
  for (const std::uint16_t v : o16) EXPECT_EQ(bf16_to_float(v), -12.0f);
  ac_post_op relu{AC_POST_RELU, nullptr, 0, nullptr, AC_OUT_F32};
  EXPECT_EQ(ac_gemm_u8s8s32_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, a8.data(), k,
                                 nullptr, 0, b8.data(), n, nullptr, 0, 0, c32.data(), n,
                                 AC_OFFSET_NONE, nullptr, &relu, 1),
            AC_STATUS_INVALID_ARGUMENT);
  // bf16 C with a bias.
  std::vector<std::uint16_t> a16(m * k, float_to_bf16(1.0f)), b16(k * n, float_to_bf16(0.5f)),
      c16(m * n, 0);
  std::vector<float> bias(n, 0.25f);
  ac_post_op bias_op{AC_POST_BIAS, bias.data(), 0, nullptr, AC_OUT_F32};
  ASSERT_EQ(
      ac_gemm_bf16bf16bf16_post(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a16.data(),
                                k, b16.data(), n, 0.0f, c16.data(), n, &bias_op, 1),
      AC_STATUS_OK);
  for (const std::uint16_t v : c16) EXPECT_EQ(bf16_to_float(v), 1.25f);
  // Weight-quantized with a SwiGlu.
  ac_weights_t wq = nullptr;
  ASSERT_EQ(ac_quantize_weights_f32(AC_ROW_MAJOR, AC_NO_TRANS, k, n, b.data(), n, AC_WEIGHTS_INT8,
                                    0, &wq),
            AC_STATUS_OK);
  std::fill(out.begin(), out.end(), 0.0f);
  ASSERT_EQ(ac_gemm_wq_f32_post(AC_ROW_MAJOR, AC_NO_TRANS, m, a.data(), k, wq, 0.0f, c.data(), n,
                                AC_WQ_TWO_PARTS, &sw, 1),
            AC_STATUS_OK);
  for (const float v : out) EXPECT_NEAR(v, x / (1.0f + std::exp(-x)) * x, 1e-3f);
  EXPECT_EQ(ac_gemm_wq_f32_post(AC_ROW_MAJOR, AC_NO_TRANS, m, a.data(), k, nullptr, 0.0f, c.data(),
                                n, AC_WQ_TWO_PARTS, &sw, 1),
            AC_STATUS_NULL_POINTER);
  ac_weights_destroy(wq);
}

}  // namespace
}  // namespace adaptcore::test
