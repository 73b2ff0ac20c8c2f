// Suite files: parsing, validation, and finding them by name (see suites.hpp for the format).
#include "harness/suites.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

// The source tree's suites (for runs from the build tree) and the installed suites' path
// relative to the installed executable's folder (bench/harness/CMakeLists.txt sets both).
#ifndef ADAPTCORE_SUITES_DIR
#define ADAPTCORE_SUITES_DIR "bench/suites"
#endif
#ifndef ADAPTCORE_SUITES_FROM_BINDIR
#define ADAPTCORE_SUITES_FROM_BINDIR "../share/adaptcore/suites"
#endif

namespace adaptcore::bench {

namespace {

// CBLAS and most vendor interfaces take `int` sizes; a larger shape could not be run by them.
constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();

constexpr std::string_view kFileSuites[] = {"llm",    "llm-nt", "small",      "odd",
                                            "tiny",   "quant",  "quant-tiny", "llm100",
                                            "square", "decode", "decode-nt"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Throws with the location, in the `file:line: message` form editors and compilers use.
[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& what) {
  throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}

// A decimal integer, nothing else (no sign, no trailing characters).
int64_t parse_int(std::string_view field, const char* what, const std::string& source,
                  std::size_t line) {
  int64_t v = 0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == end && v > kMaxDim)) {
    fail(source, line, std::string(what) + " " + std::string(field) + " is above 2^31 - 1");
  }
  if (ec != std::errc() || ptr != end) {
    fail(source, line, std::string(what) + " '" + std::string(field) + "' is not an integer");
  }
  return v;
}

bool parse_trans(std::string_view field, const char* what, const std::string& source,
                 std::size_t line) {
  if (field == "N" || field == "n") return false;
  if (field == "T" || field == "t") return true;
  fail(source, line, std::string(what) + " '" + std::string(field) + "' is not N or T");
}

void check_ld(int64_t ld, int64_t dense, const char* what, const std::string& source,
              std::size_t line) {
  if (ld < 0) fail(source, line, std::string(what) + " " + std::to_string(ld) + " is negative");
  if (ld != 0 && ld < dense) {
    fail(source, line,
         std::string(what) + " " + std::to_string(ld) + " is smaller than the dense " +
             std::to_string(dense));
  }
}

SuiteShape parse_shape(std::string_view body, const std::string& source, std::size_t line) {
  const std::vector<std::string_view> f = split_fields(body);
  if (f.size() != 3 && f.size() != 5 && f.size() != 8) {
    fail(source, line,
         "expected `M N K [ta tb [lda ldb ldc]]`, got " + std::to_string(f.size()) + " fields");
  }
  SuiteShape s{};
  s.m = parse_int(f[0], "M", source, line);
  s.n = parse_int(f[1], "N", source, line);
  s.k = parse_int(f[2], "K", source, line);
  if (s.m <= 0 || s.n <= 0 || s.k <= 0) {
    fail(source, line,
         "sizes must be positive, got " + std::to_string(s.m) + " " + std::to_string(s.n) + " " +
             std::to_string(s.k));
  }
  if (f.size() >= 5) {
    s.trans_a = parse_trans(f[3], "ta", source, line);
    s.trans_b = parse_trans(f[4], "tb", source, line);
  }
  if (f.size() == 8) {
    s.lda = parse_int(f[5], "lda", source, line);
    s.ldb = parse_int(f[6], "ldb", source, line);
    s.ldc = parse_int(f[7], "ldc", source, line);
    check_ld(s.lda, dense_lda(s), "lda", source, line);
    check_ld(s.ldb, dense_ldb(s), "ldb", source, line);
    check_ld(s.ldc, dense_ldc(s), "ldc", source, line);
  }
  return s;
}

bool is_file_suite(std::string_view name) {
  for (std::string_view s : kFileSuites) {
    if (s == name) return true;
  }
  return false;
}

// <folder of the running executable>/ADAPTCORE_SUITES_FROM_BINDIR if that folder exists (an
// installed command line), else empty.
std::string installed_suites_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  const fs::path dir = (exe.parent_path() / ADAPTCORE_SUITES_FROM_BINDIR).lexically_normal();
  return fs::is_directory(dir, ec) ? dir.string() : std::string();
}

