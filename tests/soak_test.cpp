// Soak: several caller threads run fp32, bf16, int8 and weight-quantized GEMMs of random shapes
// on one context while a controller changes its thread count, clears its plan cache, loads a
// plan file and forks (the child runs checked calls of every type and exits). Every result is
// checked. Bounded: ADAPTCORE_SOAK_SECONDS (default 20); CI also runs it under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "process_test_util.hpp"
#include "test_util.hpp"

namespace adaptcore {
namespace {

// Small integers: every product and partial sum below is exact in fp32, so fp32, bf16 and int8
// results are compared for equality.
struct Operands {
  int64_t m, n, k;
  std::vector<int> a, b;  // row-major m x k, k x n
  std::vector<std::int64_t> want;
  Operands(std::mt19937& rng, int64_t max_dim) {
    std::uniform_int_distribution<int64_t> dim(1, max_dim);
    std::uniform_int_distribution<int> val(-3, 3);
    m = dim(rng), n = dim(rng), k = dim(rng);
    a.resize(static_cast<std::size_t>(m * k));
    b.resize(static_cast<std::size_t>(k * n));
    for (auto& x : a) x = val(rng);
    for (auto& x : b) x = val(rng);
    want.assign(static_cast<std::size_t>(m * n), 0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          want[static_cast<std::size_t>(i * n + j)] +=
              a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
  }
};

// One checked call of the given kind; an empty string when it is right.
std::string checked_call(Context& ctx, const Operands& o, int kind) {
  const std::size_t mn = static_cast<std::size_t>(o.m * o.n);
  switch (kind) {
    case 0: {  // fp32
      std::vector<float> a(o.a.begin(), o.a.end()), b(o.b.begin(), o.b.end()), c(mn, -1.0f);
      const Status s = gemm(Layout::RowMajor, Trans::No, Trans::No, o.m, o.n, o.k, 1.0f, a.data(),
                            o.k, b.data(), o.n, 0.0f, c.data(), o.n, ctx);
      if (s != Status::Ok) return std::string("f32: ") + to_string(s);
      for (std::size_t i = 0; i < mn; ++i)
        if (c[i] != static_cast<float>(o.want[i])) return "f32: wrong value";
      return {};
    }
    case 1: {  // bf16 x bf16 -> fp32
      std::vector<bf16> a(o.a.size()), b(o.b.size());
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = bf16(static_cast<float>(o.a[i]));
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = bf16(static_cast<float>(o.b[i]));
      std::vector<float> c(mn, -1.0f);
      const Status s = gemm_bf16(Layout::RowMajor, Trans::No, Trans::No, o.m, o.n, o.k, 1.0f,
                                 a.data(), o.k, b.data(), o.n, 0.0f, c.data(), o.n, ctx);
      if (s != Status::Ok) return std::string("bf16: ") + to_string(s);
      for (std::size_t i = 0; i < mn; ++i)
        if (c[i] != static_cast<float>(o.want[i])) return "bf16: wrong value";
      return {};
    }
    case 2: {  // u8 x s8 -> s32 with a zero point of A
      const std::int32_t zp = 3;
      std::vector<std::uint8_t> a(o.a.size());
      std::vector<std::int8_t> b(o.b.size());
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(o.a[i] + zp);
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int8_t>(o.b[i]);
      std::vector<std::int32_t> c(mn, -1);
      const Status s =
          gemm_u8s8s32(Layout::RowMajor, Trans::No, Trans::No, o.m, o.n, o.k, a.data(), o.k,
                       ZeroPoints{&zp, 1}, b.data(), o.n, {}, 0, c.data(), o.n, ctx);
      if (s != Status::Ok) return std::string("u8s8: ") + to_string(s);
      for (std::size_t i = 0; i < mn; ++i)
        if (c[i] != o.want[i]) return "u8s8: wrong value";
      return {};
    }
    default: {  // W8A16: integer weights with scale 1, fp32 activations
      std::vector<std::int8_t> w(o.b.size());
      for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(o.b[i]);
      std::vector<float> scales(static_cast<std::size_t>(o.n), 1.0f);
      QuantizedWeights qw;
      Status s = quantize_weights_s8(Layout::RowMajor, Trans::No, o.k, o.n, w.data(), o.n,
                                     scales.data(), WeightQuantSpec{}, qw, ctx);
      if (s != Status::Ok) return std::string("quantize: ") + to_string(s);
      std::vector<float> a(o.a.begin(), o.a.end()), c(mn, -1.0f);
      s = gemm_quantized(Layout::RowMajor, Trans::No, o.m, a.data(), o.k, qw, 0.0f, c.data(), o.n,
                         ActivationParts::Two, ctx);
      if (s != Status::Ok) return std::string("w8a16: ") + to_string(s);
      // Activations of |a| <= 3 split into two int8 parts: far inside the documented bound.
      const double tol = 1e-3 * static_cast<double>(o.k) * 9.0 + 1e-3;
      for (std::size_t i = 0; i < mn; ++i)
        if (!(std::fabs(static_cast<double>(c[i]) - static_cast<double>(o.want[i])) <= tol))
          return "w8a16: wrong value";
      return {};
    }
  }
}

TEST(Soak, CallersWithConfigurationChangesAndAFork) {
  const double seconds = static_cast<double>(test::env_int("ADAPTCORE_SOAK_SECONDS", 20));
  const int64_t max_dim = test::env_int("ADAPTCORE_SOAK_MAX_DIM", 160);
  ContextOptions opt;
  opt.read_environment = false;
  opt.threads = 2;
  Context ctx(opt);

  // A plan file of a few shapes, made by this context, to load again and again.
  const std::string plans =
      (std::filesystem::temp_directory_path() / ("soak_plans." + std::to_string(getpid()) + ".bin"))
          .string();
  {
    std::mt19937 rng(7);
    for (int i = 0; i < 6; ++i) ASSERT_EQ(checked_call(ctx, Operands(rng, max_dim), i % 3), "");
    ASSERT_EQ(ctx.save_plan_file(plans), Status::Ok);
  }

  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0};
  std::vector<std::string> errors(3);
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(100 + t));
      for (long i = 0; !stop.load() && errors[static_cast<std::size_t>(t)].empty(); ++i) {
        const Operands o(rng, max_dim);
        errors[static_cast<std::size_t>(t)] = checked_call(ctx, o, static_cast<int>((i + t) % 4));
        calls.fetch_add(1);
      }
    });
  }

  // The controller: configuration changes, and a fork half-way.
  std::mt19937 rng(42);
  bool forked = false;
  int fork_code = -1, step = 0;
  const auto half = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds / 2);
  while (std::chrono::steady_clock::now() < until) {
    switch (step++ % 4) {
      case 0: EXPECT_EQ(ctx.set_threads(1 + static_cast<int>(rng() % 3)), Status::Ok); break;
      case 1: ctx.clear_plan_cache(); break;
      case 2: {
        // Loads unless the thread count it was made for differs: then nothing matches, still Ok.
        const Status s = ctx.load_plan_file(plans);
        EXPECT_EQ(s, Status::Ok);
        break;
      }
      default:
        if (!forked && std::chrono::steady_clock::now() > half) {
          forked = true;
          fork_code = test::in_child(
              [&] {
                std::mt19937 r(9);
                for (int i = 0; i < 8; ++i)
                  if (!checked_call(ctx, Operands(r, max_dim), i % 4).empty()) _exit(1);
                _exit(0);
              },
              120);
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop.store(true);
  for (auto& th : callers) th.join();
  for (std::size_t t = 0; t < errors.size(); ++t) EXPECT_EQ(errors[t], "") << "caller " << t;
  EXPECT_TRUE(forked);
  EXPECT_EQ(fork_code, 0) << "the child of the fork failed or hung (142: SIGALRM)";
  EXPECT_GT(calls.load(), 20);
  std::printf("soak: %ld checked calls in %.0f s\n", calls.load(), seconds);
  std::filesystem::remove(plans);
}

}  // namespace
}  // namespace adaptcore
