/* ScaLAPACK's PSGEMM over MPI with the node-local sgemm_ of whatever BLAS the process resolves:
 * run with libadaptcore_blas.so preloaded, every rank's local products are adaptcore's. Checks
 * C = alpha op(A) op(B) + beta C on several block-cyclic layouts against a serial double
 * reference of each rank's own entries, then times one larger product. One JSON line per case
 * on rank 0.
 *
 *   mpirun -np 2 env LD_PRELOAD=.../libadaptcore_blas.so psgemm_check [--time N] [--reps R]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS and ScaLAPACK (Fortran and C BLACS interfaces of libscalapack-openmpi). */
void Cblacs_pinfo(int* me, int* procs);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb,
               const int* irsrc, const int* icsrc, const int* ictxt, const int* lld, int* info);
void psgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca,
             const float* b, const int* ib, const int* jb, const int* descb, const float* beta,
             float* c, const int* ic, const int* jc, const int* descc);

/* Element (i, j) of each global matrix, from its indices only (every rank makes its own part). */
static float val(int which, int i, int j) {
  unsigned h = (unsigned)(i * 7919 + j * 104729 + which * 1299709);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (float)((int)(h % 2001u) - 1000) / 1000.0f;
}

/* Global index of local index l (0-based) in a block-cyclic dimension. */
static int global_of(int l, int nb, int iproc, int nprocs) {
  return (l / nb) * nb * nprocs + iproc * nb + l % nb;
}

typedef struct {
  int ctxt, nprow, npcol, myrow, mycol;
} Grid;

