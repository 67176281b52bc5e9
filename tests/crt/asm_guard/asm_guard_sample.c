/* A struct read by asm at fixed offsets, with its checks (crt/src/kernels/asm_guard.h).
 * -DKILN_WRONG_OFFSET claims a wrong offset, -DKILN_WRONG_FACT a false fact, and
 * -DKILN_WRONG_LOCAL a false fact about a local: each must fail the build. */
#include <stdint.h>

#include "kernels/asm_guard.h"

typedef struct {
  int32_t a; /* 0 */
  int32_t b; /* 4 */
  int16_t c; /* 8 */
} sample_ctl_t;

KILN_ASM_OFFSET(sample_ctl_t, a, 0);
KILN_ASM_OFFSET(sample_ctl_t, b, 4);
KILN_ASM_OFFSET(sample_ctl_t, c, 8);
KILN_ASM_OFFSET(sample_ctl_t, b, 4); /* a check may repeat (a header seen twice) */
KILN_ASM_CHECK(sample_words, sizeof(sample_ctl_t) == 12);
#ifdef KILN_WRONG_OFFSET
KILN_ASM_OFFSET(sample_ctl_t, c, 6);
#endif
#ifdef KILN_WRONG_FACT
KILN_ASM_CHECK(sample_size, sizeof(sample_ctl_t) == 10);
#endif

int sample_sum(const sample_ctl_t* k);
int sample_sum(const sample_ctl_t* k) {
  int32_t ctl[3];
  KILN_ASM_EXPECT(sizeof(ctl) == 3 * sizeof(int32_t));
#ifdef KILN_WRONG_LOCAL
  KILN_ASM_EXPECT(sizeof(ctl) == 4 * sizeof(int32_t));
#endif
  ctl[0] = k->a, ctl[1] = k->b, ctl[2] = k->c;
  return ctl[0] + ctl[1] + ctl[2];
}
