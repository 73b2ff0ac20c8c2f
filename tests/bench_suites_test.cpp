// Shape suites of the benchmark harness (bench/harness/suites.hpp, bench/suites/): every file
// parses with its documented size and content, the generated suites are deterministic and
// within their ranges, and malformed input is rejected with file:line.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "harness/suites.hpp"

namespace ab = adaptcore::bench;

namespace {

std::vector<ab::SuiteShape> parse(const std::string& text, const std::string& name = "t.txt") {
  std::istringstream in(text);
  return ab::parse_suite(in, name);
}

// The message of the exception parsing `text` throws, or "" if it does not throw.
std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

using Key = std::tuple<int64_t, int64_t, int64_t, bool, bool, int64_t, int64_t, int64_t>;
Key key(const ab::SuiteShape& s) {
  return {s.m, s.n, s.k, s.trans_a, s.trans_b, s.lda, s.ldb, s.ldc};
}

bool same(const std::vector<ab::SuiteShape>& a, const std::vector<ab::SuiteShape>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (key(a[i]) != key(b[i]) || a[i].tag != b[i].tag) return false;
  }
  return true;
}

void expect_valid(const ab::SuiteShape& s) {
  EXPECT_GT(s.m, 0);
  EXPECT_GT(s.n, 0);
  EXPECT_GT(s.k, 0);
  EXPECT_TRUE(s.lda == 0 || s.lda >= ab::dense_lda(s));
  EXPECT_TRUE(s.ldb == 0 || s.ldb >= ab::dense_ldb(s));
  EXPECT_TRUE(s.ldc == 0 || s.ldc >= ab::dense_ldc(s));
}

const std::vector<int64_t> kLlmM = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

}  // namespace

TEST(BenchSuites, NamesAndDenseLeadingDimensions) {
  EXPECT_EQ(ab::suite_names(), (std::vector<std::string>{"llm", "llm-nt", "small", "odd", "tiny",
                                                         "quant", "quant-tiny", "llm100", "square",
                                                         "decode", "decode-nt", "random", "full"}));
  ab::SuiteShape s;
  s.m = 3;
  s.n = 5;
  s.k = 7;
  EXPECT_EQ(ab::dense_lda(s), 7);  // A stored 3 x 7
  EXPECT_EQ(ab::dense_ldb(s), 5);  // B stored 7 x 5
  EXPECT_EQ(ab::dense_ldc(s), 5);
  s.trans_a = s.trans_b = true;
  EXPECT_EQ(ab::dense_lda(s), 3);  // A stored 7 x 3
  EXPECT_EQ(ab::dense_ldb(s), 7);  // B stored 5 x 7
  const ab::SuiteShape full = ab::with_leading_dims(s);
  EXPECT_EQ(full.lda, 3);
  EXPECT_EQ(full.ldb, 7);
  EXPECT_EQ(full.ldc, 5);
}

TEST(BenchSuites, EveryFileParsesWithoutDuplicates) {
  const std::map<std::string, std::size_t> sizes = {
      {"llm", 182},  {"llm-nt", 8},  {"small", 202},    {"odd", 100},
      {"tiny", 8},   {"quant", 23},  {"quant-tiny", 3}, {"llm100", 100},
      {"square", 3}, {"decode", 67}, {"decode-nt", 67}};
  for (const auto& [name, size] : sizes) {
    SCOPED_TRACE(name);
    const std::vector<ab::SuiteShape> shapes = ab::load_suite(name, "");
    EXPECT_EQ(shapes.size(), size);
    std::set<Key> seen;
    for (const ab::SuiteShape& s : shapes) {
      expect_valid(s);
      EXPECT_TRUE(seen.insert(key(s)).second) << s.m << " " << s.n << " " << s.k;
      EXPECT_FALSE(s.tag.empty());
    }
  }
}

TEST(BenchSuites, LlmCoversEveryModelAndEveryM) {
  const std::vector<ab::SuiteShape> shapes = ab::load_suite("llm", "");
  const std::vector<std::string> models = {"llama3-8b", "llama3-70b", "qwen3-8b", "mixtral-8x7b",
                                           "deepseek-v2-lite"};
  for (const std::string& model : models) {
    std::set<int64_t> ms;
    for (const ab::SuiteShape& s : shapes) {
      if (s.tag.rfind(model + " ", 0) == 0) ms.insert(s.m);
    }
    EXPECT_EQ(ms, std::set<int64_t>(kLlmM.begin(), kLlmM.end())) << model;
  }
  // Spot checks of the configurations (bench/suites/llm.txt cites them).
  auto has = [&](int64_t n, int64_t k) {
    return std::any_of(shapes.begin(), shapes.end(),
                       [&](const ab::SuiteShape& s) { return s.n == n && s.k == k; });
  };
  EXPECT_TRUE(has(6144, 4096));   // llama3-8b / qwen3-8b qkv
  EXPECT_TRUE(has(28672, 4096));  // llama3-8b gate+up
  EXPECT_TRUE(has(10240, 8192));  // llama3-70b qkv
  EXPECT_TRUE(has(8192, 28672));  // llama3-70b down
  EXPECT_TRUE(has(4096, 12288));  // qwen3-8b down
  EXPECT_TRUE(has(14336, 4096));  // mixtral w1/w3
  EXPECT_TRUE(has(1408, 2048));   // deepseek-v2-lite gate/up
  EXPECT_TRUE(has(2048, 1408));   // deepseek-v2-lite down
  for (const ab::SuiteShape& s : shapes) {
    EXPECT_FALSE(s.trans_a || s.trans_b);
    EXPECT_EQ(s.lda + s.ldb + s.ldc, 0);
  }
}

