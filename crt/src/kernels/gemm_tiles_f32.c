/* Register-blocked float32 matrix product tiles; see gemm_tiles_f32.h. */
#include "gemm_tiles_f32.h"

#include <stddef.h>

#if KILN_F32_ASM

/* The tiles are inlined into their loops: a call per tile would cost a dozen
 * instructions of argument passing and register saving. */
#define KILN_F32_TILE static inline __attribute__((always_inline))

/* acc += w * x on single-precision registers s<acc>, s<w>, s<x>. */
#define KILN_VFMA(acc, w, x) "vfma.f32 s" #acc ", s" #w ", s" #x "\n\t"
/* One reduction step of the 4x4 tile: accumulator s(4i + j) += weight s<Wi> * x s<Xj>. */
#define KILN_STEP_4X4(W0, W1, W2, W3, X0, X1, X2, X3)                                                 \
  KILN_VFMA(0, W0, X0) KILN_VFMA(1, W0, X1) KILN_VFMA(2, W0, X2) KILN_VFMA(3, W0, X3)                \
  KILN_VFMA(4, W1, X0) KILN_VFMA(5, W1, X1) KILN_VFMA(6, W1, X2) KILN_VFMA(7, W1, X3)                \
  KILN_VFMA(8, W2, X0) KILN_VFMA(9, W2, X1) KILN_VFMA(10, W2, X2) KILN_VFMA(11, W2, X3)              \
  KILN_VFMA(12, W3, X0) KILN_VFMA(13, W3, X1) KILN_VFMA(14, W3, X2) KILN_VFMA(15, W3, X3)
/* One step of a four-row column: s<i> += weight s<W0 + i> * x s<X>. */
#define KILN_STEP_4X1(W0, W1, W2, W3, X) KILN_VFMA(0, W0, X) KILN_VFMA(1, W1, X) KILN_VFMA(2, W2, X) KILN_VFMA(3, W3, X)

#define KILN_ALL_S_REGS                                                                                    \
  "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", \
      "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31"

#if KILN_F32_MVE

/* Helium: row i of the tile in q<i> (four columns), x of one step in q4, the four
 * weights of the step in core registers (one LDM); a low-overhead loop: eight
 * instructions per sixteen multiply-adds. */
KILN_F32_TILE void tile_4x4(const float* wp, const float* bias4, const float* x, uint32_t x_stride_bytes,
                            uint32_t k, float* out, uint32_t out_stride_bytes) {
  __asm__ volatile(
      "ldmia %[b], {r4, r5, r6, r8}\n\t"
      "vdup.32 q0, r4\n\t"
      "vdup.32 q1, r5\n\t"
      "vdup.32 q2, r6\n\t"
      "vdup.32 q3, r8\n\t"
      "wls lr, %[n], 2f\n"
      "1:\n\t"
      "vldrw.u32 q4, [%[x]]\n\t"
      "add %[x], %[x], %[xs]\n\t"
      "ldmia %[w]!, {r4, r5, r6, r8}\n\t"
      "vfma.f32 q0, q4, r4\n\t"
      "vfma.f32 q1, q4, r5\n\t"
      "vfma.f32 q2, q4, r6\n\t"
      "vfma.f32 q3, q4, r8\n\t"
      "le lr, 1b\n"
      "2:\n\t"
      "vstrw.32 q0, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstrw.32 q1, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstrw.32 q2, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstrw.32 q3, [%[o]]\n\t"
      : [w] "+r"(wp), [x] "+r"(x), [o] "+r"(out)
      : [b] "r"(bias4), [xs] "r"(x_stride_bytes), [n] "r"(k), [os] "r"(out_stride_bytes)
      : "q0", "q1", "q2", "q3", "q4", "r4", "r5", "r6", "r8", "lr", "cc", "memory");
}

#else

/* Four rows x four columns: accumulators s0-s15, weights of two steps s16-s23 (one
 * VLDM of eight), x of two steps s24-s31 (one VLDM of four per step): 38
 * instructions per 32 multiply-adds. */
