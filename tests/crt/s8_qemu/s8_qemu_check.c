/*
 * Every int8 kernel of crt/src/kernels/s8 on a QEMU board: the instruction-set
 * path the board's flags select (DSP on Cortex-M4/M55, portable C on Cortex-M3)
 * against the portable C path of the same sources compiled a second time with
 * KILN_S8_PORTABLE (functions renamed portable_*), bit for bit, on random inputs:
 * conv / depthwise / fully connected (both weight forms) on random shapes (padding, strides,
 * dilations, groups, odd channel counts, depth multipliers, both requantization
 * forms, full and partial clamps), pools, Add, Mul, Lookup and Softmax. The pools
 * and Mul are also checked against naive references of TFLite's integer kernels
 * written here; the portable path of the others is checked against TFLite's
 * arithmetic by the host unit tests. Prints the instructions per call at a few
 * MLPerf shapes and S8-QEMU-OK when every output matched. Run by
 * run_s8_qemu_check.cmake.
 *
 * Partial reuse: conv (one group), depthwise (multiplier 1), fully connected and
 * the pools run a second time with the output placed across the input as low as
 * the compiler's rule allows (generator/lower/ops/qnn_overlap.h, restated in
 * ov_limit), which must give the same bytes on every path.
 *
 * NCHW input (the caller's layout read by a first conv, docs/quantization.md): the
 * strip form's and the int16 form's NCHW entry points on the transposed input must
 * give the NHWC input's bytes. The byte transpose (kiln_transpose_s8) against a
 * naive loop on random shapes (three rows, three columns, blocks of four and the
 * edges), with its instructions per byte at VWW's input, 96x96x3 both ways.
 */
#include <string.h>

#include "kiln_board.h"
#include "kiln_kernels.h"

/* The portable path of the same sources (run_s8_qemu_check.cmake renames it). */
#define PORTABLE(name) portable_##name
kiln_status_t portable_conv2d_s8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                 const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch);
kiln_status_t portable_depthwise_conv2d_s8(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                           const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                           int8_t* y);
kiln_status_t portable_fully_connected_s8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                          const int16_t* w, const int32_t* bias, const kiln_s8_requant_t* rq,
                                          int8_t* y, int16_t* scratch);
kiln_status_t portable_conv2d_s8_w8(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int8_t* w,
                                    const int32_t* kernel_bias, const kiln_s8_requant_t* rq, int8_t* y,
                                    int8_t* scratch);
kiln_status_t portable_fully_connected_s8_w8(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                             const int8_t* w, const int32_t* kernel_bias,
                                             const kiln_s8_requant_t* rq, int8_t* y, int8_t* scratch);
kiln_status_t portable_conv2d_s8_pk(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                    int8_t* y, int16_t* scratch);
kiln_status_t portable_fully_connected_s8_pk(const kiln_fully_connected_s8_params_t* p, const int8_t* x,
                                             const int32_t* packed, int8_t* y, int16_t* scratch);
kiln_status_t portable_depthwise_conv2d_s8_pk(const kiln_depthwise_conv2d_s8_params_t* p, const int8_t* x,
                                             const int32_t* packed, int8_t* y, int8_t* scratch);
kiln_status_t portable_conv2d_s8_pk_strip(const kiln_conv2d_s8_params_t* p, const int8_t* x,
                                          const int32_t* packed, int8_t* y, int16_t* scratch);
kiln_status_t portable_conv2d_s8_pk_strip_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x,
                                               const int32_t* packed, int8_t* y, int16_t* scratch);
kiln_status_t portable_conv2d_s8_nchw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int16_t* w,
                                      const int32_t* bias, const kiln_s8_requant_t* rq, int8_t* y, int16_t* scratch);
kiln_status_t portable_transpose_s8(const kiln_transpose_s8_params_t* p, const int8_t* x, int8_t* y);
kiln_status_t portable_conv2d_s8_pw(const kiln_conv2d_s8_params_t* p, const int8_t* x, const int32_t* packed,
                                    int8_t* y, int16_t* scratch);
kiln_status_t portable_avgpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y);
kiln_status_t portable_maxpool2d_s8(const kiln_pool2d_s8_params_t* p, const int8_t* x, int8_t* y);
kiln_status_t portable_add_s8(const kiln_add_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y);
kiln_status_t portable_mul_s8(const kiln_mul_s8_params_t* p, const int8_t* a, const int8_t* b, int8_t* y);
kiln_status_t portable_lookup_s8(const kiln_lookup_s8_params_t* p, const int8_t* x, const int8_t* table, int8_t* y);
kiln_status_t portable_softmax_s8(const kiln_softmax_s8_params_t* p, const int8_t* x, int8_t* y);

static int failures = 0, checks = 0, pk_checks = 0, pw_checks = 0, pw_odd_checks = 0, pw_long_checks = 0,
           pk_dw_checks = 0, pk_dwpl_checks = 0, pk_strip_checks = 0, pk_strip1_checks = 0, nchw_checks = 0, dw_mult_checks = 0,
           dw_mult4_checks = 0;

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
  ++checks;
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

/* Partial reuse (below, with the conv cases): the window geometry of an NHWC op;
 * a fully connected layer is rows x 1 pixels of in_features channels. */
