// The `moe` suite's cases (bench/README.md, "Mixture-of-Experts"): three models' expert FFNs,
// tokens per step, and the routing of the tokens to their top-k experts, uniform, Zipf-skewed or
// with one hot expert. A routing is what a Mixture-of-Experts layer hands its expert GEMMs: each
// expert's token count and, in expert order, every routed row's token and routing weight.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace adaptcore::bench {

struct MoeModel {
  std::string name;
  int experts = 0, top_k = 0;
  int64_t hidden = 0, ffn = 0;  // hidden -> ffn (up), ffn -> hidden (down)
};
// Mixtral-8x7B (8 experts, top-2, 4096 <-> 14336), DeepSeek-V2-Lite (64, top-6, 2048 <->
// 1408), Qwen3-30B-A3B (128, top-8, 2048 <-> 768).
const std::vector<MoeModel>& moe_models();
// Tokens per step of the suite: 1, 4, 16, 64, 256, 1024, 4096.
const std::vector<int64_t>& moe_token_counts();

enum class Routing { Uniform, Zipf, Hot };
const char* to_string(Routing r) noexcept;
bool parse_routing(const std::string& text, Routing& out) noexcept;

struct MoeRouting {
  std::vector<int64_t> expert_rows;  // tokens routed to each expert
  std::vector<int64_t> token;        // routed rows in expert order: the token of each
  std::vector<float> weight;         // and its routing weight (a token's weights sum to 1)
  int64_t routed() const noexcept { return static_cast<int64_t>(token.size()); }
};

// Each token picks top_k distinct experts: Uniform, all alike; Zipf, expert e (in a random
// order of the experts) with probability proportional to 1 / rank^1.2; Hot, one expert in half
// of the tokens and the rest uniform among the others. Weights: random, normalised per token.
// Deterministic per seed.
MoeRouting route_tokens(const MoeModel& model, int64_t tokens, Routing routing, std::uint64_t seed);

}  // namespace adaptcore::bench
