// Exact-size generated kernels against the library's ahead-of-time kernel set, kernel against
// kernel (docs/MODEL.md, "Exact-size code"). For every shape of the given suites that the
// library runs on its small-problem path (one thread, A and B in place, the whole depth in one
// block: what a generated kernel would replace), with warm operands:
//   aot  the planner's plan on the small executor (run_small: the AOT register tiles, their
//        row and column tails), the problem already normalised;
//   jit  one ExactGemmJit kernel for the exact m, n, k and A's access, made beforehand;
//   call adaptcore::gemm, the whole call (tiny-call path included), for scale.
// Also: the time to generate each kernel, and whether its result has the same bits as the AOT
// kernels'. Per suite: the geometric mean of aot / jit.
//
//   adaptcore_bench_jit [--threads N] [suite names or files...]   (default: tiny small odd)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/executor_small.hpp"
#include "harness/suites.hpp"
#include "jit/exact_gemm_jit.hpp"
#include "kernels/kernel_tables.hpp"
#include "kernels/registry.hpp"

namespace {

using namespace adaptcore;
using Clock = std::chrono::steady_clock;

// Median over 15 batches of the time per call of fn, each batch long enough (>= 20 us).
template <class Fn>
double ns_per_call(Fn&& fn) {
  for (int w = 0; w < 200; ++w) fn();
  int iters = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) fn();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    if (ns > 20000 || iters > (1 << 20)) break;
    iters *= 2;
  }
  std::vector<double> t;
  for (int b = 0; b < 15; ++b) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) fn();
    t.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / iters);
  }
  std::nth_element(t.begin(), t.begin() + 7, t.end());
  return t[7];
}

struct Stored {
  std::vector<float> a, b, c;
};

