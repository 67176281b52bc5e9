/*
 * The float32 register-blocked kernels on a QEMU board (the path that board's
 * compiler flags select: VFMA/VLDM assembly on Cortex-M4F, M7 and M55, portable C
 * on Cortex-M3) against the same kernels on ONNX's weight layout (the direct and
 * im2col loops): Conv with GEMM blocks, depthwise 3x3 with packed taps, Gemm with
 * packed B, over shapes that hit every tile edge; Relu's and Clip's word paths and the in-order
 * plane sum of average pooling against C, MaxPool 2x2/2 against its general loop, Add's
 * contiguous path. The packing is written here from
 * the layouts documented in kiln/conv.h and kiln/gemm.h. Results must agree to
 * 1e-5 relative (fused multiply-adds round once, the reference twice). Prints the
 * instructions per call of a few layer shapes; exits 0 when everything matched.
 * Run by run_f32_qemu_check.cmake.
 */
#include <math.h>
#include <string.h>

#include "kiln_board.h"
#include "kiln_kernels.h"

static int failures = 0, checks = 0;

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
static float rnd(void) { /* [-1, 1) */
  rng = rng * 1664525u + 1013904223u;
  return (float)(int32_t)(rng >> 8) / 8388608.0f - 1.0f;
}
static void fill(float* v, uint32_t n, float scale) {
  uint32_t i;
  for (i = 0; i < n; ++i) v[i] = scale * rnd();
}

static void check(const char* what, uint32_t a, uint32_t b, const float* got, const float* want, uint32_t n) {
  uint32_t i;
  ++checks;
  for (i = 0; i < n; ++i)
    if (!(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])))) {
      put("FAIL ");
      put(what);
      put(" (");
      put_i(a);
      put(", ");
      put_i(b);
      put(") at ");
      put_i(i);
      put("\n");
      ++failures;
      return;
    }
}

#define MAXN 8192
static float X[MAXN], W[MAXN], WP[MAXN], B[256], Y[MAXN], R[MAXN], S[MAXN];

static kiln_conv2d_params_t conv2d(uint32_t c_in, uint32_t c_out, uint32_t h, uint32_t w, uint32_t k, uint32_t stride,
                                   int32_t pad, uint32_t groups) {
  kiln_conv2d_params_t p;
  memset(&p, 0, sizeof p);
  p.n = 1, p.c_in = c_in, p.c_out = c_out, p.groups = groups;
  p.d_in = p.d_out = 1, p.h_in = h, p.w_in = w;
  p.k_d = 1, p.k_h = p.k_w = k;
  p.stride_d = 1, p.stride_h = p.stride_w = stride;
  p.dilation_d = p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = pad;
  p.h_out = (h + 2u * (uint32_t)pad - k) / stride + 1u;
  p.w_out = (w + 2u * (uint32_t)pad - k) / stride + 1u;
  return p;
}

/* rows x k (row-major, `groups` of them) -> blocks of four rows, [k][4] each. */
static void pack_blocks(const float* w, uint32_t groups, uint32_t rows, uint32_t k, int transposed, float* out) {
  const uint32_t per_group = (rows + 3u) / 4u * 4u * k;
  uint32_t g, row, r;
  memset(out, 0, groups * per_group * sizeof(float));
  for (g = 0; g < groups; ++g)
    for (row = 0; row < rows; ++row)
      for (r = 0; r < k; ++r)
        out[g * per_group + (row / 4u) * 4u * k + r * 4u + row % 4u] =
            transposed ? w[r * rows + row] : w[(g * rows + row) * k + r];
}

static void conv_blocks(void) {
  static const uint32_t couts[] = {1, 3, 4, 6, 9}, cins[] = {1, 2, 5}, sizes[] = {1, 3, 5, 6};
  uint32_t a, b, c, k;
  for (a = 0; a < 5; ++a)
    for (b = 0; b < 3; ++b)
      for (c = 0; c < 4; ++c)
        for (k = 1; k <= 3; k += 2) {
          kiln_conv2d_params_t p = conv2d(cins[b], couts[a], sizes[c], sizes[c] + 1u, k, 1, k == 3u ? 1 : 0, 1);
          const uint32_t kk = cins[b] * k * k, n_out = couts[a] * p.h_out * p.w_out;
          fill(X, cins[b] * p.h_in * p.w_in, 1.0f);
          fill(W, couts[a] * kk, 0.5f);
          fill(B, couts[a], 0.25f);
          if (k == 3u) p.tile_rows = 2;
          kiln_conv2d_f32(&p, X, W, B, R, S);
          pack_blocks(W, 1, couts[a], kk, 0, WP);
          p.weights_layout = KILN_CONV_WEIGHTS_GEMM_BLOCKS;
          if (kiln_conv2d_f32(&p, X, WP, B, Y, S) != KILN_OK) ++failures;
          check("conv blocks", couts[a] * 100u + cins[b], sizes[c] * 10u + k, Y, R, n_out);
        }
}

