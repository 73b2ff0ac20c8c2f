// What a context can execute: the kernel tables for its effective hardware profile and ISA
// path. The planner (ContextImpl::*_plan_for), the plan-file check (check_plan_entry with the
// loading context's profile) and the executor (ContextImpl::run_*) all ask these functions and
// nothing else. When two of them decided "native" differently, a plan could pass validation
// against one table and run on another: a native 6x64 bf16 tile run by the fp32-convert table
// left a quarter of C unwritten.
#pragma once

#include "adaptcore/hardware.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"
#include "plan/type_config.hpp"

namespace adaptcore {

// The fp32 kernels of an ISA path where this CPU and build run it; null otherwise. The path
// is the CPU's question, not the profile's: a profile that disclaims AVX-512 changes what
// Isa::Auto picks, an explicitly set path still runs (set_isa has always allowed it).
const kernels::IsaKernels* runnable_kernels(Isa isa) noexcept;

// Whether a context with profile `hw` uses the native dot-product kernels of a low-precision
// dtype (vdpbf16ps for bf16, vpdpbusd for int8 and the weight-quantized path). Both the profile
// and the running CPU must have the features: a profile may disclaim them (to plan like a
// smaller machine), and the AND keeps a profile built in code that claims more than the CPU
// from reaching an instruction that faults (loaded profiles cannot claim more).
bool uses_native_lowp(const HardwareProfile& hw, DType dtype) noexcept;

// The low-precision kernels a context with profile `hw` uses for a dtype on an ISA path. Null
// for F32 or a path the build lacks.
const kernels::LowpKernels* lowp_kernels_for(const HardwareProfile& hw, DType dtype,
                                             Isa isa) noexcept;

// The weight-quantized kernels a context with profile `hw` uses on an ISA path: vpdpbusd on
// the avx512 path where uses_native_lowp allows it, the portable kernel elsewhere (same layout,
// same bits).
const kernels::WqKernels& wq_kernels_for(const HardwareProfile& hw, Isa isa) noexcept;

// The planning configuration of a (non weight-quantized) dtype on an ISA path with profile
// `hw`: from the kernels lowp_kernels_for / runnable_kernels give, so planner, plan-file check
// and executor see one table. False when the path has no kernels for it.
bool type_config_for(const HardwareProfile& hw, DType dtype, Isa isa, TypeConfig& out) noexcept;

}  // namespace adaptcore