struct Line {
  std::string suite, shape;
  double aot = 0, jit = 0, call = 0, gen_us = 0;
  bool same_bits = false;
  double err_aot = 0, err_jit = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  std::vector<std::string> suites;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else
      suites.emplace_back(argv[i]);
  }
  if (suites.empty()) suites = {"tiny", "small", "odd"};
  ContextOptions o;
  o.threads = threads;
  o.residency = Residency::Cached;  // warm operands: the same buffers call after call
  Context ctx(o);
  const kernels::IsaKernels* ks = kernels::kernels_for(ctx.isa());
  if (ctx.isa() != Isa::Avx512 || ks == nullptr) {
    std::printf("needs the AVX-512 path (this CPU: %s)\n", to_string(ctx.isa()));
    return 0;
  }
  detail::ContextImpl& impl = detail::impl_of(ctx);
  std::vector<Line> lines;
  for (const std::string& suite : suites) {
    for (bench::SuiteShape s : bench::load_suite(suite, "", 1, 100)) {
      s = bench::with_leading_dims(s);
      Stored st;
      const int64_t a_rows = s.trans_a ? s.k : s.m, a_cols = s.trans_a ? s.m : s.k;
      const int64_t b_rows = s.trans_b ? s.n : s.k, b_cols = s.trans_b ? s.k : s.n;
      st.a.resize(static_cast<std::size_t>((a_rows - 1) * s.lda + a_cols));
      st.b.resize(static_cast<std::size_t>((b_rows - 1) * s.ldb + b_cols));
      st.c.assign(static_cast<std::size_t>((s.m - 1) * s.ldc + s.n), 0.0f);
      for (std::size_t i = 0; i < st.a.size(); ++i)
        st.a[i] = static_cast<float>((i * 37 + 11) % 97) / 97.0f - 0.5f;
      for (std::size_t i = 0; i < st.b.size(); ++i)
        st.b[i] = static_cast<float>((i * 53 + 7) % 89) / 89.0f - 0.5f;
      GemmProblem g;
      if (make_problem(Layout::RowMajor, s.trans_a ? Trans::Yes : Trans::No,
                       s.trans_b ? Trans::Yes : Trans::No, s.m, s.n, s.k, 1.0f, st.a.data(), s.lda,
                       st.b.data(), s.ldb, 0.0f, st.c.data(), s.ldc, g) != Status::Ok)
        continue;
      const Plan plan = impl.plan_for(impl.key_for(g));
      const auto sp = small_plan(plan, g, *ks);
      // The generated kernel's forms: B rows contiguous, A rows or columns contiguous.
      if (!sp || sp->dot || !g.b_row_unit() || (g.a_cs != 1 && g.a_rs != 1)) continue;
      const bool a_row_unit = g.a_cs == 1 && g.a_rs != 1;
      const int64_t lda = a_row_unit ? g.a_rs : g.a_cs;
      Line l;
      l.suite = suite;
      l.shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                (s.trans_a || s.trans_b
                     ? std::string(" ") + (s.trans_a ? 'T' : 'N') + (s.trans_b ? 'T' : 'N')
                     : "");
      const auto t0 = Clock::now();
      bench::jit::ExactGemmJit gen(static_cast<int>(g.m), static_cast<int>(g.n),
                                   static_cast<int>(g.k), a_row_unit);
      const bench::jit::ExactGemmFn fn = gen.fn();
      l.gen_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      run_small(*sp, g, *ks);
      const std::vector<float> aot_c = st.c;
      std::fill(st.c.begin(), st.c.end(), 0.0f);
      fn(g.a, g.b, g.c, lda, g.b_rs, g.ldc, g.alpha, g.beta);
      l.same_bits = std::memcmp(aot_c.data(), st.c.data(), aot_c.size() * sizeof(float)) == 0;
      // Both against a double-precision reference (relative to the sum of |products|).
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          double ref = 0, mag = 0;
          for (int64_t p = 0; p < g.k; ++p) {
            const double x =
                static_cast<double>(g.a[i * g.a_rs + p * g.a_cs]) * g.b[p * g.b_rs + j];
            ref += x, mag += std::fabs(x);
          }
          const double scale = mag > 0 ? mag : 1.0;
          l.err_aot = std::max(l.err_aot, std::fabs(aot_c[i * g.ldc + j] - ref) / scale);
          l.err_jit = std::max(l.err_jit, std::fabs(st.c[i * g.ldc + j] - ref) / scale);
        }
      l.aot = ns_per_call([&] { run_small(*sp, g, *ks); });
      l.jit = ns_per_call([&] { fn(g.a, g.b, g.c, lda, g.b_rs, g.ldc, g.alpha, g.beta); });
      l.call = ns_per_call([&] {
        gemm(Layout::RowMajor, s.trans_a ? Trans::Yes : Trans::No,
             s.trans_b ? Trans::Yes : Trans::No, s.m, s.n, s.k, 1.0f, st.a.data(), s.lda,
             st.b.data(), s.ldb, 0.0f, st.c.data(), s.ldc, ctx);
      });
      std::printf(
          "%-6s %-22s aot %9.1f ns  jit %9.1f ns  aot/jit %5.2f  call %9.1f ns  gen %7.1f us  %s\n",
          suite.c_str(), l.shape.c_str(), l.aot, l.jit, l.aot / l.jit, l.call, l.gen_us,
          l.same_bits ? "same bits" : "BITS DIFFER");
      if (!l.same_bits) std::printf("       errors: aot %.2e jit %.2e\n", l.err_aot, l.err_jit);
      std::fflush(stdout);
      lines.push_back(l);
    }
  }
  std::printf(
      "\nsuite   shapes  geomean aot/jit  jit faster  jit >= 1.1x  geomean gen us  bits differ\n");
  std::map<std::string, std::vector<const Line*>> by;
  for (const Line& l : lines) by[l.suite].push_back(&l);
  for (const auto& [suite, ls] : by) {
    double lr = 0, lg = 0;
    int faster = 0, clear = 0, differ = 0;
    for (const Line* l : ls) {
      lr += std::log(l->aot / l->jit);
      lg += std::log(l->gen_us);
      faster += l->jit < l->aot;
      clear += l->aot >= 1.1 * l->jit;
      differ += !l->same_bits;
    }
    const double n = static_cast<double>(ls.size());
    std::printf("%-7s %6zu  %15.3f  %10d  %11d  %14.1f  %11d\n", suite.c_str(), ls.size(),
                std::exp(lr / n), faster, clear, std::exp(lg / n), differ);
  }
  return 0;
}
