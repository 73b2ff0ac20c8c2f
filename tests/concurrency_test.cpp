// Determinism of parallel plans (split-K reduction order) and many threads calling gemm on one
// context.
#include <gtest/gtest.h>

#include "cpu_skip.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "core/problem.hpp"
#include "dispatch/internal_access.hpp"
#include "test_util.hpp"

namespace adaptcore::test {
namespace {

struct Deep {
  int64_t m, n, k;
};

// Small m x n, deep k, 2 threads: the shape class where the planner may split K. Whatever plan
// it picks, repeated calls must give bit-identical results (the reduction order is fixed).
TEST(Determinism, SplitKIsBitwiseReproducible) {
  for (Isa isa : available_isas())
    for (const Deep d : {Deep{8, 8, 20000}, Deep{5, 13, 12345}, Deep{33, 17, 8191}}) {
      auto ctx = make_context(isa, 2);
      ASSERT_EQ(ctx->set_residency(Residency::Cached), Status::Ok);  // one plan for every rep
      Stored a(d.m, d.k, Layout::RowMajor, d.k), b(d.k, d.n, Layout::RowMajor, d.n);
      std::mt19937 rng(static_cast<unsigned>(d.k));
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      a.fill([&](int64_t, int64_t) { return u(rng); });
      b.fill([&](int64_t, int64_t) { return u(rng); });
      Stored c0(d.m, d.n, Layout::RowMajor, d.n);
      c0.fill([&](int64_t, int64_t) { return u(rng); });

      GemmProblem prob;
      Stored c = c0;
      ASSERT_EQ(make_problem(Layout::RowMajor, Trans::No, Trans::No, d.m, d.n, d.k, 1.0f, a.data(),
                             a.ld(), b.data(), b.ld(), 0.5f, c.data(), c.ld(), prob),
                Status::Ok);
      const Plan plan = ::adaptcore::detail::impl_of(*ctx).plan_for(
          ::adaptcore::detail::impl_of(*ctx).key_for(prob));
      std::printf("[ plan     ] %s %lldx%lldx%lld: %s\n", to_string(isa),
                  static_cast<long long>(d.m), static_cast<long long>(d.n),
                  static_cast<long long>(d.k), describe(plan).c_str());
      if (plan.pk == 1)
        std::printf("[ note     ] planner did not split K here; checking determinism anyway\n");

      const Reference ref =
          reference_gemm(Trans::No, Trans::No, d.m, d.n, d.k, 1.0f, a, b, 0.5f, c0);
      std::vector<float> first;
      for (int rep = 0; rep < 12; ++rep) {
        c = c0;
        ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, d.m, d.n, d.k, 1.0f, a.data(),
                       a.ld(), b.data(), b.ld(), 0.5f, c.data(), c.ld(), *ctx),
                  Status::Ok);
        if (rep == 0) {
          ASSERT_EQ(check_result(c, ref), "") << to_string(isa);
          first = c.memory();
        } else {
          ASSERT_EQ(std::memcmp(first.data(), c.memory().data(), first.size() * sizeof(float)), 0)
              << to_string(isa) << " " << d.m << "x" << d.n << "x" << d.k
              << ": result changed between identical calls (rep " << rep << ")";
        }
      }
      // A second context with the same configuration computes the same bits.
      auto ctx2 = make_context(isa, 2);
      c = c0;
      ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, d.m, d.n, d.k, 1.0f, a.data(), a.ld(),
                     b.data(), b.ld(), 0.5f, c.data(), c.ld(), *ctx2),
                Status::Ok);
      EXPECT_EQ(std::memcmp(first.data(), c.memory().data(), first.size() * sizeof(float)), 0);
    }
}