typedef struct {
  int32_t in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, dh, dw, pt, pl;
} ov_geom_t;
static int64_t ov_limit(const ov_geom_t* g, int32_t step, int during);
static int ov_place(const int8_t* x, int64_t limit, int32_t granule, int32_t n_in, int32_t n_out);
static int8_t *ov_x, *ov_y;

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
  int t, pool_overlaps = 0;
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
      if ((avg ? PORTABLE(avgpool2d_s8)(&p, X, R) : PORTABLE(maxpool2d_s8)(&p, X, R)) != KILN_OK) ++failures;
      check(avg ? "avgpool vs portable" : "maxpool vs portable", Y, R, p.out_h * p.out_w * p.channels);
      {
        const ov_geom_t g = {p.in_h, p.in_w, p.channels, p.out_h, p.out_w, p.channels, p.kernel_h, p.kernel_w,
                             p.stride_h, p.stride_w, 1, 1, p.pad_top, p.pad_left};
        if (ov_place(X, ov_limit(&g, 1, 0), p.channels, p.in_h * p.in_w * p.channels, p.out_h * p.out_w * p.channels)) {
          if ((avg ? kiln_avgpool2d_s8(&p, ov_x, ov_y) : kiln_maxpool2d_s8(&p, ov_x, ov_y)) != KILN_OK) ++failures;
          check(avg ? "avgpool overlap" : "maxpool overlap", ov_y, Y, p.out_h * p.out_w * p.channels);
          ++pool_overlaps;
        }
      }
    }
  }
  put("pools: 120 random geometries checked against the reference and the portable path, ");
  put_i(pool_overlaps);
  put(" calls also with the output placed across the input\n");
  if (pool_overlaps < 60) ++failures;
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
  static int8_t a[256], b[256], y[256 * 256], portable_y[256 * 256];
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
    if (PORTABLE(mul_s8)(&p, a, b, portable_y) != KILN_OK) ++failures;
    check("mul vs portable", y, portable_y, 256 * 256);
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

/* kiln_s8_requant_t of a Q31 multiplier m and shift s for output offset off, as
 * the compiler builds it (generator/lower/ops/qnn_s8_params.cpp). */
static kiln_s8_requant_t requant(int32_t m, int32_t s, int32_t off) {
  kiln_s8_requant_t r;
  r.multiplier = m;
  if (s >= 0) {
    r.shift = 31 - s;
    r.round_pos = r.round_neg = (int64_t)1 << (30 - s);
    r.exponent = r.round_offset = 0;
  } else {
    r.shift = 31 - s;
    r.round_pos = ((int64_t)1 << 30) + ((int64_t)1 << (30 - s));
    r.round_neg = r.round_pos - ((int64_t)1 << 31);
    r.exponent = -s;
    r.round_offset = -s <= 22 ? (int32_t)(((int64_t)1 << (-s - 1)) + (int64_t)off * ((int64_t)1 << -s)) : 0;
  }
  return r;
}

/* Random tables: mostly right shifts around the scale taps need; sometimes a left
 * shift or a huge bias (also with the left shift), which forces the general
 * requantization form; sometimes scales >= 0.5 (left shifts 0 and 1, as
 * depthwise layers often have) on sums of a few units (inputs near the zero
 * point, weights in [-1, 1]), so that such outputs are not all clamped. */
