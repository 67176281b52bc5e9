/*
 * Startup for the QEMU Cortex-M boards: the vector table, and a reset handler
 * that copies .data from flash, zeroes .bss, enables the FPU when the core has
 * one (KILN_BOARD_HAS_FPU), and calls main(). Symbols come from the board's
 * linker script (boards/common/cortex_m.ld.in).
 */
#include <stdint.h>

#include "kiln_board.h"

extern uint32_t __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__, __stack_top__;
extern int main(void);
void Reset_Handler(void);
void SysTick_Handler(void);

static void Default_Handler(void) {
  /* A fault: report it and stop, rather than hang the test run. */
  kiln_board_write("KILN-FAULT\n", 11u);
  kiln_board_exit(3);
}

__attribute__((section(".vectors"), used)) static void (*const vectors[])(void) = {
    (void (*)(void))(&__stack_top__),
    Reset_Handler,
    Default_Handler, /* NMI */
    Default_Handler, /* HardFault */
    Default_Handler, /* MemManage */
    Default_Handler, /* BusFault */
    Default_Handler, /* UsageFault */
    0, 0, 0, 0,
    Default_Handler, /* SVC */
    Default_Handler, /* DebugMon */
    0,
    Default_Handler, /* PendSV */
    SysTick_Handler,
};

void Reset_Handler(void) {
  uint32_t* src = &__data_load__;
  uint32_t* dst;
  for (dst = &__data_start__; dst < &__data_end__;) *dst++ = *src++;
  for (dst = &__bss_start__; dst < &__bss_end__;) *dst++ = 0u;
#if KILN_BOARD_HAS_FPU
  /* CPACR: full access to CP10/CP11 (the FPU). */
  *(volatile uint32_t*)0xE000ED88u |= (0xFu << 20);
  __asm__ volatile("dsb\n isb" ::: "memory");
#endif
  kiln_board_exit(main());
}

void kiln_board_init(void) {}
