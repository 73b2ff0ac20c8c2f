#include "targets/ascend/plan_export.hpp"

namespace adaptcore::ascend {

nlohmann::ordered_json shape_json(const AscendShape& s) {
  return {{"m", s.m},
          {"n", s.n},
          {"k", s.k},
          {"trans_a", s.trans_a},
          {"trans_b", s.trans_b},
          {"lda", s.pitch_a()},
          {"ldb", s.pitch_b()},
          {"dtype", to_string(s.dtype)}};
}

nlohmann::ordered_json plan_json(const AscendShape& s, const TilingPlan& p) {
  nlohmann::ordered_json t;
  // A core runs whole base blocks (its blocks are not one contiguous region: the kernel loops
  // over its block list), so the single-core shape is the base block; K per core is the split.
  int64_t single_k = s.k;
  if (p.dist == Distribution::SplitK)
    single_k = std::min(s.k, round_up(ceil_div(s.k, p.split_k), p.base_k));
  t["usedCoreNum"] = p.used_cores;
  t["M"] = s.m;
  t["N"] = s.n;
  t["Ka"] = s.k;
  t["Kb"] = s.k;
  t["singleCoreM"] = std::min<int64_t>(p.base_m, s.m);
  t["singleCoreN"] = std::min<int64_t>(p.base_n, s.n);
  t["singleCoreK"] = single_k;
  t["baseM"] = p.base_m;
  t["baseN"] = p.base_n;
  t["baseK"] = p.base_k;
  t["depthA1"] = p.depth_a1();
  t["depthB1"] = p.depth_b1();
  t["stepM"] = 1;
  t["stepN"] = 1;
  t["stepKa"] = p.step_k;
  t["stepKb"] = p.step_k;
  t["dbL0A"] = p.db_l0 ? 2 : 1;
  t["dbL0B"] = p.db_l0 ? 2 : 1;
  t["dbL0C"] = p.db_l0c ? 2 : 1;
  t["iterateOrder"] = 0;  // blocks walked along M first within a swizzle group
  nlohmann::ordered_json a;
  a["describe"] = describe(p);
  a["distribution"] = to_string(p.dist);
  a["split_k"] = p.split_k;
  a["swizzle"] = p.swizzle;
  a["relayout_a"] = p.relayout_a;
  a["relayout_b"] = p.relayout_b;
  a["atomic_add_c"] = p.dist != Distribution::DataParallel;
  a["predicted_us"] = p.predicted_us;
  nlohmann::ordered_json j;
  j["shape"] = shape_json(s);
  j["class"] = to_string(p.cls);
  j["tiling"] = t;
  j["adaptcore"] = a;
  return j;
}

nlohmann::ordered_json export_header(const AscendProfile& hw) {
  nlohmann::ordered_json j;
  j["format"] = kPlanExportFormat;
  j["version"] = kPlanExportVersion;
  j["modeled"] = true;
  j["target"] = hw.name;
  j["profile"] = nlohmann::ordered_json::parse(to_json(hw));
  return j;
}

}  // namespace adaptcore::ascend