// llm100 (the earlier comparisons' suite, bench/suites/llm100.txt): shape i takes the (N, K)
// pair p = i mod 16 of {1024, 4096, 11008, 14336}^2, N-major, and M index (p + 2 (i / 16)) mod 13.
TEST(BenchSuites, Llm100FollowsItsRule) {
  const std::vector<int64_t> ms = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  const std::vector<int64_t> nk = {1024, 4096, 11008, 14336};
  const std::vector<ab::SuiteShape> shapes = ab::load_suite("llm100", "");
  ASSERT_EQ(shapes.size(), 100u);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::size_t p = i % 16, r = i / 16;
    EXPECT_EQ(shapes[i].m, ms[(p + 2 * r) % 13]) << i;
    EXPECT_EQ(shapes[i].n, nk[p / 4]) << i;
    EXPECT_EQ(shapes[i].k, nk[p % 4]) << i;
    EXPECT_FALSE(shapes[i].trans_a || shapes[i].trans_b);
    EXPECT_EQ(shapes[i].lda + shapes[i].ldb + shapes[i].ldc, 0);
  }
}

// format_shape writes the file format back (what `adaptcore bench --list` prints): every shape
// of every suite file, and shapes with each combination of transposes, leading dimensions and
// tags, parse back to themselves.
TEST(BenchSuites, FormatShapeRoundTrips) {
  std::vector<ab::SuiteShape> shapes;
  for (const std::string& name : ab::suite_names()) {
    if (name == "random" || name == "full") continue;
    const auto file = ab::load_suite(name, "");
    shapes.insert(shapes.end(), file.begin(), file.end());
  }
  shapes.push_back({3, 4, 5, false, false, 0, 0, 0, ""});
  shapes.push_back({3, 4, 5, true, false, 0, 0, 0, "a # b"});
  shapes.push_back({3, 4, 5, false, false, 0, 9, 0, "padded B"});
  shapes.push_back({3, 4, 5, false, true, 6, 0, 8, ""});
  std::string text;
  for (const ab::SuiteShape& s : shapes) text += ab::format_shape(s) + "\n";
  EXPECT_TRUE(same(parse(text), shapes));
  EXPECT_EQ(ab::format_shape({3, 4, 5, false, false, 0, 0, 0, ""}), "3 4 5");
  EXPECT_EQ(ab::format_shape({3, 4, 5, true, false, 0, 0, 0, "x"}), "3 4 5 T N  # x");
  EXPECT_EQ(ab::format_shape({3, 4, 5, false, false, 0, 9, 0, ""}), "3 4 5 N N 0 9 0");
}

// The file load_suite reads for a name, a path, and a generated suite (none).
TEST(BenchSuites, SuiteFileNamesWhatIsRead) {
  EXPECT_EQ(ab::suite_file("tiny", "/x"), "/x/tiny.txt");
  EXPECT_EQ(ab::suite_file("tiny", ""), ab::default_suites_dir() + "/tiny.txt");
  EXPECT_EQ(ab::suite_file("my/own.txt", "/x"), "my/own.txt");
  EXPECT_EQ(ab::suite_file("random", "/x"), "");
  EXPECT_EQ(ab::suite_file("full", ""), "");
}

TEST(BenchSuites, SmallOddAndTinyFollowTheirRules) {
  const std::set<int64_t> grid = {1,  2,  3,  4,  7,   8,   12,  16,  24, 31,
                                  32, 48, 64, 96, 100, 128, 192, 255, 256};
  for (const ab::SuiteShape& s : ab::load_suite("small", "")) {
    EXPECT_TRUE(grid.count(s.m) && grid.count(s.n) && grid.count(s.k));
  }
  const std::set<int64_t> primes = {1, 3, 17, 61, 127, 257, 509, 1021, 2039, 4093};
  std::set<std::pair<bool, bool>> transposes;
  int padded = 0, power_of_two = 0;
  for (const ab::SuiteShape& s : ab::load_suite("odd", "")) {
    EXPECT_TRUE(primes.count(s.m) && primes.count(s.n) && primes.count(s.k));
    transposes.insert({s.trans_a, s.trans_b});
    if (s.lda != 0) ++padded;
    if (s.lda == 4096 && ab::dense_lda(s) < 4096) ++power_of_two;
  }
  EXPECT_EQ(transposes.size(), 4u);
  EXPECT_EQ(padded, 40);
  EXPECT_EQ(power_of_two, 10);
  for (const ab::SuiteShape& s : ab::load_suite("tiny", "")) {
    EXPECT_LE(s.m * s.n * s.k, 1 << 20);  // CI must run it in seconds with every library
  }
}

