/*
 * Console output and exit for QEMU Cortex-M boards through Arm semihosting
 * (`bkpt 0xab`; QEMU runs with -semihosting-config enable=on,target=native).
 */
#include <stdint.h>

#include "kiln_board.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT_EXTENDED 0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static int semihost(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void kiln_board_write(const char* s, uint32_t len) {
  /* SYS_WRITE0 prints a NUL-terminated string; copy through a small buffer. */
  char buf[257];
  uint32_t i = 0;
  while (i < len) {
    uint32_t k = 0;
    while (k < 256u && i < len) buf[k++] = s[i++];
    buf[k] = '\0';
    semihost(SYS_WRITE0, buf);
  }
}

void kiln_board_exit(int code) {
  /* SYS_EXIT_EXTENDED carries the exit status to QEMU's process exit code. */
  uint32_t block[2];
  block[0] = ADP_STOPPED_APPLICATION_EXIT;
  block[1] = (uint32_t)code;
  semihost(SYS_EXIT_EXTENDED, block);
  for (;;) {
  }
}
