// Helpers for tests of the process around the arithmetic (fork, exit, resource limits): small
// GEMMs with exactly representable results, and a child-process runner with a time limit.
#pragma once

#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "adaptcore/adaptcore.h"

namespace adaptcore::test {

// Row-major m x k times k x n of small integers: every product and sum is exact in fp32, so
// a result is checked for equality.
struct IntGemm {
  int64_t m, n, k;
  std::vector<float> a, b, c, want;
  IntGemm(int64_t m_, int64_t n_, int64_t k_) : m(m_), n(n_), k(k_) {
    a.resize(static_cast<std::size_t>(m * k));
    b.resize(static_cast<std::size_t>(k * n));
    c.assign(static_cast<std::size_t>(m * n), -1.0f);
    want.assign(static_cast<std::size_t>(m * n), 0.0f);
    for (int64_t i = 0; i < m * k; ++i)
      a[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 5 - 2);
    for (int64_t i = 0; i < k * n; ++i)
      b[static_cast<std::size_t>(i)] = static_cast<float>((i * 3) % 7 - 3);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          want[static_cast<std::size_t>(i * n + j)] +=
              a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
  }
  // Runs through the C API on the default context; true when the call succeeded and C is right.
  bool run_c_api() {
    std::fill(c.begin(), c.end(), -1.0f);
    const ac_status_t s = ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, m, n, k, 1.0f, a.data(),
                                   k, b.data(), n, 0.0f, c.data(), n);
    return s == AC_STATUS_OK && c == want;
  }
};

// Threads of this process now.
inline int thread_count() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// Runs body() in a forked child under a time limit; returns the child's exit code, or 128 +
// the signal that ended it (SIGALRM when it hung). The child must not return into the test
// framework: it leaves through _exit or exit.
template <class F>
int in_child(F body, unsigned seconds = 60) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(seconds);
    body();
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace adaptcore::test
