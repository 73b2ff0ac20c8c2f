/* The C API's context handles from C (compiled as C, linked against libadaptcore.so): a
 * context's life cycle, its configuration calls, every `_ctx` entry point with an exact result,
 * the int8 C offsets, and AC_STATUS_NULL_POINTER for a NULL handle everywhere. Prints each
 * failed check and exits non-zero. */
#include <adaptcore/adaptcore.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define CHECK_STATUS(call, want)                                                     \
  do {                                                                               \
    const ac_status_t got_ = (call);                                                 \
    if (got_ != (want)) {                                                            \
      fprintf(stderr, "%s:%d: %s returned %s, want %s\n", __FILE__, __LINE__, #call, \
              ac_status_string(got_), ac_status_string(want));                       \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)

/* bf16 bit patterns of small integers (exact). */
static uint16_t bf16_of(int v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)(u >> 16);
}
static float float_of(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static void life_cycle_and_configuration(void) {
  ac_context_options o;
  memset(&o, 0x5a, sizeof o);
  ac_context_options_init(&o);
  CHECK(o.threads == 0 && o.isa == AC_ISA_AUTO && o.profile_path == NULL && o.plan_file == NULL &&
        o.read_environment == 1);
  o.threads = 3;
  o.read_environment = 0;
  ac_context* ctx = NULL;
  CHECK_STATUS(ac_context_create(&o, &ctx), AC_STATUS_OK);
  CHECK(ctx != NULL);
  const char* message = NULL;
  CHECK_STATUS(ac_context_init_status(ctx, &message), AC_STATUS_OK);
  CHECK(message != NULL && message[0] == '\0');
  int threads = 0;
  CHECK_STATUS(ac_context_get_num_threads(ctx, &threads), AC_STATUS_OK);
  CHECK(threads == 3);
  CHECK_STATUS(ac_context_set_num_threads(ctx, 2), AC_STATUS_OK);
  CHECK_STATUS(ac_context_get_num_threads(ctx, &threads), AC_STATUS_OK);
  CHECK(threads == 2);
  CHECK_STATUS(ac_context_set_num_threads(ctx, 0), AC_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(ac_context_set_isa(ctx, AC_ISA_GENERIC), AC_STATUS_OK);
  ac_isa_t isa = AC_ISA_AUTO;
  CHECK_STATUS(ac_context_get_isa(ctx, &isa), AC_STATUS_OK);
  CHECK(isa == AC_ISA_GENERIC);
  CHECK_STATUS(ac_context_set_isa(ctx, (ac_isa_t)9), AC_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(ac_context_set_isa(ctx, AC_ISA_AUTO), AC_STATUS_OK);
  CHECK_STATUS(ac_context_get_isa(ctx, &isa), AC_STATUS_OK);
  CHECK(isa != AC_ISA_AUTO);
  ac_residency_t residency = AC_RESIDENCY_MEMORY;
  CHECK_STATUS(ac_context_get_residency(ctx, &residency), AC_STATUS_OK);
  CHECK(residency == AC_RESIDENCY_AUTO);
  CHECK_STATUS(ac_context_set_residency(ctx, AC_RESIDENCY_CACHED), AC_STATUS_OK);
  CHECK_STATUS(ac_context_get_residency(ctx, &residency), AC_STATUS_OK);
  CHECK(residency == AC_RESIDENCY_CACHED);
  CHECK_STATUS(ac_context_set_residency(ctx, (ac_residency_t)7), AC_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(ac_context_set_residency(ctx, AC_RESIDENCY_AUTO), AC_STATUS_OK);
  CHECK_STATUS(ac_set_residency((ac_residency_t)-1), AC_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(ac_set_residency(AC_RESIDENCY_AUTO), AC_STATUS_OK);

  /* A call's own residency: MEMORY on repeated buffers keeps one plan; an unknown value is
   * refused. */
  {
    const float a1[4] = {1, 2, 3, 4}, b1[4] = {5, 6, 7, 8};
    float c1[4] = {0, 0, 0, 0};
    size_t n_plans = 9;
    for (int rep = 0; rep < 3; ++rep)
      CHECK_STATUS(ac_sgemm_residency_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a1,
                                          2, b1, 2, 0.0f, c1, 2, AC_RESIDENCY_MEMORY, ctx),
                   AC_STATUS_OK);
    CHECK(c1[0] == 19 && c1[1] == 22 && c1[2] == 43 && c1[3] == 50);
    CHECK_STATUS(ac_context_cached_plans(ctx, &n_plans), AC_STATUS_OK);
    CHECK(n_plans == 1);
    CHECK_STATUS(ac_sgemm_residency_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a1,
                                        2, b1, 2, 0.0f, c1, 2, (ac_residency_t)3, ctx),
                 AC_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(ac_sgemm_residency_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a1,
                                        2, b1, 2, 0.0f, c1, 2, AC_RESIDENCY_CACHED, NULL),
                 AC_STATUS_NULL_POINTER);
    CHECK_STATUS(ac_sgemm_residency(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a1, 2,
                                    b1, 2, 0.0f, c1, 2, AC_RESIDENCY_CACHED),
                 AC_STATUS_OK);
    CHECK(c1[3] == 50);
    CHECK_STATUS(ac_context_clear_plan_cache(ctx), AC_STATUS_OK);
  }

  /* A plan made by a call is saved, cleared, and loaded back. */
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0, 0, 0, 0};
  CHECK_STATUS(ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f,
                            c, 2, ctx),
               AC_STATUS_OK);
  CHECK(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50);
  size_t plans = 0;
  CHECK_STATUS(ac_context_cached_plans(ctx, &plans), AC_STATUS_OK);
  CHECK(plans == 1);
  char path[64];
  snprintf(path, sizeof path, "/tmp/adaptcore_c_ctx_%ld.plans", (long)getpid());
  char error[128] = "stale";
  CHECK_STATUS(ac_context_save_plan_file(ctx, path, error, sizeof error), AC_STATUS_OK);
  CHECK(error[0] == '\0');
  CHECK_STATUS(ac_context_clear_plan_cache(ctx), AC_STATUS_OK);
  CHECK_STATUS(ac_context_cached_plans(ctx, &plans), AC_STATUS_OK);
  CHECK(plans == 0);
  CHECK_STATUS(ac_context_load_plan_file(ctx, path, error, sizeof error), AC_STATUS_OK);
  CHECK_STATUS(ac_context_cached_plans(ctx, &plans), AC_STATUS_OK);
  CHECK(plans == 1);
  remove(path);
  /* Failures: the reason, truncated to the buffer. */
  CHECK_STATUS(ac_context_load_plan_file(ctx, path, error, sizeof error),
               AC_STATUS_INVALID_PLAN_FILE);
  CHECK(error[0] != '\0' && strlen(error) < sizeof error);
  char tiny[4] = "xyz";
  CHECK_STATUS(
      ac_context_load_hardware_profile(ctx, "/nonexistent/profile.json", tiny, sizeof tiny),
      AC_STATUS_INVALID_PROFILE);
  CHECK(strlen(tiny) == 3);
  CHECK_STATUS(ac_context_load_plan_file(ctx, NULL, NULL, 0), AC_STATUS_INVALID_ARGUMENT);
  ac_context_destroy(ctx);

  /* NULL options: the defaults. Unusable options: nothing is made. */
  CHECK_STATUS(ac_context_create(NULL, &ctx), AC_STATUS_OK);
  CHECK(ctx != NULL);
  ac_context_destroy(ctx);
  o.threads = -1;
  ctx = (ac_context*)&o;
  CHECK_STATUS(ac_context_create(&o, &ctx), AC_STATUS_INVALID_ARGUMENT);
  CHECK(ctx == NULL);
  o.threads = 0;
  o.isa = (ac_isa_t)77;
  CHECK_STATUS(ac_context_create(&o, &ctx), AC_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(ac_context_create(&o, NULL), AC_STATUS_NULL_POINTER);

  /* Options that cannot be honoured: a usable context that says why. */
  ac_context_options_init(&o);
  o.read_environment = 0;
  o.profile_path = "/nonexistent/profile.json";
  CHECK_STATUS(ac_context_create(&o, &ctx), AC_STATUS_OK);
  CHECK_STATUS(ac_context_init_status(ctx, &message), AC_STATUS_INVALID_PROFILE);
  CHECK(strstr(message, "profile") != NULL);
  CHECK_STATUS(ac_context_init_status(ctx, NULL), AC_STATUS_INVALID_PROFILE);
  c[0] = 0;
  CHECK_STATUS(ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f,
                            c, 2, ctx),
               AC_STATUS_OK);
  CHECK(c[0] == 19);
  ac_context_destroy(ctx);
  ac_context_destroy(NULL);
}

static void gemm_entry_points(ac_context* ctx) {
  /* bf16: A 2 x 3 of ones, B 3 x 4 of twos. */
  uint16_t a16[6], b16[12], c16[8];
  float cf[8];
  for (int i = 0; i < 6; ++i) a16[i] = bf16_of(1);
  for (int i = 0; i < 12; ++i) b16[i] = bf16_of(2);
  CHECK_STATUS(ac_gemm_bf16bf16f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, 1.0f, a16,
                                       3, b16, 4, 0.0f, cf, 4, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 8; ++i) CHECK(cf[i] == 6.0f);
  CHECK_STATUS(ac_gemm_bf16bf16bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, 0.5f, a16,
                                        3, b16, 4, 0.0f, c16, 4, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 8; ++i) CHECK(float_of(c16[i]) == 3.0f);

  /* int8 with zero points and each kind of C offset: A 2 x 3 of 200 (zero point 10), B 3 x 4 of
   * -7, so every product sum is 3 * 190 * -7 = -3990. */
  uint8_t a8[6];
  int8_t s8[6], b8[12];
  int32_t c32[8];
  for (int i = 0; i < 6; ++i) a8[i] = 200, s8[i] = -100;
  for (int i = 0; i < 12; ++i) b8[i] = -7;
  const int32_t azp = 10, fixed = 1000, rows[2] = {1, 2}, cols[4] = {10, 20, 30, 40};
  CHECK_STATUS(ac_gemm_u8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, a8, 3, &azp, 1,
                                   b8, 4, NULL, 0, 0, c32, 4, AC_OFFSET_FIXED, &fixed, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 8; ++i) CHECK(c32[i] == -3990 + 1000);
  CHECK_STATUS(ac_gemm_u8s8s32_ctx(AC_COL_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, a8, 2, &azp, 1,
                                   b8, 3, NULL, 0, 0, c32, 2, AC_OFFSET_PER_ROW, rows, ctx),
               AC_STATUS_OK);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 2; ++i) CHECK(c32[j * 2 + i] == -3990 + rows[i]);
  /* s8 x s8: 3 * -100 * -7 = 2100, plus beta = 1 times the previous C. */
  for (int i = 0; i < 8; ++i) c32[i] = i;
  CHECK_STATUS(ac_gemm_s8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, s8, 3, NULL, 0,
                                   b8, 4, NULL, 0, 1, c32, 4, AC_OFFSET_PER_COLUMN, cols, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) CHECK(c32[i * 4 + j] == 2100 + (i * 4 + j) + cols[j]);
  CHECK_STATUS(ac_gemm_s8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, s8, 3, NULL, 0,
                                   b8, 4, NULL, 0, 0, c32, 4, AC_OFFSET_FIXED, NULL, ctx),
               AC_STATUS_NULL_POINTER);
  CHECK_STATUS(ac_gemm_s8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 4, 3, s8, 3, NULL, 0,
                                   b8, 4, NULL, 0, 0, c32, 4, (ac_offset_t)4, cols, ctx),
               AC_STATUS_INVALID_ARGUMENT);

  /* Weight-quantized: weights of 0.25 quantize exactly; activations of one and of bf16 two. */
  float w[64 * 8], act[2 * 64], out[2 * 8];
  uint16_t act16[2 * 64];
  for (int i = 0; i < 64 * 8; ++i) w[i] = 0.25f;
  for (int i = 0; i < 2 * 64; ++i) act[i] = 1.0f, act16[i] = bf16_of(2);
  ac_weights_t h = NULL;
  CHECK_STATUS(ac_quantize_weights_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 64, 8, w, 8, AC_WEIGHTS_INT8,
                                           0, &h, ctx),
               AC_STATUS_OK);
  CHECK_STATUS(ac_gemm_wq_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, act, 64, h, 0.0f, out, 8,
                                  AC_WQ_TWO_PARTS, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 16; ++i) CHECK(out[i] > 15.99f && out[i] < 16.01f);
  CHECK_STATUS(ac_gemm_wq_bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, act16, 64, h, 0.0f, out, 8,
                                   AC_WQ_ONE_PART, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 16; ++i) CHECK(out[i] > 31.99f && out[i] < 32.01f);
  ac_weights_destroy(h);
  int8_t q[64 * 8];
  float scales[8];
  for (int i = 0; i < 64 * 8; ++i) q[i] = 4;
  for (int j = 0; j < 8; ++j) scales[j] = 0.5f;
  h = NULL;
  CHECK_STATUS(ac_quantize_weights_s8_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 64, 8, q, 8, scales,
                                          AC_WEIGHTS_INT8, 0, &h, ctx),
               AC_STATUS_OK);
  CHECK_STATUS(ac_gemm_wq_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, act, 64, h, 0.0f, out, 8,
                                  AC_WQ_TWO_PARTS, ctx),
               AC_STATUS_OK);
  for (int i = 0; i < 16; ++i) CHECK(out[i] > 127.9f && out[i] < 128.1f); /* 64 x 4 x 0.5 */
  ac_weights_destroy(h);
}

