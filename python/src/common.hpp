// What every binding file shares: the context argument, residency names, the GIL release.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <adaptcore/adaptcore.hpp>
#include <string>

namespace adaptcore::python {

namespace nb = nanobind;

// The `context=` argument: a Context, or None for the process's default one.
inline Context& context_or_default(Context* ctx) noexcept {
  return ctx != nullptr ? *ctx : default_context();
}

// "auto", "cached", "memory" (ValueError otherwise).
Residency parse_residency(const std::string& text);
const char* residency_name(Residency r) noexcept;
// "auto" or a registry level's name ("generic", "avx2", "avx512", "avx512_vnni", "avx512_bf16",
// "amx";
// ValueError otherwise).
Isa parse_isa_name(const std::string& text);

// Registration of each file's functions and classes (module.cpp calls them in order).
void bind_context(nb::module_& m);
void bind_gemm(nb::module_& m);
void bind_weights(nb::module_& m);
void bind_grouped(nb::module_& m);
void bind_explain(nb::module_& m);
void bind_raw(nb::module_& m);

}  // namespace adaptcore::python
