// The library inside a process: fork, exit, thread-creation and memory failures, leaks of
// threads and memory, and the per-call log. Scenarios that need a process in which the
// library was never used run as death tests in the re-executed ("threadsafe") style, so each
// starts from a fresh process.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "process_test_util.hpp"

// ---- Allocation failure injection: when armed, every operator new in the process throws.
namespace {
std::atomic<bool> g_fail_new{false};
std::atomic<long> g_fail_after{-1};  // >= 0: allocations left before failing starts
}  // namespace

void* operator new(std::size_t size) {
  if (g_fail_new.load(std::memory_order_relaxed)) {
    const long left = g_fail_after.load(std::memory_order_relaxed);
    if (left <= 0) throw std::bad_alloc();
    g_fail_after.store(left - 1, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace adaptcore {
namespace {

using test::in_child;
using test::IntGemm;
using test::thread_count;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

long resident_kib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

std::string write_file(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / (name + "." + std::to_string(getpid()));
  std::ofstream(path) << text;
  return path.string();
}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// Defect 1: a profile claiming more cores than the thread limit made the context without a
// pool, and the first multi-threaded call dereferenced it.
TEST_F(ProcessTest, ProfileWithMoreCoresThanTheThreadLimit) {
  const std::string path = write_file("cores2000.json", R"({"cores": 2000})");
  ContextOptions opt;
  opt.profile_path = path;
  opt.read_environment = false;
  Context ctx(opt);
  EXPECT_EQ(ctx.hardware().cores, 2000);
  EXPECT_GE(ctx.threads(), 1);
  EXPECT_LE(ctx.threads(), kMaxThreads);
  IntGemm g(100, 100, 100);
  ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
                 g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx),
            Status::Ok);
  EXPECT_EQ(g.c, g.want);
  // The same through the environment and the C API's default context.
  EXPECT_EXIT(
      {
        setenv("ADAPTCORE_HW_PROFILE", path.c_str(), 1);
        IntGemm h(100, 100, 100);
        std::exit(h.run_c_api() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  std::filesystem::remove(path);
}

// Defect 2: a refused thread while a pool was built destroyed joinable std::threads
// (std::terminate). Now set_threads reports it and the context keeps working.
TEST_F(ProcessTest, RefusedThreadsAreAStatusNotAnAbort) {
  if (sanitized()) GTEST_SKIP() << "address-space limits do not mix with sanitizer shadow memory";
  EXPECT_EXIT(
      {
        Context ctx;  // made before the limit, with its default threads
        // Leave a little address space: far less than 1000 thread stacks.
        rlimit lim{};
        getrlimit(RLIMIT_AS, &lim);
        std::ifstream statm("/proc/self/statm");
        long pages = 0;
        statm >> pages;
        lim.rlim_cur = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                       (rlim_t{256} << 20);
        setrlimit(RLIMIT_AS, &lim);
        const Status s = ctx.set_threads(1000);
        if (s != Status::OutOfMemory) std::_Exit(10);
        IntGemm g(64, 64, 64);
        if (gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
                 g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx) != Status::Ok ||
            g.c != g.want)
          std::_Exit(11);
        // A context made under the limit asks for 1000 threads too.
        ContextOptions opt;
        opt.threads = 1000;
        opt.read_environment = false;
        Context limited(opt);
        if (limited.init_status() == Status::Ok) std::_Exit(12);
        if (limited.threads() < 1 || limited.threads() >= 1000) std::_Exit(13);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// Defect 3: fork() after a threaded call left the child waiting for workers that do not exist.
TEST_F(ProcessTest, ForkAfterAThreadedCall) {
  ASSERT_EQ(ac_set_num_threads(2), AC_STATUS_OK);
  IntGemm g(384, 384, 384);
  ASSERT_TRUE(g.run_c_api());
  const int code = in_child(
      [] {
        IntGemm h(384, 384, 384);
        if (!h.run_c_api()) _exit(1);
        // And a child of the child, after the child's own threaded call.
        const int inner = in_child([] {
          IntGemm x(384, 384, 384);
          _exit(x.run_c_api() ? 0 : 1);
        });
        _exit(inner);
      },
      60);
  EXPECT_EQ(code, 0) << "128 + 14 means the child hung (SIGALRM)";
  // The parent's pool is unaffected.
  ASSERT_TRUE(g.run_c_api());
}

// Defect 4: a GEMM from an atexit handler registered before the library's first use ran after
// the default context was destroyed.
std::atomic<int> g_atexit_result{-1};
void gemm_at_exit() {
  IntGemm g(200, 200, 200);
  if (!g.run_c_api()) _exit(21);
  const std::uint16_t one = 0x3f80;  // bf16 1.0
  std::vector<std::uint16_t> a(64 * 64, one), b(64 * 64, one);
  std::vector<float> c(64 * 64, 0.0f);
  if (ac_gemm_bf16bf16f32(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 64, 64, 64, 1.0f, a.data(), 64,
                          b.data(), 64, 0.0f, c.data(), 64) != AC_STATUS_OK)
    _exit(22);
  for (float v : c)
    if (v != 64.0f) _exit(23);
  _exit(0);  // the handler decides the exit code
}

TEST_F(ProcessTest, GemmFromAnAtexitHandler) {
  EXPECT_EXIT(
      {
        std::atexit(gemm_at_exit);
        IntGemm g(200, 200, 200);
        if (!g.run_c_api()) std::_Exit(20);
        std::exit(5);  // replaced by the handler's _exit(0) when it succeeds
      },
      ::testing::ExitedWithCode(0), "");
}

// Defect 5: bad_alloc escaped the C API (abort) when the default context could not be built.
TEST_F(ProcessTest, CApiUnderAllocationFailureReturnsStatuses) {
  EXPECT_EXIT(
      {
        g_fail_after.store(0);
        g_fail_new.store(true);
        const int threads = ac_get_num_threads();
        const ac_status_t isa = ac_set_isa(AC_ISA_AUTO);
        IntGemm* g = nullptr;
        g_fail_new.store(false);
        g = new IntGemm(32, 32, 32);
        g_fail_new.store(true);
        const ac_status_t s = ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 32, 32, 32, 1.0f,
                                       g->a.data(), 32, g->b.data(), 32, 0.0f, g->c.data(), 32);
        g_fail_new.store(false);
        if (threads < 1) std::_Exit(30);
        if (isa != AC_STATUS_OUT_OF_MEMORY) std::_Exit(31);
        if (s != AC_STATUS_OUT_OF_MEMORY) std::_Exit(32);
        // Memory is back: the next call makes the default context and computes.
        if (!g->run_c_api()) std::_Exit(33);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// Defect 5: every allocation failure inside load_hardware_profile is a status.
TEST_F(ProcessTest, ProfileLoadUnderAllocationFailureReturnsStatuses) {
  const std::string path =
      write_file("profile_oom.json", R"({"cores": 2, "name": "a name longer than sixteen", )"
                                     R"("l2_bytes": 1048576, "freq_ghz": 3.0})");
  EXPECT_EXIT(
      {
        Context ctx;
        bool loaded = false;
        for (long n = 0; n < 2000 && !loaded; ++n) {
          std::string err;
          g_fail_after.store(n);
          g_fail_new.store(true);
          const Status s = ctx.load_hardware_profile(path, &err);
          g_fail_new.store(false);
          if (s == Status::Ok)
            loaded = true;
          else if (s != Status::OutOfMemory)
            std::_Exit(40);
        }
        std::_Exit(loaded ? 0 : 41);
      },
      ::testing::ExitedWithCode(0), "");
  std::filesystem::remove(path);
}

// Defect 8: every set_threads made a new pool and kept the old ones (t = 1..64: 2,017 threads).
TEST_F(ProcessTest, ChangingTheThreadCountLeavesNoThreadsBehind) {
  ContextOptions opt;
  opt.read_environment = false;
  opt.threads = 1;
  Context ctx(opt);
  const int before = thread_count();
  IntGemm g(256, 256, 256);
  for (int t = 1; t <= 64; ++t) {
    ASSERT_EQ(ctx.set_threads(t), Status::Ok) << t;
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
                   g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx),
              Status::Ok);
    ASSERT_EQ(g.c, g.want) << t;
    EXPECT_LE(thread_count(), before + t) << t;
  }
  ASSERT_EQ(ctx.set_threads(2), Status::Ok);
  EXPECT_LE(thread_count(), before + 2);
}

// Defect 8: every profile load kept the old profile and plan-cache table (20,000 loads grew
// resident memory from 21 to 190 MB).
TEST_F(ProcessTest, ReloadingAProfileDoesNotGrowMemory) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer's quarantine holds freed memory back";
  const std::string path = write_file("reload.json", R"({"cores": 2})");
  ContextOptions opt;
  opt.read_environment = false;
  opt.threads = 2;
  Context ctx(opt);
  IntGemm g(64, 64, 64);
  auto load_and_call = [&] {
    ASSERT_EQ(ctx.load_hardware_profile(path), Status::Ok);
    ASSERT_EQ(gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
                   g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx),
              Status::Ok);
  };
  for (int i = 0; i < 200; ++i) load_and_call();  // warm up allocator pools
  const long before = resident_kib();
  for (int i = 0; i < 5000; ++i) load_and_call();
  const long grown = resident_kib() - before;
  EXPECT_LT(grown, 4096) << "KiB after 5000 reloads (about 42 MB before the fix)";
  EXPECT_EQ(g.c, g.want);
  std::filesystem::remove(path);
}

// ADAPTCORE_VERBOSE: one line per call with the shape, the plan and the time.
TEST_F(ProcessTest, VerboseLogsEachCall) {
  EXPECT_EXIT(
      {
        setenv("ADAPTCORE_VERBOSE", "1", 1);
        ContextOptions opt;
        opt.threads = 2;
        Context ctx(opt);
        IntGemm g(48, 40, 32);
        // The first call finds its operands in memory, the repeated ones in cache
        // (Residency::Auto): a plan for each, the second repeat a cache hit.
        for (int i = 0; i < 3; ++i)
          gemm(Layout::RowMajor, Trans::No, Trans::No, g.m, g.n, g.k, 1.0f, g.a.data(), g.k,
               g.b.data(), g.n, 0.0f, g.c.data(), g.n, ctx);
        std::_Exit(g.c == g.want ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "adaptcore: f32 m=48 n=40 k=32 .*plan=\\[.*\\] cache=miss [0-9.]+ us(.|\n)*"
      "adaptcore: f32 m=48 n=40 k=32 .*cache=hit");
}

}  // namespace
}  // namespace adaptcore
