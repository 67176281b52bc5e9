/*
 * What a board provides to the generic test runner (boards/common/runner.c).
 * One implementation per board folder: boards/<board>/board.c.
 */
#ifndef KILN_BOARD_H
#define KILN_BOARD_H

#include <stdint.h>

/* Called once before anything else (clocks, FPU, counters). */
void kiln_board_init(void);
/* Writes `len` bytes to the host console (semihosting on QEMU, stdout on host). */
void kiln_board_write(const char* s, uint32_t len);
/* Starts counting instructions. */
void kiln_board_counter_start(void);
/* Instructions executed since kiln_board_counter_start(); 0 if the board cannot count. */
uint64_t kiln_board_counter_stop(void);
/* The same, without stopping the counter (per-operator profiles). */
uint64_t kiln_board_counter_read(void);
/* Ends the program with `code` as the process exit status (semihosting exit on QEMU). */
void kiln_board_exit(int code);

#endif
