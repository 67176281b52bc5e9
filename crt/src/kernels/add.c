/* ONNX Add with numpy broadcasting, every numeric dtype: out = a + b.
 * Integers wrap modulo 2^bits: the sum is formed in the unsigned type WT, where
 * overflow is defined, and converted back (two's complement, as numpy does). */
#include "broadcast_walk.h"
#include "elementwise_types.h"
#include "gemm_tiles_f32.h" /* KILN_F32_ASM */
#include "kiln/elementwise.h"

#define ADD_FLOAT(SFX, T) \
  KILN_DEFINE_BINARY_KERNEL(kiln_add_##SFX, T, KILN_STORE_##SFX(KILN_LOAD_##SFX(x) + KILN_LOAD_##SFX(y)))
#define ADD_INT(SFX, T) KILN_DEFINE_BINARY_KERNEL(kiln_add_##SFX, T, (T)((KILN_WT_##SFX)x + (KILN_WT_##SFX)y))

ADD_FLOAT(f64, double)
ADD_FLOAT(f16, uint16_t)

static KILN_DEFINE_BINARY_KERNEL(add_f32_walk, float, x + y)

/* Two tensors of one shape (a residual connection): one contiguous run, added
 * four at a time with VLDM / VSTM on cores with a single-precision FPU. */
static void add_f32_run(const float* a, const float* b, float* out, uint32_t n) {
  uint32_t i = 0;
#if KILN_F32_ASM
  uint32_t quads = n >> 2;
  if (quads > 0u) {
    const float *pa = a, *pb = b;
    float* po = out;
    __asm__ volatile(
        "1:\n\t"
        "vldmia %[a]!, {s0-s3}\n\t"
        "vldmia %[b]!, {s4-s7}\n\t"
        "vadd.f32 s0, s0, s4\n\t"
        "vadd.f32 s1, s1, s5\n\t"
        "vadd.f32 s2, s2, s6\n\t"
        "vadd.f32 s3, s3, s7\n\t"
        "vstmia %[o]!, {s0-s3}\n\t"
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        : [a] "+r"(pa), [b] "+r"(pb), [o] "+r"(po), [n] "+r"(quads)
        :
        : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "cc", "memory");
    i = n & ~3u;
  }
#endif
  for (; i < n; ++i) out[i] = a[i] + b[i];
}

kiln_status_t kiln_add_f32(const kiln_broadcast_t* p, const float* a, const float* b, float* out) {
  if (p != NULL && a != NULL && b != NULL && out != NULL && p->ndim == 1u && p->shape[0] > 0 &&
      p->stride_a[0] == 1 && p->stride_b[0] == 1) {
    add_f32_run(a, b, out, (uint32_t)p->shape[0]);
    return KILN_OK;
  }
  return add_f32_walk(p, a, b, out);
}
KILN_INT_TYPES(ADD_INT)