// Residency::Auto plans a call for operands in memory or in cache by whether it repeats the
// previous call's operands, so a call's bits may depend on the call before it; the same
// sequence of calls (a model's forward pass run twice) gives the same bits call by call.
TEST(Determinism, AutoResidencyRepeatsAcrossIdenticalCallSequences) {
  auto ctx = make_context(available_isas().back(), 2);
  ASSERT_EQ(ctx->residency(), Residency::Auto);
  const int64_t m = 8, n = 1024, k = 4096;  // split-K for one residency, not the other
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(m * k), b0(k * n), b1(k * n);
  for (auto* v : {&a, &b0, &b1})
    for (float& x : *v) x = u(rng);
  const std::vector<float>* seq[] = {&b0, &b0, &b1, &b0, &b0, &b1, &b1};
  std::vector<std::vector<float>> first;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < std::size(seq); ++i) {
      std::vector<float> c(m * n, 0.0f);
      ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k,
                     seq[i]->data(), n, 0.0f, c.data(), n, *ctx),
                Status::Ok);
      if (pass == 0)
        first.push_back(c);
      else
        EXPECT_EQ(std::memcmp(first[i].data(), c.data(), c.size() * sizeof(float)), 0)
            << "call " << i << " of the sequence";
    }
    std::vector<float> other(m * n, 0.0f);  // the next pass starts after another call
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b1.data(), n,
                   0.0f, other.data(), n, *ctx),
              Status::Ok);
  }
}

// A call's own residency (CallOptions) decides its key whatever the context says and whatever
// the previous call was: repeated calls on the same buffers with Memory make one (cold) plan,
// under Auto they make two (the first cold, the repeats cached). The tiny-call path (8 x 8 x 8)
// honours it as the full path does (300 x 300 x 300). Results are the same for every setting
// where the plans agree, and an unknown value is refused before anything runs.
TEST(Residency, PerCallSettingOverridesTheContext) {
  for (const int64_t size : {int64_t{8}, int64_t{300}}) {
    auto ctx = make_context(available_isas().back(), 2);
    const int64_t m = size, n = size, k = size;
    std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n, 0.0f);
    auto call = [&](Residency r) {
      CallOptions o;
      o.residency = r;
      return gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n,
                  0.0f, c.data(), n, o, *ctx);
    };
    for (int rep = 0; rep < 4; ++rep) ASSERT_EQ(call(Residency::Memory), Status::Ok);
    EXPECT_EQ(ctx->cached_plans(), 1u) << size;
    for (float v : c) ASSERT_EQ(v, 0.125f * static_cast<float>(k));
    ASSERT_EQ(call(Residency::Cached), Status::Ok);
    EXPECT_EQ(ctx->cached_plans(), 2u) << size;
    // The context says Memory; the call's Cached wins and finds its plan (no third one).
    ASSERT_EQ(ctx->set_residency(Residency::Memory), Status::Ok);
    ASSERT_EQ(call(Residency::Cached), Status::Ok);
    EXPECT_EQ(ctx->cached_plans(), 2u) << size;
    ASSERT_EQ(ctx->set_residency(Residency::Auto), Status::Ok);
    ctx->clear_plan_cache();
    {  // a call on other buffers (another context) first: under Auto the next call is cold
      auto other = make_context(available_isas().back(), 1);
      std::vector<float> x(4, 1.0f), y(4, 0.0f);
      ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, 2, 2, 2, 1.0f, x.data(), 2, x.data(),
                     2, 0.0f, y.data(), 2, *other),
                Status::Ok);
    }
    for (int rep = 0; rep < 4; ++rep) ASSERT_EQ(call(Residency::Auto), Status::Ok);
    EXPECT_EQ(ctx->cached_plans(), 2u) << size;
    c.assign(c.size(), -1.0f);
    EXPECT_EQ(call(static_cast<Residency>(5)), Status::InvalidArgument);
    EXPECT_EQ(c[0], -1.0f);  // nothing ran
    MatrixView<const float> va{a.data(), m, k, k, Layout::RowMajor};
    MatrixView<const float> vb{b.data(), k, n, n, Layout::RowMajor};
    MatrixView<float> vc{c.data(), m, n, n, Layout::RowMajor};
    CallOptions bad;
    bad.residency = static_cast<Residency>(-1);
    EXPECT_EQ(gemm(Trans::No, Trans::No, 1.0f, va, vb, 0.0f, vc, bad, *ctx),
              Status::InvalidArgument);
    CallOptions memory;
    memory.residency = Residency::Memory;
    ctx->clear_plan_cache();
    for (int rep = 0; rep < 3; ++rep)
      ASSERT_EQ(gemm(Trans::No, Trans::No, 1.0f, va, vb, 0.0f, vc, memory, *ctx), Status::Ok);
    EXPECT_EQ(ctx->cached_plans(), 1u) << size;
    EXPECT_EQ(c[0], 0.125f * static_cast<float>(k));
  }
}

