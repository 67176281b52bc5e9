/*
 * kiln_conv2d_s8 / kiln_depthwise_conv2d_s8 / kiln_fully_connected_s8 on a QEMU
 * board: the path the board's flags select (DSP on Cortex-M4/M55, portable C on
 * Cortex-M3) against the portable C path of the same sources compiled a second
 * time with KILN_S8_FORCE_PORTABLE (functions renamed portable_*), bit for bit, on
 * random shapes (padding, strides, dilations, groups, odd channel counts, depth
 * multipliers, both requantization forms, full and partial clamps). The portable
 * path itself is checked against TFLite's arithmetic by the host unit tests.
 * Prints S8-NN-QEMU-OK when every output matched. Run by run_s8_nn_qemu_check.cmake.
 */
#include <string.h>

#include "kiln_board.h"
#include "kiln_kernels.h"

kiln_status_t portable_conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                 const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch);
kiln_status_t portable_depthwise_conv2d_s8(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                           const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                           int8_t* y);
kiln_status_t portable_fully_connected_s8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                          const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                          int8_t* y, int16_t* scratch);

#define MAX_X 4096
#define MAX_Y 4096
#define MAX_W 8192
#define MAX_C 64

static int8_t x_buf[MAX_X];
static int8_t y_got[MAX_Y], y_want[MAX_Y];
static int16_t w_buf[MAX_W] __attribute__((aligned(8)));
static int16_t scratch[2048] __attribute__((aligned(8)));
static int32_t bias_buf[MAX_C];
static kiln_s8_requant_t rq_buf[MAX_C];
static int failures, checks;

static void put(const char* s) { kiln_board_write(s, (uint32_t)strlen(s)); }
static void put_i(int32_t v) {
  char b[16];
  int i = 15;
  uint32_t u = v < 0 ? (uint32_t)(-v) : (uint32_t)v;
  b[i] = 0;
  do {
    b[--i] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  } while (u);
  if (v < 0) b[--i] = '-';
  put(b + i);
}

static uint32_t rng = 2463534242u;
static int32_t rnd(int32_t lo, int32_t hi) { /* inclusive, xorshift32 */
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return lo + (int32_t)(rng % (uint32_t)(hi - lo + 1));
}

/* kiln_s8_requant_t of a Q31 multiplier m and shift s, as the compiler builds it
 * (generator/lower/ops/qnn_s8_params.cpp). */
static kiln_s8_requant_t requant(int32_t m, int32_t s) {
  kiln_s8_requant_t r;
  r.multiplier = m;
  if (s >= 0) {
    r.shift = 31 - s;
    r.round_pos = r.round_neg = (int64_t)1 << (30 - s);
    r.exponent = r.exponent_round = 0;
  } else {
    r.shift = 31 - s;
    r.round_pos = ((int64_t)1 << 30) + ((int64_t)1 << (30 - s));
    r.round_neg = r.round_pos - ((int64_t)1 << 31);
    r.exponent = -s;
    r.exponent_round = (int32_t)1 << (-s - 1);
  }
  return r;
}

/* Random tables: mostly right shifts around the scale taps need; sometimes a left
 * shift or a huge bias, which forces the general requantization form; sometimes
 * scales >= 0.5 (left shifts 0 and 1, as depthwise layers often have) on sums of
 * a few units (inputs near the zero point, weights in [-1, 1]), so that such
 * outputs are not all clamped. */
static void random_quant(int32_t channels, int32_t taps, int32_t* in_off, int32_t* out_off, int32_t* lo,
                         int32_t* hi) {
  int32_t c, i, lg = 0;
  const int mode = rnd(0, 9);
  const int general = mode < 2, small = mode == 2;
  while ((1 << lg) < taps * 40) ++lg;
  for (c = 0; c < channels; ++c) {
    const int32_t m = rnd(1 << 30, 0x7fffffff);
    const int32_t s = small ? rnd(0, 1) : general && c == 0 ? rnd(0, 2) : -rnd(lg > 3 ? lg - 3 : 1, lg + 3);
    rq_buf[c] = requant(m, s);
    bias_buf[c] = small ? rnd(-64, 64) : general && c <= 1 ? rnd(-(1 << 30), 1 << 30) : rnd(-30000, 30000);
  }
  *in_off = rnd(-127, 128);
  *out_off = rnd(-128, 127);
  *lo = -128;
  *hi = 127;
  if (rnd(0, 2) == 0) {
    *lo = *out_off;
    *hi = rnd(*lo, 127);
  }
  if (small) {
    for (i = 0; i < MAX_X; ++i) {
      const int32_t v = -*in_off + rnd(-2, 2);
      x_buf[i] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    for (i = 0; i < MAX_W; ++i) w_buf[i] = (int16_t)rnd(-1, 1);
  }
}

static void fill(void) {
  int32_t i;
  for (i = 0; i < MAX_X; ++i) x_buf[i] = (int8_t)rnd(-128, 127);
  for (i = 0; i < MAX_W; ++i) w_buf[i] = (int16_t)rnd(-127, 127);
}

static void compare(const char* what, int32_t n) {
  int32_t i;
  ++checks;
  for (i = 0; i < n; ++i)
    if (y_got[i] != y_want[i]) {
      put("FAIL ");
      put(what);
      put(" case ");
      put_i(checks);
      put(" element ");
      put_i(i);
      put(": ");
      put_i(y_got[i]);
      put(" != portable ");
      put_i(y_want[i]);
      put("\n");
      ++failures;
      return;
    }
}

static void conv_case(void) {
  kiln_conv2d_s8_params_t p;
  int32_t cin_g, taps, blocks;
  memset(&p, 0, sizeof p);
  p.groups = rnd(0, 3) == 0 ? rnd(1, 3) : 1;
  p.batch = 1;
  p.in_c = rnd(1, 12) * p.groups;
  p.out_c = rnd(1, 16) * p.groups;
  p.kernel_h = rnd(1, 3), p.kernel_w = rnd(1, 4);
  p.stride_h = rnd(1, 2), p.stride_w = rnd(1, 2);
  p.dilation_h = rnd(0, 3) == 0 ? 2 : 1, p.dilation_w = rnd(0, 3) == 0 ? 2 : 1;
  p.pad_top = rnd(0, 2), p.pad_left = rnd(0, 2);
  p.in_h = rnd(1, 7) + p.dilation_h * (p.kernel_h - 1);
  p.in_w = rnd(1, 7) + p.dilation_w * (p.kernel_w - 1);
  p.out_h = (p.in_h + p.pad_top + rnd(0, 2) - (p.dilation_h * (p.kernel_h - 1) + 1)) / p.stride_h + 1;
  p.out_w = (p.in_w + p.pad_left + rnd(0, 2) - (p.dilation_w * (p.kernel_w - 1) + 1)) / p.stride_w + 1;
  cin_g = p.in_c / p.groups;
  taps = p.kernel_h * p.kernel_w * cin_g;
  blocks = (p.out_c / p.groups + 3) / 4;
  if (p.in_h * p.in_w * p.in_c > MAX_X || p.out_h * p.out_w * p.out_c > MAX_Y ||
      p.groups * blocks * 4 * (int32_t)KILN_S8_ROW_LEN((uint32_t)taps) > MAX_W ||
      2 * (int32_t)KILN_S8_ROW_LEN((uint32_t)taps) > 2048)
    return;
  random_quant(p.out_c, taps, &p.input_offset, &p.output_offset, &p.act_min, &p.act_max);
  if (kiln_conv2d_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_got, scratch) != KILN_OK ||
      portable_conv2d_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_want, scratch) != KILN_OK) {
    put("FAIL conv status\n");
    ++failures;
    return;
  }
  compare("conv", p.out_h * p.out_w * p.out_c);
}

