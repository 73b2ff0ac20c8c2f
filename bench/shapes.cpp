#include "shapes.hpp"

#include <cstdlib>
#include <sstream>

namespace adaptcore::bench {
namespace {

// Decode-to-prefill token counts and the projection sizes of 7B/8B-class models (hidden 4096,
// MLP 11008 for Llama-2 7B, 14336 for Llama-3 8B and Mistral 7B; 1024 stands for the
// grouped-query K/V projections).
constexpr int64_t kM[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
constexpr int64_t kNK[] = {1024, 4096, 11008, 14336};
constexpr int kNumM = sizeof(kM) / sizeof(kM[0]);
constexpr int kNumNK = sizeof(kNK) / sizeof(kNK[0]);

// llm100: shape i = 0..99 takes (N, K) pair p = i mod 16 (N major, K minor over kNK) and M
// index (p + 2 * (i div 16)) mod 13. Each pair gets 6 or 7 distinct M values (7 for p < 4,
// since 100 = 6 x 16 + 4) spread over the whole range, every M appears 7-9 times, and no
// (M, N, K) repeats. Listed in that order.
std::vector<Shape> llm100() {
  std::vector<Shape> v;
  for (int i = 0; i < 100; ++i) {
    const int p = i % (kNumNK * kNumNK);
    const int r = i / (kNumNK * kNumNK);
    v.push_back({kM[(p + 2 * r) % kNumM], kNK[p / kNumNK], kNK[p % kNumNK]});
  }
  return v;
}

}  // namespace

const char* suite_names() { return "llm100, square, square-all, demo"; }

bool suite_shapes(const std::string& name, std::vector<Shape>& out) {
  if (name == "llm100") {
    out = llm100();
  } else if (name == "square") {
    out = {{2048, 2048, 2048}};
  } else if (name == "square-all") {
    out = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
  } else if (name == "demo") {
    // Decode (M = 1, 8), small batches and prefill chunks against 7B/8B projections: about
    // 30 s for both libraries at 2 threads.
    out = {{1, 4096, 4096},   {1, 14336, 4096},  {8, 4096, 4096},    {16, 1024, 4096},
           {64, 11008, 4096}, {128, 4096, 4096}, {512, 4096, 11008}, {2048, 4096, 4096}};
  } else {
    return false;
  }
  return true;
}

bool parse_shapes(const std::string& text, std::vector<Shape>& out, std::string& error) {
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    Shape s{};
    char* end = nullptr;
    const char* p = item.c_str();
    int64_t* dims[3] = {&s.m, &s.n, &s.k};
    for (int d = 0; d < 3; ++d) {
      *dims[d] = std::strtoll(p, &end, 10);
      if (end == p || *dims[d] < 1 || (d < 2 && *end != 'x') || (d == 2 && *end != '\0')) {
        error = "bad shape '" + item + "' (want MxNxK with positive sizes)";
        return false;
      }
      p = end + 1;
    }
    out.push_back(s);
  }
  if (out.empty()) error = "no shapes given";
  return !out.empty();
}

}  // namespace adaptcore::bench
