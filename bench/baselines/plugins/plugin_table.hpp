// Plugin side of plugin_abi.h: turns an adapter class into the C table the loader reads, so that
// each plugin file holds only its library's code. The adapter class provides
//   explicit Impl(int threads);                       // throws std::exception on failure
//   std::string version() const;
//   bool supports(const GemmCall&) const;
//   void prepare(const GemmCall&);                    // per-shape setup, timed by the loader
//   void run(const GemmCall&);
//   std::string detail(const GemmCall&) const;
// and the plugin file ends with ADAPTCORE_BASELINE_PLUGIN(Impl). Exceptions stop here: each
// table function catches them and returns the message.
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "baselines/baseline.hpp"
#include "baselines/plugin_abi.h"

namespace adaptcore::bench::plugin {

inline void copy_text(const std::string& s, char* buf, std::size_t len) {
  if (buf == nullptr || len == 0) return;
  const std::size_t n = s.size() < len - 1 ? s.size() : len - 1;
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
}

// Runs f; 0, or 1 with the exception's message in msg (the tables' failing functions).
template <class F>
int guarded(char* msg, std::size_t len, F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    copy_text(e.what(), msg, len);
    return 1;
  }
}
// Runs a yes/no question; an exception answers no.
template <class F>
int answer(F&& f) {
  try {
    return f() ? 1 : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

inline GemmCall to_call(const ac_gemm_call& c) {
  return {c.m, c.n, c.k, c.trans_a != 0, c.trans_b != 0, c.a, c.lda, c.b, c.ldb, c.c, c.ldc};
}

// What a prepared call depends on (everything but the pointers), for per-shape caches.
inline auto shape_key(const GemmCall& c) {
  return std::make_tuple(c.m, c.n, c.k, c.trans_a, c.trans_b, c.lda, c.ldb, c.ldc);
}
using ShapeKey = decltype(shape_key(GemmCall{}));

template <class Impl>
const ac_baseline_plugin* plugin_table() {
  static const ac_baseline_plugin table = {
      AC_BASELINE_PLUGIN_ABI,
      [](int threads, char* msg, std::size_t len) -> void* {
        try {
          return new Impl(threads);
        } catch (const std::exception& e) {
          copy_text(e.what(), msg, len);
          return nullptr;
        }
      },
      [](void* self) { delete static_cast<Impl*>(self); },
      [](void* self, char* buf, std::size_t len) {
        try {
          copy_text(static_cast<const Impl*>(self)->version(), buf, len);
        } catch (const std::exception& e) {
          copy_text(std::string("version unavailable: ") + e.what(), buf, len);
        }
      },
      [](void* self, const ac_gemm_call* call) -> int {
        return answer([&] { return static_cast<const Impl*>(self)->supports(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->prepare(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->run(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call, char* buf, std::size_t len) {
        try {
          copy_text(static_cast<const Impl*>(self)->detail(to_call(*call)), buf, len);
        } catch (const std::exception&) {
          copy_text("", buf, len);
        }
      },
  };
  return &table;
}

inline LowpGemmCall to_lowp_call(const ac_lowp_call& c) {
  const LowpType type = c.type == AC_LOWP_BF16   ? LowpType::Bf16
                        : c.type == AC_LOWP_U8S8 ? LowpType::U8S8
                                                 : LowpType::S8S8;
  return {type,  c.m, c.n,   c.k, c.trans_a != 0, c.trans_b != 0, c.a,
          c.lda, c.b, c.ldb, c.c, c.ldc,          c.a_zero_point};
}

// The optional low-precision table, for an adapter class that also provides
//   bool supports_lowp(const LowpGemmCall&) const;
//   void prepare_lowp(const LowpGemmCall&);
//   void run_lowp(const LowpGemmCall&);
template <class Impl>
const ac_baseline_plugin_lowp* plugin_lowp_table() {
  static const ac_baseline_plugin_lowp table = {
      AC_BASELINE_PLUGIN_LOWP_ABI,
      [](void* self, const ac_lowp_call* call) -> int {
        if (call->type != AC_LOWP_BF16 && call->type != AC_LOWP_U8S8 && call->type != AC_LOWP_S8S8)
          return 0;
        return answer(
            [&] { return static_cast<const Impl*>(self)->supports_lowp(to_lowp_call(*call)); });
      },
      [](void* self, const ac_lowp_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len,
                       [&] { static_cast<Impl*>(self)->prepare_lowp(to_lowp_call(*call)); });
      },
      [](void* self, const ac_lowp_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->run_lowp(to_lowp_call(*call)); });
      },
  };
  return &table;
}

// The optional packed-weights table, for an adapter class that also provides
//   bool supports_packed(const GemmCall&) const;
//   void pack(const GemmCall&);        // packs op(B), remembered by its B pointer
//   void run_packed(const GemmCall&);
//   void release_packed(const GemmCall&);  // frees the copy packed for its B pointer
// and the same four for LowpGemmCall: supports_packed_lowp, pack_lowp, run_packed_lowp,
// release_packed_lowp.
template <class Impl>
const ac_baseline_plugin_packed* plugin_packed_table() {
  static const ac_baseline_plugin_packed table = {
      AC_BASELINE_PLUGIN_PACKED_ABI,
      [](void* self, const ac_gemm_call* call) -> int {
        return answer(
            [&] { return static_cast<const Impl*>(self)->supports_packed(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->pack(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->run_packed(to_call(*call)); });
      },
      [](void* self, const ac_gemm_call* call) {
        try {
          static_cast<Impl*>(self)->release_packed(to_call(*call));
        } catch (const std::exception&) {
        }
      },
      [](void* self, const ac_lowp_call* call) -> int {
        return answer([&] {
          return static_cast<const Impl*>(self)->supports_packed_lowp(to_lowp_call(*call));
        });
      },
      [](void* self, const ac_lowp_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len, [&] { static_cast<Impl*>(self)->pack_lowp(to_lowp_call(*call)); });
      },
      [](void* self, const ac_lowp_call* call, char* msg, std::size_t len) -> int {
        return guarded(msg, len,
                       [&] { static_cast<Impl*>(self)->run_packed_lowp(to_lowp_call(*call)); });
      },
      [](void* self, const ac_lowp_call* call) {
        try {
          static_cast<Impl*>(self)->release_packed_lowp(to_lowp_call(*call));
        } catch (const std::exception&) {
        }
      },
  };
  return &table;
}

// The optional fused-epilogue table, for an adapter class that also provides
//   void run_post_ops(const GemmCall&, const std::vector<Baseline::PostOp>&);
template <class Impl>
const ac_baseline_plugin_post* plugin_post_table() {
  static const ac_baseline_plugin_post table = {
      AC_BASELINE_PLUGIN_POST_ABI,
      [](void* self, const ac_gemm_call* call, const ac_bench_post_op* ops, int count, char* msg,
         std::size_t len) -> int {
        return guarded(msg, len, [&] {
          std::vector<Baseline::PostOp> list;
          for (int i = 0; i < count; ++i) list.push_back({ops[i].kind, ops[i].data, ops[i].ld});
          static_cast<Impl*>(self)->run_post_ops(to_call(*call), list);
        });
      },
  };
  return &table;
}

}  // namespace adaptcore::bench::plugin

// The plugin's optional fourth symbol: GEMM with a fused epilogue.
#define ADAPTCORE_BASELINE_PLUGIN_POST(Impl)                                       \
  extern "C" __attribute__((visibility("default"))) const ac_baseline_plugin_post* \
  adaptcore_baseline_plugin_post(void) {                                           \
    return adaptcore::bench::plugin::plugin_post_table<Impl>();                    \
  }

// The plugin's optional third symbol: GEMM on weights packed ahead of time.
#define ADAPTCORE_BASELINE_PLUGIN_PACKED(Impl)                                       \
  extern "C" __attribute__((visibility("default"))) const ac_baseline_plugin_packed* \
  adaptcore_baseline_plugin_packed(void) {                                           \
    return adaptcore::bench::plugin::plugin_packed_table<Impl>();                    \
  }

// The plugin's optional second symbol: its low-precision operations.
#define ADAPTCORE_BASELINE_PLUGIN_LOWP(Impl)                                       \
  extern "C" __attribute__((visibility("default"))) const ac_baseline_plugin_lowp* \
  adaptcore_baseline_plugin_lowp(void) {                                           \
    return adaptcore::bench::plugin::plugin_lowp_table<Impl>();                    \
  }

// The plugin's one exported symbol (plugins are built with hidden visibility).
#define ADAPTCORE_BASELINE_PLUGIN(Impl)                                       \
  extern "C" __attribute__((visibility("default"))) const ac_baseline_plugin* \
  adaptcore_baseline_plugin(void) {                                           \
    return adaptcore::bench::plugin::plugin_table<Impl>();                    \
  }
