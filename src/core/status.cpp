#include <cctype>
#include <string>

#include "adaptcore/types.hpp"
#include "core/enum_names.hpp"
#include "core/env_value.hpp"

namespace adaptcore {

namespace {

// After the names, the spellings parse_isa accepts besides them.
constexpr EnumName<Isa> kIsaNames[] = {{Isa::Auto, "auto"},        {Isa::Generic, "generic"},
                                       {Isa::Avx2, "avx2"},        {Isa::Avx512, "avx512"},
                                       {Isa::Generic, "portable"}, {Isa::Avx512, "avx-512"}};

}  // namespace

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

const char* to_string(Isa isa) noexcept { return name_of(isa, kIsaNames, "unknown"); }

bool parse_isa(std::string_view text, Isa& out) noexcept {
  try {
    return parse_name(kIsaNames, env_word(text), out);
  } catch (...) {
    return false;
  }
}

}  // namespace adaptcore