/* Every function taking a context answers a NULL one with AC_STATUS_NULL_POINTER and writes
 * nothing. */
static void null_context(void) {
  float f[4] = {1, 1, 1, 1}, cf[4] = {7, 7, 7, 7};
  uint16_t h16[4] = {0}, c16[4] = {0};
  uint8_t u8[4] = {0};
  int8_t s8[4] = {0};
  int32_t c32[4] = {7, 7, 7, 7};
  ac_weights_t w = (ac_weights_t)f; /* must be reset to NULL */
  const ac_status_t N = AC_STATUS_NULL_POINTER;
  CHECK_STATUS(ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, f, 2, f, 2, 0.0f,
                            cf, 2, NULL),
               N);
  CHECK_STATUS(ac_gemm_bf16bf16f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, h16,
                                       2, h16, 2, 0.0f, cf, 2, NULL),
               N);
  CHECK_STATUS(ac_gemm_bf16bf16bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, 1.0f, h16,
                                        2, h16, 2, 0.0f, c16, 2, NULL),
               N);
  CHECK_STATUS(ac_gemm_u8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, u8, 2, NULL, 0,
                                   s8, 2, NULL, 0, 0, c32, 2, AC_OFFSET_NONE, NULL, NULL),
               N);
  CHECK_STATUS(ac_gemm_s8s8s32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 2, 2, 2, s8, 2, NULL, 0,
                                   s8, 2, NULL, 0, 0, c32, 2, AC_OFFSET_NONE, NULL, NULL),
               N);
  CHECK_STATUS(ac_quantize_weights_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, 2, f, 2, AC_WEIGHTS_INT8,
                                           0, &w, NULL),
               N);
  CHECK(w == NULL);
  w = (ac_weights_t)f;
  CHECK_STATUS(ac_quantize_weights_s8_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, 2, s8, 2, f,
                                          AC_WEIGHTS_INT8, 0, &w, NULL),
               N);
  CHECK(w == NULL);
  CHECK_STATUS(ac_gemm_wq_f32_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, f, 2, NULL, 0.0f, cf, 2,
                                  AC_WQ_TWO_PARTS, NULL),
               N);
  CHECK_STATUS(ac_gemm_wq_bf16_ctx(AC_ROW_MAJOR, AC_NO_TRANS, 2, h16, 2, NULL, 0.0f, cf, 2,
                                   AC_WQ_TWO_PARTS, NULL),
               N);
  for (int i = 0; i < 4; ++i) CHECK(cf[i] == 7.0f && c32[i] == 7 && c16[i] == 0);

  int threads = -5;
  ac_isa_t isa = (ac_isa_t)-5;
  size_t plans = 99;
  const char* message = NULL;
  char error[16] = "stale";
  CHECK_STATUS(ac_context_init_status(NULL, &message), N);
  CHECK(message != NULL);
  CHECK_STATUS(ac_context_set_num_threads(NULL, 2), N);
  CHECK_STATUS(ac_context_get_num_threads(NULL, &threads), N);
  CHECK(threads == -5);
  CHECK_STATUS(ac_context_set_isa(NULL, AC_ISA_AUTO), N);
  CHECK_STATUS(ac_context_get_isa(NULL, &isa), N);
  CHECK(isa == (ac_isa_t)-5);
  ac_residency_t residency = (ac_residency_t)-5;
  CHECK_STATUS(ac_context_set_residency(NULL, AC_RESIDENCY_AUTO), N);
  CHECK_STATUS(ac_context_get_residency(NULL, &residency), N);
  CHECK(residency == (ac_residency_t)-5);
  CHECK_STATUS(ac_context_load_hardware_profile(NULL, "x", error, sizeof error), N);
  CHECK_STATUS(ac_context_load_plan_file(NULL, "x", error, sizeof error), N);
  CHECK_STATUS(ac_context_save_plan_file(NULL, "x", error, sizeof error), N);
  CHECK(error[0] == '\0');
  CHECK_STATUS(ac_context_cached_plans(NULL, &plans), N);
  CHECK(plans == 99);
  CHECK_STATUS(ac_context_clear_plan_cache(NULL), N);
}

int main(void) {
  life_cycle_and_configuration();
  ac_context_options o;
  ac_context_options_init(&o);
  o.threads = 2;
  o.read_environment = 0;
  ac_context* ctx = NULL;
  CHECK_STATUS(ac_context_create(&o, &ctx), AC_STATUS_OK);
  if (ctx != NULL) gemm_entry_points(ctx);
  ac_context_destroy(ctx);
  null_context();
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C context API: ok\n");
  return 0;
}
