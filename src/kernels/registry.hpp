// The architecture registry: every kernel table the library has, by level of one lattice
// (docs/ARCHITECTURE.md, "Architecture registry"). A level is a set of CPU features and the
// kernels that need them: generic < avx2 < avx512 < avx512_vnni < avx512_bf16 < amx on x86-64. Each
// built level registers its tables in kernels/<arch>/config.cpp (a Level); what a level does not
// register it takes from the level below. Planner, model, executor, plan files and explain ask
// here; nothing else in the library names a level.
#pragma once

#include <span>

#include "adaptcore/hardware.hpp"
#include "adaptcore/types.hpp"
#include "core/dtype.hpp"

namespace adaptcore::kernels {

struct IsaKernels;
struct LowpKernels;
struct WqKernels;

// One row of the lattice: a level every build knows by name, built or not.
struct LatticeRow {
  Isa id;
  const char* name;  // to_string(Isa)
  Isa below;         // the level it contains (Auto: none)
  FeatureSet needs;  // every feature its kernels (and those below) use
};

// What one level's config.cpp registers: null where the level adds nothing (the level below
// serves).
struct Level {
  Isa id;
  const IsaKernels* fp32 = nullptr;
  const LowpKernels* bf16 = nullptr;
  const LowpKernels* int8 = nullptr;
  const WqKernels* wq = nullptr;
};

// The lattice row of a known level; null for Auto and values no level has.
const LatticeRow* lattice_row(Isa isa) noexcept;
// Every known level, lowest first within an architecture.
std::span<const LatticeRow> lattice() noexcept;
// Whether this build has a level's kernels.
bool built(Isa isa) noexcept;
// The built levels, lowest first.
std::span<const Isa> built_levels() noexcept;

// The highest built level whose needs `have` contains (generic at least).
Isa best_level(FeatureSet have) noexcept;
// The highest built level at or below `isa` whose needs `have` contains (generic at least):
// the level a context at `isa` runs the kernels of when a profile allows only `have`.
Isa clamp_level(Isa isa, FeatureSet have) noexcept;

// The tables a built level runs (its own or the highest below it); null for a level not built.
const IsaKernels* kernels_for(Isa isa) noexcept;
// bf16 or int8 (U8S8; signed A runs the same tables); null for fp32, weight-quantized dtypes or
// a level not built.
const LowpKernels* lowp_kernels_for(DType dtype, Isa isa) noexcept;
const WqKernels* wq_kernels_for(Isa isa) noexcept;

}  // namespace adaptcore::kernels
