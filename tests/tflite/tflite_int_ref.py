"""TFLite's integer arithmetic in plain Python, for the reference outputs of the
int8 test models (make_test_models.py).

There is no TFLite runtime on the build machine, so the expected outputs are
computed here, independently of Kiln's C++ and C code, following TFLite's
reference kernels (tensorflow/lite/kernels/internal/common.h, reference/*.h and
TFLite Micro's kernels): QuantizeMultiplier, MultiplyByQuantizedMultiplier with
its two roundings, the Add/Sub/Mul/Mean/ResizeBilinearInteger/BatchMatMul integer
algorithms, AffineQuantize. Python integers are exact; float32 steps use numpy
float32 where TFLite computes in float.
"""
import math

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def round_away(v):
    """TfLiteRound / std::round of a double: ties away from zero."""
    v = float(v)
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def quantize_multiplier(real):
    """QuantizeMultiplier: (Q31 multiplier, shift), frexp and round half away."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = round_away(q * (1 << 31))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > 30:
        return (1 << 31) - 1, 30
    return q_fixed, shift


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    x = ab + ((1 << 30) if ab >= 0 else (1 - (1 << 30)))
    q = abs(x) >> 31  # C++ division of int64 by 2^31 truncates toward zero
    return q if x >= 0 else -q


def rounding_divide_by_pot(x, e):
    mask = (1 << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if remainder > threshold else 0)


def mbqm(x, multiplier, shift):
    """MultiplyByQuantizedMultiplier (int32 input, TFLite's default double rounding)."""
    left, right = max(shift, 0), max(-shift, 0)
    v = x * (1 << left)
    assert INT32_MIN <= v <= INT32_MAX, "TFLite would overflow int32 here"
    return rounding_divide_by_pot(srdhm(v, multiplier), right)


def clamp8(v, lo=-128, hi=127):
    return max(lo, min(hi, v))


def f32(v):
    return np.float32(v)


def act_range(act, scale, zp):
    """CalculateActivationRangeQuantized for int8: None, 'relu', 'relu6'."""
    q = lambda f: zp + round_away(f32(f) / f32(scale))
    if act == "relu":
        return max(-128, q(0.0)), 127
    if act == "relu6":
        return max(-128, q(0.0)), min(127, q(6.0))
    return -128, 127


def quantize(x, scale, zp):
    """AffineQuantize float -> int8: float32 division, ties away from zero."""
    out = np.zeros(x.shape, np.int8)
    for i, v in np.ndenumerate(x):
        out[i] = clamp8(round_away(np.float64(f32(v) / f32(scale))) + zp)
    return out


def requantize(x, s_in, z_in, s_out, z_out):
    """QUANTIZE int8 -> int8 (also Kiln's rule for a CONCATENATION input whose
    quantization differs from the output's)."""
    m, s = quantize_multiplier(float(f32(s_in)) / float(f32(s_out)))
    return np.vectorize(lambda v: clamp8(mbqm(int(v) - z_in, m, s) + z_out), otypes=[np.int8])(x)


def add_sub(a, qa, b, qb, qy, subtract=False, act=None):
    """Add / Sub (left_shift 20), numpy broadcasting. q* = (scale, zero point)."""
    twice_max = 2.0 * max(float(f32(qa[0])), float(f32(qb[0])))
    ma = quantize_multiplier(float(f32(qa[0])) / twice_max)
    mb = quantize_multiplier(float(f32(qb[0])) / twice_max)
    mo = quantize_multiplier(twice_max / ((1 << 20) * float(f32(qy[0]))))
    lo, hi = act_range(act, qy[0], qy[1])
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape, np.int8)
    for i in np.ndindex(a.shape):
        sa = mbqm((int(a[i]) - qa[1]) * (1 << 20), *ma)
        sb = mbqm((int(b[i]) - qb[1]) * (1 << 20), *mb)
        out[i] = clamp8(mbqm(sa - sb if subtract else sa + sb, *mo) + qy[1], lo, hi)
    return out


