/* Text output over UART0 of the MPS2 board (an Arm CMSDK APB UART). */
#ifndef FIRMWARE_UART_H
#define FIRMWARE_UART_H

#include <stdint.h>

void uart_init(void);
void uart_puts(const char* s);
void uart_put_int(int32_t v);
void uart_put_hex(uint32_t v);
/* v with `decimals` digits after the point (no printf: nano.specs has no floats). */
void uart_put_fixed(float v, int decimals);

#endif
