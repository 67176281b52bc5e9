/*
 * Compile-time checks beside hand-written assembly that reads memory at fixed
 * byte offsets: a struct's fields (`ldr r4, [r3, #20]`, `vldrw.32 q0, [%[m], #16]`,
 * an LDM of consecutive fields) or a record laid out by a constant. When the
 * layout no longer matches the numbers written in the asm, the build fails
 * instead of the kernel reading the wrong field.
 *
 *   KILN_ASM_OFFSET(type, field, offset)  offsetof(type, field) == offset
 *   KILN_ASM_CHECK(name, condition)       any other constant fact the asm relies on
 *   KILN_ASM_EXPECT(condition);           the same as a statement, inside a function
 *                                         (a fact about a local: an array's length)
 *
 * The runtime is C99 (-std=c99 -pedantic), which has no _Static_assert. Under
 * C11 and later the checks are _Static_assert with a message; under C99 each is
 * an extern array declaration whose size is -1 when the check fails. Declaring
 * the same array again with the same size is valid C99, so a header's checks may
 * be seen twice in one translation unit. `type` must be a typedef name.
 */
#ifndef KILN_ASM_GUARD_H
#define KILN_ASM_GUARD_H

#include <stddef.h>

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KILN_ASM_OFFSET(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), "the asm reads " #type "." #field " at byte " #offset)
#define KILN_ASM_CHECK(name, condition) _Static_assert(condition, "the asm relies on " #name ": " #condition)
#else
#define KILN_ASM_OFFSET(type, field, offset) \
  extern char kiln_asm_offset_##type##_##field[offsetof(type, field) == (offset) ? 1 : -1]
#define KILN_ASM_CHECK(name, condition) extern char kiln_asm_check_##name[(condition) ? 1 : -1]
#endif
#define KILN_ASM_EXPECT(condition) ((void)sizeof(char[(condition) ? 1 : -1]))

#endif /* KILN_ASM_GUARD_H */
