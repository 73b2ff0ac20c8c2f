#include "harness/moe_routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace adaptcore::bench {

const std::vector<MoeModel>& moe_models() {
  static const std::vector<MoeModel> models = {
      {"mixtral-8x7b", 8, 2, 4096, 14336},
      {"deepseek-v2-lite", 64, 6, 2048, 1408},
      {"qwen3-30b-a3b", 128, 8, 2048, 768},
  };
  return models;
}

const std::vector<int64_t>& moe_token_counts() {
  static const std::vector<int64_t> tokens = {1, 4, 16, 64, 256, 1024, 4096};
  return tokens;
}

const char* to_string(Routing r) noexcept {
  switch (r) {
    case Routing::Uniform: return "uniform";
    case Routing::Zipf: return "zipf";
    case Routing::Hot: return "hot";
  }
  return "?";
}

bool parse_routing(const std::string& text, Routing& out) noexcept {
  for (const Routing r : {Routing::Uniform, Routing::Zipf, Routing::Hot})
    if (text == to_string(r)) {
      out = r;
      return true;
    }
  return false;
}

MoeRouting route_tokens(const MoeModel& model, int64_t tokens, Routing routing,
                        std::uint64_t seed) {
  const int E = model.experts, k = std::min(model.top_k, model.experts);
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(tokens));
  // Popularity of each expert: Zipf over a random order of the experts, or flat.
  std::vector<double> pop(static_cast<std::size_t>(E), 1.0);
  if (routing == Routing::Zipf) {
    std::vector<int> order(static_cast<std::size_t>(E));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int r = 0; r < E; ++r)
      pop[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] =
          1.0 / std::pow(r + 1, 1.2);
  }
  const int hot = static_cast<int>(rng() % static_cast<std::uint64_t>(E));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::vector<std::pair<int64_t, float>>> per_expert(static_cast<std::size_t>(E));
  std::vector<int> chosen;
  std::vector<double> w(static_cast<std::size_t>(E));
  for (int64_t t = 0; t < tokens; ++t) {
    chosen.clear();
    if (routing == Routing::Hot && u(rng) < 0.5) chosen.push_back(hot);
    // Weighted sampling without replacement among the experts not chosen yet.
    while (static_cast<int>(chosen.size()) < k) {
      double total = 0.0;
      for (int e = 0; e < E; ++e) {
        const bool taken = std::find(chosen.begin(), chosen.end(), e) != chosen.end() ||
                           (routing == Routing::Hot && e == hot);
        w[static_cast<std::size_t>(e)] = taken ? 0.0 : pop[static_cast<std::size_t>(e)];
        total += w[static_cast<std::size_t>(e)];
      }
      if (total <= 0.0) break;  // Hot with k == E: the hot expert is all that is left
      double x = u(rng) * total;
      int pick = E - 1;
      for (int e = 0; e < E; ++e) {
        x -= w[static_cast<std::size_t>(e)];
        if (x < 0.0 && w[static_cast<std::size_t>(e)] > 0.0) {
          pick = e;
          break;
        }
      }
      chosen.push_back(pick);
    }
    double sum = 0.0;
    std::vector<double> gate(chosen.size());
    for (double& g : gate) sum += (g = 0.1 + u(rng));
    for (std::size_t i = 0; i < chosen.size(); ++i)
      per_expert[static_cast<std::size_t>(chosen[i])].emplace_back(
          t, static_cast<float>(gate[i] / sum));
  }
  MoeRouting r;
  for (const auto& list : per_expert) {
    r.expert_rows.push_back(static_cast<int64_t>(list.size()));
    for (const auto& [t, g] : list) r.token.push_back(t), r.weight.push_back(g);
  }
  return r;
}

}  // namespace adaptcore::bench