TEST(BenchSuites, RandomIsDeterministicAndLogUniform) {
  const auto a = ab::random_suite(20000, 7);
  EXPECT_TRUE(same(a, ab::random_suite(20000, 7)));
  EXPECT_FALSE(same(a, ab::random_suite(20000, 8)));
  EXPECT_TRUE(same(ab::load_suite("random", "", 7, 20000), a));
  EXPECT_EQ(ab::load_suite("random", "").size(), 200u);
  int below_91 = 0;
  int64_t lo = 1 << 30, hi = 0;
  for (const ab::SuiteShape& s : a) {
    for (int64_t v : {s.m, s.n, s.k}) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      if (v <= 90) ++below_91;
    }
    EXPECT_FALSE(s.trans_a || s.trans_b);
  }
  EXPECT_GE(lo, 1);
  EXPECT_LE(hi, 8192);
  EXPECT_EQ(lo, 1);     // 1 has probability ln 2 / ln 8193 = 7.7% a draw
  EXPECT_GT(hi, 7000);  // the top octave holds 7.7% of the draws as well
  // Log-uniform on [1, 8193): P(v < 91) = ln 91 / ln 8193 = 0.5004.
  EXPECT_NEAR(below_91 / 60000.0, 0.5004, 0.01);
}

// The draws use only the generator's integers and exactly rounded arithmetic, so these values
// are the same with every compiler and standard library; a change here changes every study
// that cites a seed.
TEST(BenchSuites, RandomPinnedValues) {
  const auto s = ab::random_suite(3, 1);
  ASSERT_EQ(s.size(), 3u);
  std::ostringstream got;
  for (const ab::SuiteShape& x : s) got << x.m << "x" << x.n << "x" << x.k << " ";
  // Cross-checked with an independent mt19937_64 and floor(exp(u ln 8193)) in Python.
  EXPECT_EQ(got.str(), "3x3x58 1x23x3685 69x1x169 ");
}

TEST(BenchSuites, FullHasTheDocumentedMix) {
  const auto full = ab::full_suite(1);
  ASSERT_EQ(full.size(), 80000u);
  EXPECT_EQ(ab::full_suite(1).size(), ab::kFullSuiteSize);
  EXPECT_TRUE(same(full, ab::load_suite("full", "", 1)));
  std::map<std::string, int> kinds;
  std::set<std::pair<int64_t, int64_t>> llm_widths;
  for (const ab::SuiteShape& s : full) {
    expect_valid(s);
    EXPECT_LE(std::max({s.m, s.n, s.k}), 28672);
    const std::string kind = s.tag.substr(0, s.tag.find(' ', 5));
    ++kinds[kind];
    if (kind == "full llm") llm_widths.insert({s.n, s.k});
  }
  EXPECT_EQ(kinds["full llm"], 32000);
  EXPECT_EQ(kinds["full random"], 24000);
  EXPECT_EQ(kinds["full small"], 12000);
  EXPECT_EQ(kinds["full odd"], 12000);
  // The llm-like shapes use exactly the widths of llm.txt.
  std::set<std::pair<int64_t, int64_t>> file_widths;
  for (const ab::SuiteShape& s : ab::load_suite("llm", "")) file_widths.insert({s.n, s.k});
  EXPECT_EQ(llm_widths, file_widths);
}

// The measured sample of the full suite: the same subset for a seed, in suite order, and drawn
// from every part (a stride of the suite's 20-shape period would hit one part only).
TEST(BenchSuites, FullSampleIsRandomAndSpansEveryPart) {
  const auto full = ab::full_suite(1);
  const auto a = ab::sample_shapes(full, 2000, 1);
  ASSERT_EQ(a.size(), 2000u);
  EXPECT_TRUE(same(a, ab::sample_shapes(full, 2000, 1)));
  EXPECT_FALSE(same(a, ab::sample_shapes(full, 2000, 2)));
  std::map<std::string, int> kinds;
  for (const ab::SuiteShape& s : a) ++kinds[s.tag.substr(0, s.tag.find(' ', 5))];
  // Expected 800 / 600 / 300 / 300; binomial spreads are about 22, 20, 16, 16.
  EXPECT_NEAR(kinds["full llm"], 800, 110);
  EXPECT_NEAR(kinds["full random"], 600, 100);
  EXPECT_NEAR(kinds["full small"], 300, 80);
  EXPECT_NEAR(kinds["full odd"], 300, 80);
  // In suite order: the sample is a subsequence of the suite.
  std::size_t at = 0;
  for (const ab::SuiteShape& s : a) {
    while (at < full.size() && !same({full[at]}, {s})) ++at;
    ASSERT_LT(at, full.size());
    ++at;
  }
  EXPECT_TRUE(same(ab::sample_shapes(full, 90000, 1), full));
}