KILN_F32_TILE void tile_4x4(const float* wp, const float* bias4, const float* x, uint32_t x_stride_bytes,
                            uint32_t k, float* out, uint32_t out_stride_bytes) {
  uint32_t pairs = k >> 1, odd = k & 1u;
  __asm__ volatile(
      "vldmia %[b], {s16-s19}\n\t"
      "vmov.f32 s0, s16\n\t"
      "vmov.f32 s1, s16\n\t"
      "vmov.f32 s2, s16\n\t"
      "vmov.f32 s3, s16\n\t"
      "vmov.f32 s4, s17\n\t"
      "vmov.f32 s5, s17\n\t"
      "vmov.f32 s6, s17\n\t"
      "vmov.f32 s7, s17\n\t"
      "vmov.f32 s8, s18\n\t"
      "vmov.f32 s9, s18\n\t"
      "vmov.f32 s10, s18\n\t"
      "vmov.f32 s11, s18\n\t"
      "vmov.f32 s12, s19\n\t"
      "vmov.f32 s13, s19\n\t"
      "vmov.f32 s14, s19\n\t"
      "vmov.f32 s15, s19\n\t"
      "cmp %[n], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[w]!, {s16-s23}\n\t"
      "vldmia %[x], {s24-s27}\n\t"
      "add %[x], %[x], %[xs]\n\t"
      "vldmia %[x], {s28-s31}\n\t"
      "add %[x], %[x], %[xs]\n\t"
      KILN_STEP_4X4(16, 17, 18, 19, 24, 25, 26, 27)
      KILN_STEP_4X4(20, 21, 22, 23, 28, 29, 30, 31)
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "cmp %[odd], #0\n\t"
      "beq 3f\n\t"
      "vldmia %[w]!, {s16-s19}\n\t"
      "vldmia %[x], {s24-s27}\n\t"
      KILN_STEP_4X4(16, 17, 18, 19, 24, 25, 26, 27)
      "3:\n\t"
      "vstmia %[o], {s0-s3}\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstmia %[o], {s4-s7}\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstmia %[o], {s8-s11}\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstmia %[o], {s12-s15}\n\t"
      : [w] "+r"(wp), [x] "+r"(x), [n] "+r"(pairs), [o] "+r"(out)
      : [b] "r"(bias4), [xs] "r"(x_stride_bytes), [odd] "r"(odd), [os] "r"(out_stride_bytes)
      : KILN_ALL_S_REGS, "cc", "memory");
}

#endif /* KILN_F32_MVE */

/* Four rows x one column (the columns past the last multiple of four). */
KILN_F32_TILE void tile_4x1(const float* wp, const float* bias4, const float* x, uint32_t x_stride_bytes,
                            uint32_t k, float* out, uint32_t out_stride_bytes) {
  __asm__ volatile(
      "vldmia %[b], {s0-s3}\n\t"
      "cmp %[n], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[w]!, {s16-s19}\n\t"
      "vldr s24, [%[x]]\n\t"
      "add %[x], %[x], %[xs]\n\t"
      KILN_STEP_4X1(16, 17, 18, 19, 24)
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "vstr s0, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstr s1, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstr s2, [%[o]]\n\t"
      "add %[o], %[o], %[os]\n\t"
      "vstr s3, [%[o]]\n\t"
      : [w] "+r"(wp), [x] "+r"(x), [n] "+r"(k), [o] "+r"(out)
      : [b] "r"(bias4), [xs] "r"(x_stride_bytes), [os] "r"(out_stride_bytes)
      : "s0", "s1", "s2", "s3", "s16", "s17", "s18", "s19", "s24", "cc", "memory");
}

#if KILN_F32_MVE

/* Helium: the four outputs in q0; per reduction step one vector of the four
 * weights times x[r] in a core register (four steps per LDM of x). */
KILN_F32_TILE void gemv_4(const float* wp, const float* bias4, const float* x, uint32_t k, float* y) {
  uint32_t quads = k >> 2, rest = k & 3u;
  __asm__ volatile(
      "vldrw.u32 q0, [%[b]]\n\t"
      "wls lr, %[n], 2f\n"
      "1:\n\t"
      "ldmia %[x]!, {r4, r5, r6, r8}\n\t"
      "vldrw.u32 q1, [%[w]], #16\n\t"
      "vfma.f32 q0, q1, r4\n\t"
      "vldrw.u32 q2, [%[w]], #16\n\t"
      "vfma.f32 q0, q2, r5\n\t"
      "vldrw.u32 q3, [%[w]], #16\n\t"
      "vfma.f32 q0, q3, r6\n\t"
      "vldrw.u32 q4, [%[w]], #16\n\t"
      "vfma.f32 q0, q4, r8\n\t"
      "le lr, 1b\n"
      "2:\n\t"
      "wls lr, %[r], 4f\n"
      "3:\n\t"
      "ldr r4, [%[x]], #4\n\t"
      "vldrw.u32 q1, [%[w]], #16\n\t"
      "vfma.f32 q0, q1, r4\n\t"
      "le lr, 3b\n"
      "4:\n\t"
      "vstrw.32 q0, [%[y]]\n\t"
      : [w] "+r"(wp), [x] "+r"(x)
      : [b] "r"(bias4), [y] "r"(y), [n] "r"(quads), [r] "r"(rest)
      : "q0", "q1", "q2", "q3", "q4", "r4", "r5", "r6", "r8", "lr", "cc", "memory");
}

#else

/* Four rows of a matrix-vector product, four reduction steps per iteration: one
 * VLDM of sixteen weights, one of four x values, sixteen VFMAs. */
