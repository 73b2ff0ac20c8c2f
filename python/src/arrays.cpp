#include "arrays.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace adaptcore::python {

namespace {

using Code = nb::dlpack::dtype_code;

std::string allowed_names(std::initializer_list<Elem> allowed) {
  std::string s;
  for (Elem e : allowed) {
    if (!s.empty()) s += ", ";
    s += elem_name(e);
  }
  return s;
}

// The framework's name of an element type (float64, int16, complex64, ...).
std::string dtype_text(const nb::dlpack::dtype& t) {
  const char* base = "unknown";
  switch (static_cast<Code>(t.code)) {
    case Code::Int: base = "int"; break;
    case Code::UInt: base = "uint"; break;
    case Code::Float: base = "float"; break;
    case Code::Bfloat: base = "bfloat"; break;
    case Code::Complex: base = "complex"; break;
    case Code::Bool: return "bool";
    default: break;
  }
  return std::string(base) + std::to_string(t.bits) +
         (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

void check_elem(const nb::dlpack::dtype& t, const char* what, std::initializer_list<Elem> allowed) {
  const Elem e = elem_of(t);
  for (Elem a : allowed)
    if (a == e) return;
  throw nb::type_error((std::string(what) + ": element type " + dtype_text(t) +
                        " not accepted here (expected " + allowed_names(allowed) + ")")
                           .c_str());
}

// Layout and leading dimension from the strides (elements), when one stride is a unit one. A
// dimension of extent 1 has no stride that matters.
bool layout_of(int64_t rows, int64_t cols, int64_t s0, int64_t s1, Layout& layout, int64_t& ld) {
  if (rows == 0 || cols == 0) {  // no element: any strides (frameworks report various ones)
    layout = Layout::RowMajor;
    ld = std::max<int64_t>(cols, 1);
    return true;
  }
  if ((cols <= 1 || s1 == 1) && (rows <= 1 || s0 >= std::max<int64_t>(cols, 1))) {
    layout = Layout::RowMajor;
    ld = rows <= 1 ? std::max<int64_t>(cols, 1) : s0;
    return true;
  }
  if ((rows <= 1 || s0 == 1) && (cols <= 1 || s1 >= std::max<int64_t>(rows, 1))) {
    layout = Layout::ColMajor;
    ld = cols <= 1 ? std::max<int64_t>(rows, 1) : s1;
    return true;
  }
  return false;
}

}  // namespace

Elem elem_of(const nb::dlpack::dtype& t) noexcept {
  if (t.lanes != 1) return Elem::Other;
  const auto code = static_cast<Code>(t.code);
  if (code == Code::Float && t.bits == 32) return Elem::F32;
  // numpy has no bf16: its users pass the bit patterns as uint16 (adaptcore.to_bf16).
  if ((code == Code::Bfloat && t.bits == 16) || (code == Code::UInt && t.bits == 16))
    return Elem::Bf16;
  if (code == Code::UInt && t.bits == 8) return Elem::U8;
  if (code == Code::Int && t.bits == 8) return Elem::S8;
  if (code == Code::Int && t.bits == 32) return Elem::S32;
  if (code == Code::Int && t.bits == 64) return Elem::S64;
  return Elem::Other;
}

const char* elem_name(Elem e) noexcept {
  switch (e) {
    case Elem::F32: return "float32";
    case Elem::Bf16: return "bfloat16 (or its uint16 bit patterns)";
    case Elem::U8: return "uint8";
    case Elem::S8: return "int8";
    case Elem::S32: return "int32";
    case Elem::S64: return "int64";
    case Elem::Other: break;
  }
  return "unsupported";
}

// A 2-D array's element type, extents and address, and its layout and leading dimension when
// one of its strides is a unit one (false otherwise). Checks: 2 dimensions (ValueError), an
// element type in `allowed` (TypeError).
template <class Array>
bool read_matrix(const Array& a, const char* what, std::initializer_list<Elem> allowed, Mat& m) {
  if (a.ndim() != 2)
    throw nb::value_error((std::string(what) + ": expected a 2-D array, got " +
                           std::to_string(a.ndim()) + " dimensions")
                              .c_str());
  m.elem = elem_of(a.dtype());
  check_elem(a.dtype(), what, allowed);
  m.rows = static_cast<int64_t>(a.shape(0));
  m.cols = static_cast<int64_t>(a.shape(1));
  m.data = a.data();
  return layout_of(m.rows, m.cols, a.stride(0), a.stride(1), m.layout, m.ld);
}

Mat input_matrix(const InArray& a, const char* what, std::initializer_list<Elem> allowed,
                 std::vector<unsigned char>& copy, bool rows_contiguous) {
  Mat m;
  if (read_matrix(a, what, allowed, m) &&
      !(rows_contiguous && m.layout != Layout::RowMajor && m.cols > 1))
    return m;
  // A contiguous row-major copy. Its size checked first: a view with a zero stride (expand,
  // as_strided) can claim 2^62 elements in a few bytes, and the product wrapped to a small
  // buffer that the copy then overran.
  const std::size_t es = a.itemsize();
  std::size_t elements = 0, bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(m.rows), static_cast<std::size_t>(m.cols),
                             &elements) ||
      __builtin_mul_overflow(elements, es, &bytes) ||
      bytes > static_cast<std::size_t>(PTRDIFF_MAX)) {
    PyErr_SetString(PyExc_OverflowError,
                    (std::string(what) + ": a copy of " + std::to_string(m.rows) + " x " +
                     std::to_string(m.cols) + " elements does not fit in memory")
                        .c_str());
    throw nb::python_error();
  }
  copy.resize(bytes);
  const auto* src = static_cast<const unsigned char*>(a.data());
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j)
      std::memcpy(copy.data() + static_cast<std::size_t>(i * m.cols + j) * es,
                  src + (i * a.stride(0) + j * a.stride(1)) * static_cast<int64_t>(es), es);
  m.data = copy.data();
  m.layout = Layout::RowMajor;
  m.ld = std::max<int64_t>(m.cols, 1);
  return m;
}

