// Uses the installed C++ and C headers: a 3 x 2 x 4 GEMM with an exact result (C++, C, C on a
// context handle) and a bf16 dot product.
#include <adaptcore/adaptcore.h>

#include <adaptcore/adaptcore.hpp>
#include <cstdio>

int main() {
  const float a[3 * 4] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const float b[4 * 2] = {1, 0, 0, 1, 1, 0, 0, 1};
  float c[3 * 2] = {};
  const adaptcore::Status s =
      adaptcore::gemm(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No, 3, 2,
                      4, 1.0f, a, 4, b, 2, 0.0f, c, 2);
  const float want[6] = {4, 6, 12, 14, 20, 22};
  for (int i = 0; i < 6; ++i)
    if (s != adaptcore::Status::Ok || c[i] != want[i]) return 1;
  float d[3 * 2] = {};
  if (ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 3, 2, 4, 1.0f, a, 4, b, 2, 0.0f, d, 2) !=
      AC_STATUS_OK)
    return 2;
  for (int i = 0; i < 6; ++i)
    if (d[i] != want[i]) return 3;
  // bf16 through its own type, and a C context handle.
  const adaptcore::bf16 ha[2] = {adaptcore::bf16(1.5f), adaptcore::bf16(2.0f)};
  const adaptcore::bf16 hb[2] = {adaptcore::bf16(4.0f), adaptcore::bf16(-1.0f)};
  float e = 0.0f;
  if (adaptcore::gemm_bf16(adaptcore::Layout::RowMajor, adaptcore::Trans::No, adaptcore::Trans::No,
                           1, 1, 2, 1.0f, ha, 2, hb, 1, 0.0f, &e, 1) != adaptcore::Status::Ok ||
      e != 4.0f)
    return 4;
  ac_context* ctx = nullptr;
  if (ac_context_create(nullptr, &ctx) != AC_STATUS_OK) return 5;
  float f[3 * 2] = {};
  const ac_status_t cs = ac_sgemm_ctx(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 3, 2, 4, 1.0f, a, 4,
                                      b, 2, 0.0f, f, 2, ctx);
  ac_context_destroy(ctx);
  for (int i = 0; i < 6; ++i)
    if (cs != AC_STATUS_OK || f[i] != want[i]) return 6;
  std::printf("adaptcore %s: ok\n", ac_version());
  return 0;
}
