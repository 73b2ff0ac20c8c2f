#include "harness/dtypes.hpp"

namespace adaptcore::bench {

namespace {
constexpr BenchDtype kAll[] = {BenchDtype::F32,  BenchDtype::Bf16,  BenchDtype::U8S8,
                               BenchDtype::S8S8, BenchDtype::W8A16, BenchDtype::W4A16};
}

const char* to_string(BenchDtype d) noexcept {
  switch (d) {
    case BenchDtype::F32: return "f32";
    case BenchDtype::Bf16: return "bf16";
    case BenchDtype::U8S8: return "u8s8";
    case BenchDtype::S8S8: return "s8s8";
    case BenchDtype::W8A16: return "w8a16";
    case BenchDtype::W4A16: return "w4a16";
  }
  return "?";
}

bool parse_dtype(std::string_view name, BenchDtype& out) noexcept {
  for (BenchDtype d : kAll) {
    if (name == to_string(d)) {
      out = d;
      return true;
    }
  }
  return false;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> v;
  for (BenchDtype d : kAll) v.emplace_back(to_string(d));
  return v;
}

ElementBytes element_bytes(BenchDtype d) noexcept {
  switch (d) {
    case BenchDtype::F32: return {4, 4, 4};
    case BenchDtype::Bf16: return {2, 2, 4};
    case BenchDtype::U8S8:
    case BenchDtype::S8S8: return {1, 1, 4};
    case BenchDtype::W8A16: return {4, 1, 4};
    case BenchDtype::W4A16: return {4, 0.5, 4};
  }
  return {};
}

const char* rate_unit(BenchDtype d) noexcept {
  return d == BenchDtype::U8S8 || d == BenchDtype::S8S8 ? "GOP/s" : "GFLOP/s";
}

}  // namespace adaptcore::bench
