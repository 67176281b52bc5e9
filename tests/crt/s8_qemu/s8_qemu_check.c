/*
 * The int8 pool / element-wise / softmax kernels on a QEMU board (the instruction-
 * set path that board's compiler flags select: portable C on Cortex-M3, DSP on
 * Cortex-M4/M55) against naive references of TFLite's integer kernels written here
 * in C, bit for bit. Prints one line per check and the instructions per call;
 * exits 0 when everything matched. Run by run_s8_qemu_check.cmake.
 */
#include <string.h>

#include "kiln_board.h"
#include "kiln_kernels.h"

static int failures = 0;

static void put(const char* s) { kiln_board_write(s, (uint32_t)strlen(s)); }
static void put_i(int64_t v) {
  char b[24];
  int i = 23;
  uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
  b[i] = 0;
  do {
    b[--i] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  } while (u);
  if (v < 0) b[--i] = '-';
  put(b + i);
}

static uint32_t rng = 12345u;
static int32_t rnd(int32_t lo, int32_t hi) { /* inclusive */
  rng = rng * 1664525u + 1013904223u;
  return lo + (int32_t)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

static void check(const char* what, const int8_t* got, const int8_t* want, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      put("FAIL ");
      put(what);
      put(" at ");
      put_i(i);
      put(": got ");
      put_i(got[i]);
      put(" want ");
      put_i(want[i]);
      put("\n");
      ++failures;
      return;
    }
}

static int8_t X[20 * 20 * 24], Y[20 * 20 * 24], R[20 * 20 * 24];

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* reference_integer_ops::AveragePool / MaxPool */
static void ref_pool(const kiln_pool2d_s8_params_t* p, int avg) {
  int32_t oy, ox, c, fy, fx;
  for (oy = 0; oy < p->out_h; ++oy)
    for (ox = 0; ox < p->out_w; ++ox)
      for (c = 0; c < p->channels; ++c) {
        const int32_t iy = oy * p->stride_h - p->pad_top, ix = ox * p->stride_w - p->pad_left;
        int32_t acc = 0, cnt = 0, mx = -128, r;
        for (fy = imax(0, -iy); fy < imin(p->kernel_h, p->in_h - iy); ++fy)
          for (fx = imax(0, -ix); fx < imin(p->kernel_w, p->in_w - ix); ++fx) {
            const int32_t v = X[((iy + fy) * p->in_w + ix + fx) * p->channels + c];
            acc += v;
            ++cnt;
            mx = imax(mx, v);
          }
        r = avg ? (acc > 0 ? (acc + cnt / 2) / cnt : (acc - cnt / 2) / cnt) : mx;
        R[(oy * p->out_w + ox) * p->channels + c] = (int8_t)imin(imax(r, p->act_min), p->act_max);
      }
}

static void pools(void) {
  int t;
  for (t = 0; t < 120; ++t) {
    kiln_pool2d_s8_params_t p;
    int avg;
    p.batch = 1;
    p.in_h = rnd(1, 20), p.in_w = rnd(1, 20), p.channels = rnd(1, 24);
    p.kernel_h = rnd(1, p.in_h), p.kernel_w = rnd(1, p.in_w);
    p.stride_h = rnd(1, 3), p.stride_w = rnd(1, 3);
    p.pad_top = rnd(0, p.kernel_h - 1), p.pad_left = rnd(0, p.kernel_w - 1);
    p.out_h = (p.in_h + p.pad_top + rnd(0, p.kernel_h - 1) - p.kernel_h) / p.stride_h + 1;
    p.out_w = (p.in_w + p.pad_left + rnd(0, p.kernel_w - 1) - p.kernel_w) / p.stride_w + 1;
    if ((p.out_h - 1) * p.stride_h - p.pad_top >= p.in_h || (p.out_w - 1) * p.stride_w - p.pad_left >= p.in_w) continue;
    p.act_min = t % 3 == 0 ? rnd(-128, 0) : -128;
    p.act_max = t % 3 == 0 ? rnd(0, 127) : 127;
    {
      int32_t i;
      for (i = 0; i < p.in_h * p.in_w * p.channels; ++i) X[i] = (int8_t)rnd(-128, 127);
    }
    for (avg = 0; avg < 2; ++avg) {
      const kiln_status_t s = avg ? kiln_avgpool2d_s8(&p, X, Y) : kiln_maxpool2d_s8(&p, X, Y);
      if (s != KILN_OK) {
        put("FAIL pool status\n");
        ++failures;
        continue;
      }
      ref_pool(&p, avg);
      check(avg ? "avgpool" : "maxpool", Y, R, p.out_h * p.out_w * p.channels);
    }
  }
  put("pools: 120 random geometries checked\n");
}

