// Arrays of any framework (numpy, or a DLPack tensor such as torch's) as the library's matrix
// operands: element type, and a layout with a leading dimension read off the strides.
#pragma once

#include <nanobind/ndarray.h>

#include <adaptcore/adaptcore.hpp>
#include <cstdint>
#include <vector>

namespace adaptcore::python {

namespace nb = nanobind;

using InArray = nb::ndarray<nb::ro, nb::device::cpu>;  // read, any type and shape
using OutArray = nb::ndarray<nb::device::cpu>;         // written

enum class Elem { F32, Bf16, U8, S8, S32, S64, Other };
Elem elem_of(const nb::dlpack::dtype& t) noexcept;
const char* elem_name(Elem e) noexcept;

// A 2-D operand in one layout: rows x cols, ld elements between consecutive rows (row-major)
// or columns (column-major).
struct Mat {
  const void* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  Layout layout = Layout::RowMajor;
  Elem elem = Elem::Other;
};

// An input matrix. One with no unit stride (a slice with a step, a broadcast, negative strides),
// or with rows_contiguous one whose rows are not contiguous, is copied into `copy` (contiguous,
// row-major), which must outlive the call. `what` names the argument in error messages. Checks:
// 2 dimensions (ValueError), an element type in `allowed` (TypeError).
Mat input_matrix(const InArray& a, const char* what, std::initializer_list<Elem> allowed,
                 std::vector<unsigned char>& copy, bool rows_contiguous = false);
// An output matrix: must have a unit stride (ValueError otherwise: the library writes in place).
Mat output_matrix(const OutArray& c, const char* what, std::initializer_list<Elem> allowed);

// The leading dimension of an output in `layout` (a post-op's output must be in the call's
// layout): false when its strides cannot be read that way (no unit stride along that layout's
// rows or columns). One-row and one-column outputs have a choice; their single line must still
// be contiguous where the layout makes it so.
bool output_ld_in(const OutArray& o, Layout layout, int64_t& ld) noexcept;

// The matrix as the library reads it in `layout`: Trans::No when it is stored in that layout,
// else Trans::Yes on its transpose (the same memory). Sets rows/cols to the stored ones.
struct Operand {
  const void* data = nullptr;
  int64_t ld = 0;
  Trans trans = Trans::No;
};
Operand as_operand(const Mat& m, Layout layout) noexcept;

// A vector of n elements of one type, contiguous (copied into `copy` otherwise).
const void* input_vector(const InArray& v, const char* what, Elem elem, int64_t n,
                         std::vector<unsigned char>& copy);

}  // namespace adaptcore::python