static void random_quant(int32_t channels, int32_t taps, int32_t* in_off, int32_t* out_off, int32_t* lo,
                         int32_t* hi) {
  int32_t c, i, lg = 0;
  const int mode = rnd(0, 9);
  const int general = mode < 2, small = mode == 2;
  while ((1 << lg) < taps * 40) ++lg;
  *in_off = rnd(-127, 128);
  *out_off = rnd(0, 3) == 0 ? -128 : rnd(-128, 127); /* -128: the packed form's ReLU case */
  for (c = 0; c < channels; ++c) {
    const int32_t m = rnd(1 << 30, 0x7fffffff);
    const int32_t s = small ? rnd(0, 1) : general && c == 0 ? rnd(0, 2) : -rnd(lg > 3 ? lg - 3 : 1, lg + 3);
    rq_buf[c] = requant(m, s, *out_off);
    bias_buf[c] = small ? rnd(-64, 64) : general && c <= 1 ? rnd(-(1 << 30), 1 << 30) : rnd(-30000, 30000);
  }
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

/* Partial reuse (generator/lower/ops/qnn_overlap.h): with output pixel p written
 * at delta + p * out_c in steps of `step` pixels, delta may be at most the lowest
 * input byte read after a step's writes (with `during`, by that step too) minus
 * the end of the step's output bytes, over every step. */
#define OV_UNBOUNDED ((int64_t)1 << 40)
static int32_t ov_first_tap(int32_t i0, int32_t d, int32_t k, int32_t size) {
  int32_t t;
  for (t = 0; t < k && i0 + t * d < size; ++t)
    if (i0 + t * d >= 0) return t;
  return -1;
}
static int64_t ov_lowest_read(const ov_geom_t* g, int32_t pix) {
  const int32_t oy = pix / g->out_w, ox = pix % g->out_w;
  const int32_t iy0 = oy * g->sh - g->pt, ix0 = ox * g->sw - g->pl;
  const int32_t ky = ov_first_tap(iy0, g->dh, g->kh, g->in_h), kx = ov_first_tap(ix0, g->dw, g->kw, g->in_w);
  if (ky < 0 || kx < 0) return OV_UNBOUNDED;
  return ((int64_t)(iy0 + ky * g->dh) * g->in_w + ix0 + kx * g->dw) * g->in_c;
}
static int64_t ov_limit(const ov_geom_t* g, int32_t step, int during) {
  const int32_t n = g->out_h * g->out_w;
  int64_t limit = OV_UNBOUNDED, after = OV_UNBOUNDED;
  int32_t k, p;
  for (k = (n + step - 1) / step - 1; k >= 0; --k) {
    const int32_t end = (k + 1) * step < n ? (k + 1) * step : n;
    int64_t own = OV_UNBOUNDED;
    for (p = k * step; p < end; ++p) {
      const int64_t r = ov_lowest_read(g, p);
      own = r < own ? r : own;
    }
    if (during && own < after) after = own;
    if (after < OV_UNBOUNDED && after - (int64_t)end * g->out_c < limit) limit = after - (int64_t)end * g->out_c;
    if (!during && own < after) after = own;
  }
  return limit;
}

/* x's n_in bytes copied into the arena and the output placed at the highest
 * delta <= limit that is a multiple of granule and of 16 (0 when nothing is read
 * after a write); 0 when the output would not touch the input. */
static int8_t ov_arena[MAX_X + MAX_Y + 64] __attribute__((aligned(16)));
static int overlap_checks = 0;
static int ov_place(const int8_t* x, int64_t limit, int32_t granule, int32_t n_in, int32_t n_out) {
  int32_t step = granule, base;
  int64_t delta;
  while (step % 16 != 0) step += granule;
  delta = limit >= n_in ? 0 : limit;
  delta = delta >= 0 ? delta / step * step : -((-delta + step - 1) / step * step);
  if (delta <= -(int64_t)n_out || delta >= n_in) return 0;
  base = delta < 0 ? (int32_t)-delta : 0;
  if (base + n_in > (int32_t)sizeof ov_arena || base + delta + n_out > (int32_t)sizeof ov_arena) return 0;
  ov_x = ov_arena + base;
  ov_y = ov_arena + base + delta;
  memcpy(ov_x, x, (size_t)n_in);
  ++overlap_checks;
  return 1;
}
/* The overlapped output against y_want. */
static void ov_compare(const char* what, kiln_status_t s, int32_t n) {
  if (s != KILN_OK) {
    put("FAIL ");
    put(what);
    put(" status\n");
    ++failures;
    return;
  }
  memcpy(y_got, ov_y, (size_t)n);
  compare(what, n);
}

/* The packed stream (kiln_conv2d_s8_pk, nn_s8.h) of `rows` channels from w_buf
 * (int16 blocks), bias_buf and rq_buf, as the compiler builds it; 0 when the
 * channels do not all have the short requantization or the clamp is not
 * [-128, 127] (the compiler then keeps the int16 form). */
static int32_t pk_buf[MAX_W / 2 + 4 * MAX_C + 64] __attribute__((aligned(8)));
static int pack_form(int32_t rows, int32_t taps, int32_t lo, int32_t hi, int depthwise) {
  const int32_t row_len = depthwise ? taps : (int32_t)KILN_S8_ROW_LEN((uint32_t)taps), blocks = (rows + 3) / 4;
  const int32_t words = 4 + 2 * row_len + 12;
  const int64_t bound = (int64_t)taps * 255 * 128;
  int32_t b, r, j;
  if (lo != -128 || hi != 127 || blocks * words > (int32_t)(sizeof pk_buf / 4)) return 0;
  for (r = 0; r < rows; ++r) {
    const int64_t bb = bias_buf[r] < 0 ? -(int64_t)bias_buf[r] : bias_buf[r];
    if (rq_buf[r].exponent < 1 || rq_buf[r].exponent > 22 || bb + bound >= ((int64_t)1 << 30)) return 0;
  }
  for (b = 0; b < blocks; ++b) {
    int32_t* blk = pk_buf + b * words;
    int16_t* w = (int16_t*)(void*)(blk + 4);
    for (r = 0; r < 4; ++r) {
      const int ok = 4 * b + r < rows;
      blk[r] = ok ? 2 * bias_buf[4 * b + r] : 0;
      blk[4 + 2 * row_len + 3 * r] = ok ? rq_buf[4 * b + r].multiplier : 0;
      blk[4 + 2 * row_len + 3 * r + 1] = ok ? rq_buf[4 * b + r].round_offset : 0;
      blk[4 + 2 * row_len + 3 * r + 2] = ok ? rq_buf[4 * b + r].exponent : 0;
    }
    for (j = 0; j < 4 * row_len; ++j) w[j] = (int16_t)(2 * w_buf[b * 4 * row_len + j]);
  }
  return 1;
}
static int pack(int32_t rows, int32_t taps, int32_t lo, int32_t hi) { return pack_form(rows, taps, lo, hi, 0); }

/* pk_buf of a packed Conv2D with its taps reordered from (ky, kx, c) to (kx, ky, c)
 * (kiln_conv2d_s8_pk_strip). */
static void pack_strip(const kiln_conv2d_s8_params_t* p) {
  static int16_t old[4 * 4096];
  const int32_t taps = p->kernel_h * p->kernel_w * p->in_c, row_len = (int32_t)KILN_S8_ROW_LEN((uint32_t)taps);
  const int32_t words = 4 + 2 * row_len + 12, blocks = (p->out_c + 3) / 4;
  int32_t b, lane, kx, ky, c;
  for (b = 0; b < blocks; ++b) {
    int16_t* w = (int16_t*)(void*)(pk_buf + b * words + 4);
    memcpy(old, w, (size_t)(4 * row_len) * 2);
    /* The padding taps are 0, as the compiler writes them (a strip column's tail is data). */
    for (lane = 0; lane < 4; ++lane)
      for (c = taps; c < row_len; ++c) w[(c / 2) * 8 + lane * 2 + c % 2] = 0;
    for (lane = 0; lane < 4; ++lane)
      for (ky = 0; ky < p->kernel_h; ++ky)
        for (kx = 0; kx < p->kernel_w; ++kx)
          for (c = 0; c < p->in_c; ++c) {
            const int32_t k = (ky * p->kernel_w + kx) * p->in_c + c, k2 = (kx * p->kernel_h + ky) * p->in_c + c;
            w[(k2 / 2) * 8 + lane * 2 + k2 % 2] = old[(k / 2) * 8 + lane * 2 + k % 2];
          }
  }
}

/* pk_buf in the pair form (kiln_conv2d_s8_pw, nn_s8.h) of `rows` channels of taps
 * (a multiple of 4) from w_buf as the int16 form lays it out; 0 as pack_form. */
static int pack_pairs(int32_t rows, int32_t taps, int32_t lo, int32_t hi) {
  const int32_t words = (int32_t)KILN_S8_PW_PAIR_WORDS((uint32_t)taps);
  const int64_t bound = (int64_t)taps * 255 * 128;
  int32_t b, l, k, r;
  if (lo != -128 || hi != 127 || rows % 2 != 0 || taps % 4 != 0 || (rows / 2) * words > (int32_t)(sizeof pk_buf / 4))
    return 0;
  for (r = 0; r < rows; ++r) {
    const int64_t bb = bias_buf[r] < 0 ? -(int64_t)bias_buf[r] : bias_buf[r];
    if (rq_buf[r].exponent < 1 || rq_buf[r].exponent > 22 || bb + bound >= ((int64_t)1 << 30)) return 0;
  }
  for (b = 0; b < rows / 2; ++b) {
    int32_t* blk = pk_buf + b * words;
    int16_t* w = (int16_t*)(void*)(blk + 4);
    for (l = 0; l < 2; ++l) {
      r = 2 * b + l;
      blk[l] = blk[2 + l] = 2 * bias_buf[r];
      blk[4 + taps + 3 * l] = rq_buf[r].multiplier;
      blk[4 + taps + 3 * l + 1] = rq_buf[r].round_offset;
      blk[4 + taps + 3 * l + 2] = rq_buf[r].exponent;
      for (k = 0; k < taps; ++k)
        w[(k / 4) * 8 + l * 4 + (k % 2) * 2 + (k % 4) / 2] =
            (int16_t)(2 * w_buf[(r / 4) * 4 * taps + (k / 2) * 8 + (r % 4) * 2 + k % 2]);
    }
  }
  return 1;
}

/* A pointwise convolution in the pair form against the int16 form's portable
 * result: rows of 4 to 256 taps (every entry of the 64-tap loop, several passes),
 * odd and even pixel counts, both requantization forms. */
static void pw_case(void) {
  kiln_conv2d_s8_params_t p;
  int64_t limit;
  memset(&p, 0, sizeof p);
  p.batch = 1, p.groups = 1;
  p.in_c = 4 * (rnd(0, 3) == 0 ? rnd(17, 64) : rnd(1, 16));
  p.out_c = 2 * rnd(1, 32);
  p.in_h = p.out_h = rnd(1, 5), p.in_w = p.out_w = rnd(1, 5);
  p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  if (p.in_h * p.in_w * p.in_c > MAX_X || p.out_h * p.out_w * p.out_c > MAX_Y ||
      (p.out_c + 3) / 4 * 4 * p.in_c > MAX_W || KILN_S8_PW_SCRATCH_BYTES((uint32_t)p.in_c) > sizeof scratch)
    return;
  random_quant(p.out_c, p.in_c, &p.input_offset, &p.output_offset, &p.act_min, &p.act_max);
  if (rnd(0, 3) != 0) p.act_min = -128, p.act_max = 127;
  if (!pack_pairs(p.out_c, p.in_c, p.act_min, p.act_max)) return;
  if (portable_conv2d_s8(&p, x_buf, w_buf, bias_buf, rq_buf, y_want, scratch) != KILN_OK ||
      kiln_conv2d_s8_pw(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) {
    put("FAIL conv pw status\n");
    ++failures;
    return;
  }
  compare("conv pw", p.out_h * p.out_w * p.out_c);
  if (portable_conv2d_s8_pw(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
  compare("conv pw portable", p.out_h * p.out_w * p.out_c);
  {
    const ov_geom_t g = {p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c, 1, 1, 1, 1, 1, 1, 0, 0};
    limit = ov_limit(&g, 1, 0);
  }
  if (ov_place(x_buf, limit, 16, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
    ov_compare("conv pw overlap", kiln_conv2d_s8_pw(&p, ov_x, pk_buf, ov_y, scratch), p.out_h * p.out_w * p.out_c);
  ++pw_checks;
  if (p.in_h * p.in_w % 2 != 0) ++pw_odd_checks; /* the last pixel in the one-column loop */
  if (p.in_c > 64) ++pw_long_checks;              /* rows of more than one 64-tap pass */
}

/* x_buf's first image [in_h, in_w, in_c] as [in_c, in_h, in_w] in xn_buf. */
static int8_t xn_buf[MAX_X];
static void to_nchw(const kiln_conv2d_s8_params_t* p) {
  int32_t y, x, c;
  for (y = 0; y < p->in_h; ++y)
    for (x = 0; x < p->in_w; ++x)
      for (c = 0; c < p->in_c; ++c)
        xn_buf[(c * p->in_h + y) * p->in_w + x] = x_buf[(y * p->in_w + x) * p->in_c + c];
}

static void conv_case(void) {
  kiln_conv2d_s8_params_t p;
  int64_t conv_limit, conv_w8_limit;
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
  if (rnd(0, 3) == 0) { /* pointwise on channels in multiples of 16 (the int8-weight form reads pixels in place) */
    p.groups = 1, p.in_c = 16 * rnd(1, 4), p.kernel_h = p.kernel_w = 1, p.pad_top = p.pad_left = 0;
    p.dilation_h = p.dilation_w = 1;
  }
  if (rnd(0, 3) == 0) { /* one input channel, tall kernels: a depthwise layer with a depth multiplier
                           (lower/ops/qnn_conv.cpp), the strip widened four columns per load */
    p.groups = 1, p.in_c = 1, p.kernel_h = 2 * rnd(1, 5), p.kernel_w = rnd(1, 8);
    p.dilation_h = p.dilation_w = 1;
  }
  p.in_h = rnd(1, 7) + p.dilation_h * (p.kernel_h - 1);
  p.in_w = rnd(1, p.in_c == 1 ? 20 : 7) + p.dilation_w * (p.kernel_w - 1);
  p.out_h = (p.in_h + p.pad_top + rnd(0, 2) - (p.dilation_h * (p.kernel_h - 1) + 1)) / p.stride_h + 1;
  p.out_w = (p.in_w + p.pad_left + rnd(0, 2) - (p.dilation_w * (p.kernel_w - 1) + 1)) / p.stride_w + 1;
  if (rnd(0, 3) == 0) { /* pointwise: 1x1, stride 1, no padding (one run over the image) */
    p.groups = 1;
    p.in_c = rnd(1, 24), p.out_c = rnd(1, 24);
    p.kernel_h = p.kernel_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
    p.pad_top = p.pad_left = 0;
    p.out_h = p.in_h, p.out_w = p.in_w;
  }
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
  if (p.groups == 1) {
    to_nchw(&p);
    if (kiln_conv2d_s8_nchw(&p, xn_buf, w_buf, bias_buf, rq_buf, y_got, scratch) != KILN_OK) ++failures;
    compare("conv nchw", p.out_h * p.out_w * p.out_c);
    if (portable_conv2d_s8_nchw(&p, xn_buf, w_buf, bias_buf, rq_buf, y_got, scratch) != KILN_OK) ++failures;
    compare("conv nchw portable", p.out_h * p.out_w * p.out_c);
  }
  {
    const ov_geom_t g = {p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c, p.kernel_h, p.kernel_w, p.stride_h,
                         p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left};
    const int direct = p.kernel_h == 1 && p.kernel_w == 1 && p.in_c % 16 == 0 && p.pad_top == 0 && p.pad_left == 0 &&
                       (p.out_h - 1) * p.stride_h < p.in_h && (p.out_w - 1) * p.stride_w < p.in_w;
    conv_limit = p.groups == 1 ? ov_limit(&g, 1, 0) : -OV_UNBOUNDED;
    conv_w8_limit = p.groups == 1 ? (direct ? ov_limit(&g, 2, 1) : conv_limit) : -OV_UNBOUNDED;
  }
  if (ov_place(x_buf, conv_limit, 16, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
    ov_compare("conv overlap", kiln_conv2d_s8(&p, ov_x, w_buf, bias_buf, rq_buf, ov_y, scratch),
               p.out_h * p.out_w * p.out_c);
  /* The packed form against the int16 form's portable result. */
  if (p.groups == 1 && pack(p.out_c, taps, p.act_min, p.act_max)) {
    if (kiln_conv2d_s8_pk(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) {
      put("FAIL conv pk status\n");
      ++failures;
      return;
    }
    compare("conv pk", p.out_h * p.out_w * p.out_c);
    if (portable_conv2d_s8_pk(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
    compare("conv pk portable", p.out_h * p.out_w * p.out_c);
    if (ov_place(x_buf, conv_limit, 16, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
      ov_compare("conv pk overlap", kiln_conv2d_s8_pk(&p, ov_x, pk_buf, ov_y, scratch), p.out_h * p.out_w * p.out_c);
    ++pk_checks;
    if (p.dilation_h == 1 && p.dilation_w == 1 && (p.stride_w * p.kernel_h * p.in_c) % 2 == 0 &&
        4 * ((int32_t)KILN_S8_ROW_LEN((uint32_t)taps)) <= 4 * 4096 &&
        KILN_S8_PK_STRIP_BYTES((uint32_t)p.out_w, (uint32_t)p.stride_w, (uint32_t)p.kernel_w,
                               (uint32_t)p.kernel_h, (uint32_t)p.in_c) <= sizeof scratch) {
      pack_strip(&p);
      if (kiln_conv2d_s8_pk_strip(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) {
        put("FAIL conv pk strip status\n");
        ++failures;
        return;
      }
      compare("conv pk strip", p.out_h * p.out_w * p.out_c);
      if (portable_conv2d_s8_pk_strip(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
      compare("conv pk strip portable", p.out_h * p.out_w * p.out_c);
      if (ov_place(x_buf, conv_limit, 16, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
        ov_compare("conv pk strip overlap", kiln_conv2d_s8_pk_strip(&p, ov_x, pk_buf, ov_y, scratch),
                   p.out_h * p.out_w * p.out_c);
      if (kiln_conv2d_s8_pk_strip_nchw(&p, xn_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
      compare("conv pk strip nchw", p.out_h * p.out_w * p.out_c);
      if (portable_conv2d_s8_pk_strip_nchw(&p, xn_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
      compare("conv pk strip nchw portable", p.out_h * p.out_w * p.out_c);
      ++pk_strip_checks;
      if (p.in_c == 1) ++pk_strip1_checks;
      if (p.in_c > 1) ++nchw_checks;
    }
  }
  /* The int8-weight form on the same shape (the weight bytes as int8 rows). */
  if (p.groups * blocks * 4 * (int32_t)KILN_S8_ROW_LEN8((uint32_t)taps) > 2 * MAX_W ||
      2 * (int32_t)KILN_S8_ROW_LEN8((uint32_t)taps) > 4096)
    return;
  if (kiln_conv2d_s8_w8(&p, x_buf, (const int8_t*)w_buf, bias_buf, rq_buf, y_got, (int8_t*)scratch) != KILN_OK ||
      portable_conv2d_s8_w8(&p, x_buf, (const int8_t*)w_buf, bias_buf, rq_buf, y_want, (int8_t*)scratch) !=
          KILN_OK) {
    put("FAIL conv w8 status\n");
    ++failures;
    return;
  }
  compare("conv w8", p.out_h * p.out_w * p.out_c);
  if (ov_place(x_buf, conv_w8_limit, 16, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
    ov_compare("conv w8 overlap",
               kiln_conv2d_s8_w8(&p, ov_x, (const int8_t*)w_buf, bias_buf, rq_buf, ov_y, (int8_t*)scratch),
               p.out_h * p.out_w * p.out_c);
}

static void depthwise_case(void) {
  kiln_depthwise_conv2d_s8_params_t p;
  int64_t dw_limit;
  memset(&p, 0, sizeof p);
  p.batch = 1;
  p.in_c = rnd(0, 1) ? 4 * rnd(1, 5) : rnd(1, 20);
  p.depth_multiplier = rnd(0, 2) == 0 ? rnd(2, 8) : 1; /* 4 and 8: the lanes of a block share an input channel */
  p.out_c = p.in_c * p.depth_multiplier;
  p.kernel_h = rnd(0, 1) ? 3 : rnd(1, 4), p.kernel_w = rnd(0, 1) ? 3 : rnd(1, 4);
  p.stride_h = rnd(1, 2), p.stride_w = rnd(1, 2);
  p.dilation_h = rnd(0, 4) == 0 ? 2 : 1, p.dilation_w = rnd(0, 4) == 0 ? 2 : 1;
  p.pad_top = rnd(0, 2), p.pad_left = rnd(0, 2);
  p.in_h = rnd(1, 8) + p.dilation_h * (p.kernel_h - 1);
  p.in_w = rnd(1, 8) + p.dilation_w * (p.kernel_w - 1);
  if (rnd(0, 2) == 0) {
    /* The planar form of the packed kernel (3x3, stride_w 1, rows of 8 or more):
     * rows of 6 to 21 outputs (full groups of four and every tail), few channels. */
    p.in_c = 4 * rnd(1, 3), p.depth_multiplier = 1, p.out_c = p.in_c;
    p.kernel_h = p.kernel_w = 3, p.stride_w = 1, p.dilation_h = p.dilation_w = 1;
    p.pad_left = rnd(0, 1), p.in_w = rnd(8, 22), p.in_h = rnd(3, 8);
  }
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
  if (p.depth_multiplier > 1) ++dw_mult_checks;
  if (p.depth_multiplier % 4 == 0) ++dw_mult4_checks;
  {
    const ov_geom_t g = {p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c, p.kernel_h, p.kernel_w, p.stride_h,
                         p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left};
    dw_limit = p.depth_multiplier == 1 ? ov_limit(&g, 1, 0) : -OV_UNBOUNDED;
  }
  if (ov_place(x_buf, dw_limit, p.in_c, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
    ov_compare("depthwise overlap", kiln_depthwise_conv2d_s8(&p, ov_x, w_buf, bias_buf, rq_buf, ov_y),
               p.out_h * p.out_w * p.out_c);
  /* The packed form (depth multiplier 1, channels in fours) against the portable int16 form. */
  if (p.depth_multiplier == 1 && p.in_c % 4 == 0 && p.kernel_h * p.kernel_w * p.in_c <= 4096 &&
      KILN_S8_DW_PK_SCRATCH_BYTES(&p) <= sizeof scratch &&
      pack_form(p.out_c, p.kernel_h * p.kernel_w, p.act_min, p.act_max, 1)) {
    if (KILN_S8_DW_PK_PLANAR(&p)) ++pk_dwpl_checks;
    if (kiln_depthwise_conv2d_s8_pk(&p, x_buf, pk_buf, y_got, (int8_t*)scratch) != KILN_OK) {
      put("FAIL depthwise pk status\n");
      ++failures;
      return;
    }
    compare("depthwise pk", p.out_h * p.out_w * p.out_c);
    if (portable_depthwise_conv2d_s8_pk(&p, x_buf, pk_buf, y_got, (int8_t*)scratch) != KILN_OK) ++failures;
    compare("depthwise pk portable", p.out_h * p.out_w * p.out_c);
    if (ov_place(x_buf, dw_limit, p.in_c, p.in_h * p.in_w * p.in_c, p.out_h * p.out_w * p.out_c))
      ov_compare("depthwise pk overlap", kiln_depthwise_conv2d_s8_pk(&p, ov_x, pk_buf, ov_y, (int8_t*)scratch),
                 p.out_h * p.out_w * p.out_c);
    ++pk_dw_checks;
  }
}

static void fully_connected_case(void) {
  kiln_fully_connected_s8_params_t p;
  int64_t fc_limit, fc_w8_limit;
  memset(&p, 0, sizeof p);
  p.rows = rnd(1, 4);
  p.in_features = rnd(0, 2) == 0 ? 16 * rnd(1, 18) : rnd(1, 300);
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
  {
    const ov_geom_t g = {p.rows, 1, p.in_features, p.rows, 1, p.out_features, 1, 1, 1, 1, 1, 1, 0, 0};
    fc_limit = ov_limit(&g, 1, 0);
    fc_w8_limit = ov_limit(&g, 2, 1);
  }
  if (ov_place(x_buf, fc_limit, 16, p.rows * p.in_features, p.rows * p.out_features))
    ov_compare("fully connected overlap", kiln_fully_connected_s8(&p, ov_x, w_buf, bias_buf, rq_buf, ov_y, scratch),
               p.rows * p.out_features);
  if (pack(p.out_features, p.in_features, p.act_min, p.act_max)) {
    if (kiln_fully_connected_s8_pk(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) {
      put("FAIL fully connected pk status\n");
      ++failures;
      return;
    }
    compare("fully connected pk", p.rows * p.out_features);
    if (portable_fully_connected_s8_pk(&p, x_buf, pk_buf, y_got, scratch) != KILN_OK) ++failures;
    compare("fully connected pk portable", p.rows * p.out_features);
    if (ov_place(x_buf, fc_limit, 16, p.rows * p.in_features, p.rows * p.out_features))
      ov_compare("fully connected pk overlap", kiln_fully_connected_s8_pk(&p, ov_x, pk_buf, ov_y, scratch),
                 p.rows * p.out_features);
    ++pk_checks;
  }
  if ((p.out_features + 3) / 4 * 4 * (int32_t)KILN_S8_ROW_LEN8((uint32_t)p.in_features) > 2 * MAX_W) return;
  if (kiln_fully_connected_s8_w8(&p, x_buf, (const int8_t*)w_buf, bias_buf, rq_buf, y_got, (int8_t*)scratch) !=
          KILN_OK ||
      portable_fully_connected_s8_w8(&p, x_buf, (const int8_t*)w_buf, bias_buf, rq_buf, y_want, (int8_t*)scratch) !=
          KILN_OK) {
    put("FAIL fully connected w8 status\n");
    ++failures;
    return;
  }
  compare("fully connected w8", p.rows * p.out_features);
  if (ov_place(x_buf, fc_w8_limit, 16, p.rows * p.in_features, p.rows * p.out_features))
    ov_compare("fully connected w8 overlap",
               kiln_fully_connected_s8_w8(&p, ov_x, (const int8_t*)w_buf, bias_buf, rq_buf, ov_y, (int8_t*)scratch),
               p.rows * p.out_features);
}

/* Add with random per-input tables and rescale (the shapes of the compiler's:
 * a term in [-2^27, 2^27], a right post-shift), broadcasting b over rows. */
static void adds(void) {
  static kiln_add_s8_params_t p;
  static int8_t a[64 * 64], b[64];
  int t, i;
  for (t = 0; t < 24; ++t) {
    const int32_t rows = rnd(1, 64), cols = rnd(1, 64);
    const int32_t e = rnd(10, 24);
    memset(&p, 0, sizeof p);
    for (i = 0; i < 256; ++i) p.a_term[i] = (i - 128 + rnd(-3, 3)) * rnd(1 << 16, 1 << 19);
    for (i = 0; i < 256; ++i) p.b_term[i] = (i - 128) * rnd(1 << 16, 1 << 19);
    p.bc.ndim = 2, p.bc.shape[0] = rows, p.bc.shape[1] = cols;
    p.bc.stride_a[0] = cols, p.bc.stride_a[1] = 1, p.bc.stride_b[0] = 0, p.bc.stride_b[1] = 1;
    p.out.multiplier = rnd(1 << 30, 0x7FFFFFFF);
    p.out.pre_shift = 0;
    p.out.post_shift = e;
    /* the compiler's folding (generator/quant/folded_rescale.cpp) */
    p.out.round_pos = (1LL << 31) + (1LL << (31 + e));
    p.out.round_neg = p.out.round_pos - (1LL << 32);
    p.out_offset = rnd(-128, 127);
    p.act_min = t % 2 ? rnd(-128, 0) : -128, p.act_max = t % 2 ? rnd(0, 127) : 127;
    for (i = 0; i < rows * cols; ++i) a[i] = (int8_t)rnd(-128, 127);
    for (i = 0; i < cols; ++i) b[i] = (int8_t)rnd(-128, 127);
    if (kiln_add_s8(&p, a, b, Y) != KILN_OK || PORTABLE(add_s8)(&p, a, b, R) != KILN_OK) {
      put("FAIL add status\n");
      ++failures;
      continue;
    }
    check("add vs portable", Y, R, rows * cols);
  }
  put("add: 24 random tables checked against the portable path\n");
}

static void lookups(void) {
  static int8_t table[256];
  kiln_lookup_s8_params_t p;
  int32_t i;
  for (i = 0; i < 256; ++i) table[i] = (int8_t)rnd(-128, 127);
  for (i = 0; i < 20 * 20 * 24; ++i) X[i] = (int8_t)rnd(-128, 127);
  p.size = 20 * 20 * 24 - (uint32_t)rnd(0, 7);
  if (kiln_lookup_s8(&p, X, table, Y) != KILN_OK || PORTABLE(lookup_s8)(&p, X, table, R) != KILN_OK) {
    put("FAIL lookup status\n");
    ++failures;
    return;
  }
  check("lookup vs portable", Y, R, (int32_t)p.size);
  put("lookup checked against the portable path\n");
}

static void softmaxes(void) {
  static kiln_softmax_s8_params_t p;
  int t, i;
  for (t = 0; t < 12; ++t) {
    /* exp(beta * scale * d) in Q0.31 for d in [-255, 0], decreasing, 0 below a cut */
    const int32_t cut = rnd(0, 255);
    int64_t v = 0x7FFFFFFF;
    for (i = 255; i >= 0; --i) {
      p.exp_table[i] = 255 - i > cut ? 0 : (int32_t)v;
      v = v * rnd(900, 999) / 1000;
    }
    p.rows = rnd(1, 8), p.depth = rnd(1, 300);
    for (i = 0; i < p.rows * p.depth; ++i) X[i] = (int8_t)rnd(-128, 127);
    if (kiln_softmax_s8(&p, X, Y) != KILN_OK || PORTABLE(softmax_s8)(&p, X, R) != KILN_OK) {
      put("FAIL softmax status\n");
      ++failures;
      continue;
    }
    check("softmax vs portable", Y, R, p.rows * p.depth);
  }
  put("softmax: 12 random tables checked against the portable path\n");
}

/* Instructions per call at the MLPerf shapes (informational). */
/* kiln_transpose_s8 on random [batch, rows, cols] (rows or cols 3 a third of the time
 * each) against the naive loop; the portable build the same. */
static void transposes(void) {
  static int8_t t_got[MAX_X], t_want[MAX_X];
  int32_t k, b, i, j, bad = 0;
  for (k = 0; k < 200; ++k) {
    kiln_transpose_s8_params_t p;
    const int32_t form = rnd(0, 2);
    p.batch = rnd(1, 2);
    p.rows = form == 0 ? 3 : rnd(1, 40);
    p.cols = form == 1 ? 3 : rnd(1, 40);
    if (p.batch * p.rows * p.cols > MAX_X) continue;
    for (b = 0; b < p.batch; ++b)
      for (i = 0; i < p.rows; ++i)
        for (j = 0; j < p.cols; ++j)
          t_want[(b * p.cols + j) * p.rows + i] = x_buf[(b * p.rows + i) * p.cols + j];
    memset(t_got, 0x5a, sizeof t_got);
    if (kiln_transpose_s8(&p, x_buf, t_got) != KILN_OK) ++bad;
    if (memcmp(t_got, t_want, (size_t)(p.batch * p.rows * p.cols)) != 0) ++bad;
    memset(t_got, 0x5a, sizeof t_got);
    if (portable_transpose_s8(&p, x_buf, t_got) != KILN_OK) ++bad;
    if (memcmp(t_got, t_want, (size_t)(p.batch * p.rows * p.cols)) != 0) ++bad;
  }
  if (bad) {
    put("FAIL transpose_s8\n");
    ++failures;
  }
}

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
  {
    /* The packed depthwise 3x3 (pad 1) at VWW's shapes: 6x6x128 and 48x48x8 (here 40x40x8). */
    kiln_depthwise_conv2d_s8_params_t dw;
    memset(&dw, 0, sizeof dw);
    for (i = 0; i < 32 * 34; ++i) pk_buf[i] = (i % 34) < 4 ? 1000 : (i % 34) < 22 ? 0x00030002 : 0;
    for (i = 0; i < 32; ++i)
      pk_buf[i * 34 + 22] = pk_buf[i * 34 + 25] = pk_buf[i * 34 + 28] = pk_buf[i * 34 + 31] = 1 << 30,
      pk_buf[i * 34 + 24] = pk_buf[i * 34 + 27] = pk_buf[i * 34 + 30] = pk_buf[i * 34 + 33] = 6;
    dw.batch = 1, dw.in_h = dw.in_w = dw.out_h = dw.out_w = 6, dw.in_c = dw.out_c = 128, dw.depth_multiplier = 1;
    dw.kernel_h = dw.kernel_w = 3, dw.stride_h = dw.stride_w = 1, dw.dilation_h = dw.dilation_w = 1;
    dw.pad_top = dw.pad_left = 1, dw.input_offset = 128, dw.output_offset = -128, dw.act_min = -128, dw.act_max = 127;
    kiln_board_counter_start();
    kiln_depthwise_conv2d_s8_pk(&dw, a, pk_buf, y, (int8_t*)scratch);
    n = kiln_board_counter_stop();
    put(", depthwise pk 3x3 6x6x128: ");
    put_i((int64_t)n);
    dw.in_h = dw.in_w = dw.out_h = dw.out_w = 40, dw.in_c = dw.out_c = 8;
    kiln_board_counter_start();
    kiln_depthwise_conv2d_s8_pk(&dw, a, pk_buf, y, (int8_t*)scratch);
    n = kiln_board_counter_stop();
    put(", 40x40x8: ");
    put_i((int64_t)n);
  }
  {
    /* The byte transpose at VWW's input (27,648 bytes; a and b hold 16384 each,
     * so 3 x 4096 = 12,288 bytes here: the per-byte cost is the same) both ways,
     * and a 16 x 1024 one in 4x4 blocks. */
    static const kiln_transpose_s8_params_t shapes[3] = {{1, 3, 4096}, {1, 4096, 3}, {1, 16, 1024}};
    static const char* const names[3] = {", transpose 3x4096 (NCHW -> NHWC): ", ", 4096x3: ", ", 16x1024: "};
    for (i = 0; i < 3; ++i) {
      kiln_board_counter_start();
      kiln_transpose_s8(&shapes[i], a, y);
      n = kiln_board_counter_stop();
      put(names[i]);
      put_i((int64_t)n);
    }
  }
  put("\n");
}

int main(void) {
  int32_t i;
  kiln_board_init();
  for (i = 0; i < 150 && failures < 5; ++i) {
    fill();
    conv_case();
    pw_case();
    depthwise_case();
    fully_connected_case();
  }
  put_i(checks);
  put(" conv / depthwise / fully connected calls compared with the portable path\n");
  if (checks < 500) ++failures;
  put_i(pk_checks);
  put(" of them also in the packed form (kiln_*_s8_pk)\n");
  if (pk_checks < 40) ++failures;
  put_i(pw_checks);
  put(" pointwise convolutions in the pair form (kiln_conv2d_s8_pw), ");
  put_i(pw_odd_checks);
  put(" of an odd pixel count, ");
  put_i(pw_long_checks);
  put(" of more than 64 input channels\n");
  if (pw_checks < 60 || pw_odd_checks < 15 || pw_long_checks < 10) ++failures;
  put_i(dw_mult_checks);
  put(" depthwise calls with a depth multiplier > 1, ");
  put_i(dw_mult4_checks);
  put(" of them a multiple of four\n");
  if (dw_mult_checks < 20 || dw_mult4_checks < 8) ++failures;
  put_i(pk_dw_checks);
  put(" depthwise calls in the packed form, ");
  put_i(pk_dwpl_checks);
  put(" of them planar (3x3, stride_w 1)\n");
  if (pk_dw_checks < 20 || pk_dwpl_checks < 15) ++failures;
  put_i(pk_strip_checks);
  put(" convolutions in the strip form, ");
  put_i(pk_strip1_checks);
  put(" of one input channel\n");
  if (pk_strip_checks < 20 || pk_strip1_checks < 8) ++failures;
  put_i(nchw_checks);
  put(" of several channels also from an NCHW input\n");
  if (nchw_checks < 8) ++failures;
  put_i(overlap_checks);
  put(" of them also with the output placed across the input\n");
  if (overlap_checks < 200) ++failures;
  transposes();
  pools();
  muls();
  adds();
  lookups();
  softmaxes();
  timing();
  put(failures ? "S8-QEMU-FAIL\n" : "S8-QEMU-OK\n");
  kiln_board_exit(failures ? 1 : 0);
  return 0;
}