KILN_F32_TILE void gemv_4(const float* wp, const float* bias4, const float* x, uint32_t k, float* y) {
  uint32_t quads = k >> 2, rest = k & 3u;
  __asm__ volatile(
      "vldmia %[b], {s0-s3}\n\t"
      "cmp %[n], #0\n\t"
      "beq 2f\n"
      "1:\n\t"
      "vldmia %[w]!, {s16-s31}\n\t"
      "vldmia %[x]!, {s4-s7}\n\t"
      KILN_STEP_4X1(16, 17, 18, 19, 4)
      KILN_STEP_4X1(20, 21, 22, 23, 5)
      KILN_STEP_4X1(24, 25, 26, 27, 6)
      KILN_STEP_4X1(28, 29, 30, 31, 7)
      "subs %[n], %[n], #1\n\t"
      "bne 1b\n"
      "2:\n\t"
      "cmp %[r], #0\n\t"
      "beq 4f\n"
      "3:\n\t"
      "vldmia %[w]!, {s16-s19}\n\t"
      "vldmia %[x]!, {s4}\n\t"
      KILN_STEP_4X1(16, 17, 18, 19, 4)
      "subs %[r], %[r], #1\n\t"
      "bne 3b\n"
      "4:\n\t"
      "vstmia %[y], {s0-s3}\n\t"
      : [w] "+r"(wp), [x] "+r"(x), [n] "+r"(quads), [r] "+r"(rest)
      : [b] "r"(bias4), [y] "r"(y)
      : KILN_ALL_S_REGS, "cc", "memory");
}

#endif /* KILN_F32_MVE */

#else /* portable C: the same tiles, the same summation order */

static void tile_4xn(const float* wp, const float* bias4, const float* x, uint32_t x_stride, uint32_t k, uint32_t n,
                     float* out, uint32_t out_stride) {
  float acc[4][4];
  uint32_t i, j, r;
  for (i = 0; i < 4u; ++i)
    for (j = 0; j < n; ++j) acc[i][j] = bias4[i];
  for (r = 0; r < k; ++r, wp += 4, x += x_stride)
    for (i = 0; i < 4u; ++i)
      for (j = 0; j < n; ++j) acc[i][j] += wp[i] * x[j];
  for (i = 0; i < 4u; ++i)
    for (j = 0; j < n; ++j) out[i * out_stride + j] = acc[i][j];
}

static void tile_4x4(const float* wp, const float* bias4, const float* x, uint32_t x_stride_bytes, uint32_t k,
                     float* out, uint32_t out_stride_bytes) {
  tile_4xn(wp, bias4, x, x_stride_bytes / 4u, k, 4u, out, out_stride_bytes / 4u);
}

static void tile_4x1(const float* wp, const float* bias4, const float* x, uint32_t x_stride_bytes, uint32_t k,
                     float* out, uint32_t out_stride_bytes) {
  tile_4xn(wp, bias4, x, x_stride_bytes / 4u, k, 1u, out, out_stride_bytes / 4u);
}

static void gemv_4(const float* wp, const float* bias4, const float* x, uint32_t k, float* y) {
  tile_4xn(wp, bias4, x, 1u, k, 1u, y, 1u);
}

#endif /* KILN_F32_ASM */

void kiln_f32_gemm_block(const float* wp, const float* bias, uint32_t rows, const float* x, uint32_t x_stride,
                         uint32_t k, uint32_t cols, float* out, uint32_t out_stride) {
  float b4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float part[16]; /* a tile of a block with fewer than four rows, before its rows are copied out */
  uint32_t i, j, c;
  const uint32_t xs = x_stride * (uint32_t)sizeof(float);
  if (rows > 4u) rows = 4u;
  if (bias != NULL)
    for (i = 0; i < rows; ++i) b4[i] = bias[i];
  for (j = 0; j + 4u <= cols; j += 4u) {
    if (rows == 4u) {
      tile_4x4(wp, b4, x + j, xs, k, out + j, out_stride * (uint32_t)sizeof(float));
    } else {
      tile_4x4(wp, b4, x + j, xs, k, part, 4u * (uint32_t)sizeof(float));
      for (i = 0; i < rows; ++i)
        for (c = 0; c < 4u; ++c) out[i * out_stride + j + c] = part[4u * i + c];
    }
  }
  for (; j < cols; ++j) {
    if (rows == 4u) {
      tile_4x1(wp, b4, x + j, xs, k, out + j, out_stride * (uint32_t)sizeof(float));
    } else {
      tile_4x1(wp, b4, x + j, xs, k, part, (uint32_t)sizeof(float));
      for (i = 0; i < rows; ++i) out[i * out_stride + j] = part[i];
    }
  }
}

void kiln_f32_gemv_block(const float* wp, const float* bias, uint32_t rows, const float* x, uint32_t k, float* y) {
  float b4[4] = {0.0f, 0.0f, 0.0f, 0.0f}, y4[4];
  uint32_t i;
  if (rows > 4u) rows = 4u;
  if (bias != NULL)
    for (i = 0; i < rows; ++i) b4[i] = bias[i];
  gemv_4(wp, b4, x, k, y4);
  for (i = 0; i < rows; ++i) y[i] = y4[i];
}
