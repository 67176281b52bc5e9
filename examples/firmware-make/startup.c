/* Startup for the MPS2 cores (Cortex-M4F of AN386, Cortex-M33 of AN505, an ARMv6-M
 * build): the vector table, and a reset handler that copies .data from flash,
 * zeroes .bss, enables the FPU when the build uses one and calls main(). The
 * symbols come from sections.ld. */
#include <stdint.h>

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
extern int main(void);
void Reset_Handler(void);
void exit_qemu(int code);

static void Fault_Handler(void) {
  for (;;) {
  }
}

__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)&__stack_top,   (uintptr_t)Reset_Handler, (uintptr_t)Fault_Handler, /* NMI */
    (uintptr_t)Fault_Handler, /* HardFault */
    (uintptr_t)Fault_Handler, /* MemManage */
    (uintptr_t)Fault_Handler, /* BusFault */
    (uintptr_t)Fault_Handler, /* UsageFault */
};

void Reset_Handler(void) {
  const uint32_t* src = &__data_load;
  uint32_t* dst;
  for (dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (dst = &__bss_start; dst < &__bss_end;) *dst++ = 0u;
#if defined(__ARM_FP)
  /* CPACR: full access to CP10/CP11, the FPU the generated code uses (-mfloat-abi=hard). */
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n isb" ::: "memory");
#endif
  exit_qemu(main());
}

/* Ends the QEMU run with main's status (Arm semihosting SYS_EXIT_EXTENDED; QEMU
 * runs with -semihosting). Firmware for a real board would never return from
 * main; without a debugger attached, the bkpt would fault, so the example only
 * does this when built with EXIT_QEMU=1 (the Makefile's default). */
void exit_qemu(int code) {
#if defined(EXIT_QEMU) && EXIT_QEMU
  uint32_t block[2] = {0x20026u /* ADP_Stopped_ApplicationExit */, (uint32_t)code};
  register uint32_t r0 __asm__("r0") = 0x20u;
  register uint32_t* r1 __asm__("r1") = block;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
  (void)code;
#endif
  for (;;) {
  }
}
