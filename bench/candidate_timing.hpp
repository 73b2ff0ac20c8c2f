// Shared by the programs that time every candidate plan of a call against the model
// (f32_candidates.cpp, packed_candidates.cpp): their `--name value` arguments and the table of
// plans with predicted and measured times.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "measure/bench_util.hpp"
#include "plan/plan.hpp"
#include "planner/planner.hpp"

namespace adaptcore::bench {

// `--name value` pairs into `values` (the names given, each at most once). False on anything
// else: an unknown name, a name without a value.
inline bool parse_pairs(int argc, char** argv, const std::vector<std::string>& names,
                        std::map<std::string, std::string>& values) {
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 >= argc || a.rfind("--", 0) != 0) return false;
    bool known = false;
    for (const std::string& n : names) known = known || a == "--" + n;
    if (!known) return false;
    values[a.substr(2)] = argv[i + 1];
  }
  return true;
}

// The value given for `name` as a number, or `fallback` where it was not given.
inline double number(const std::map<std::string, std::string>& values, const std::string& name,
                     double fallback) {
  const auto it = values.find(name);
  return it != values.end() ? std::atof(it->second.c_str()) : fallback;
}

// The plans named in `names` (describe() strings separated by ';'), or every one where it is
// empty: which of e.candidates to time.
inline std::vector<std::size_t> selected_candidates(const Explanation& e,
                                                    const std::string& names) {
  std::vector<std::size_t> out;
  std::string list = ";";
  list.append(names).append(";");
  for (std::size_t ci = 0; ci < e.candidates.size(); ++ci) {
    std::string name = ";";
    name.append(describe(e.candidates[ci].plan)).append(";");
    if (names.empty() || list.find(name) != std::string::npos) out.push_back(ci);
  }
  return out;
}

// `e` with a plan added for every name in `names` that is no candidate but differs from one only
// in its mc, nc or kc (the name's values replace the candidate's), or, reading B in place, in
// prefetchB: blockings the generator does not offer, timed beside those it does. Their
// prediction shows as 0; the executor checks them like any plan.
inline Explanation with_blocking_variants(Explanation e, const std::string& names) {
  auto field = [](const std::string& name, const char* key, int64_t& v) {
    const std::size_t at = name.find(std::string(" ") + key + "=");
    if (at != std::string::npos) v = std::atoll(name.c_str() + at + std::strlen(key) + 2);
  };
  const std::size_t listed = e.candidates.size();
  std::size_t from = 0;
  while (from <= names.size()) {
    std::size_t to = names.find(';', from);
    if (to == std::string::npos) to = names.size();
    const std::string name = names.substr(from, to - from);
    from = to + 1;
    bool known = false;
    for (std::size_t ci = 0; ci < e.candidates.size() && !known; ++ci)
      known = describe(e.candidates[ci].plan) == name;
    for (std::size_t ci = 0; ci < listed && !known; ++ci) {
      auto c = e.candidates[ci];
      field(name, "mc", c.plan.mc), field(name, "nc", c.plan.nc), field(name, "kc", c.plan.kc);
      if (c.plan.kind == PlanKind::Blocked && !c.plan.pack_b)
        c.plan.prefetch_b = name.find(" prefetchB ") != std::string::npos;
      if (describe(c.plan) != name) continue;
      c.cost = {};
      e.candidates.push_back(c);
      known = true;
    }
  }
  return e;
}

// The candidates of `e` that `names` selects (selected_candidates), each run `runs` times by
// run(plan, r) (one timed call on the r-th operand set, r counting all calls: a set the call
// before used would be in cache), its median against the prediction; the
// chosen one marked. The candidates take turns call by call, so a shared host's slow minutes
// fall on all of them alike rather than on whichever ran then. Returns 1 (with the status
// printed) where a call fails, else 0.
template <class Run>
int time_candidates(const Explanation& e, std::size_t runs, Run run,
                    const std::string& names = {}) {
  const std::vector<std::size_t> which = selected_candidates(e, names);
  std::vector<std::vector<double>> t(e.candidates.size());
  std::size_t call = 0;  // every call its own operand set, whichever candidate makes it
  for (std::size_t r = 0; r < runs; ++r)
    for (const std::size_t ci : which) {
      Status st = Status::Ok;
      t[ci].push_back(measure::time_once([&] { st = run(e.candidates[ci].plan, call++); }));
      if (st != Status::Ok) {
        std::fprintf(stderr, "execute: %s\n", to_string(st));
        return 1;
      }
    }
  std::printf("%-84s %12s %12s\n", "plan", "predicted_us", "measured_us");
  for (const std::size_t ci : which)
    std::printf("%-84s %12.1f %12.1f%s\n", describe(e.candidates[ci].plan).c_str(),
                e.candidates[ci].cost.total_us, measure::median(t[ci]) * 1e6,
                ci == e.chosen ? "  <- chosen" : "");
  return 0;
}

}  // namespace adaptcore::bench