Mat output_matrix(const OutArray& c, const char* what, std::initializer_list<Elem> allowed) {
  Mat m;
  if (!read_matrix(c, what, allowed, m))
    throw nb::value_error((std::string(what) +
                           ": the output needs a unit stride along its rows or columns (a "
                           "C- or Fortran-ordered array, or a slice of one)")
                              .c_str());
  return m;
}

bool output_ld_in(const OutArray& o, Layout layout, int64_t& ld) noexcept {
  const auto rows = static_cast<int64_t>(o.shape(0)), cols = static_cast<int64_t>(o.shape(1));
  if (rows == 0 || cols == 0) {
    ld = layout == Layout::RowMajor ? std::max<int64_t>(cols, 1) : std::max<int64_t>(rows, 1);
    return true;
  }
  if (layout == Layout::RowMajor) {
    if (cols > 1 && o.stride(1) != 1) return false;
    ld = rows > 1 ? o.stride(0) : std::max<int64_t>(cols, 1);
    return rows <= 1 || ld >= std::max<int64_t>(cols, 1);
  }
  if (rows > 1 && o.stride(0) != 1) return false;
  ld = cols > 1 ? o.stride(1) : std::max<int64_t>(rows, 1);
  return cols <= 1 || ld >= std::max<int64_t>(rows, 1);
}

Operand as_operand(const Mat& m, Layout layout) noexcept {
  return {m.data, m.ld, m.layout == layout ? Trans::No : Trans::Yes};
}

const void* input_vector(const InArray& v, const char* what, Elem elem, int64_t n,
                         std::vector<unsigned char>& copy) {
  if (v.ndim() != 1 || static_cast<int64_t>(v.shape(0)) != n)
    throw nb::value_error(
        (std::string(what) + ": expected a 1-D array of " + std::to_string(n) + " values").c_str());
  check_elem(v.dtype(), what, {elem});
  if (n <= 1 || v.stride(0) == 1) return v.data();
  const std::size_t es = v.itemsize();
  copy.resize(static_cast<std::size_t>(n) * es);
  const auto* src = static_cast<const unsigned char*>(v.data());
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(copy.data() + static_cast<std::size_t>(i) * es,
                src + i * v.stride(0) * static_cast<int64_t>(es), es);
  return copy.data();
}

}  // namespace adaptcore::python
