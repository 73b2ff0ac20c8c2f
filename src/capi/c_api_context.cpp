// The C API's context handles: creation from ac_context_options, destruction, and the
// configuration calls of adaptcore::Context. Never throws: allocations (the handle, copies of
// paths and messages) are caught and reported as statuses.
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "adaptcore/adaptcore.h"
#include "adaptcore/adaptcore.hpp"
#include "capi/c_context.hpp"

namespace {

using adaptcore::Context;
using adaptcore::capi::on_context;
using adaptcore::capi::to_c;

// Copies text into a caller's buffer of `size` bytes, truncated and NUL-terminated.
void copy_message(std::string_view text, char* out, size_t size) noexcept {
  if (out == nullptr || size == 0) return;
  const size_t n = text.size() < size - 1 ? text.size() : size - 1;
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// A file operation of the context: the path's copy may fail (out of memory), the reason of a
// failure goes to the caller's buffer.
template <class Op>
ac_status_t file_op(ac_context* ctx, const char* path, char* error, size_t error_size,
                    Op&& op) noexcept {
  copy_message("", error, error_size);
  if (ctx == nullptr) return AC_STATUS_NULL_POINTER;
  if (path == nullptr) return AC_STATUS_INVALID_ARGUMENT;
  try {
    std::string reason;
    const adaptcore::Status s = op(ctx->context, std::string(path), &reason);
    if (s != adaptcore::Status::Ok) copy_message(reason, error, error_size);
    return to_c(s);
  } catch (const std::bad_alloc&) {
    copy_message("out of memory", error, error_size);
    return AC_STATUS_OUT_OF_MEMORY;
  }
}

}  // namespace

extern "C" {

void ac_context_options_init(ac_context_options* options) noexcept {
  if (options == nullptr) return;
  *options = ac_context_options{};
  options->isa = AC_ISA_AUTO;
  options->read_environment = 1;
}

ac_status_t ac_context_create(const ac_context_options* options, ac_context** out) noexcept {
  if (out == nullptr) return AC_STATUS_NULL_POINTER;
  *out = nullptr;
  ac_context_options defaults;
  ac_context_options_init(&defaults);
  const ac_context_options& o = options != nullptr ? *options : defaults;
  if (o.threads < 0 || !adaptcore::capi::valid_isa(o.isa)) return AC_STATUS_INVALID_ARGUMENT;
  try {
    adaptcore::ContextOptions opts;
    opts.threads = o.threads;
    opts.isa = static_cast<adaptcore::Isa>(o.isa);
    if (o.profile_path != nullptr) opts.profile_path = o.profile_path;
    if (o.plan_file != nullptr) opts.plan_file = o.plan_file;
    opts.read_environment = o.read_environment != 0;
    *out = new ac_context(opts);
    return AC_STATUS_OK;
  } catch (const std::bad_alloc&) {
    return AC_STATUS_OUT_OF_MEMORY;
  } catch (...) {
    return AC_STATUS_INTERNAL_ERROR;
  }
}

void ac_context_destroy(ac_context* ctx) noexcept { delete ctx; }

ac_status_t ac_context_init_status(const ac_context* ctx, const char** message) noexcept {
  if (message != nullptr) *message = "";
  if (ctx == nullptr) return AC_STATUS_NULL_POINTER;
  if (message != nullptr) *message = ctx->context.init_message().c_str();
  return to_c(ctx->context.init_status());
}

ac_status_t ac_context_set_num_threads(ac_context* ctx, int threads) noexcept {
  return on_context(ctx, [&](Context& c) { return to_c(c.set_threads(threads)); });
}

ac_status_t ac_context_get_num_threads(const ac_context* ctx, int* threads) noexcept {
  if (ctx == nullptr || threads == nullptr) return AC_STATUS_NULL_POINTER;
  *threads = ctx->context.threads();
  return AC_STATUS_OK;
}

ac_status_t ac_context_set_isa(ac_context* ctx, ac_isa_t isa) noexcept {
  return on_context(ctx, [&](Context& c) {
    if (!adaptcore::capi::valid_isa(isa)) return AC_STATUS_INVALID_ARGUMENT;
    return to_c(c.set_isa(static_cast<adaptcore::Isa>(isa)));
  });
}

ac_status_t ac_context_get_isa(const ac_context* ctx, ac_isa_t* isa) noexcept {
  if (ctx == nullptr || isa == nullptr) return AC_STATUS_NULL_POINTER;
  *isa = static_cast<ac_isa_t>(ctx->context.isa());
  return AC_STATUS_OK;
}

ac_status_t ac_context_set_residency(ac_context* ctx, ac_residency_t residency) noexcept {
  return on_context(ctx, [&](Context& c) {
    return to_c(c.set_residency(static_cast<adaptcore::Residency>(residency)));
  });
}

ac_status_t ac_context_get_residency(const ac_context* ctx, ac_residency_t* residency) noexcept {
  if (ctx == nullptr || residency == nullptr) return AC_STATUS_NULL_POINTER;
  *residency = static_cast<ac_residency_t>(ctx->context.residency());
  return AC_STATUS_OK;
}

ac_status_t ac_context_load_hardware_profile(ac_context* ctx, const char* path, char* error,
                                             size_t error_size) noexcept {
  return file_op(ctx, path, error, error_size,
                 [](Context& c, const std::string& p, std::string* reason) {
                   return c.load_hardware_profile(p, reason);
                 });
}

ac_status_t ac_context_load_plan_file(ac_context* ctx, const char* path, char* error,
                                      size_t error_size) noexcept {
  return file_op(ctx, path, error, error_size,
                 [](Context& c, const std::string& p, std::string* reason) {
                   return c.load_plan_file(p, reason);
                 });
}

ac_status_t ac_context_save_plan_file(ac_context* ctx, const char* path, char* error,
                                      size_t error_size) noexcept {
  return file_op(ctx, path, error, error_size,
                 [](Context& c, const std::string& p, std::string* reason) {
                   return c.save_plan_file(p, reason);
                 });
}

ac_status_t ac_context_cached_plans(const ac_context* ctx, size_t* count) noexcept {
  if (ctx == nullptr || count == nullptr) return AC_STATUS_NULL_POINTER;
  *count = ctx->context.cached_plans();
  return AC_STATUS_OK;
}

ac_status_t ac_context_clear_plan_cache(ac_context* ctx) noexcept {
  return on_context(ctx, [](Context& c) {
    c.clear_plan_cache();
    return AC_STATUS_OK;
  });
}

}  // extern "C"
