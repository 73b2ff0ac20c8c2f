// The host process's OpenMP runtime, when one is loaded (libgomp, LLVM libomp or Intel
// libiomp5, each of which exports the GNU entry points). A library running inside a framework
// such as PyTorch shares the cores with the framework's OpenMP team, whose idle threads spin
// between the framework's operators; a second team of our own would fight them for the same
// cores. Running our parallel sections as the host's own parallel regions (as oneDNN's OpenMP
// build does) reuses its threads instead. Nothing is linked: the runtime is found among the
// objects the process has loaded, so a process without OpenMP never gets one.
#pragma once

namespace adaptcore {

struct HostOpenMP {
  // GOMP_parallel(fn, data, num_threads, flags): runs fn(data) on a team, the caller included.
  void (*parallel)(void (*)(void*), void*, unsigned, unsigned) = nullptr;
  int (*thread_num)() = nullptr;   // omp_get_thread_num
  int (*num_threads)() = nullptr;  // omp_get_num_threads
  int (*max_threads)() = nullptr;  // omp_get_max_threads
  int (*in_parallel)() = nullptr;  // omp_in_parallel
};

// The loaded runtime, or nullptr. Once found, an atomic load. Until then each thread asks the
// loader on its first call and every 64th after (a runtime loaded later is found within 64
// calls), and scans the loaded objects only when their count changed.
//
// In the child of a fork, GNU libgomp is not used: it keeps the parent's team, whose threads
// the child does not have, and its next parallel region waits for them forever (a GEMM in a
// worker of Python's multiprocessing under torch). The child's calls run on adaptcore's own
// pool instead. LLVM's libomp and Intel's libiomp5 rebuild their teams in the child and stay
// in use.
const HostOpenMP* host_openmp() noexcept;

}  // namespace adaptcore
