/* The host board: runs the test runner natively (fast; tests add ASan/UBSan).
 * It has no instruction counter: counts read 0. */
#include <stdio.h>
#include <stdlib.h>

#include "kiln_board.h"

void kiln_board_init(void) {}
void kiln_board_write(const char* s, uint32_t len) { fwrite(s, 1, len, stdout); }
void kiln_board_counter_start(void) {}
uint64_t kiln_board_counter_stop(void) { return 0; }
uint64_t kiln_board_counter_read(void) { return 0; }
void kiln_board_exit(int code) {
  fflush(stdout);
  exit(code);
}
