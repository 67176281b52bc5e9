/*
 * Instruction counting on QEMU Cortex-M boards. QEMU does not implement the DWT
 * cycle counter, but with `-icount shift=0` each instruction advances virtual time
 * by 1 ns, and SysTick (clocked from the CPU clock) advances with virtual time.
 * So instructions = ticks * (1e9 / clock_hz). The 24-bit counter wraps; the
 * SysTick interrupt counts the wraps.
 *
 * KILN_BOARD_INSTRUCTIONS_PER_TICK_X100 is set per board (4000 for 25 MHz, 3125 for 32 MHz).
 */
#include <stdint.h>

#include "kiln_board.h"

#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
#define SYST_CSR_ENABLE 1u
#define SYST_CSR_TICKINT 2u
#define SYST_CSR_CLKSOURCE 4u
#define SYST_RELOAD 0x00FFFFFFu

static volatile uint32_t wraps;

void SysTick_Handler(void) { ++wraps; }

void kiln_board_counter_start(void) {
  SYST_CSR = 0;
  wraps = 0;
  SYST_RVR = SYST_RELOAD;
  SYST_CVR = 0; /* any write clears the counter; it reloads on the next tick */
  SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
}

uint64_t kiln_board_counter_read(void) {
  uint32_t w1, v, w2;
  uint64_t ticks;
  do { /* read wraps and the counter consistently */
    w1 = wraps;
    v = SYST_CVR;
    w2 = wraps;
  } while (w1 != w2);
  ticks = (uint64_t)w1 * (SYST_RELOAD + 1u) + (uint64_t)(SYST_RELOAD - v);
  return ticks * KILN_BOARD_INSTRUCTIONS_PER_TICK_X100 / 100u;
}

uint64_t kiln_board_counter_stop(void) {
  uint64_t n = kiln_board_counter_read();
  SYST_CSR = 0;
  return n;
}
