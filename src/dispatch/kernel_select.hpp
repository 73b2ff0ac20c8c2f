// What a context can execute: the kernel tables of the registry (kernels/registry.hpp) for its
// level and effective hardware profile. The planner (ContextImpl::*_plan_for), the plan-file
// check (check_plan_entry with the loading context's profile) and the executor
// (ContextImpl::run_*) all ask these functions and nothing else. When two of them decided the
// tables differently, a plan could pass validation against one table and run on another: a
// native 6x64 bf16 tile run by the fp32-convert table left a quarter of C unwritten.
#pragma once

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {

// The fp32 kernels of a level where this CPU and build run it; null otherwise. The level is
// the CPU's question, not the profile's: a profile that disclaims AVX-512 changes what
// Isa::Auto picks, an explicitly set level still runs its fp32 kernels (set_isa has always
// allowed it).
const kernels::IsaKernels* runnable_kernels(Isa isa) noexcept;

// The level whose low-precision and weight-quantized kernels a context at level `isa` with
// profile `hw` runs: the highest at or below `isa` whose features both the profile and the
// running CPU have. A profile may disclaim features (to plan like a smaller machine), and the
// AND keeps a profile built in code that claims more than the CPU from reaching an instruction
// that faults (loaded profiles cannot claim more).
Isa lowp_level(const HardwareProfile& hw, Isa isa) noexcept;

// The low-precision kernels of a dtype for a context at `isa` with profile `hw`. Null for F32,
// weight-quantized dtypes or a level the build lacks.
const kernels::LowpKernels* lowp_kernels_for(const HardwareProfile& hw, DType dtype,
                                             Isa isa) noexcept;

// The weight-quantized kernels for a context at `isa` with profile `hw` (vpdpbusd from
// avx512_vnni up, the portable kernel below: same layout, same bits).
const kernels::WqKernels& wq_kernels_for(const HardwareProfile& hw, Isa isa) noexcept;

// The planning configuration of a (non weight-quantized) dtype for a context at `isa` with
// profile `hw`: from the kernels lowp_kernels_for / runnable_kernels give, so planner, plan-file
// check and executor see one table; its level is `isa` (the key's). False when the level has no
// kernels for it.
bool type_config_for(const HardwareProfile& hw, DType dtype, Isa isa, TypeConfig& out) noexcept;

}  // namespace adaptcore
