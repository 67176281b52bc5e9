/* A bare-metal application that runs the demo CNN (examples/cnn): the model is
 * compiled by `kiln compile` at build time into build/cnn/ and linked through
 * its module.mk (this folder) or CMakeLists.txt (../firmware-cmake). It runs
 * inference on each input of inputs.h a few rounds over and prints the results
 * over the UART. */
#include <stdint.h>

#include "inputs.h"
#include "metadata.h"
#include "uart.h"

#define ROUNDS 2

/* The workspace pool: the compile's section=.kiln_arena names the section
 * (KILN_CNN_SRAM_WORKSPACE_SECTION), the linker script places it. */
static uint8_t arena[KILN_CNN_SRAM_WORKSPACE_SIZE] KILN_ALIGNED(KILN_CNN_SRAM_WORKSPACE_ALIGNMENT)
    KILN_SECTION(KILN_CNN_SRAM_WORKSPACE_SECTION);
static float probabilities[KILN_CNN_OUTPUT_PROBABILITIES_SIZE / sizeof(float)];

int main(void) {
  const struct kiln_cnn_workspaces workspaces = {arena};
  const struct kiln_cnn_outputs outputs = {probabilities};
  const uint32_t num_classes = KILN_CNN_OUTPUT_PROBABILITIES_SIZE / sizeof(float);
  int failures = 0, round;
  uint32_t k, c;

  uart_init();
  uart_puts("firmware: demo CNN, workspace pool 'sram' ");
  uart_put_int((int32_t)KILN_CNN_SRAM_WORKSPACE_SIZE);
  uart_puts(" bytes at ");
  uart_put_hex((uint32_t)(uintptr_t)arena);
  uart_puts("\n");

  for (round = 0; round < ROUNDS; ++round) {
    for (k = 0; k < NUM_INPUTS; ++k) {
      const struct kiln_cnn_inputs in = {inputs[k]};
      /* NULL parameters: the weights compiled into parameters_flash.c. */
      int32_t status = kiln_cnn_run(&in, &outputs, &workspaces, NULL);
      uint32_t best = 0;
      float max_error = 0.0f;
      if (status != KILN_OK) {
        uart_puts("input ");
        uart_put_int((int32_t)k);
        uart_puts(": kiln_cnn_run failed with status ");
        uart_put_int(status);
        uart_puts("\n");
        ++failures;
        continue;
      }
      for (c = 0; c < num_classes; ++c) {
        float e = probabilities[c] - expected_probabilities[k][c];
        if (e < 0.0f) e = -e;
        if (e > max_error) max_error = e;
        if (probabilities[c] > probabilities[best]) best = c;
      }
      uart_puts("round ");
      uart_put_int(round);
      uart_puts(" input ");
      uart_put_int((int32_t)k);
      uart_puts(": class ");
      uart_put_int((int32_t)best);
      uart_puts(" p=");
      uart_put_fixed(probabilities[best], 4);
      if (expected_class[k] >= 0) {
        /* PyTorch's float32 probabilities, to the runtime's float tolerance. */
        int ok = (int)best == expected_class[k] && max_error <= 1e-5f;
        uart_puts(ok ? " (matches PyTorch)" : " (DIFFERS from PyTorch)");
        failures += !ok;
      }
      uart_puts("\n");
    }
  }
  uart_puts(failures == 0 ? "firmware: PASS\n" : "firmware: FAIL\n");
  return failures == 0 ? 0 : 1;
}