static void depthwise(void) {
  static const uint32_t hs[] = {1, 2, 3, 7}, ws[] = {1, 2, 3, 4, 5, 8, 9, 12, 13, 20};
  uint32_t s, a, b, ch, t;
  int32_t pad;
  for (s = 1; s <= 2; ++s)
    for (pad = 0; pad <= 1; ++pad)
      for (a = 0; a < 4; ++a)
        for (b = 0; b < 10; ++b) {
          const uint32_t c = 3;
          kiln_conv2d_params_t p = conv2d(c, c, hs[a], ws[b], 3, s, pad, c);
          if (hs[a] + 2u * (uint32_t)pad < 3u || ws[b] + 2u * (uint32_t)pad < 3u) continue;
          fill(X, c * hs[a] * ws[b], 1.0f);
          fill(W, c * 9u, 0.5f);
          fill(B, c, 0.3f);
          kiln_conv2d_f32(&p, X, W, B, R, NULL);
          for (ch = 0; ch < c; ++ch) {
            for (t = 0; t < 9u; ++t) WP[ch * 10u + t] = W[ch * 9u + t];
            WP[ch * 10u + 9u] = B[ch];
          }
          fill(S, 3u * ((p.w_out - 1u) * s + 3u), 99.0f);
          p.weights_layout = KILN_CONV_WEIGHTS_DEPTHWISE_3X3;
          if (kiln_conv2d_f32(&p, X, WP, NULL, Y, S) != KILN_OK) ++failures;
          check("depthwise", s * 10u + (uint32_t)pad, hs[a] * 100u + ws[b], Y, R, c * p.h_out * p.w_out);
        }
}

static void gemm(void) {
  static const uint32_t ns[] = {1, 5, 8, 11}, ks[] = {1, 3, 4, 7, 16, 19};
  uint32_t m, a, b, tb;
  for (m = 1; m <= 3; m += 2)
    for (a = 0; a < 4; ++a)
      for (b = 0; b < 6; ++b)
        for (tb = 0; tb < 2; ++tb) {
          kiln_gemm_params_t p;
          memset(&p, 0, sizeof p);
          p.m = m, p.n = ns[a], p.k = ks[b], p.trans_b = (uint8_t)tb, p.alpha = 1.0f, p.beta = 1.0f;
          p.c_stride_m = 0, p.c_stride_n = 1;
          fill(X, m * p.k, 1.0f);
          fill(W, p.k * p.n, 0.5f);
          fill(B, p.n, 0.2f);
          kiln_gemm_f32(&p, X, W, B, R);
          pack_blocks(W, 1, p.n, p.k, !tb, WP);
          p.b_packed = 1;
          if (kiln_gemm_f32(&p, X, WP, B, Y) != KILN_OK) ++failures;
          check("gemm", m * 100u + p.n, p.k * 10u + tb, Y, R, m * p.n);
        }
}

/* Relu on its word path (bit patterns in core registers) against `x < 0 ? 0 : x`:
 * random values and the special ones (both NaNs, both infinities, both zeros,
 * denormals, the float just below zero), at every length 0..23 (the tail loop). */
