/* CMSDK APB UART0 of the MPS2 FPGA images: DATA, STATE (bit 0: transmit buffer
 * full), CTRL (bit 0: transmit enable) and BAUDDIV. At 0x40004000 on AN385/AN386/
 * AN500 (the default), at 0x50200000 (the secure alias) on AN505; the Makefile
 * passes the board's. On QEMU, `-serial stdio` connects UART0 to the terminal. */
#include "uart.h"

#ifndef UART0_BASE
#define UART0_BASE 0x40004000u
#endif
#ifndef UART_CLOCK_HZ
#define UART_CLOCK_HZ 25000000u
#endif
#define UART_DATA (*(volatile uint32_t*)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t*)(UART0_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t*)(UART0_BASE + 0x08u))
#define UART_BAUDDIV (*(volatile uint32_t*)(UART0_BASE + 0x10u))
#define UART_STATE_TX_FULL 1u
#define UART_CTRL_TX_ENABLE 1u

void uart_init(void) {
  UART_BAUDDIV = UART_CLOCK_HZ / 115200u; /* 217 at 25 MHz; the divider must be at least 16 */
  UART_CTRL = UART_CTRL_TX_ENABLE;
}

static void uart_putc(char c) {
  while (UART_STATE & UART_STATE_TX_FULL) {
  }
  UART_DATA = (uint32_t)(unsigned char)c;
}

void uart_puts(const char* s) {
  while (*s != '\0') {
    if (*s == '\n') uart_putc('\r');
    uart_putc(*s++);
  }
}

void uart_put_int(int32_t v) {
  char buf[12];
  int n = 0;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  do {
    buf[n++] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u != 0u);
  if (v < 0) uart_putc('-');
  while (n > 0) uart_putc(buf[--n]);
}

void uart_put_hex(uint32_t v) {
  int shift;
  uart_puts("0x");
  for (shift = 28; shift >= 0; shift -= 4) uart_putc("0123456789abcdef"[(v >> shift) & 15u]);
}

void uart_put_fixed(float v, int decimals) {
  uint32_t scale = 1u, frac;
  int i;
  for (i = 0; i < decimals; ++i) scale *= 10u;
  if (v < 0.0f) {
    uart_putc('-');
    v = -v;
  }
  /* Round to the last digit shown; values here are probabilities, far below 2^32. */
  frac = (uint32_t)(v * (float)scale + 0.5f);
  uart_put_int((int32_t)(frac / scale));
  uart_putc('.');
  for (scale /= 10u; scale > 0u; scale /= 10u) uart_putc((char)('0' + (frac / scale) % 10u));
}
