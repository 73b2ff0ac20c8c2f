// adaptcore inside an OpenMP program: parallel sections run on the host's OpenMP team (no
// second team of threads), the thread count follows omp_set_num_threads unless set, calls made
// from inside the host's parallel regions are correct, and ADAPTCORE_THREADING=pool keeps the
// library's own workers.
#include <gtest/gtest.h>
#include <omp.h>

#include <dlfcn.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/host_openmp.hpp"
#include "process_test_util.hpp"

namespace adaptcore {
namespace {

using test::IntGemm;
using test::thread_count;

Status run(Context& ctx, IntGemm& g) {
  std::fill(g.c.begin(), g.c.end(), -1.0f);
  return gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
              g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx);
}

TEST(OpenMPHost, RuntimeIsFound) {
  // Touch the runtime so that it is loaded and initialised, as any OpenMP program does.
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  EXPECT_GE(team, 1);
  const HostOpenMP* rt = host_openmp();
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->max_threads(), omp_get_max_threads());
}

TEST(OpenMPHost, ThreadCountFollowsTheHostUnlessSet) {
  ContextOptions opt;
  opt.read_environment = false;
  Context ctx(opt);
  for (int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    EXPECT_EQ(ctx.threads(), t);
  }
  int inside = 0;
  omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    inside = ctx.threads();
  }
  EXPECT_EQ(inside, 1) << "inside a host parallel region a call runs on its own thread";
  ASSERT_EQ(ctx.set_threads(3), Status::Ok);
  omp_set_num_threads(1);
  EXPECT_EQ(ctx.threads(), 3) << "an explicit count wins";
}

TEST(OpenMPHost, CallsRunOnTheHostTeamWithoutThreadsOfTheirOwn) {
  omp_set_num_threads(2);
#pragma omp parallel
  { (void)omp_get_thread_num(); }  // the host's team exists
  const int before = thread_count();
  ContextOptions opt;
  opt.read_environment = false;
  opt.threads = 1;  // the pool starts with no workers...
  Context ctx(opt);
  ::adaptcore::detail::impl_of(ctx).pool().set_threading(Threading::Auto);
  // ...and a default context follows the host: 2 threads, on the host's team.
  ContextOptions follow;
  follow.read_environment = false;
  Context host(follow);
  IntGemm g(300, 300, 300);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(run(host, g), Status::Ok);
    ASSERT_EQ(g.c, g.want);
  }
  EXPECT_EQ(::adaptcore::detail::impl_of(host).pool().runner(2), std::string("openmp"));
  // The pool of `host` was sized at construction (cores - 1 workers); calls added none.
  EXPECT_LE(thread_count(), before + (host.hardware().cores - 1));
}

TEST(OpenMPHost, CallsFromInsideHostRegionsAreCorrect) {
  ContextOptions opt;
  opt.read_environment = false;
  Context ctx(opt);
  std::atomic<int> wrong{0};
  omp_set_num_threads(2);
#pragma omp parallel num_threads(2)
  {
    for (int rep = 0; rep < 5; ++rep) {
      IntGemm g(96 + 8 * omp_get_thread_num(), 80, 64);
      if (run(ctx, g) != Status::Ok || g.c != g.want) wrong.fetch_add(1);
    }
  }
  EXPECT_EQ(wrong.load(), 0);
}

TEST(OpenMPHost, PoolModeKeepsItsOwnWorkers) {
  ContextOptions opt;
  opt.read_environment = false;
  opt.threads = 2;
  Context ctx(opt);
  ::adaptcore::detail::impl_of(ctx).pool().set_threading(Threading::Pool);
  EXPECT_EQ(::adaptcore::detail::impl_of(ctx).pool().runner(2), std::string("pool"));
  omp_set_num_threads(1);
  EXPECT_EQ(ctx.threads(), 2);
  IntGemm g(256, 256, 256);
  ASSERT_EQ(run(ctx, g), Status::Ok);
  EXPECT_EQ(g.c, g.want);
}

// Whether the host's OpenMP runtime is GNU libgomp (this test program's is, built with GCC).
bool is_gomp() {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(&omp_get_num_threads), &info) != 0 &&
         info.dli_fname != nullptr && std::strstr(info.dli_fname, "libgomp") != nullptr;
}

// A process runs an OpenMP region and then a GEMM on two threads (on the host's team), then
// forks (Python's multiprocessing with the fork start method inside a torch process): the
// child's calls compute as the parent's, on the child's own team or threads, never waiting for
// the parent's team, whose threads the child does not have.
TEST(OpenMPHost, ChildOfAForkComputesAfterCallsOnTheHostTeam) {
  for (const bool explicit_threads : {true, false}) {
    int team = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
      ++team;
    }
    ASSERT_EQ(team, 2);
    omp_set_num_threads(2);
    ContextOptions o;
    o.threads = explicit_threads ? 2 : 0;
    o.read_environment = false;
    Context ctx(o);
    ASSERT_EQ(ctx.threads(), 2);
    IntGemm g(160, 200, 300);
    ASSERT_EQ(run(ctx, g), Status::Ok);
    ASSERT_EQ(g.c, g.want);
    ASSERT_STREQ(detail::impl_of(ctx).pool().runner(2), "openmp");
    const int rc = test::in_child(
        [&] {
          for (int i = 0; i < 3; ++i) {
            IntGemm h(160, 200, 300);
            if (run(ctx, h) != Status::Ok || h.c != h.want) _exit(1);
          }
          // The child's calls do not wait on the parent's team: with GNU libgomp they run on
          // adaptcore's own pool (libgomp's own next region in this child would hang: it keeps
          // the parent's team; docs/RUNTIME.md).
          if (detail::impl_of(ctx).pool().on_host_openmp() && is_gomp()) _exit(2);
          _exit(0);
        },
        20);
    EXPECT_EQ(rc, 0) << (explicit_threads ? "explicit" : "default") << " threads; "
                     << (rc == 128 + SIGALRM ? "the child hung" : "the child failed");
    // The parent goes on as before.
    IntGemm after(160, 200, 300);
    ASSERT_EQ(run(ctx, after), Status::Ok);
    EXPECT_EQ(after.c, after.want);
  }
}

}  // namespace
}  // namespace adaptcore