TEST(BenchSuites, CommentsNameTheLayers) {
  const auto s = parse(
      "# header, no shapes\n\n# layer a\n1 2 3\n4 5 6  # own tag\n7 8 9\n# layer b\n2 2 2\n\n"
      "3 3 3\n  \t\n5 5 5 t n\r\n6 6 6 N T 6 7 6\n6 6 6 N T 0 0 0\n");
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s[0].tag, "layer a");
  EXPECT_EQ(s[1].tag, "own tag");
  EXPECT_EQ(s[2].tag, "layer a");
  EXPECT_EQ(s[3].tag, "layer b");
  EXPECT_EQ(s[4].tag, "");
  EXPECT_TRUE(s[5].trans_a);
  EXPECT_FALSE(s[5].trans_b);
  EXPECT_EQ(s[6].lda, 6);
  EXPECT_EQ(s[6].ldb, 7);
  EXPECT_EQ(s[7].lda, 0);  // 0 = dense
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("# only a comment\n").empty());
}

TEST(BenchSuites, SyntaxErrorsReportFileAndLine) {
  EXPECT_EQ(parse_error("# c\n\n1 2 3\n1 2 x\n").rfind("t.txt:4: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 3 N\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 3 N T 4 5\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 3\n1 2 3 X N\n").rfind("t.txt:2: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 3 4\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 3x\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("+1 2 3\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 99999999999999999999\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 2 2147483648\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("0 2 3\n").rfind("t.txt:1: ", 0), 0u);
  EXPECT_EQ(parse_error("1 -2 3\n").rfind("t.txt:1: ", 0), 0u);
}

TEST(BenchSuites, LeadingDimensionSmallerThanDenseIsRejected) {
  // A 4 x 6 (N) needs lda >= 6; stored 6 x 4 (T) it needs lda >= 4.
  const std::string e = parse_error("\n4 5 6 N N 5 5 5\n");
  EXPECT_EQ(e.rfind("t.txt:2: ", 0), 0u) << e;
  EXPECT_NE(e.find("lda 5 is smaller than the dense 6"), std::string::npos) << e;
  EXPECT_EQ(parse("4 5 6 T N 4 5 5\n").size(), 1u);
  EXPECT_NE(parse_error("4 5 6 T N 3 5 5\n").find("lda"), std::string::npos);
  EXPECT_NE(parse_error("4 5 6 N T 6 5 5\n").find("ldb"), std::string::npos);  // B 5 x 6
  EXPECT_NE(parse_error("4 5 6 N N 6 5 4\n").find("ldc"), std::string::npos);
  EXPECT_NE(parse_error("4 5 6 N N -1 5 5\n").find("lda"), std::string::npos);
}

TEST(BenchSuites, FilesByPathAndTheDirectoryOverride) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("adaptcore_suites_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "llm.txt") << "# one\n3 4 5\n";
    std::ofstream(dir / "mine.txt") << "# mine\n7 8 9 T T\n";
    std::ofstream(dir / "bad.txt") << "7 8 9\n7 8\n";
    std::ofstream(dir / "empty.txt") << "# nothing\n";
  }
  const auto mine = ab::load_suite((dir / "mine.txt").string(), "");
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].tag, "mine");
  EXPECT_EQ(ab::load_suite("llm", dir.string()).size(), 1u);
  try {
    ab::load_suite((dir / "bad.txt").string(), "");
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "bad.txt").string() + ":2: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(ab::load_suite((dir / "empty.txt").string(), ""), std::runtime_error);
  EXPECT_THROW(ab::load_suite((dir / "missing.txt").string(), ""), std::runtime_error);
  EXPECT_THROW(ab::load_suite("nonexistent-suite", ""), std::runtime_error);

  ASSERT_EQ(::setenv("ADAPTCORE_SUITES_DIR", dir.string().c_str(), 1), 0);
  EXPECT_EQ(ab::default_suites_dir(), dir.string());
  EXPECT_EQ(ab::load_suite("llm", "").size(), 1u);
  ::unsetenv("ADAPTCORE_SUITES_DIR");
  EXPECT_EQ(ab::load_suite("llm", "").size(), 182u);
  std::filesystem::remove_all(dir);
}
