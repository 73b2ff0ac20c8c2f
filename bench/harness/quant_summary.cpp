#include "harness/quant_summary.hpp"

#include <cmath>
#include <map>
#include <string>

namespace adaptcore::bench {

namespace {

bool valid(const nlohmann::json& r) {
  return r.value("status", "") == "ok" && r.value("correct", false) && r.contains("median_us") &&
         r["median_us"].is_number() && r["median_us"].get<double>() > 0;
}

double num(const nlohmann::json& r, const char* key) {
  return r.contains(key) && r[key].is_number() ? r[key].get<double>() : NAN;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

nlohmann::json quant_summary(const nlohmann::json& records) {
  // Records grouped by shape index, in order.
  std::map<long, std::vector<const nlohmann::json*>> shapes;
  if (records.is_array())
    for (const auto& r : records)
      if (r.contains("shape") && r["shape"].is_number_integer())
        shapes[r["shape"].get<long>()].push_back(&r);

  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [index, recs] : shapes) {
    const nlohmann::json& first = *recs.front();
    nlohmann::json row = {{"shape", index},
                          {"m", first.value("m", 0)},
                          {"n", first.value("n", 0)},
                          {"k", first.value("k", 0)}};
    const nlohmann::json* ours = nullptr;
    const nlohmann::json *dequant = nullptr, *bf16_best = nullptr, *bf16_ours = nullptr,
                         *int8 = nullptr, *one_part = nullptr;
    auto faster = [](const nlohmann::json* a, const nlohmann::json& b) {
      return a == nullptr || b["median_us"].get<double>() < (*a)["median_us"].get<double>();
    };
    for (const nlohmann::json* r : recs) {
      if (!valid(*r)) continue;
      const std::string lib = r->value("lib", "");
      if (lib == "adaptcore")
        ours = r;
      else if (lib == "adaptcore-1part")
        one_part = r;
      else if (starts_with(lib, "dequant+") && faster(dequant, *r))
        dequant = r;
      else if (starts_with(lib, "bf16+")) {
        if (lib == "bf16+adaptcore") bf16_ours = r;
        if (faster(bf16_best, *r)) bf16_best = r;
      } else if (lib == "int8+onednn")
        int8 = r;
    }
    const double our_us = ours != nullptr ? num(*ours, "median_us") : NAN;
    const double our_err = ours != nullptr ? num(*ours, "fro_rel_error") : NAN;
    if (ours != nullptr) {
      row["adaptcore_us"] = our_us;
      if (std::isfinite(our_err)) row["adaptcore_fro_error"] = our_err;
      if (std::isfinite(num(*ours, "weight_gbs"))) row["weight_gbs"] = num(*ours, "weight_gbs");
      if (std::isfinite(num(*ours, "dram_fraction")))
        row["dram_fraction"] = num(*ours, "dram_fraction");
      if (std::isfinite(num(*ours, "dram_fraction_of_best")))
        row["dram_fraction_of_best"] = num(*ours, "dram_fraction_of_best");
    }
    auto path = [&](const char* key, const nlohmann::json* r) {
      if (r == nullptr) return;
      nlohmann::json p = {{"lib", r->value("lib", "")}, {"median_us", num(*r, "median_us")}};
      const double err = num(*r, "fro_rel_error");
      if (std::isfinite(err)) p["fro_error"] = err;
      if (std::isfinite(our_us)) p["speedup"] = num(*r, "median_us") / our_us;
      if (std::isfinite(err) && std::isfinite(our_err) && our_err > 0)
        p["error_ratio"] = err / our_err;
      row[key] = p;
    };
    path("dequant_best", dequant);
    path("bf16_adaptcore", bf16_ours);
    path("bf16_best", bf16_best);
    path("int8", int8);
    path("one_part", one_part);

    const long m = row["m"].get<long>(), n = row["n"].get<long>(), k = row["k"].get<long>();
    nlohmann::json targets = nlohmann::json::object();
    if (ours != nullptr && n >= 4096 && k >= 4096) {
      if (m >= 256) {
        if (row.contains("dequant_best") && row["dequant_best"].contains("speedup"))
          targets["speed_vs_dequant_1.8x"] = row["dequant_best"]["speedup"].get<double>() >= 1.8;
        if (row.contains("bf16_best") && row["bf16_best"].contains("speedup"))
          targets["speed_vs_bf16_0.9x"] = row["bf16_best"]["speedup"].get<double>() >= 0.9;
        if (row.contains("bf16_best") && row["bf16_best"].contains("error_ratio"))
          targets["error_vs_bf16_100x"] = row["bf16_best"]["error_ratio"].get<double>() >= 100;
      } else if (m <= 8 && row.contains("dram_fraction")) {
        targets["dram_85pct"] = row["dram_fraction"].get<double>() >= 0.85;
      }
    }
    if (!targets.empty()) row["targets"] = targets;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace adaptcore::bench
