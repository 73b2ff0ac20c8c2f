// What the C API's entry points share: the ac_context behind the opaque handle, the one place
// that turns a handle into a C++ context, and the conversions of statuses, enums, ISA values
// and bf16 buffers.
#pragma once

#include <new>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"

struct ac_context {
  explicit ac_context(const adaptcore::ContextOptions& options) : context(options) {}
  adaptcore::Context context;
};

namespace adaptcore::capi {

inline ac_status_t to_c(Status s) noexcept { return static_cast<ac_status_t>(s); }

// The C enums carry the values of the C++ ones. An undeclared value stays undeclared and the C++
// call rejects it (InvalidLayout, InvalidTranspose, InvalidArgument).
inline Layout to_cpp(ac_layout_t layout) noexcept { return static_cast<Layout>(layout); }
inline Trans to_cpp(ac_transpose_t trans) noexcept { return static_cast<Trans>(trans); }
inline OffsetKind to_cpp(ac_offset_t kind) noexcept { return static_cast<OffsetKind>(kind); }
inline WeightFormat to_cpp(ac_weight_format_t format) noexcept {
  return static_cast<WeightFormat>(format);
}
inline ActivationParts to_cpp(ac_wq_parts_t parts) noexcept {
  return static_cast<ActivationParts>(parts);
}

// C enums carry any int: only the declared ISA values reach the C++ API.
// The C values are the C++ ones (a level's number never changes).
static_assert(AC_ISA_AMX == static_cast<int>(adaptcore::Isa::Amx) &&
              AC_ISA_AVX512_BF16 == static_cast<int>(adaptcore::Isa::Avx512Bf16) &&
              AC_ISA_AVX512_VNNI == static_cast<int>(adaptcore::Isa::Avx512Vnni) &&
              AC_ISA_AVX512 == static_cast<int>(adaptcore::Isa::Avx512));
inline bool valid_isa(ac_isa_t isa) noexcept {
  return static_cast<int>(isa) >= AC_ISA_AUTO && static_cast<int>(isa) <= AC_ISA_AMX;
}

// The C API passes bf16 as uint16_t bit patterns; adaptcore::bf16 is layout-compatible with
// uint16_t (static_asserts in adaptcore/bf16.hpp).
inline const bf16* as_bf16(const std::uint16_t* p) noexcept {
  return reinterpret_cast<const bf16*>(p);
}
inline bf16* as_bf16(std::uint16_t* p) noexcept { return reinterpret_cast<bf16*>(p); }

// Runs call(Context&) on the handle's context; a NULL handle is a null pointer.
template <class Call>
ac_status_t on_context(ac_context* ctx, Call&& call) noexcept {
  if (ctx == nullptr) return AC_STATUS_NULL_POINTER;
  return call(ctx->context);
}

// A new handle H (a struct holding the C++ object as `w`) filled by make(h->w) -> Status, stored
// in *out on success; *out is NULL on any failure (NullPointer for a NULL out, the call's status,
// OutOfMemory, InternalError).
template <class H, class Make>
ac_status_t make_handle(H** out, Make&& make) noexcept {
  if (out == nullptr) return AC_STATUS_NULL_POINTER;
  *out = nullptr;
  try {
    auto* h = new H;
    const Status s = make(h->w);
    if (s != Status::Ok) {
      delete h;
      return to_c(s);
    }
    *out = h;
    return AC_STATUS_OK;
  } catch (const std::bad_alloc&) {
    return AC_STATUS_OUT_OF_MEMORY;
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

// The C fused-epilogue list (ac_post_op) as CallOptions over `out` (c_api.cpp).
CallOptions post_call_options(const ac_post_op* ops, int count,
                              PostOp (&out)[kMaxPostOps]) noexcept;

}  // namespace adaptcore::capi