static void relu(void) {
  static const uint32_t special[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7F800000u,
                                     0xFF800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                     0x807FFFFFu, 0xFF7FFFFFu, 0x7F7FFFFFu, 0xBF800000u, 0x3F800000u};
  uint32_t n, i;
  for (n = 0; n < 24u; ++n) {
    fill(X, n, 2.0f);
    for (i = 0; i < n && i < 15u; i += 2u) memcpy(&X[i], &special[(n + i) % 15u], 4);
    if (kiln_relu_f32(X, Y, n) != KILN_OK) ++failures;
    ++checks;
    for (i = 0; i < n; ++i) {
      const float want = X[i] < 0.0f ? 0.0f : X[i];
      const int same = (want != want) ? (Y[i] != Y[i]) : (Y[i] == want);
      if (!same) {
        put("FAIL relu n=");
        put_i(n);
        put(" at ");
        put_i(i);
        put("\n");
        ++failures;
        break;
      }
    }
  }
  fill(X, 64, 1.0f);
  memcpy(Y, X, sizeof(float) * 64u);
  kiln_relu_f32(Y, Y, 64); /* in place */
  for (i = 0; i < 64u; ++i) R[i] = X[i] < 0.0f ? 0.0f : X[i];
  check("relu in place", 64, 0, Y, R, 64);
}

/* Clip(x, 0, hi) on its word path against the C rule (x < lo -> lo, x > hi -> hi,
 * NaN unchanged): special values, random ones around hi, every length 0..23, three
 * bounds, in place too. */
static void clip(void) {
  static const uint32_t special[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7F800000u,
                                     0xFF800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                     0x40C00000u, 0x40C00001u, 0x40BFFFFFu, 0x7F7FFFFFu, 0xBF800000u};
  static const float his[] = {6.0f, 1.0f, 0.25f};
  const float lo = 0.0f;
  uint32_t n, i, h;
  for (h = 0; h < 3u; ++h)
    for (n = 0; n < 24u; ++n) {
      fill(X, n, 8.0f);
      for (i = 0; i < n && i < 15u; i += 2u) memcpy(&X[i], &special[(n + i + h) % 15u], 4);
      if (kiln_clip_range_f32(X, &lo, &his[h], Y, n) != KILN_OK) ++failures;
      ++checks;
      for (i = 0; i < n; ++i) {
        float want = X[i];
        if (want < lo) want = lo;
        if (want > his[h]) want = his[h];
        if ((want != want) ? (Y[i] == Y[i]) : (Y[i] != want)) {
          put("FAIL clip n=");
          put_i(n);
          put(" at ");
          put_i(i);
          put("\n");
          ++failures;
          break;
        }
      }
    }
  fill(X, 64, 9.0f);
  for (i = 0; i < 64u; ++i) R[i] = X[i] < 0.0f ? 0.0f : (X[i] > 6.0f ? 6.0f : X[i]);
  kiln_clip_range_f32(X, &lo, &his[0], X, 64); /* in place */
  check("clip in place", 64, 0, X, R, 64);
}

/* Global average pooling sums each plane in order: bit for bit the C loop. */
static void global_avg(void) {
  uint32_t size, i;
  for (size = 1; size < 40u; size += 3u) {
    kiln_global_pool_params_t g;
    memset(&g, 0, sizeof g);
    g.channels = 3, g.size = size;
    fill(X, 3u * size, 3.0f);
    kiln_global_avgpool_f32(&g, X, Y);
    ++checks;
    for (i = 0; i < 3u; ++i) {
      float s = 0.0f;
      uint32_t j;
      for (j = 0; j < size; ++j) s += X[i * size + j];
      if (Y[i] != s / (float)size) {
        put("FAIL global average pool size ");
        put_i(size);
        put("\n");
        ++failures;
      }
    }
  }
}

/* MaxPool 2x2/2 without indices (the fast path) against the general loop (taken
 * when the Indices output is asked for), NaN taps included. */
static int64_t IDX[MAXN];
static void maxpool(void) {
  uint32_t h, w, i;
  for (h = 2; h <= 7u; h += 5u)
    for (w = 2; w <= 9u; w += 3u) {
      kiln_pool2d_params_t p;
      memset(&p, 0, sizeof p);
      p.n = 1, p.c = 3, p.d_in = p.d_out = 1, p.h_in = h, p.w_in = w, p.h_out = h / 2u, p.w_out = w / 2u;
      p.k_d = 1, p.k_h = p.k_w = 2, p.stride_d = 1, p.stride_h = p.stride_w = 2;
      p.dilation_d = p.dilation_h = p.dilation_w = 1;
      fill(X, 3u * h * w, 1.0f);
      for (i = 0; i < 3u * h * w; i += 7u) X[i] = NAN;
      kiln_maxpool2d_f32(&p, X, R, IDX);
      kiln_maxpool2d_f32(&p, X, Y, NULL);
      ++checks;
      for (i = 0; i < 3u * p.h_out * p.w_out; ++i)
        if (R[i] != R[i] ? Y[i] == Y[i] : Y[i] != R[i]) {
          put("FAIL maxpool ");
          put_i(h * 10u + w);
          put("\n");
          ++failures;
          break;
        }
    }
}