std::vector<SuiteShape> load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::string known;
    for (const std::string& n : suite_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::runtime_error("cannot read suite file " + path + " (suites by name: " + known + ")");
  }
  std::vector<SuiteShape> shapes = parse_suite(in, path);
  if (shapes.empty()) throw std::runtime_error(path + ": no shapes");
  return shapes;
}

}  // namespace

int64_t dense_lda(const SuiteShape& s) { return s.trans_a ? s.m : s.k; }
int64_t dense_ldb(const SuiteShape& s) { return s.trans_b ? s.k : s.n; }
int64_t dense_ldc(const SuiteShape& s) { return s.n; }

SuiteShape with_leading_dims(SuiteShape s) {
  if (s.lda == 0) s.lda = dense_lda(s);
  if (s.ldb == 0) s.ldb = dense_ldb(s);
  if (s.ldc == 0) s.ldc = dense_ldc(s);
  return s;
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names(std::begin(kFileSuites), std::end(kFileSuites));
  names.emplace_back("random");
  names.emplace_back("full");
  return names;
}

std::string default_suites_dir() {
  const char* env = std::getenv("ADAPTCORE_SUITES_DIR");
  if (env != nullptr && *env != '\0') return env;
  if (std::string installed = installed_suites_dir(); !installed.empty()) return installed;
  return ADAPTCORE_SUITES_DIR;
}

std::string suite_file(const std::string& name_or_path, const std::string& suites_dir) {
  if (name_or_path == "random" || name_or_path == "full") return {};
  if (is_file_suite(name_or_path))
    return (suites_dir.empty() ? default_suites_dir() : suites_dir) + "/" + name_or_path + ".txt";
  return name_or_path;
}

std::string format_shape(const SuiteShape& s) {
  std::ostringstream line;
  line << s.m << ' ' << s.n << ' ' << s.k;
  const bool lds = s.lda != 0 || s.ldb != 0 || s.ldc != 0;
  if (lds || s.trans_a || s.trans_b) line << (s.trans_a ? " T" : " N") << (s.trans_b ? " T" : " N");
  if (lds) line << ' ' << s.lda << ' ' << s.ldb << ' ' << s.ldc;
  if (!s.tag.empty()) line << "  # " << s.tag;
  return line.str();
}

std::vector<SuiteShape> parse_suite(std::istream& in, const std::string& source_name) {
  std::vector<SuiteShape> shapes;
  std::string tag;  // the latest comment line of the current paragraph
  std::string text;
  std::size_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::string_view view = text;
    std::string_view comment;
    if (std::size_t hash = view.find('#'); hash != std::string_view::npos) {
      comment = trim(view.substr(hash + 1));
      view = view.substr(0, hash);
    }
    const std::string_view body = trim(view);
    if (body.empty()) {
      if (!comment.empty()) {
        tag = std::string(comment);
      } else if (text.find('#') == std::string::npos) {
        tag.clear();  // a blank line ends the paragraph a comment named
      }
      continue;
    }
    SuiteShape s = parse_shape(body, source_name, line);
    s.tag = comment.empty() ? tag : std::string(comment);
    shapes.push_back(std::move(s));
  }
  if (in.bad())
    throw std::runtime_error(source_name + ": read error after line " + std::to_string(line));
  return shapes;
}

std::vector<SuiteShape> load_suite(const std::string& name_or_path, const std::string& suites_dir,
                                   std::uint64_t seed, std::size_t random_count) {
  if (name_or_path == "random") return random_suite(random_count, seed);
  if (name_or_path == "full") return full_suite(seed);
  return load_file(suite_file(name_or_path, suites_dir));
}

}  // namespace adaptcore::bench
