// The arguments of a cblas_sgemm call as the BLAS tests build them: the CBLAS enum values and
// the smallest leading dimensions reference CBLAS accepts for a layout and transposes.
#pragma once

#include <algorithm>

namespace adaptcore::test {

constexpr int kRow = 101, kCol = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113;

struct CblasArgs {
  int layout = kRow, ta = kNoTrans, tb = kNoTrans;
  int m = 4, n = 6, k = 5;
  int lda = -1, ldb = -1, ldc = -1;  // -1: the minimum for layout and transposes
  int min_lda() const {
    const bool row = layout == kRow, at = ta != kNoTrans;
    return std::max(1, row ? (at ? m : k) : (at ? k : m));
  }
  int min_ldb() const {
    const bool row = layout == kRow, bt = tb != kNoTrans;
    return std::max(1, row ? (bt ? k : n) : (bt ? n : k));
  }
  int min_ldc() const { return std::max(1, layout == kRow ? n : m); }
};

}  // namespace adaptcore::test
