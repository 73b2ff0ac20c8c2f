// One warm GEMM call between two marker functions, for counting the instructions it executes
// natively (scripts/count_call_instructions.sh single-steps it under gdb: no hardware counters
// are needed, and the AVX-512 paths run, which valgrind cannot emulate).
//
//   adaptcore_call_instructions LIB M N K
//
// LIB is adaptcore or a baseline name (openblas, libxsmm, mkl, ...; loaded through the
// harness's adapters, so a vendor call includes the adapter's virtual call, a few
// instructions). Row-major, no transposes, dense, alpha 1, beta 0, one thread. 1,000 warm-up
// calls first: plans, JIT dispatch and caches are settled before the counted call.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "baselines/baseline.hpp"

extern "C" {
// Empty and out of line: the counter steps from the return of the first to the entry of the
// second.
[[gnu::noinline]] void adaptcore_marker_begin() { asm volatile(""); }
[[gnu::noinline]] void adaptcore_marker_end() { asm volatile(""); }
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s LIB M N K\n", argv[0]);
    return 2;
  }
  const std::string lib = argv[1];
  const int64_t m = std::atoll(argv[2]), n = std::atoll(argv[3]), k = std::atoll(argv[4]);
  if (m < 1 || n < 1 || k < 1) {
    std::fprintf(stderr, "M, N and K must be positive\n");
    return 2;
  }
  std::vector<float> a(static_cast<std::size_t>(m * k), 1.0f);
  std::vector<float> b(static_cast<std::size_t>(k * n), 1.0f);
  std::vector<float> c(static_cast<std::size_t>(m * n), 0.0f);
  adaptcore::ContextOptions options;
  options.threads = 1;
  adaptcore::Context ctx(options);
  adaptcore::bench::LoadedBaseline vendor;
  const adaptcore::bench::GemmCall call{m, n, k, false, false, a.data(), k, b.data(), n,
                                        c.data(), n};
  if (lib != "adaptcore") {
    vendor = adaptcore::bench::load_baseline(lib, 1);
    if (!vendor.lib) {
      std::fprintf(stderr, "%s: %s\n", lib.c_str(), vendor.message.c_str());
      return 1;
    }
    if (!vendor.lib->supports(call)) {
      std::fprintf(stderr, "%s does not run this shape\n", lib.c_str());
      return 1;
    }
    vendor.lib->prepare(call);
  }
  auto run = [&] {
    if (vendor.lib) {
      vendor.lib->run(call);
      return true;
    }
    return adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No,
                           adaptcore::Trans::No, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                           c.data(), n, ctx) == adaptcore::Status::Ok;
  };
  for (int i = 0; i < 1000; ++i)
    if (!run()) return 1;
  adaptcore_marker_begin();
  const bool ok = run();
  adaptcore_marker_end();
  // Every element is k (all-ones operands): a wrong answer would make the count meaningless.
  for (float x : c)
    if (x != static_cast<float>(k)) return 1;
  return ok ? 0 : 1;
}