/* Add of two same-shape tensors (the contiguous fast path), in place too. */
static void add(void) {
  uint32_t n, i;
  for (n = 1; n < 23u; n += 3u) {
    kiln_broadcast_t p;
    memset(&p, 0, sizeof p);
    p.ndim = 1, p.shape[0] = (int32_t)n, p.stride_a[0] = p.stride_b[0] = 1;
    fill(X, n, 1.0f);
    fill(W, n, 1.0f);
    for (i = 0; i < n; ++i) R[i] = X[i] + W[i];
    kiln_add_f32(&p, X, W, Y);
    ++checks;
    for (i = 0; i < n; ++i)
      if (Y[i] != R[i]) {
        put("FAIL add n=");
        put_i(n);
        put("\n");
        ++failures;
        break;
      }
    kiln_add_f32(&p, X, W, X); /* in place */
    check("add in place", n, 0, X, R, n);
  }
}

static void timing(void) {
  uint64_t n;
  kiln_conv2d_params_t p = conv2d(16, 16, 8, 8, 1, 1, 0, 1);
  kiln_gemm_params_t g;
  pack_blocks(W, 1, 16, 16, 0, WP);
  p.weights_layout = KILN_CONV_WEIGHTS_GEMM_BLOCKS;
  kiln_board_counter_start();
  kiln_conv2d_f32(&p, X, WP, B, Y, NULL);
  n = kiln_board_counter_stop();
  put("instructions: conv 1x1 16->16 8x8 (16384 MACs): ");
  put_i((int64_t)n);
  p = conv2d(16, 16, 12, 12, 3, 1, 1, 16);
  p.weights_layout = KILN_CONV_WEIGHTS_DEPTHWISE_3X3;
  kiln_board_counter_start();
  kiln_conv2d_f32(&p, X, WP, NULL, Y, S);
  n = kiln_board_counter_stop();
  put(", depthwise 3x3 16x12x12 (20736 MACs): ");
  put_i((int64_t)n);
  memset(&g, 0, sizeof g);
  g.m = 1, g.n = 32, g.k = 128, g.alpha = 1.0f, g.beta = 1.0f, g.c_stride_n = 1, g.b_packed = 1;
  kiln_board_counter_start();
  kiln_gemm_f32(&g, X, WP, B, Y);
  n = kiln_board_counter_stop();
  put(", gemv 128->32 (4096 MACs): ");
  put_i((int64_t)n);
  kiln_board_counter_start();
  kiln_relu_f32(X, Y, 4096);
  n = kiln_board_counter_stop();
  put(", relu 4096: ");
  put_i((int64_t)n);
  {
    const float lo = 0.0f, hi = 6.0f;
    kiln_board_counter_start();
    kiln_clip_range_f32(X, &lo, &hi, Y, 4096);
    n = kiln_board_counter_stop();
    put(", clip(0, 6) 4096: ");
    put_i((int64_t)n);
  }
  {
    kiln_pool2d_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.n = 1, mp.c = 16, mp.d_in = mp.d_out = 1, mp.h_in = mp.w_in = 16, mp.h_out = mp.w_out = 8;
    mp.k_d = 1, mp.k_h = mp.k_w = 2, mp.stride_d = 1, mp.stride_h = mp.stride_w = 2;
    mp.dilation_d = mp.dilation_h = mp.dilation_w = 1;
    kiln_board_counter_start();
    kiln_maxpool2d_f32(&mp, X, Y, NULL);
    n = kiln_board_counter_stop();
    put(", maxpool 2x2/2 16x16x16: ");
    put_i((int64_t)n);
  }
  put("\n");
}

int main(void) {
  kiln_board_init();
  conv_blocks();
  depthwise();
  gemm();
  relu();
  clip();
  global_avg();
  maxpool();
  add();
  timing();
  put_i(checks);
  put(" checks\n");
  put(failures ? "F32-QEMU-FAIL\n" : "F32-QEMU-OK\n");
  return failures ? 1 : 0;
}
