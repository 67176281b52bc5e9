/* A streaming model run frame by frame through a Kiln module (compiled with
 * --module-name stream), its state carried by the module: every frame's outputs
 * against stream_data.h (the reference run frame by frame, written by
 * tests/tflite/make_test_models.py), then kiln_stream_reset() and the first frame
 * again, which must give the first frame's outputs. Prints "stream: PASS" and
 * exits 0, or names the first difference and exits 1. Runs on the host and on the
 * QEMU boards (boards/common/kiln_board.h for the console and the exit). */
#include <math.h>
#include <stdint.h>

#include "kiln_board.h"
#include "metadata.h"
#include "stream_data.h"

#define MAX_OUTPUTS 4u

static float outputs[MAX_OUTPUTS][STREAM_OUTPUT_FLOATS];

static void say(const char* s) {
  uint32_t n = 0;
  while (s[n]) ++n;
  kiln_board_write(s, n);
}

/* A signed decimal number (no printf: the QEMU boards link newlib nano). */
static void say_int(int64_t v) {
  char buf[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
  do {
    buf[n++] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  } while (u);
  if (v < 0) buf[n++] = '-';
  while (n) kiln_board_write(&buf[--n], 1);
}

/* Runs `frame` and compares the outputs, concatenated in order, with the reference
 * after frame `expected`. Returns 0 when they agree to float32 rounding; else 1,
 * naming the first difference unless `quiet`. */
static int run_and_check(uint32_t frame, uint32_t expected, const char* what, int quiet) {
  const void* ins[1];
  void* outs[MAX_OUTPUTS] = {NULL, NULL, NULL, NULL};
  uint32_t o, i, at = 0;
  kiln_status_t status;
  ins[0] = stream_inputs[frame];
  for (o = 0; o < kiln_stream_model.num_outputs; ++o) outs[o] = outputs[o];
  status = kiln_execute(&kiln_stream_model, ins, outs, NULL, NULL);
  if (status != KILN_OK) {
    say("stream: ");
    say(what);
    say(": status ");
    say_int(status);
    say("\n");
    return 1;
  }
  for (o = 0; o < kiln_stream_model.num_outputs; ++o) {
    const uint32_t n = kiln_stream_model.outputs[o].size_bytes / (uint32_t)sizeof(float);
    for (i = 0; i < n; ++i, ++at) {
      const float got = outputs[o][i], want = stream_expected[expected][at];
      if (fabsf(got - want) <= 1e-5f + 1e-4f * fabsf(want)) continue;
      if (!quiet) {
        say("stream: ");
        say(what);
        say(": frame ");
        say_int(frame);
        say(" output ");
        say_int(o);
        say("[");
        say_int(i);
        say("] is ");
        say_int((int64_t)(got * 1e6f));
        say("e-6, expected ");
        say_int((int64_t)(want * 1e6f));
        say("e-6\n");
      }
      return 1;
    }
  }
  return 0;
}

int main(void) {
  uint32_t f, o, floats = 0;
  kiln_board_init();
  if (kiln_stream_model.num_inputs != 1u || kiln_stream_model.outputs == NULL ||
      kiln_stream_model.num_outputs > MAX_OUTPUTS ||
      kiln_stream_model.inputs[0].size_bytes != STREAM_INPUT_FLOATS * sizeof(float)) {
    say("stream: the module does not match stream_data.h\n");
    kiln_board_exit(1);
  }
  for (o = 0; o < kiln_stream_model.num_outputs; ++o) floats += kiln_stream_model.outputs[o].size_bytes / 4u;
  if (floats != STREAM_OUTPUT_FLOATS) {
    say("stream: the module's outputs do not match stream_data.h\n");
    kiln_board_exit(1);
  }
  if (kiln_stream_reset(NULL) != KILN_OK) {
    say("stream: reset failed\n");
    kiln_board_exit(1);
  }
  for (f = 0; f < STREAM_FRAMES; ++f)
    if (run_and_check(f, f, "run by run", 0)) kiln_board_exit(1);
  /* Without a reset the state goes on: frame 0's input now gives something else. */
  if (!run_and_check(0, 0, "no reset", 1)) {
    say("stream: the state was not carried (frame 0 again gave frame 0's outputs)\n");
    kiln_board_exit(1);
  }
  if (kiln_stream_reset(NULL) != KILN_OK) {
    say("stream: reset failed\n");
    kiln_board_exit(1);
  }
  if (run_and_check(0, 0, "after reset", 0)) kiln_board_exit(1);
  say("stream: PASS\n");
  kiln_board_exit(0);
  return 0;
}