// The same with a contended pool: while other threads keep the pool busy, calls fall back to
// serial execution of the same plan, which must produce the same bits.
TEST(Determinism, BusyPoolFallbackGivesTheSameBits) {
  const Isa isa = available_isas().back();
  auto ctx = make_context(isa, 2);
  ASSERT_EQ(ctx->set_residency(Residency::Cached), Status::Ok);  // one plan for every call
  const int64_t m = 8, n = 8, k = 20000;
  Stored a(m, k, Layout::RowMajor, k), b(k, n, Layout::RowMajor, n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  a.fill([&](int64_t, int64_t) { return u(rng); });
  b.fill([&](int64_t, int64_t) { return u(rng); });
  Stored c(m, n, Layout::RowMajor, n);
  ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), a.ld(), b.data(),
                 b.ld(), 0.0f, c.data(), c.ld(), *ctx),
            Status::Ok);
  const std::vector<float> expect = c.memory();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; ++t)
    ts.emplace_back([&] {
      for (int rep = 0; rep < 15; ++rep) {
        Stored mine(m, n, Layout::RowMajor, n);
        if (gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), a.ld(), b.data(),
                 b.ld(), 0.0f, mine.data(), mine.ld(), *ctx) != Status::Ok ||
            std::memcmp(expect.data(), mine.memory().data(), expect.size() * sizeof(float)) != 0)
          mismatches.fetch_add(1);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Several threads share one context, each with its own shapes (so plans are made and cached
// concurrently), and check every result.
TEST(Concurrency, ManyThreadsOneContext) {
  for (int threads : {1, 2}) {
    auto ctx = make_context(Isa::Auto, threads);
    constexpr int kCallers = 4, kCalls = 25;
    std::atomic<int> failures{0};
    std::vector<std::string> first_error(kCallers);
    std::vector<std::thread> ts;
    for (int t = 0; t < kCallers; ++t)
      ts.emplace_back([&, t] {
        std::mt19937 rng(1000u + static_cast<unsigned>(t));
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        for (int call = 0; call < kCalls; ++call) {
          // Shared shapes (every caller does them: same plan-cache keys) and private ones.
          const bool shared = call % 2 == 0;
          std::mt19937 srng(shared ? 77u + static_cast<unsigned>(call) : rng());
          const int64_t m = 1 + srng() % 150, n = 1 + srng() % 150, k = 1 + srng() % 400;
          const Layout l = srng() % 2 ? Layout::RowMajor : Layout::ColMajor;
          const Trans ta = srng() % 2 ? Trans::Yes : Trans::No;
          const Trans tb = srng() % 2 ? Trans::Yes : Trans::No;
          const int64_t ar = transposed(ta) ? k : m, ac = transposed(ta) ? m : k;
          const int64_t br = transposed(tb) ? n : k, bc = transposed(tb) ? k : n;
          const bool row = l == Layout::RowMajor;
          Stored a(ar, ac, l, (row ? ac : ar) + 1), b(br, bc, l, row ? bc : br);
          Stored c(m, n, l, (row ? n : m) + 2);
          a.fill([&](int64_t, int64_t) { return u(rng); });
          b.fill([&](int64_t, int64_t) { return u(rng); });
          c.fill([&](int64_t, int64_t) { return u(rng); });
          const Reference ref = reference_gemm(ta, tb, m, n, k, -1.25f, a, b, 0.75f, c);
          const Status s = gemm(l, ta, tb, m, n, k, -1.25f, a.data(), a.ld(), b.data(), b.ld(),
                                0.75f, c.data(), c.ld(), *ctx);
          std::string err = s == Status::Ok ? check_result(c, ref) : to_string(s);
          if (!err.empty()) {
            if (failures.fetch_add(1) == 0 || first_error[static_cast<std::size_t>(t)].empty())
              first_error[static_cast<std::size_t>(t)] = std::to_string(m) + "x" +
                                                         std::to_string(n) + "x" +
                                                         std::to_string(k) + ": " + err;
          }
        }
      });
    for (auto& th : ts) th.join();
    EXPECT_EQ(failures.load(), 0) << "threads=" << threads;
    for (const auto& e : first_error)
      if (!e.empty()) ADD_FAILURE() << e;
    EXPECT_GT(ctx->cached_plans(), 0u);
  }
}

// gemm calls racing with configuration changes (threads, ISA) and plan-cache clears: every
// call must still be correct, whichever configuration it saw.
TEST(Concurrency, GemmWhileReconfiguring) {
  auto ctx = make_context(Isa::Auto, 2);
  const auto isas = available_isas();
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::string first_error;
  std::mutex mu;
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t)
    ts.emplace_back([&, t] {
      std::mt19937 rng(5u + static_cast<unsigned>(t));
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      for (int call = 0; call < 40; ++call) {
        const int64_t m = 1 + rng() % 120, n = 1 + rng() % 120, k = 1 + rng() % 700;
        Stored a(m, k, Layout::RowMajor, k), b(k, n, Layout::RowMajor, n);
        Stored c(m, n, Layout::RowMajor, n);
        a.fill([&](int64_t, int64_t) { return u(rng); });
        b.fill([&](int64_t, int64_t) { return u(rng); });
        c.fill([](int64_t, int64_t) { return qnan(); });
        const Reference ref = reference_gemm(Trans::No, Trans::No, m, n, k, 1.0f, a, b, 0.0f, c);
        const Status s = gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(),
                              a.ld(), b.data(), b.ld(), 0.0f, c.data(), c.ld(), *ctx);
        const std::string err = s == Status::Ok ? check_result(c, ref) : to_string(s);
        if (!err.empty() && failures.fetch_add(1) == 0) {
          std::lock_guard lock(mu);
          first_error = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + err;
        }
      }
    });
  std::thread changer([&] {
    int i = 0;
    while (!stop.load()) {
      EXPECT_EQ(ctx->set_threads(1 + i % 3), Status::Ok);
      EXPECT_EQ(ctx->set_isa(isas[static_cast<std::size_t>(i) % isas.size()]), Status::Ok);
      if (i % 5 == 0) ctx->clear_plan_cache();
      ++i;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  for (auto& th : ts) th.join();
  stop.store(true);
  changer.join();
  EXPECT_EQ(failures.load(), 0) << first_error;
}

// A call checks prepacked weights against its context's ISA path and then plans and runs on a
// path: both must be the same snapshot of the configuration. Two threads run gemm_packed and
// gemm_grouped on one context while a third cycles its ISA: each call either runs on the path
// the handles were packed for (Ok, exact) or is refused (InvalidArgument); a check against one
// path and a plan for another once returned InternalError (about 1 in 15,000 grouped calls).
TEST(Concurrency, PackedCallsWhileTheIsaChanges) {
  const auto isas = available_isas();
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, isas.size() >= 2);
  auto ctx = make_context(isas.back(), 2);
  constexpr int64_t kK = 48, kN = 64, kM = 3, kExperts = 2;
  std::vector<float> w(static_cast<std::size_t>(kK * kN));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  std::vector<float> a(static_cast<std::size_t>(kM * kK));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  std::vector<float> ref(static_cast<std::size_t>(kM * kN), 0.0f);
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j)
      for (int64_t p = 0; p < kK; ++p)
        ref[static_cast<std::size_t>(i * kN + j)] +=
            a[static_cast<std::size_t>(i * kK + p)] * w[static_cast<std::size_t>(p * kN + j)];
  PackedWeights packed;
  ASSERT_EQ(pack_weights(Layout::RowMajor, Trans::No, kK, kN, w.data(), kN, packed, {}, *ctx),
            Status::Ok);
  std::atomic<bool> stop{false};
  std::atomic<long> ok{0}, refused{0}, wrong{0}, other{0};
  auto tally = [&](Status s, const std::vector<float>& c, int64_t rows) {
    if (s == Status::InvalidArgument) {
      ++refused;
    } else if (s != Status::Ok) {
      ++other;
    } else {
      ++ok;
      for (int64_t i = 0; i < rows * kN; ++i)
        if (c[static_cast<std::size_t>(i)] != ref[static_cast<std::size_t>(i % (kM * kN))]) {
          ++wrong;
          break;
        }
    }
  };
  std::thread packed_caller([&] {
    std::vector<float> c(static_cast<std::size_t>(kM * kN));
    while (!stop.load(std::memory_order_relaxed))
      tally(gemm_packed(Layout::RowMajor, Trans::No, kM, 1.0f, a.data(), kK, packed, 0.0f, c.data(),
                        kN, *ctx),
            c, kM);
  });
  std::thread grouped_caller([&] {
    // Two experts of kM rows each on the same handle: C's rows are A's times W, twice.
    std::vector<float> a2(a);
    a2.insert(a2.end(), a.begin(), a.end());
    std::vector<float> c(static_cast<std::size_t>(kExperts * kM * kN));
    const int64_t rows[kExperts] = {kM, kM};
    const PackedWeights* handles[kExperts] = {&packed, &packed};
    GroupedGemm g;
    g.experts = kExperts;
    g.expert_rows = rows;
    g.weights = handles;
    g.k = kK, g.n = kN;
    g.a = a2.data(), g.lda = kK, g.a_rows = kExperts * kM;
    g.c = c.data(), g.ldc = kN, g.c_rows = kExperts * kM;
    while (!stop.load(std::memory_order_relaxed)) tally(gemm_grouped(g, {}, *ctx), c, 2 * kM);
  });
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  for (std::size_t i = 0; std::chrono::steady_clock::now() < until; ++i) {
    ASSERT_EQ(ctx->set_isa(isas[i % isas.size()]), Status::Ok);
    std::this_thread::yield();
  }
  stop.store(true);
  packed_caller.join();
  grouped_caller.join();
  EXPECT_EQ(other.load(), 0) << "calls that returned neither Ok nor InvalidArgument";
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(refused.load(), 0);
}

// A tiny call that misses the tiny-call table runs the full path and files its payload (a
// tile index into its ISA's table) under a word: the word must be that of the configuration
// the call ran on, not the context's a moment later, or a call on another ISA path finds a tile
// index past its table's end. Tiny shapes on one context while another thread cycles the ISA
// path and the thread count: every result exact.
TEST(Concurrency, TinyCallsWhileTheConfigurationChanges) {
  const auto isas = available_isas();
  ADAPTCORE_SKIP_WITHOUT(test::CpuFeature::Avx2, isas.size() >= 2);
  auto ctx = make_context(isas.back(), 1);
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0}, wrong{0};
  std::thread caller([&] {
    std::vector<float> a(32 * 32), b(32 * 32), c(32 * 32);
    for (std::size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
      b[i] = static_cast<float>(static_cast<int>(i % 3) - 1);
    }
    for (unsigned it = 0; !stop.load(std::memory_order_relaxed); ++it) {
      const int64_t m = 1 + it % 17, n = 1 + (it / 17) % 19, k = 1 + (it / 323) % 23;
      if (gemm(Layout::RowMajor, Trans::No, Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n,
               0.0f, c.data(), n, *ctx) != Status::Ok) {
        ++wrong;
        continue;
      }
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float ref = 0.0f;
          for (int64_t p = 0; p < k; ++p)
            ref += a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
          if (c[static_cast<std::size_t>(i * n + j)] != ref) ++wrong;
        }
      ++calls;
    }
  });
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  for (std::size_t i = 0; std::chrono::steady_clock::now() < until; ++i) {
    ASSERT_EQ(ctx->set_isa(isas[i % isas.size()]), Status::Ok);
    if (i % 7 == 0) ASSERT_EQ(ctx->set_threads(1 + static_cast<int>(i / 7) % 2), Status::Ok);
    std::this_thread::yield();
  }
  stop.store(true);
  caller.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(calls.load(), 0);
}

}  // namespace
}  // namespace adaptcore::test
