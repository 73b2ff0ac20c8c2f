#include <cctype>
#include <string>

#include "adaptcore/types.hpp"
#include "core/enum_names.hpp"

namespace adaptcore {

namespace {

constexpr EnumName<Status> kStatusNames[] = {
    {Status::Ok, "success"},
    {Status::InvalidLayout, "invalid layout (expected row-major or column-major)"},
    {Status::InvalidTranspose, "invalid transpose flag"},
    {Status::InvalidDimension, "negative matrix dimension"},
    {Status::InvalidLeadingDimension, "leading dimension smaller than the matrix"},
    {Status::NullPointer, "null pointer for an operand that must be accessed"},
    {Status::SizeOverflow, "matrix extent overflows the address space"},
    {Status::Aliasing, "output C overlaps input A or B"},
    {Status::ShapeMismatch, "operand shapes do not compose"},
    {Status::InvalidArgument, "invalid argument"},
    {Status::UnsupportedIsa, "instruction set not supported by this CPU or build"},
    {Status::InvalidProfile, "hardware profile unreadable or malformed"},
    {Status::OutOfMemory, "out of memory"},
    {Status::InternalError, "internal error"},
    {Status::InvalidPlanFile,
     "plan file unreadable, corrupt, or made for another library version, CPU or ISA"}};

// After the names, the spellings parse_isa accepts besides them.
constexpr EnumName<Isa> kIsaNames[] = {{Isa::Auto, "auto"},        {Isa::Generic, "generic"},
                                       {Isa::Avx2, "avx2"},        {Isa::Avx512, "avx512"},
                                       {Isa::Generic, "portable"}, {Isa::Avx512, "avx-512"}};

}  // namespace

const char* to_string(Status s) noexcept { return name_of(kStatusNames, s, "unknown status"); }

const char* to_string(Isa isa) noexcept { return name_of(kIsaNames, isa, "unknown"); }

bool parse_isa(std::string_view text, Isa& out) noexcept {
  std::string t;
  for (char ch : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  return parse_name(kIsaNames, t, out);
}

}  // namespace adaptcore
