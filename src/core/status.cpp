#include <cctype>
#include <string>

#include "adaptcore/types.hpp"

namespace adaptcore {

const char* to_string(Status s) noexcept {
  switch (s) {
    case Status::Ok: return "success";
    case Status::InvalidLayout: return "invalid layout (expected row-major or column-major)";
    case Status::InvalidTranspose: return "invalid transpose flag";
    case Status::InvalidDimension: return "negative matrix dimension";
    case Status::InvalidLeadingDimension: return "leading dimension smaller than the matrix";
    case Status::NullPointer: return "null pointer for an operand that must be accessed";
    case Status::SizeOverflow: return "matrix extent overflows the address space";
    case Status::Aliasing: return "output C overlaps input A or B";
    case Status::ShapeMismatch: return "operand shapes do not compose";
    case Status::InvalidArgument: return "invalid argument";
    case Status::UnsupportedIsa: return "instruction set not supported by this CPU or build";
    case Status::InvalidProfile: return "hardware profile unreadable or malformed";
    case Status::OutOfMemory: return "out of memory";
    case Status::InternalError: return "internal error";
    case Status::InvalidPlanFile:
      return "plan file unreadable, corrupt, or made for another library version, CPU or ISA";
  }
  return "unknown status";
}

const char* to_string(Isa isa) noexcept {
  switch (isa) {
    case Isa::Auto: return "auto";
    case Isa::Generic: return "generic";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "unknown";
}

bool parse_isa(std::string_view text, Isa& out) noexcept {
  std::string t;
  for (char ch : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  if (t == "auto") out = Isa::Auto;
  else if (t == "generic" || t == "portable") out = Isa::Generic;
  else if (t == "avx2") out = Isa::Avx2;
  else if (t == "avx512" || t == "avx-512") out = Isa::Avx512;
  else return false;
  return true;
}

}  // namespace adaptcore