def mul(a, qa, b, qb, qy, act=None):
    m = quantize_multiplier(float(f32(qa[0])) * float(f32(qb[0])) / float(f32(qy[0])))
    lo, hi = act_range(act, qy[0], qy[1])
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape, np.int8)
    for i in np.ndindex(a.shape):
        out[i] = clamp8(mbqm((int(a[i]) - qa[1]) * (int(b[i]) - qb[1]), *m) + qy[1], lo, hi)
    return out


def leaky_relu(x, qx, qy, alpha):
    """TFLite Micro's LeakyRelu: the two ratios computed in float32."""
    m_alpha = quantize_multiplier(float(f32(qx[0]) * f32(alpha) / f32(qy[0])))
    m_id = quantize_multiplier(float(f32(qx[0]) / f32(qy[0])))
    def one(v):
        d = int(v) - qx[1]
        return clamp8(qy[1] + mbqm(d, *(m_id if d >= 0 else m_alpha)))
    return np.vectorize(one, otypes=[np.int8])(x)


def mean(x, qx, qy, axes, keep_dims):
    """QuantizedMeanOrSum (compute_sum false) with the count-adapted multiplier."""
    m, s = quantize_multiplier(float(f32(qx[0])) / float(f32(qy[0])))
    axes = tuple(sorted(a % x.ndim for a in axes))
    n = int(np.prod([x.shape[a] for a in axes]))
    shift = min(n.bit_length() - 1, 32, 31 + s)
    m2, s2 = ((m << shift) // n), s - shift
    sums = x.astype(np.int64).sum(axis=axes, keepdims=keep_dims)
    return np.vectorize(lambda v: clamp8(mbqm(int(v) - qx[1] * n, m2, s2) + qy[1]), otypes=[np.int8])(sums)


def _cdiv(a, b):
    """C integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def resize_bilinear(x, oh, ow, align_corners=False, half_pixel=False):
    """ResizeBilinearInteger, NHWC int8 (default build: TFLITE_SINGLE_ROUNDING off)."""
    n, h, w, c = x.shape

    def scale10(i, o):
        if align_corners and o > 1:
            return _cdiv((1 << 10) * (i - 1) + (o - 1) // 2, o - 1)
        return _cdiv((1 << 10) * i + o // 2, o)

    def coords(v, s, size):
        scaled = v * s + s // 2 - (1 << 9) if half_pixel else v * s
        return scaled, max(_cdiv(scaled, 1 << 10), 0), min(_cdiv(scaled + (1 << 10) - 1, 1 << 10), size - 1)

    sh, sw = scale10(h, oh), scale10(w, ow)
    y = np.zeros((n, oh, ow, c), np.int8)
    for b in range(n):
        for i in range(oh):
            iy, y0, y1 = coords(i, sh, h)
            for j in range(ow):
                ix, x0, x1 = coords(j, sw, w)
                for ch in range(c):
                    v = (int(x[b, y0, x0, ch]) * ((1 << 10) - (iy - (1 << 10) * y0)) * ((1 << 10) - (ix - (1 << 10) * x0)) +
                         int(x[b, y1, x0, ch]) * (iy - (1 << 10) * y0) * ((1 << 10) - (ix - (1 << 10) * x0)) +
                         int(x[b, y0, x1, ch]) * ((1 << 10) - (iy - (1 << 10) * y0)) * (ix - (1 << 10) * x0) +
                         int(x[b, y1, x1, ch]) * (iy - (1 << 10) * y0) * (ix - (1 << 10) * x0))
                    rnd = (1 << 19) if v > 0 else -(1 << 19)
                    y[b, i, j, ch] = _cdiv(v + rnd, 1 << 20)
    return y


def batch_matmul(a, qa, b, qb, qy, adj_x=False, adj_y=False):
    """BatchMatMul int8: exact int32 dot products, one MultiplyByQuantizedMultiplier."""
    m = quantize_multiplier(float(f32(qa[0])) * float(f32(qb[0])) / float(f32(qy[0])))
    a = a.astype(np.int64) - qa[1]
    b = b.astype(np.int64) - qb[1]
    if adj_x:
        a = np.swapaxes(a, -1, -2)
    if adj_y:
        b = np.swapaxes(b, -1, -2)
    acc = np.matmul(a, b)
    return np.vectorize(lambda v: clamp8(mbqm(int(v), *m) + qy[1]), otypes=[np.int8])(acc)


def depthwise_conv(x, qx, w, w_scales, bias, qy, stride, dilation, same, act=None):
    """DepthwiseConv int8 with per-channel weights (TFLite Micro's
    reference_integer_ops::DepthwiseConvPerChannel): x [1,H,W,C], w [1,KH,KW,C*M]
    (output channel c * M + m reads input channel c), stride and dilation (h, w),
    SAME (TFLite's ComputePaddingHeightWidth: the odd pixel of padding at the end)
    or VALID; acc = bias + sum over in-bounds taps of (x - x_zp) * w, then
    MultiplyByQuantizedMultiplier with each channel's multiplier of
    input_scale * filter_scale / output_scale (doubles of the float32 scales)."""
    _, h, wd, c = x.shape
    _, kh, kw, cout = w.shape
    mult = cout // c
    ekh, ekw = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    if same:
        oh, ow = -(-h // stride[0]), -(-wd // stride[1])
    else:
        oh, ow = (h - ekh + stride[0]) // stride[0], (wd - ekw + stride[1]) // stride[1]
    pt = max(0, ((oh - 1) * stride[0] + ekh - h) // 2)
    pl = max(0, ((ow - 1) * stride[1] + ekw - wd) // 2)
    xs = np.repeat(x[0].astype(np.int64) - qx[1], mult, axis=2)  # [H, W, C*M]
    acc = np.zeros((oh, ow, cout), np.int64)
    if bias is not None:
        acc += np.asarray(bias, np.int64)
    for a in range(kh):
        for b in range(kw):
            for i in range(oh):
                yi = i * stride[0] + a * dilation[0] - pt
                if not 0 <= yi < h:
                    continue
                for j in range(ow):
                    xj = j * stride[1] + b * dilation[1] - pl
                    if 0 <= xj < wd:
                        acc[i, j] += xs[yi, xj] * w[0, a, b].astype(np.int64)
    lo, hi = act_range(act, *qy)
    ms = [quantize_multiplier(float(f32(qx[0])) * float(f32(s)) / float(f32(qy[0]))) for s in w_scales]
    y = np.zeros((1, oh, ow, cout), np.int8)
    for (i, j, k), v in np.ndenumerate(acc):
        y[0, i, j, k] = clamp8(mbqm(int(v), *ms[k]) + qy[1], lo, hi)
    return y


def _srdhm16(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul on int16."""
    if a == b == -32768:
        return 32767
    ab = a * b
    x = ab + ((1 << 14) if ab >= 0 else (1 - (1 << 14)))
    q = abs(x) >> 15
    return q if x >= 0 else -q


def _sdhm16(a, b):
    """SaturatingDoublingHighMul on int16: rounds toward zero."""
    if a == b == -32768:
        return 32767
    ab = a * b
    q = abs(ab) >> 15
    return q if ab >= 0 else -q


def _sat16(v):
    return max(-32768, min(32767, v))


def _to_int16_multiplier(m32):
    """DownScaleInt32ToInt16Multiplier."""
    if m32 >= INT32_MAX - (1 << 15):
        return 32767
    return (m32 + (1 << 15)) >> 16


def hard_swish(x, qx, qy):
    """TFLite's int8 HardSwish (16-bit fixed point, params as TFLite Micro's
    HardSwishPrepare computes them in float32)."""
    hires_scale = f32(f32(1.0 / 128.0) * f32(qx[0]))
    out_m, out_e = quantize_multiplier(float(f32(hires_scale / f32(qy[0]))))
    relu_m, relu_e = quantize_multiplier(float(f32(hires_scale / f32(f32(3.0) / f32(32768.0)))))
    out_m16, relu_m16 = _to_int16_multiplier(out_m), _to_int16_multiplier(relu_m)
    assert out_e <= 0

    def one(v):
        hires = (int(v) - qx[1]) * 128
        preshift_out = _srdhm16(hires, out_m16)
        r = hires
        if relu_e > 0:
            r = _sat16(r * (1 << (relu_e - 1)))
        r = _srdhm16(r, relu_m16)
        if relu_e > 0:
            r = _sat16(r * 2)
        if relu_e < 0:
            r = rounding_divide_by_pot(r, -relu_e)
        r = (r + (1 << 15)) >> 1
        out = rounding_divide_by_pot(_sdhm16(r, preshift_out), -out_e) + qy[1]
        return clamp8(out)
    return np.vectorize(one, otypes=[np.int8])(x)


# ---- gemmlowp's fixed-point logistic and tanh (int32 raw values) -------------
# FixedPoint<int32, k> holds value * 2^(31 - k); a product of two fixed-point
# numbers is SaturatingRoundingDoublingHighMul of the raws, a sum wraps as int32.

def _wrap32(v):
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


def _mul_pot_sat(x, e):
    """SaturatingRoundingMultiplyByPOT<e>: a rounding right shift for e < 0, a
    saturating left shift for e > 0."""
    if e < 0:
        return rounding_divide_by_pot(x, -e)
    if e == 0:
        return x
    threshold = (1 << (31 - e)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return x << e


def _exp_quarter_interval(a):
    """exp on [-1/4, 0), a in Q0.31: Taylor series around -1/8."""
    constant_term = 1895147668   # exp(-1/8)
    one_third = 715827883
    x = _wrap32(a + (1 << 28))   # + 1/8
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = _mul_pot_sat(x4, -2)
    poly = _mul_pot_sat(_wrap32(srdhm(_wrap32(x4_over_4 + x3), one_third) + x2), -1)
    return _wrap32(constant_term + srdhm(constant_term, _wrap32(x + poly)))


def _exp_on_negative_values(a, int_bits):
    """exp(a) for a <= 0 in Q(int_bits).(31 - int_bits) -> Q0.31."""
    frac_bits = 31 - int_bits
    quarter = 1 << (frac_bits - 2)
    a_mod = _wrap32((a & (quarter - 1)) - quarter)
    result = _exp_quarter_interval(_mul_pot_sat(a_mod, int_bits))
    remainder = _wrap32(a_mod - a)
    for exponent, multiplier in ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
                                 (2, 39332535), (3, 720401), (4, 242)):
        if int_bits > exponent and remainder & (1 << (frac_bits + exponent)):
            result = srdhm(result, multiplier)
    if int_bits > 5 and a < -(1 << (36 - int_bits)):  # below -32
        result = 0
    return INT32_MAX if a == 0 else result


def _newton_reciprocal_half(half_denominator):
    """x ~ 1 / half_denominator in Q2.29 (three Newton-Raphson steps from 48/17 - 32/17 d)."""
    x = _wrap32(1515870810 + srdhm(half_denominator, -1010580540))
    for _ in range(3):
        one_minus = _wrap32((1 << 29) - srdhm(half_denominator, x))
        x = _wrap32(x + _mul_pot_sat(srdhm(x, one_minus), 2))
    return x


def _rounding_half_sum(a, b):
    """RoundingHalfSum: (a + b) / 2, ties away from zero."""
    s = a + b
    return (s + 1) // 2 if s >= 0 else -((1 - s) // 2)


def gemmlowp_logistic(a, int_bits):
    """logistic(a), a in Q(int_bits); result in Q0.31."""
    if a == 0:
        return 1 << 30
    exp_neg = _exp_on_negative_values(-abs(a), int_bits)
    positive = _mul_pot_sat(_newton_reciprocal_half(_rounding_half_sum(exp_neg, INT32_MAX)), 1)
    return positive if a > 0 else _wrap32(INT32_MAX - positive)


def gemmlowp_tanh(a, int_bits):
    """tanh(a), a in Q(int_bits); result in Q0.31."""
    if a == 0:
        return 0
    exp_neg = _exp_on_negative_values(-abs(a), int_bits + 1)  # exp(2 * -|a|)
    t = _mul_pot_sat(_wrap32(_newton_reciprocal_half(_rounding_half_sum(exp_neg, INT32_MAX)) - (1 << 29)), 2)
    return t if a > 0 else -t


def _q4_input(scale):
    """The int8 LOGISTIC/TANH input rescale to Q4.27 and the saturation radius."""
    q, shift = math.frexp(float(f32(scale)) * float(1 << 27))
    mult = round_away(q * (1 << 31))
    radius = math.floor(((1 << 4) - 1) * (1 << 27) / (1 << shift))
    return mult, shift, radius


def logistic(x, qx):
    """TFLite's int8 LOGISTIC (output 1/256, zero point -128)."""
    mult, shift, radius = _q4_input(qx[0])

    def one(v):
        d = int(v) - qx[1]
        if d <= -radius:
            return -128
        if d >= radius:
            return 127
        y = rounding_divide_by_pot(gemmlowp_logistic(mbqm(d, mult, shift), 4), 23)
        return clamp8(y - 128)
    return np.vectorize(one, otypes=[np.int8])(x)


def tanh(x, qx):
    """TFLite's int8 TANH (output 1/128, zero point 0)."""
    mult, shift, radius = _q4_input(qx[0])

    def one(v):
        d = int(v) - qx[1]
        if d <= -radius:
            return -128
        if d >= radius:
            return 127
        return clamp8(rounding_divide_by_pot(gemmlowp_tanh(mbqm(d, mult, shift), 4), 24))
    return np.vectorize(one, otypes=[np.int8])(x)


def relu(x, qx, qy):
    """TFLite Micro's int8 RELU: requantize, then clamp below at the output's 0."""
    m, s = quantize_multiplier(float(f32(qx[0])) / float(f32(qy[0])))
    lo = max(-128, qy[1] + round_away(f32(0.0) / f32(qy[0])))
    return np.vectorize(lambda v: min(127, max(lo, qy[1] + mbqm(int(v) - qx[1], m, s))), otypes=[np.int8])(x)


def relu6(x, qx):
    """TFLite Micro's int8 RELU6: a clamp of the stored value to [q(0), q(6)] on
    the input's quantization (FloatToQuantizedType)."""
    q = lambda f: clamp8(round_away(np.float64(f32(f) / f32(qx[0]))) + qx[1])
    return np.clip(x, q(0.0), q(6.0)).astype(np.int8)


# ---- TFLite Micro's integer LSTM (int8 activations/weights, int16 cell state) ----

def sigmoid_table():
    """TFLite's 256-entry sigmoid table: sigmoid(i/24) in Q0.16, each entry moved up
    by half the error linear interpolation makes at its interval's middle, the last
    entry the Q0.16 maximum (reproduces TFLite's table entry for entry; computed
    here on its own, not read from Kiln)."""
    import math

    def sig(x):
        return 1.0 / (1.0 + math.exp(-x))

    step = 1.0 / 24.0
    values = []
    for i in range(256):
        x = i * step
        if i < 255:
            v = sig(x) + (sig(x + step / 2) - (sig(x) + sig(x + step)) / 2) / 2
        else:
            v = 1.0
        values.append(min(65535, int(math.floor(65536.0 * v + 0.5))))
    return values


def sigmoid16(v, table):
    """reference_integer_ops::Logistic for int16 (input multiplier 3, no shift)."""
    x = v * 3
    a = abs(x)
    uh = a >> 9
    if uh >= 255:
        r = 0x7FFF << 10
    else:
        ua, ub = table[uh], table[uh + 1]
        r = (ua << 9) + (a & 0x1FF) * (ub - ua)
    r = r + (1 << 9) if x >= 0 else (1 << 25) - r + (1 << 9) - 1
    return r >> 10


def tanh16(v, multiplier, shift, table):
    """reference_integer_ops::Tanh for int16."""
    x = (v * multiplier + ((1 << (shift - 1)) if shift > 0 else 0)) >> shift
    a = abs(x)
    uh = a >> 8
    if uh >= 255:
        r = 0xFFFF << 8
    else:
        ua, ub = table[uh], table[uh + 1]
        r = (ua << 8) + (a & 0xFF) * (ub - ua)
    r = r - (1 << 23) + (1 << 7) if x >= 0 else -r + (1 << 23) + (1 << 7) - 1
    return r >> 8


def lstm(x, qx, w, rw, bias, wq, rwq, qh, cell_scale, time_major=False, cell_clip=0.0):
    """UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro runs it on int8 (EvalLstm with
    int16 cells): w/rw/bias dicts by gate 'i','f','c','o'; wq/rwq their scales;
    qh the hidden state's (scale, zero point); the state starts at zero."""
    table = sigmoid_table()
    q3_12, q0_15 = float(f32(2.0 ** -12)), float(f32(2.0 ** -15))
    fc_in = {g: quantize_multiplier(float(f32(qx[0])) * float(f32(wq[g])) / q3_12) for g in "ifco"}
    fc_rec = {g: quantize_multiplier(float(f32(qh[0])) * float(f32(rwq[g])) / q3_12) for g in "ifco"}
    cs = float(f32(cell_scale))
    m_forget = quantize_multiplier(q0_15 * cs / cs)
    m_input = quantize_multiplier(q0_15 * q0_15 / cs)
    m_out = quantize_multiplier(q0_15 * q0_15 / float(f32(qh[0])))
    power = round(math.log2(cs))
    ls = 15 + power - 3
    tanh_mult, tanh_shift = (3 << ls, 0) if ls >= 0 else (3, -ls)
    clip = 0
    if cell_clip > 0:
        clip = int(min(max(float(f32(cell_clip)) / cs, -32768.0), 32767.0))
    sat16 = lambda v: max(-32768, min(32767, v))
    xs = np.swapaxes(x, 0, 1) if time_major else x   # [batch, steps, input]
    B, T, _ = xs.shape
    H = w["i"].shape[0]
    y = np.zeros((B, T, H), np.int8)
    for b in range(B):
        h = [qh[1]] * H
        c = [0] * H
        for t in range(T):
            xt = [int(v) for v in xs[b, t]]
            gates = {}
            for g in "ifco":
                out = []
                for j in range(H):
                    ax = int(bias[g][j]) + sum((xt[k] - qx[1]) * int(w[g][j, k]) for k in range(len(xt)))
                    ah = sum((h[k] - qh[1]) * int(rw[g][j, k]) for k in range(H))
                    s = sat16(sat16(mbqm(ax, *fc_in[g])) + sat16(mbqm(ah, *fc_rec[g])))
                    out.append(tanh16(s, 3, 0, table) if g == "c" else sigmoid16(s, table))
                gates[g] = out
            for j in range(H):
                kept = sat16(mbqm(gates["f"][j] * c[j], *m_forget))
                added = sat16(mbqm(gates["i"][j] * gates["c"][j], *m_input))
                c[j] = sat16(kept + added)
                if clip > 0:
                    c[j] = max(-clip, min(clip, c[j]))
            h = [clamp8(qh[1] + mbqm(tanh16(c[j], tanh_mult, tanh_shift, table) * gates["o"][j], *m_out))
                 for j in range(H)]
            y[b, t] = h
    return np.swapaxes(y, 0, 1) if time_major else y
