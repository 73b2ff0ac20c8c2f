// `adaptcore precompile`: plans every combination of the given M, N and K values the way a
// real call on this context would (same key, same planner, through the cache) and writes them
// to a plan file for ADAPTCORE_PLAN_FILE / Context::load_plan_file.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/plan_file.hpp"

namespace adaptcore::cli {
namespace {

constexpr std::uint64_t kMaxShapes = 5'000'000;

struct PrecompileArgs {
  ContextArgs ctx;
  std::string m, n, k;
  bool transa = false, transb = false;
  std::string out;
};

bool parse_int(const std::string& t, int64_t& v) {
  if (t.empty()) return false;
  std::size_t used = 0;
  try {
    v = std::stoll(t, &used, 10);
  } catch (...) {
    return false;
  }
  return used == t.size();
}

// "a", "a:b" (every integer in [a, b]) or "a:b:s" (step s), comma separated. Values are
// dimensions >= 1; the list is kept in order without duplicates. Empty + why on error.
std::vector<int64_t> parse_spec(const std::string& spec, std::string& why) {
  std::vector<int64_t> out;
  std::size_t start = 0;
  constexpr int64_t kMaxDim = int64_t{1} << 31;
  while (start <= spec.size()) {
    const std::size_t comma = spec.find(',', start);
    const std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int64_t parts[3] = {0, 0, 1};
    int count = 0;
    std::size_t p = 0;
    bool ok = true;
    while (ok) {
      const std::size_t colon = item.find(':', p);
      const std::string tok =
          item.substr(p, colon == std::string::npos ? std::string::npos : colon - p);
      if (count == 3 || !parse_int(tok, parts[count])) ok = false;
      ++count;
      if (colon == std::string::npos) break;
      p = colon + 1;
    }
    if (!ok) {
      why = "'" + item + "' is not a value, a:b or a:b:s";
      return {};
    }
    const int64_t a = parts[0], b = count >= 2 ? parts[1] : parts[0], s = count == 3 ? parts[2] : 1;
    if (a < 1 || b < 1 || a > kMaxDim || b > kMaxDim) {
      why = "'" + item + "': dimensions must be in 1.." + std::to_string(kMaxDim) +
            " (m, n or k = 0 never plans)";
      return {};
    }
    if (b < a || s < 1) {
      why = "'" + item + "': a range a:b:s needs a <= b and s >= 1";
      return {};
    }
    if (static_cast<std::uint64_t>((b - a) / s) + out.size() >= kMaxShapes) {
      why = "'" + item + "' has more than " + std::to_string(kMaxShapes) + " values";
      return {};
    }
    for (int64_t v = a;; v += s) {  // v + s may not fit in 64 bits: stop before it is made
      out.push_back(v);
      if (b - v < s) break;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // Keep first occurrences only.
  std::vector<int64_t> uniq;
  std::unordered_set<int64_t> seen;
  for (const int64_t v : out)
    if (seen.insert(v).second) uniq.push_back(v);
  return uniq;
}

void run_precompile(const PrecompileArgs& args) {
  std::string why;
  const std::vector<int64_t> ms = parse_spec(args.m, why);
  if (ms.empty()) {
    std::cerr << "error: --m: " << why << '\n';
    throw CLI::RuntimeError(1);
  }
  const std::vector<int64_t> ns = parse_spec(args.n, why);
  if (ns.empty()) {
    std::cerr << "error: --n: " << why << '\n';
    throw CLI::RuntimeError(1);
  }
  const std::vector<int64_t> ks = parse_spec(args.k, why);
  if (ks.empty()) {
    std::cerr << "error: --k: " << why << '\n';
    throw CLI::RuntimeError(1);
  }
  const long double shapes = static_cast<long double>(ms.size()) * ns.size() * ks.size();
  if (shapes > static_cast<long double>(kMaxShapes)) {
    std::cerr << "error: " << ms.size() << " x " << ns.size() << " x " << ks.size()
              << " shapes is more than " << kMaxShapes << "; narrow the ranges\n";
    throw CLI::RuntimeError(1);
  }
  const auto total = static_cast<std::size_t>(shapes);
  if (total > PlanCache::max_entries)
    std::cerr << "warning: " << total << " shapes; a context caches at most "
              << PlanCache::max_entries << " plans, so only the first ones load\n";

  auto ctx = make_context(args.ctx);
  if (!ctx) throw CLI::RuntimeError(1);
  detail::ContextImpl& impl = ::adaptcore::detail::impl_of(*ctx);

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<PlanEntry> entries;
  entries.reserve(total);
  for (const int64_t m : ms)
    for (const int64_t n : ns)
      for (const int64_t k : ks) {
        ShapeArgs s;
        s.m = m, s.n = n, s.k = k;
        s.transa = args.transa, s.transb = args.transb;
        GemmProblem prob;
        const Status st = shape_problem(s, prob);
        if (st != Status::Ok) {
          std::cerr << "error: " << s.str() << ": " << to_string(st) << '\n';
          throw CLI::RuntimeError(1);
        }
        // Both residencies: a call with new operands plans for them in memory, a repeated
        // call for them in cache (Residency::Auto).
        for (const bool cold : {true, false}) {
          const ShapeKey key = impl.key_for(prob, cold);
          entries.emplace_back(key, impl.plan_for(key));
        }
      }
  const double plan_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Everything written must load: the loader's rules hold for the planner's output.
  for (const auto& [key, plan] : entries) {
    const std::string bad = check_plan_entry(key, plan, ctx->hardware());
    if (!bad.empty()) {
      std::cerr << "internal error: the planner's plan for m=" << key.m << " n=" << key.n
                << " k=" << key.k << " (" << describe(plan) << ") fails validation: " << bad
                << '\n';
      throw CLI::RuntimeError(2);
    }
  }

  std::string err;
  if (write_plan_file(args.out, entries, ctx->hardware(), ctx->isa(), &err) != Status::Ok) {
    std::cerr << "error: " << err << '\n';
    throw CLI::RuntimeError(1);
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(args.out, ec);
  std::cout << "precompiled " << entries.size() << " plans (" << ms.size() << " m x " << ns.size()
            << " n x " << ks.size() << " k x cold and warm operands, " << (args.transa ? 'T' : 'N')
            << (args.transb ? 'T' : 'N') << ", isa=" << to_string(ctx->isa())
            << " threads=" << ctx->threads() << ") in " << format_fixed(plan_s, 3) << " s ("
            << format_fixed(
                   entries.empty() ? 0.0 : plan_s * 1e6 / static_cast<double>(entries.size()), 1)
            << " us/plan)\nwrote " << args.out << ": "
            << (ec ? std::string("size unknown") : std::to_string(bytes) + " bytes") << '\n';
}

}  // namespace

void register_precompile(CLI::App& app) {
  auto args = std::make_shared<PrecompileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "precompile",
      "plan a set of shapes ahead of time and write a plan file (ADAPTCORE_PLAN_FILE)");
  cmd->add_option("-m,--m", args->m, "M values: comma list of v, a:b or a:b:s")->required();
  cmd->add_option("-n,--n", args->n, "N values: comma list of v, a:b or a:b:s")->required();
  cmd->add_option("-k,--k", args->k, "K values: comma list of v, a:b or a:b:s")->required();
  cmd->add_flag("--transa", args->transa, "A is stored k x m (op(A) = A^T)");
  cmd->add_flag("--transb", args->transb, "B is stored n x k (op(B) = B^T)");
  add_context_options(*cmd, args->ctx);
  cmd->add_option("-o,--out", args->out, "plan file to write")->required();
  cmd->callback([args] { run_precompile(*args); });
}

}  // namespace adaptcore::cli
