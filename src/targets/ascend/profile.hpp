// The hardware profile of a modeled Ascend NPU (docs/ASCEND.md, "Profile"): what the NPU
// planner, its pipeline model and the plan simulator know about the device. No Ascend device is
// reachable from this project, so every figure here is a public or documented-as-assumed value,
// never a measurement; values public sources disagree on are plain parameters.
#pragma once

#include <cstdint>
#include <string>

#include "adaptcore/types.hpp"

namespace adaptcore::ascend {

struct AscendProfile {
  std::string name = "ascend910b";
  std::string source = "built-in";
  int ai_cores = 24;      // cube cores used by a matmul kernel (20 or 24 by product variant)
  double freq_ghz = 1.8;  // AI core clock
  // Cube unit: one fractal matmul per cycle: fp16/bf16 16x16x16, int8 16x32x16 (m x k x n).
  int cube_m = 16, cube_n = 16, cube_k_fp16 = 16, cube_k_int8 = 32;

  // Per-core buffers, bytes.
  int64_t l1_bytes = 512 * 1024;
  int64_t l0a_bytes = 64 * 1024;
  int64_t l0b_bytes = 64 * 1024;
  int64_t l0c_bytes = 128 * 1024;
  int64_t ub_bytes = 192 * 1024;
  // Start-address alignment of a buffer in each memory, bytes.
  int align_l0ab = 512, align_l0c = 64, align_l1 = 32, align_ub = 32;
  // Granule of a GM read (a transfer touching part of a granule pays for all of it).
  int gm_sector_bytes = 32;

  // Shared memory system.
  int64_t l2_bytes = 192ll * 1024 * 1024;
  double hbm_gbs = 1600.0;  // whole device
  double l2_gbs = 4000.0;   // whole device, reads that hit L2

  // Per-core data movers, bytes per cycle of the AI core clock.
  double gm_to_l1_bytes_per_cycle = 128.0;  // MTE2
  double l1_to_l0_bytes_per_cycle = 256.0;  // MTE1 (L0A and L0B share it)
  double l0c_to_gm_bytes_per_cycle = 64.0;  // FixPipe (fp32/int32 results)
  double ub_bytes_per_cycle = 64.0;         // GM <-> UB in the relayout pass (MTE2/MTE3)
  double gm_row_overhead_cycles = 1.0;      // fixed cost of each strided row segment a move reads
  double move_latency_cycles = 64.0;        // issue-to-first-byte latency of every move

  double launch_us = 5.0;  // one kernel launch (a relayout pass is a second kernel)
  int max_event_ids = 8;   // set_flag / wait_flag event ids per pipe pair

  double peak_tflops(int k_per_cycle) const noexcept {
    return 2.0 * cube_m * cube_n * k_per_cycle * freq_ghz * ai_cores * 1e-3;
  }
};

// The built-in profile of a target name ("ascend910b"); false for an unknown name.
bool builtin_profile(const std::string& target, AscendProfile& out);

// JSON round trip (docs/ASCEND.md lists the keys). Missing keys keep `base`'s values; a wrong
// type, a non-positive capacity or rate, an alignment that is not a power of two, buffers that
// cannot hold one fractal, or an unknown key is rejected with Status::InvalidProfile and a
// reason in *error.
std::string to_json(const AscendProfile& p);
Status profile_from_json(const std::string& text, const AscendProfile& base, AscendProfile& out,
                         std::string* error = nullptr);
Status load_profile_file(const std::string& path, const AscendProfile& base, AscendProfile& out,
                         std::string* error = nullptr);

}  // namespace adaptcore::ascend