static void depthwise_case(void) {
  kiln_depthwise_conv2d_s8_params_t p;
  memset(&p, 0, sizeof p);
  p.batch = 1;
  p.in_c = rnd(1, 20);
  p.depth_multiplier = rnd(0, 3) == 0 ? rnd(2, 3) : 1;
  p.out_c = p.in_c * p.depth_multiplier;
  p.kernel_h = rnd(0, 1) ? 3 : rnd(1, 4), p.kernel_w = rnd(0, 1) ? 3 : rnd(1, 4);
  p.stride_h = rnd(1, 2), p.stride_w = rnd(1, 2);
  p.dilation_h = rnd(0, 4) == 0 ? 2 : 1, p.dilation_w = rnd(0, 4) == 0 ? 2 : 1;
  p.pad_top = rnd(0, 2), p.pad_left = rnd(0, 2);
  p.in_h = rnd(1, 8) + p.dilation_h * (p.kernel_h - 1);
  p.in_w = rnd(1, 8) + p.dilation_w * (p.kernel_w - 1);
  p.out_h = (p.in_h + p.pad_top + rnd(0, 2) - (p.dilation_h * (p.kernel_h - 1) + 1)) / p.stride_h + 1;
  p.out_w = (p.in_w + p.pad_left + rnd(0, 2) - (p.dilation_w * (p.kernel_w - 1) + 1)) / p.stride_w + 1;
  if (p.in_h * p.in_w * p.in_c > MAX_X || p.out_h * p.out_w * p.out_c > MAX_Y || p.out_c > MAX_C ||
      (p.out_c + 3) / 4 * 4 * p.kernel_h * p.kernel_w > MAX_W)
    return;
  random_quant(p.out_c, p.kernel_h * p.kernel_w, &p.input_offset, &p.output_offset, &p.act_min, &p.act_max);
  if (kiln_depthwise_conv2d_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_got) != KILN_OK ||
      portable_depthwise_conv2d_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_want) != KILN_OK) {
    put("FAIL depthwise status\n");
    ++failures;
    return;
  }
  compare("depthwise", p.out_h * p.out_w * p.out_c);
}

static void fully_connected_case(void) {
  kiln_fully_connected_s8_params_t p;
  memset(&p, 0, sizeof p);
  p.rows = rnd(1, 4);
  p.in_features = rnd(1, 300);
  p.out_features = rnd(1, MAX_C);
  if (p.rows * p.in_features > MAX_X || (p.out_features + 3) / 4 * 4 * ((p.in_features + 3) / 4 * 4) > MAX_W)
    return;
  random_quant(p.out_features, p.in_features, &p.input_offset, &p.output_offset, &p.act_min, &p.act_max);
  if (kiln_fully_connected_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_got, scratch) != KILN_OK ||
      portable_fully_connected_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_want, scratch) != KILN_OK) {
    put("FAIL fully connected status\n");
    ++failures;
    return;
  }
  compare("fully connected", p.rows * p.out_features);
}

int main(void) {
  int32_t i;
  kiln_board_init();
  for (i = 0; i < 150 && failures < 5; ++i) {
    fill();
    conv_case();
    depthwise_case();
    fully_connected_case();
  }
  put_i(checks);
  put(" kernel calls compared with the portable path\n");
  put(failures || checks < 300 ? "S8-NN-QEMU-FAIL\n" : "S8-NN-QEMU-OK\n");
  kiln_board_exit(failures || checks < 300 ? 1 : 0);
  return 0;
}