/* A global rows x cols matrix `which`, block-cyclic mb x nb, local column-major. */
static float* local_matrix(const Grid* g, int which, int rows, int cols, int mb, int nb,
                           int* desc, int* lld_out) {
  const int zero = 0;
  int lr = numroc_(&rows, &mb, &g->myrow, &zero, &g->nprow);
  int lc = numroc_(&cols, &nb, &g->mycol, &zero, &g->npcol);
  int lld = lr > 1 ? lr : 1, info = 0;
  descinit_(desc, &rows, &cols, &mb, &nb, &zero, &zero, &g->ctxt, &lld, &info);
  if (info != 0) {
    fprintf(stderr, "descinit failed: %d\n", info);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  float* x = malloc(sizeof(float) * (size_t)lld * (size_t)(lc > 0 ? lc : 1));
  for (int jl = 0; jl < lc; ++jl)
    for (int il = 0; il < lr; ++il)
      x[(size_t)jl * lld + il] = val(which, global_of(il, mb, g->myrow, g->nprow),
                                     global_of(jl, nb, g->mycol, g->npcol));
  *lld_out = lld;
  return x;
}

/* One product; returns the largest error relative to sum |a||b| over this rank's entries (0
 * when not checked) and the seconds of the psgemm_ call (the slowest rank's). */
static void run_case(const Grid* g, char ta, char tb, int m, int n, int k, int mb, int nb,
                     int check, double* err_out, double* sec_out) {
  int desca[9], descb[9], descc[9], llda, lldb, lldc;
  const int am = ta == 'N' ? m : k, ak = ta == 'N' ? k : m;
  const int bk = tb == 'N' ? k : n, bn = tb == 'N' ? n : k;
  float* a = local_matrix(g, 1, am, ak, mb, nb, desca, &llda);
  float* b = local_matrix(g, 2, bk, bn, mb, nb, descb, &lldb);
  float* c = local_matrix(g, 3, m, n, mb, nb, descc, &lldc);
  const float alpha = 0.75f, beta = -0.5f;
  const int one = 1, zero = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  psgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &one, descb, &beta, c,
          &one, &one, descc);
  double t = MPI_Wtime() - t0;
  double err = 0.0;
  if (check) {
    int lr = numroc_(&m, &mb, &g->myrow, &zero, &g->nprow);
    int lc = numroc_(&n, &nb, &g->mycol, &zero, &g->npcol);
    for (int jl = 0; jl < lc; ++jl)
      for (int il = 0; il < lr; ++il) {
        int i = global_of(il, mb, g->myrow, g->nprow), j = global_of(jl, nb, g->mycol, g->npcol);
        double s = 0.0, mag = 0.0;
        for (int p = 0; p < k; ++p) {
          double x = ta == 'N' ? val(1, i, p) : val(1, p, i);
          double y = tb == 'N' ? val(2, p, j) : val(2, j, p);
          s += x * y;
          mag += fabs(x * y);
        }
        double want = alpha * s + beta * (double)val(3, i, j);
        double e = fabs((double)c[(size_t)jl * lldc + il] - want) / (mag + 1.0);
        if (e > err) err = e;
      }
  }
  MPI_Allreduce(&err, err_out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&t, sec_out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  free(a);
  free(b);
  free(c);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, procs, time_n = 0, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--time")) time_n = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  }
  Cblacs_pinfo(&me, &procs);
  int failed = 0;
  /* Grids: all ranks in one row, then in one column (more shapes where procs factor). */
  for (int shape = 0; shape < 2; ++shape) {
    Grid g;
    g.nprow = shape == 0 ? 1 : procs;
    g.npcol = procs / g.nprow;
    Cblacs_get(-1, 0, &g.ctxt);
    Cblacs_gridinit(&g.ctxt, "Row", g.nprow, g.npcol);
    Cblacs_gridinfo(g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
    static const struct {
      char ta, tb;
      int m, n, k, mb, nb;
    } cases[] = {{'N', 'N', 96, 80, 64, 32, 32}, {'N', 'T', 131, 77, 45, 16, 24},
                 {'T', 'N', 64, 200, 33, 17, 17}, {'T', 'T', 50, 61, 129, 8, 64},
                 {'N', 'N', 1, 300, 150, 64, 64}, {'N', 'N', 257, 1, 96, 32, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
      double err, sec;
      run_case(&g, cases[i].ta, cases[i].tb, cases[i].m, cases[i].n, cases[i].k, cases[i].mb,
               cases[i].nb, 1, &err, &sec);
      int ok = err < 1e-5;
      failed |= !ok;
      if (me == 0)
        printf("{\"grid\": \"%dx%d\", \"trans\": \"%c%c\", \"m\": %d, \"n\": %d, \"k\": %d, "
               "\"mb\": %d, \"nb\": %d, \"max_rel_err\": %.3g, \"correct\": %s}\n",
               g.nprow, g.npcol, cases[i].ta, cases[i].tb, cases[i].m, cases[i].n, cases[i].k,
               cases[i].mb, cases[i].nb, err, ok ? "true" : "false");
    }
    if (time_n > 0 && shape == 0) {
      double best[64], err, sec;
      int r;
      run_case(&g, 'N', 'N', time_n, time_n, time_n, 128, 128, 0, &err, &sec); /* warm-up */
      for (r = 0; r < reps && r < 64; ++r) {
        run_case(&g, 'N', 'N', time_n, time_n, time_n, 128, 128, 0, &err, &sec);
        best[r] = sec;
      }
      for (int x = 1; x < r; ++x) /* median */
        for (int y = x; y > 0 && best[y] < best[y - 1]; --y) {
          double t = best[y];
          best[y] = best[y - 1];
          best[y - 1] = t;
        }
      double med = best[r / 2];
      if (me == 0)
        printf("{\"grid\": \"%dx%d\", \"timed\": true, \"n\": %d, \"nb\": 128, \"reps\": %d, "
               "\"median_s\": %.6f, \"gflops\": %.2f}\n",
               g.nprow, g.npcol, time_n, r, med, 2.0 * time_n * (double)time_n * time_n / med * 1e-9);
    }
    Cblacs_gridexit(g.ctxt);
  }
  MPI_Finalize();
  return failed;
}
