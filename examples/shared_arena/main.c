/*
 * Two models, one arena (the unified static memory planner RFC's U2 case).
 *
 * model_a and model_b were compiled with the same workspace pool name
 * ("name=arena") and different module names. A workspace pool holds nothing
 * between runs, so two models that never run at the same time can use the same
 * memory: one static array sized by the larger of the two size macros. This
 * program runs model A, then model B, then model A again from that one array and
 * checks every output against the numpy reference (reference_data.h), with
 * ONNX's tolerance (|got - expected| <= 1e-7 + 1e-3 * |expected|).
 *
 * Inputs and outputs stay in their own (caller) buffers, so model B's run does
 * not touch model A's results. Console output and exit go through semihosting.
 */
#include <stdint.h>

#include "kiln_board.h"
#include "model_a/metadata.h"
#include "model_b/metadata.h"
#include "reference_data.h"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define ARENA_SIZE MAX2(KILN_MODEL_A_ARENA_WORKSPACE_SIZE, KILN_MODEL_B_ARENA_WORKSPACE_SIZE)
#define ARENA_ALIGNMENT MAX2(KILN_MODEL_A_ARENA_WORKSPACE_ALIGNMENT, KILN_MODEL_B_ARENA_WORKSPACE_ALIGNMENT)

/* The one arena both models use. */
static uint8_t arena[ARENA_SIZE] __attribute__((aligned(ARENA_ALIGNMENT)));

static float output_a[KILN_MODEL_A_OUTPUT_Y_SIZE / sizeof(float)];
static float output_b[KILN_MODEL_B_OUTPUT_Y_SIZE / sizeof(float)];

static void put(const char* s) {
  uint32_t n = 0;
  while (s[n] != '\0') ++n;
  kiln_board_write(s, n);
}

static void put_u32(uint32_t v) {
  char buf[12];
  int i = 11;
  buf[i] = '\0';
  do {
    buf[--i] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  put(buf + i);
}

/* 1 when every value is within ONNX's tolerance of the reference. */
static int matches(const float* got, const float* expected, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    float d = got[i] - expected[i];
    float e = expected[i] < 0.0f ? -expected[i] : expected[i];
    if (d < 0.0f) d = -d;
    if (!(d <= 1e-7f + 1e-3f * e)) return 0;
  }
  return 1;
}

static int run_a(const char* label) {
  struct kiln_model_a_inputs in;
  struct kiln_model_a_outputs out;
  struct kiln_model_a_workspaces ws;
  int32_t status;
  in.x = model_a_input;
  out.y = output_a;
  ws.arena = arena;
  kiln_board_counter_start();
  status = kiln_model_a_run(&in, &out, &ws, NULL);
  put(label);
  put(": status ");
  put(kiln_status_str(status));
  put(", instructions ");
  put_u32((uint32_t)kiln_board_counter_stop());
  if (status != KILN_OK || !matches(output_a, model_a_expected, sizeof output_a / sizeof output_a[0])) {
    put(", output WRONG\n");
    return 1;
  }
  put(", output matches the reference\n");
  return 0;
}

static int run_b(const char* label) {
  struct kiln_model_b_inputs in;
  struct kiln_model_b_outputs out;
  struct kiln_model_b_workspaces ws;
  int32_t status;
  in.x = model_b_input;
  out.y = output_b;
  ws.arena = arena;
  kiln_board_counter_start();
  status = kiln_model_b_run(&in, &out, &ws, NULL);
  put(label);
  put(": status ");
  put(kiln_status_str(status));
  put(", instructions ");
  put_u32((uint32_t)kiln_board_counter_stop());
  if (status != KILN_OK || !matches(output_b, model_b_expected, sizeof output_b / sizeof output_b[0])) {
    put(", output WRONG\n");
    return 1;
  }
  put(", output matches the reference\n");
  return 0;
}

int main(void) {
  int failures = 0;
  kiln_board_init();
  put("arena: ");
  put_u32((uint32_t)ARENA_SIZE);
  put(" bytes (model_a needs ");
  put_u32(KILN_MODEL_A_ARENA_WORKSPACE_SIZE);
  put(", model_b needs ");
  put_u32(KILN_MODEL_B_ARENA_WORKSPACE_SIZE);
  put(", separate arrays would take ");
  put_u32(KILN_MODEL_A_ARENA_WORKSPACE_SIZE + KILN_MODEL_B_ARENA_WORKSPACE_SIZE);
  put(")\n");
  failures += run_a("model_a");
  failures += run_b("model_b");
  /* Model B has overwritten the arena; model A must not depend on anything it left. */
  failures += run_a("model_a again");
  put(failures == 0 ? "SHARED-ARENA PASS\n" : "SHARED-ARENA FAIL\n");
  return failures == 0 ? 0 : 1;
}
