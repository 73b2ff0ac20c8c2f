#include <cctype>
#include <string>

#include "adaptcore/types.hpp"
#include "core/enum_names.hpp"
#include "core/env_value.hpp"

namespace adaptcore {

const char* to_string(Status s) noexcept {
  using enum Status;
  return name_of(
      s,
      {{Ok, "success"},
       {InvalidLayout, "invalid layout (expected row-major or column-major)"},
       {InvalidTranspose, "invalid transpose flag"},
       {InvalidDimension, "matrix dimension negative (or zero where at least 1 is needed)"},
       {InvalidLeadingDimension, "leading dimension smaller than the matrix"},
       {NullPointer, "null pointer for an operand that must be accessed"},
       {SizeOverflow, "matrix extent overflows the address space"},
       {Aliasing, "output C overlaps input A or B"},
       {ShapeMismatch,
        "operand shapes do not compose (a handle's k or n, rows routed beyond A or C, an odd n "
        "for SwiGlu)"},
       {InvalidArgument, "invalid argument"},
       {UnsupportedIsa, "instruction set not supported by this CPU or build"},
       {InvalidProfile, "hardware profile unreadable or malformed"},
       {OutOfMemory, "out of memory"},
       {InternalError, "internal error"},
       {InvalidPlanFile,
        "plan file unreadable, corrupt, or made for another library version, CPU or ISA"}},
      "unknown status");
}

}  // namespace adaptcore
