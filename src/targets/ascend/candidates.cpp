#include "targets/ascend/candidates.hpp"

#include <algorithm>

namespace adaptcore::ascend {

bool relayout_required(const AscendShape& s, bool operand_a) noexcept {
  return (operand_a ? s.pitch_a() : s.pitch_b()) > kMaxMovePitch;
}

bool relayout_useful(const AscendShape& s, const AscendProfile& hw, bool operand_a) noexcept {
  const int64_t pitch = (operand_a ? s.pitch_a() : s.pitch_b()) * elem_bytes(s.dtype);
  const bool transposed = operand_a ? s.trans_a : !s.trans_b;  // k not the contiguous axis
  return relayout_required(s, operand_a) || pitch % hw.gm_sector_bytes != 0 || transposed;
}

namespace {

int used_cores(const AscendShape& s, const TilingPlan& p, int cores) {
  const int64_t tiles = ceil_div(s.m, p.base_m) * ceil_div(s.n, p.base_n);
  int64_t units = tiles;
  if (p.dist == Distribution::SplitK)
    units = tiles * ceil_div(s.k, round_up(ceil_div(s.k, p.split_k), p.base_k));
  if (p.dist == Distribution::StreamK) units = tiles * ceil_div(s.k, p.base_k);
  return static_cast<int>(std::min<int64_t>(cores, units));
}

}  // namespace

std::vector<TilingPlan> enumerate_candidates(const AscendShape& s, const NpuClass& cls,
                                             const AscendProfile& hw) {
  std::vector<TilingPlan> out;
  const int64_t e = elem_bytes(s.dtype);
  const int c0 = c0_elems(s.dtype);
  const int64_t mp = round_up(s.m, 16), np = round_up(s.n, 16), kp = round_up(s.k, c0);
  static constexpr int kSides[] = {16, 32, 64, 128, 256};
  const int depths[] = {c0 * 2, c0 * 4, c0 * 8, c0 * 16};
  static constexpr int kSteps[] = {1, 2, 4, 8};

  // Relayout options: none where not useful, forced where required.
  bool ra_opts[2] = {false, true}, rb_opts[2] = {false, true};
  const int ra_n = relayout_useful(s, hw, true) ? 2 : 1;
  const int rb_n = relayout_useful(s, hw, false) ? 2 : 1;
  const int ra_first = relayout_required(s, true) ? 1 : 0;
  const int rb_first = relayout_required(s, false) ? 1 : 0;

  for (int bm : kSides) {
    if (bm > 16 && bm / 2 >= mp) continue;  // half the block would already cover M
    for (int bn : kSides) {
      if (bn > 16 && bn / 2 >= np) continue;
      if (int64_t{bm} * bn * 4 > hw.l0c_bytes) continue;
      const bool l0c_db_fits = int64_t{bm} * bn * 4 * 2 <= hw.l0c_bytes;
      for (int bk : depths) {
        if (bk > c0 * 2 && bk / 2 >= kp) continue;
        if (int64_t{bm} * bk * e * 2 > hw.l0a_bytes || int64_t{bn} * bk * e * 2 > hw.l0b_bytes)
          continue;
        for (int step : kSteps) {
          if (step > 1 && int64_t{bk} * step > kp * 2) continue;  // more than K to stage
          if (int64_t{bm + bn} * bk * step * e * 2 > hw.l1_bytes) continue;
          for (int dbc = l0c_db_fits ? 1 : 0; dbc >= 0; --dbc) {
            TilingPlan base;
            base.dtype = s.dtype;
            base.base_m = bm;
            base.base_n = bn;
            base.base_k = bk;
            base.step_k = step;
            base.db_l0c = dbc == 1;
            base.cls = cls;
            std::vector<TilingPlan> dists;
            TilingPlan dp = base;
            dp.dist = Distribution::DataParallel;
            dists.push_back(dp);
            if (cls.capacity == NpuCapacity::Hbm) {
              dp.swizzle = 4;
              dists.push_back(dp);
            }
            if (cls.parallel == NpuParallel::WaveTail) {
              TilingPlan sk = base;
              sk.dist = Distribution::StreamK;
              dists.push_back(sk);
            }
            if (cls.parallel == NpuParallel::Underfilled) {
              const int64_t tiles = ceil_div(s.m, bm) * ceil_div(s.n, bn);
              for (int split = 2; split <= 16; split *= 2) {
                if (tiles * split > 2 * hw.ai_cores || ceil_div(s.k, bk) < split * 2) break;
                TilingPlan sk = base;
                sk.dist = Distribution::SplitK;
                sk.split_k = split;
                dists.push_back(sk);
              }
            }
            for (TilingPlan& p : dists)
              for (int ra = ra_first; ra < ra_n; ++ra)
                for (int rb = rb_first; rb < rb_n; ++rb) {
                  p.relayout_a = ra_opts[ra];
                  p.relayout_b = rb_opts[rb];
                  p.used_cores = used_cores(s, p, hw.ai_cores);
                  out.push_back(p);
                }
          }
        }
      }
    }
  }
  return out;
}

TilingPlan fixed_baseline(const AscendShape& s, const AscendProfile& hw) {
  TilingPlan p;
  p.dtype = s.dtype;
  p.base_m = 128;
  p.base_n = 256;
  p.base_k = s.dtype == InDType::Int8 ? 128 : 64;
  p.step_k = 2;
  p.db_l1 = true;
  p.db_l0 = true;
  p.db_l0c = false;
  p.dist = Distribution::DataParallel;
  p.relayout_a = relayout_required(s, true);
  p.relayout_b = relayout_required(s, false);
  p.used_cores = used_cores(s, p, hw.ai_cores);
  return p;
}

}  // namespace adaptcore::ascend
