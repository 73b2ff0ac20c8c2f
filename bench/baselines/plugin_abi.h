/* The C interface between the baselines loader and the project's adapter plugins
 * (libadaptcore_baseline_<name>.so). A plain C table rather than a C++ class: the plugins are
 * built with other flags (-march=native, OpenMP, vendor headers) and keep their C++ internals
 * hidden, so nothing but these functions crosses the dlopen boundary, and no exception does. */
#ifndef ADAPTCORE_BENCH_BASELINES_PLUGIN_ABI_H
#define ADAPTCORE_BENCH_BASELINES_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AC_BASELINE_PLUGIN_ABI 1
#define AC_BASELINE_PLUGIN_ENTRY "adaptcore_baseline_plugin"

/* Same meaning as adaptcore::bench::GemmCall (row-major, alpha 1, beta 0). */
typedef struct ac_gemm_call {
  int64_t m, n, k;
  int32_t trans_a, trans_b;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
} ac_gemm_call;

/* Functions that can fail return 0 on success, or nonzero with a message in msg (at most
 * msg_len bytes, NUL-terminated). */
typedef struct ac_baseline_plugin {
  uint32_t abi;                                            /* AC_BASELINE_PLUGIN_ABI */
  void* (*create)(int threads, char* msg, size_t msg_len); /* NULL on failure */
  void (*destroy)(void* self);
  void (*version)(void* self, char* buf, size_t len);
  int (*supports)(void* self, const ac_gemm_call* call); /* 1 or 0 */
  int (*prepare)(void* self, const ac_gemm_call* call, char* msg, size_t msg_len);
  int (*run)(void* self, const ac_gemm_call* call, char* msg, size_t msg_len);
  void (*detail)(void* self, const ac_gemm_call* call, char* buf, size_t len);
} ac_baseline_plugin;

/* The one symbol a plugin exports, named by AC_BASELINE_PLUGIN_ENTRY. */
typedef const ac_baseline_plugin* (*ac_baseline_plugin_entry)(void);

/* Optional second table: the low-precision operations (adaptcore::bench::LowpGemmCall), on the
 * object the first table's create() returned. A plugin without it has none. */
#define AC_BASELINE_PLUGIN_LOWP_ABI 1
#define AC_BASELINE_PLUGIN_LOWP_ENTRY "adaptcore_baseline_plugin_lowp"

enum { AC_LOWP_BF16 = 1, AC_LOWP_U8S8 = 2, AC_LOWP_S8S8 = 3 };

typedef struct ac_lowp_call {
  int32_t type; /* AC_LOWP_* */
  int64_t m, n, k;
  int32_t trans_a, trans_b;
  const void* a;
  int64_t lda;
  const void* b;
  int64_t ldb;
  void* c;
  int64_t ldc;
  int32_t a_zero_point;
} ac_lowp_call;

typedef struct ac_baseline_plugin_lowp {
  uint32_t abi;                                          /* AC_BASELINE_PLUGIN_LOWP_ABI */
  int (*supports)(void* self, const ac_lowp_call* call); /* 1 or 0 */
  int (*prepare)(void* self, const ac_lowp_call* call, char* msg, size_t msg_len);
  int (*run)(void* self, const ac_lowp_call* call, char* msg, size_t msg_len);
} ac_baseline_plugin_lowp;

typedef const ac_baseline_plugin_lowp* (*ac_baseline_plugin_lowp_entry)(void);

/* Optional third table: GEMM on weights packed ahead of time (Baseline::pack / run_packed /
 * release_packed, and the low-precision *_lowp ones), on the object the first table's create()
 * returned. */
#define AC_BASELINE_PLUGIN_PACKED_ABI 2
#define AC_BASELINE_PLUGIN_PACKED_ENTRY "adaptcore_baseline_plugin_packed"

typedef struct ac_baseline_plugin_packed {
  uint32_t abi;                                          /* AC_BASELINE_PLUGIN_PACKED_ABI */
  int (*supports)(void* self, const ac_gemm_call* call); /* 1 or 0 */
  int (*pack)(void* self, const ac_gemm_call* call, char* msg, size_t msg_len);
  int (*run)(void* self, const ac_gemm_call* call, char* msg, size_t msg_len);
  void (*release)(void* self, const ac_gemm_call* call);      /* frees the copy of call->b */
  int (*supports_lowp)(void* self, const ac_lowp_call* call); /* 1 or 0 */
  int (*pack_lowp)(void* self, const ac_lowp_call* call, char* msg, size_t msg_len);
  int (*run_lowp)(void* self, const ac_lowp_call* call, char* msg, size_t msg_len);
  void (*release_lowp)(void* self, const ac_lowp_call* call);
} ac_baseline_plugin_packed;

typedef const ac_baseline_plugin_packed* (*ac_baseline_plugin_packed_entry)(void);

/* Optional fourth table: GEMM with a fused epilogue (Baseline::run_post_ops); kinds and data
 * as adaptcore::PostOp (adaptcore/types.hpp). */
#define AC_BASELINE_PLUGIN_POST_ABI 1
#define AC_BASELINE_PLUGIN_POST_ENTRY "adaptcore_baseline_plugin_post"

typedef struct ac_bench_post_op {
  int32_t kind;
  const float* data;
  int64_t ld;
} ac_bench_post_op;

typedef struct ac_baseline_plugin_post {
  uint32_t abi; /* AC_BASELINE_PLUGIN_POST_ABI */
  int (*run)(void* self, const ac_gemm_call* call, const ac_bench_post_op* ops, int count,
             char* msg, size_t msg_len);
} ac_baseline_plugin_post;

typedef const ac_baseline_plugin_post* (*ac_baseline_plugin_post_entry)(void);

#ifdef __cplusplus
}
#endif

#endif
