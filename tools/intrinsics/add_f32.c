/*
 * The float32 residual Add's contiguous run: add_f32_run of crt/src/kernels/add.c
 * (VLDM / VADD / VSTM, four elements a pass, in inline asm) against the same loop
 * in C, unrolled by four (there is no intrinsic for VLDM / VSTM; GCC loads and
 * stores each element with VLDR / VSTR).
 */
#include <stdint.h>

/* The runtime's kernel, whose same-shape case inlines add_f32_run, under a name
 * the script reads. */
#define kiln_add_f32 add_asm
#include "add.c"

void add_c(const float* a, const float* b, float* out, uint32_t n) {
  uint32_t i;
  for (i = 0; i + 4 <= n; i += 4) {
    out[i] = a[i] + b[i];
    out[i + 1] = a[i + 1] + b[i + 1];
    out[i + 2] = a[i + 2] + b[i + 2];
    out[i + 3] = a[i + 3] + b[i + 3];
  }
  for (; i < n; ++i) out[i] = a[i] + b[i];
}
