/*
 * The asm shared by the two-column GEMM blocks of s8_mve_gemm.h (int16 columns,
 * VMLADAVA.S16) and s8_mve_gemm8.h (int8 columns, VMLADAVA.S8): eight int32 sums
 * (two columns x four weight rows) in core registers, zeroed, accumulated from
 * q4 / q5 (the columns) and q0..q3 (the rows), and moved into two vectors. The
 * loads of a step differ (VLD4 deinterleaving vs four VLDRB) and stay in each
 * file.
 *
 * Fixed registers: VMLADAVA accumulates only into even-numbered core registers
 * (the "Te" constraint: r0, r2, ..., r12, lr), so the eight sums take all eight
 * of them, and with the two column pointers, the weight pointer and the loop end
 * the block holds twelve core registers at once. Without the pins GCC 12.2
 * (arm-none-eabi, -mcpu=cortex-m55) rejects the block with "'asm' operand has
 * impossible constraints" in conv_s8.c, fully_connected_s8.c, conv_s8_w8.c and
 * fully_connected_s8_w8.c at -O1 and at -O2 -fno-omit-frame-pointer (r7, the
 * frame pointer, is then not free), and for the int16 form at -Os too; it
 * compiles at -O2 and -O3 only because the allocator happens to find the
 * registers there. Pinned, the allocation cannot fail at any level.
 */
#ifndef KILN_S8_MVE_2X4_H
#define KILN_S8_MVE_2X4_H

/* The twelve registers of a block: column pointers p0 / p1 (post-incremented),
 * the weight pointer wr, c0's end, the sums a<column><row>. */
#define KILN_S8_MVE_2X4_REGISTERS(T, c0, c1, wb, c0_end)                                        \
  register const T* p0 __asm__("r1") = (c0);                                                     \
  register const T* p1 __asm__("r3") = (c1);                                                     \
  register const T* wr __asm__("r5") = (wb);                                                     \
  register const T* end __asm__("r11") = (c0_end);                                               \
  register int32_t a00 __asm__("r0"), a01 __asm__("r2"), a02 __asm__("r4"), a03 __asm__("r6"); \
  register int32_t a10 __asm__("r8"), a11 __asm__("r10"), a12 __asm__("r12"), a13 __asm__("lr")

#define KILN_S8_MVE_2X4_ZERO \
  "movs %[a00], #0\n\t"      \
  "movs %[a01], #0\n\t"      \
  "movs %[a02], #0\n\t"      \
  "movs %[a03], #0\n\t"      \
  "movs %[a10], #0\n\t"      \
  "movs %[a11], #0\n\t"      \
  "movs %[a12], #0\n\t"      \
  "movs %[a13], #0\n\t"

/* One step's products: column c (q4, q5) times row r (q0..q3) into a<c><r>;
 * `dt` the element type, "s16" or "s8". */
#define KILN_S8_MVE_2X4_MLA(dt)              \
  "vmladava." dt " %[a00], q4, q0\n\t"       \
  "vmladava." dt " %[a10], q5, q0\n\t"       \
  "vmladava." dt " %[a01], q4, q1\n\t"       \
  "vmladava." dt " %[a11], q5, q1\n\t"       \
  "vmladava." dt " %[a02], q4, q2\n\t"       \
  "vmladava." dt " %[a12], q5, q2\n\t"       \
  "vmladava." dt " %[a03], q4, q3\n\t"       \
  "vmladava." dt " %[a13], q5, q3\n\t"       \
  "cmp %[c0], %[end]\n\t"                    \
  "bne 1b\n\t"

/* The sums into s0 (column 0, lane r = row r) and s1 (column 1). */
#define KILN_S8_MVE_2X4_TO_VECTORS \
  "vmov.32 %q[s0][0], %[a00]\n\t"  \
  "vmov.32 %q[s0][1], %[a01]\n\t"  \
  "vmov.32 %q[s0][2], %[a02]\n\t"  \
  "vmov.32 %q[s0][3], %[a03]\n\t"  \
  "vmov.32 %q[s1][0], %[a10]\n\t"  \
  "vmov.32 %q[s1][1], %[a11]\n\t"  \
  "vmov.32 %q[s1][2], %[a12]\n\t"  \
  "vmov.32 %q[s1][3], %[a13]"

/* The operands of a block (outputs, inputs, clobbers) for the registers above
 * and the vectors s0, s1. */
#define KILN_S8_MVE_2X4_OPERANDS(s0, s1)                                                                    \
  : [s0] "=&w"(s0), [s1] "=&w"(s1), [a00] "=&Te"(a00), [a01] "=&Te"(a01), [a02] "=&Te"(a02),             \
    [a03] "=&Te"(a03), [a10] "=&Te"(a10), [a11] "=&Te"(a11), [a12] "=&Te"(a12), [a13] "=&Te"(a13),        \
    [c0] "+r"(p0), [c1] "+r"(p1), [w] "+r"(wr)                                                             \
  : [end] "r"(end)                                                                                         \
  : "q0", "q1", "q2", "q3", "q4", "q5", "memory", "cc"

#endif /* KILN_S8_MVE_2X4_H */