/* TFLite's fixed-point steps (gemmlowp), for the Mul reference. */
static int32_t srdhm(int32_t a, int32_t b) {
  const int64_t ab = (int64_t)a * b;
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return (int32_t)((ab + (ab >= 0 ? (1LL << 30) : 1 - (1LL << 30))) / (1LL << 31));
}
static int32_t rdbpot(int32_t x, int e) {
  const int32_t mask = (int32_t)((1LL << e) - 1), rem = x & mask, thr = (mask >> 1) + (x < 0);
  return (x >> e) + (rem > thr);
}
static int32_t mbqm(int32_t x, int32_t m, int s) { return rdbpot(srdhm(x * (1 << (s > 0 ? s : 0)), m), s > 0 ? 0 : -s); }

static void muls(void) {
  static int8_t a[256], b[256], y[256 * 256];
  int t, i, j;
  for (i = 0; i < 256; ++i) a[i] = b[i] = (int8_t)(i - 128);
  for (t = 0; t < 24; ++t) {
    kiln_mul_s8_params_t p;
    const int32_t m = rnd(1 << 30, 0x7FFFFFFF), s = rnd(-20, 12);
    const int e = s <= 0 ? -s : 0;
    memset(&p, 0, sizeof p);
    p.bc.ndim = 2, p.bc.shape[0] = 256, p.bc.shape[1] = 256;
    p.bc.stride_a[0] = 1, p.bc.stride_a[1] = 0, p.bc.stride_b[0] = 0, p.bc.stride_b[1] = 1;
    p.a_offset = rnd(-127, 128), p.b_offset = rnd(-127, 128), p.out_offset = rnd(-128, 127);
    p.act_min = t % 2 ? rnd(-128, 0) : -128, p.act_max = t % 2 ? rnd(0, 127) : 127;
    /* the compiler's folding (generator/quant/folded_rescale.cpp) */
    p.out.multiplier = m;
    p.out.pre_shift = s <= 0 ? 1 : s + 1;
    p.out.post_shift = e;
    p.out.round_pos = s <= 0 ? (1LL << 31) + (e >= 1 ? 1LL << (31 + e) : 0) : 1LL << 31;
    p.out.round_neg = p.out.round_pos - (s <= 0 && e >= 1 ? 1LL << 32 : 0);
    if (kiln_mul_s8(&p, a, b, y) != KILN_OK) {
      put("FAIL mul status\n");
      ++failures;
      continue;
    }
    for (i = 0; i < 256; ++i) {
      for (j = 0; j < 256; ++j) {
        const int32_t v = p.out_offset + mbqm((i - 128 + p.a_offset) * (j - 128 + p.b_offset), m, s);
        R[j] = (int8_t)imin(imax(v, p.act_min), p.act_max);
      }
      check("mul", y + i * 256, R, 256);
    }
  }
  put("mul: every input pair, 24 multipliers checked\n");
}

/* Instructions per call at the MLPerf shapes (informational). */
static void timing(void) {
  static int8_t a[16384], b[16384], y[16384];
  static kiln_add_s8_params_t add;
  kiln_pool2d_s8_params_t kws = {1, 25, 5, 64, 1, 1, 25, 5, 25, 5, 0, 0, -128, 127};
  kiln_pool2d_s8_params_t mp = {1, 32, 32, 16, 16, 16, 2, 2, 2, 2, 0, 0, -128, 127};
  uint64_t n;
  int i;
  for (i = 0; i < 16384; ++i) a[i] = (int8_t)(i * 37), b[i] = (int8_t)(i * 91 + 5);
  for (i = 0; i < 256; ++i) add.a_term[i] = (i - 128) * 396442, add.b_term[i] = (i - 128) * 1048576;
  add.bc.ndim = 1, add.bc.shape[0] = 16384, add.bc.stride_a[0] = 1, add.bc.stride_b[0] = 1;
  add.out.multiplier = 1098017566, add.out.post_shift = 17;
  add.out.round_pos = (1LL << 31) + (1LL << 48), add.out.round_neg = add.out.round_pos - (1LL << 32);
  add.out_offset = -128, add.act_min = -128, add.act_max = 127;
  kiln_board_counter_start();
  kiln_avgpool2d_s8(&kws, a, y);
  n = kiln_board_counter_stop();
  put("instructions: avgpool 25x5x64 -> 1x1: ");
  put_i((int64_t)n);
  kiln_board_counter_start();
  kiln_maxpool2d_s8(&mp, a, y);
  n = kiln_board_counter_stop();
  put(", maxpool 2x2/2 32x32x16: ");
  put_i((int64_t)n);
  kiln_board_counter_start();
  kiln_add_s8(&add, a, b, y);
  n = kiln_board_counter_stop();
  put(", add 16384: ");
  put_i((int64_t)n);
  put("\n");
}

int main(void) {
  kiln_board_init();
  pools();
  muls();
  timing();
  put(failures ? "S8-QEMU-FAIL\n" : "S8-QEMU-OK\n");
  return failures ? 1 : 0;
}
