/* Whole-call time of tiny GEMMs through libadaptcore.so, as a C program loading the shared
 * library sees it (PLT, the library's thread-local state), which adaptcore_bench_dispatch,
 * linked against the static core, does not: the lowest of 7 runs of 2,000,000 warm calls.
 *   adaptcore_bench_shared_call [S ...]     (S x S x S, row-major, one thread; default 1 8)
 * Pin it to one core (taskset -c 1) and compare builds side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "adaptcore/adaptcore.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int time_size(int64_t s) {
  if (s < 1 || s > 64) {
    fprintf(stderr, "size %lld: 1..64\n", (long long)s);
    return 1;
  }
  static float a[64 * 64], b[64 * 64], c[64 * 64];
  for (int i = 0; i < 64 * 64; ++i) a[i] = 1.0f, b[i] = 0.5f;
  const int calls = 2000000;
  double best = 1e30;
  for (int r = 0; r < 7; ++r) {
    const double t0 = now_ns();
    for (int i = 0; i < calls; ++i)
      if (ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, s, s, s, 1.0f, a, s, b, s, 0.0f, c, s) !=
          AC_STATUS_OK)
        return fprintf(stderr, "ac_sgemm failed\n"), 1;
    const double ns = (now_ns() - t0) / calls;
    if (ns < best) best = ns;
  }
  if (c[0] != 0.5f * (float)s) return fprintf(stderr, "wrong result\n"), 1;
  printf("%lldx%lldx%lld through libadaptcore.so: %.1f ns a call\n", (long long)s, (long long)s,
         (long long)s, best);
  return 0;
}

int main(int argc, char** argv) {
  if (ac_set_num_threads(1) != AC_STATUS_OK) return 1;
  if (argc < 2) return time_size(1) || time_size(8);
  for (int i = 1; i < argc; ++i)
    if (time_size(atoll(argv[i]))) return 1;
  return 0;
}
