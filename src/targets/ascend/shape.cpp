#include "targets/ascend/shape.hpp"

#include <limits>

#include "core/enum_names.hpp"

namespace adaptcore::ascend {

namespace {

// After the names, the spellings parse_in_dtype accepts besides them.
constexpr EnumName<InDType> kInDTypeNames[] = {{InDType::Fp16, "fp16"}, {InDType::Bf16, "bf16"},
                                               {InDType::Int8, "int8"}, {InDType::Fp16, "f16"},
                                               {InDType::Fp16, "half"}, {InDType::Int8, "s8"}};

}  // namespace

const char* to_string(InDType t) noexcept { return name_of(t, kInDTypeNames); }

bool parse_in_dtype(const std::string& text, InDType& out) noexcept {
  return parse_name(kInDTypeNames, text, out);
}

std::string AscendShape::str() const {
  return "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) + " " +
         (trans_a ? "T" : "N") + (trans_b ? "T" : "N") + " " + to_string(dtype);
}

std::string check_shape(const AscendShape& s) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > kMax || s.n > kMax || s.k > kMax)
    return "m, n and k must be in [1, 2^31 - 1]";
  if (s.lda < 0 || s.ldb < 0) return "leading dimensions must not be negative";
  if ((s.lda != 0 && s.lda < s.dense_lda()) || (s.ldb != 0 && s.ldb < s.dense_ldb()))
    return "a leading dimension is smaller than the stored row";
  if (s.lda > kMax || s.ldb > kMax) return "a leading dimension is above 2^31 - 1";
  const double a_bytes =
      static_cast<double>(s.trans_a ? s.k : s.m) * static_cast<double>(s.pitch_a());
  const double b_bytes =
      static_cast<double>(s.trans_b ? s.n : s.k) * static_cast<double>(s.pitch_b());
  const double c_bytes = 4.0 * static_cast<double>(s.m) * static_cast<double>(s.n);
  if (a_bytes > 0x1p46 || b_bytes > 0x1p46 || c_bytes > 0x1p46)
    return "an operand is larger than 2^46 bytes";
  return {};
}

}  // namespace adaptcore::ascend
