// Shape suites of the benchmark harness: the GEMM shapes a run times, read from the plain-text
// files in bench/suites/ or generated here (bench/README.md, "Suite files").
//
// A file holds one shape a line, `M N K [ta tb [lda ldb ldc]]`: row-major
// C[M x N] = op(A)[M x K] * op(B)[K x N], ta/tb `N` or `T` (A stored M x K when N, K x M when
// T; B stored K x N when N, N x K when T), leading dimensions dense when omitted or 0. `#`
// starts a comment; a comment line names the layer (the shape's `tag`) of the shapes that follow
// it up to the next blank line or comment line, a comment after a shape names that shape alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace adaptcore::bench {

struct SuiteShape {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0 = dense
  std::string tag;                    // the comment naming the layer, may be empty
};

// The dense leading dimensions: the column counts of A, B and C as stored.
int64_t dense_lda(const SuiteShape&);
int64_t dense_ldb(const SuiteShape&);
int64_t dense_ldc(const SuiteShape&);
// The shape with every 0 (dense) leading dimension replaced by the dense value.
SuiteShape with_leading_dims(SuiteShape);

// "llm", "llm-nt", "small", "odd", "tiny", "quant", "quant-tiny", "llm100", "square", "decode",
// "decode-nt" (files in suites_dir), "random", "full" (generated).
std::vector<std::string> suite_names();

// Where the suite files are: $ADAPTCORE_SUITES_DIR if set and not empty; else, for an installed
// command line, <its folder>/../share/adaptcore/suites (found through /proc/self/exe, so the
// installed tree may be moved); else the source tree's bench/suites as configured at build time.
std::string default_suites_dir();

// The file load_suite reads for name_or_path (suites_dir as there); empty for a generated suite.
std::string suite_file(const std::string& name_or_path, const std::string& suites_dir);

// One line of the file format that parse_suite reads back as the same shape, tag included
// (`M N K`, then `ta tb` when a transpose or leading dimension is set, then `lda ldb ldc` when
// a leading dimension is set, then `  # tag`).
std::string format_shape(const SuiteShape& s);

// name_or_path: one of suite_names() (a name takes precedence over a file of the same name in
// the working directory), or the path of a suite file. suites_dir empty: default_suites_dir().
// seed is used by "random" and "full", random_count by "random" only. Throws
// std::runtime_error: a file that cannot be read or holds no shape, or parse_suite's errors.
std::vector<SuiteShape> load_suite(const std::string& name_or_path, const std::string& suites_dir,
                                   std::uint64_t seed = 1, std::size_t random_count = 200);

// Parses a suite in the file format above. Throws std::runtime_error("source:line: what") on a
// syntax error or an invalid shape: a size or leading dimension that is not a positive integer
// (0 for a leading dimension means dense), above 2^31 - 1 (CBLAS takes int), or a leading
// dimension smaller than the dense one. An input without shapes gives an empty vector.
std::vector<SuiteShape> parse_suite(std::istream& in, const std::string& source_name);

// The generated suites (suites_generated.cpp), identical for a seed on every platform and
// standard library: std::mt19937_64 with the project's own draws.
// random: `count` shapes, M, N, K each log-uniform in [1, 8192], no transposes, dense.
std::vector<SuiteShape> random_suite(std::size_t count, std::uint64_t seed);
// full: kFullSuiteSize shapes mixing the distributions of llm, random, small and odd.
inline constexpr std::size_t kFullSuiteSize = 80000;
std::vector<SuiteShape> full_suite(std::uint64_t seed);
// A uniformly random subset of `count` shapes (all of them if count >= size), in suite order,
// drawn by a generator seeded with `seed`: the same seed gives the same subset everywhere.
std::vector<SuiteShape> sample_shapes(const std::vector<SuiteShape>& shapes, std::size_t count,
                                      std::uint64_t seed);

}  // namespace adaptcore::bench
