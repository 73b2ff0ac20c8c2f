// Eigen 3 (header-only): its GEMM is compiled into this plugin, with -O3 -march=native so that
// it uses the build machine's vector ISA as an Eigen user would, and OpenMP, which Eigen's
// matrix product uses to split the work over Eigen::nbThreads() threads.
#include <omp.h>

#include <Eigen/Core>
#include <stdexcept>
#include <string>

#include "baselines/call_checks.hpp"
#include "plugin_table.hpp"

namespace {

using adaptcore::bench::GemmCall;
using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstView = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using View = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

class EigenBaseline {
 public:
  explicit EigenBaseline(int threads) : threads_(threads) {
#ifndef EIGEN_HAS_OPENMP
    if (threads > 1) throw std::runtime_error("Eigen plugin built without OpenMP: 1 thread only");
#endif
    apply_threads();
  }

  std::string version() const {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
           "; SIMD: " + Eigen::SimdInstructionSetsInUse() +
           "; threading: OpenMP; threads: " + std::to_string(Eigen::nbThreads());
  }

  bool supports(const GemmCall& c) const { return adaptcore::bench::detail::valid_call(c); }

  void prepare(const GemmCall&) { apply_threads(); }  // nothing per shape

  void run(const GemmCall& c) {
    apply_threads();
    // Each operand is mapped as stored and transposed in the expression: Eigen then picks the
    // packing for that storage order itself.
    const ConstView a(c.a, c.trans_a ? c.k : c.m, c.trans_a ? c.m : c.k,
                      Eigen::OuterStride<>(c.lda));
    const ConstView b(c.b, c.trans_b ? c.n : c.k, c.trans_b ? c.k : c.n,
                      Eigen::OuterStride<>(c.ldb));
    View out(c.c, c.m, c.n, Eigen::OuterStride<>(c.ldc));
    if (!c.trans_a && !c.trans_b) {
      out.noalias() = a * b;
    } else if (c.trans_a && !c.trans_b) {
      out.noalias() = a.transpose() * b;
    } else if (!c.trans_a) {
      out.noalias() = a * b.transpose();
    } else {
      out.noalias() = a.transpose() * b.transpose();
    }
  }

  std::string detail(const GemmCall&) const { return {}; }

 private:
  // Eigen's count is process-wide and OpenMP's is per calling thread: both are checked on each
  // call (two loads) so that another object or thread cannot leave a different count in place.
  void apply_threads() {
    if (Eigen::nbThreads() != threads_) Eigen::setNbThreads(threads_);
    if (omp_get_max_threads() != threads_) omp_set_num_threads(threads_);
  }

  int threads_;
};

}  // namespace

ADAPTCORE_BASELINE_PLUGIN(EigenBaseline)
