#!/usr/bin/env python3
"""TFLite Micro's integer arithmetic for an int8 CNN read from a .tflite file:
CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (symmetric weights), AVERAGE_POOL_2D,
RESHAPE and SOFTMAX, as TFLM's reference kernels compute them (double rounding,
gemmlowp fixed-point softmax). Writes the reference outputs of
tests/data/field-tflite/tflm_person_detect from the inputs LiteRT's references used:

    tflm_cnn_ref.py MODEL.tflite INPUT_DIR... (each INPUT_DIR/input_0.pb -> OUTPUT_DIR/output_0.pb)

The model is read with Python classes flatc generates (into a temporary folder)
from Kiln's schema subset, generator/tflite/tflite_schema.fbs. The scalar helpers
come from tflite_int_ref.py; here they are applied elementwise.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tflite_int_ref as ref  # noqa: E402


def load_schema():
    out = tempfile.mkdtemp(prefix="kiln_tflite_py_")
    subprocess.run(["flatc", "--python", "-o", out,
                    os.path.join(HERE, "..", "..", "generator", "tflite", "tflite_schema.fbs")], check=True)
    sys.path.insert(0, out)
    from kiln.tflite_fb import Model, BuiltinOperator, Conv2DOptions, DepthwiseConv2DOptions, Pool2DOptions, \
        SoftmaxOptions  # noqa: F401
    from kiln.tflite_fb import FullyConnectedOptions  # noqa: F401
    import kiln.tflite_fb as fbmod
    return fbmod


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul, elementwise (b > 0, so no saturation case)."""
    ab = a.astype(np.int64) * np.int64(b) if np.isscalar(b) else a.astype(np.int64) * b.astype(np.int64)
    x = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    return np.where(x >= 0, x >> 31, -((-x) >> 31))


def rdbp(x, e):
    """RoundingDivideByPOT, elementwise."""
    e = np.asarray(e, dtype=np.int64)
    mask = (np.int64(1) << e) - 1
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + ((x & mask) > threshold)


def mbqm(x, mult, shift):
    left, right = np.maximum(shift, 0), np.maximum(-shift, 0)
    v = x * (np.int64(1) << left)
    assert v.min() >= ref.INT32_MIN and v.max() <= ref.INT32_MAX
    return rdbp(srdhm(v, mult), right)


class Reader:
    def __init__(self, path, fb):
        self.fb = fb
        self.m = fb.Model.Model.GetRootAs(open(path, "rb").read(), 0)
        self.g = self.m.Subgraphs(0)

    def tensor(self, i):
        return self.g.Tensors(i)

    def data(self, i, dtype):
        t = self.tensor(i)
        return self.m.Buffers(t.Buffer()).DataAsNumpy().view(dtype).reshape(t.ShapeAsNumpy())

    def quant(self, i):
        q = self.tensor(i).Quantization()
        return q.ScaleAsNumpy().astype(np.float32), q.ZeroPointAsNumpy()


# TFLite's ActivationFunctionType codes as tflite_int_ref.act_range names them.
ACTIVATIONS = {0: None, 1: "relu", 3: "relu6"}


def act_range(code, scale, zp):
    if code not in ACTIVATIONS:
        raise SystemExit("fused activation %d is not in this reference" % code)
    return ref.act_range(ACTIVATIONS[code], scale, zp)


def padding(same, n, k, s):
    out = (n + s - 1) // s if same else (n - k + s) // s
    total = max(0, (out - 1) * s + k - n)
    return out, total // 2


def conv(r, op, depthwise):
    fb = r.fb
    ins = op.InputsAsNumpy()
    x, xi = r.cur[ins[0]], ins[0]
    w = r.data(ins[1], np.int8).astype(np.int64)
    b = r.data(ins[2], np.int32).astype(np.int64)
    yi = op.OutputsAsNumpy()[0]
    opts = (fb.DepthwiseConv2DOptions.DepthwiseConv2DOptions() if depthwise else fb.Conv2DOptions.Conv2DOptions())
    t = op.BuiltinOptions()
    opts.Init(t.Bytes, t.Pos)
    assert opts.DilationHFactor() == 1 and opts.DilationWFactor() == 1
    sx, zx = r.quant(xi)
    sw, zw = r.quant(ins[1])
    sy, zy = r.quant(yi)
    assert not zw.any()
    kh, kw = w.shape[1], w.shape[2]
    same = opts.Padding() == 0
    oh, pt = padding(same, x.shape[1], kh, opts.StrideH())
    ow, pl = padding(same, x.shape[2], kw, opts.StrideW())
    xo = x.astype(np.int64) - zx[0]  # input_offset added; padding contributes 0
    xp = np.zeros((x.shape[0], x.shape[1] + kh + opts.StrideH() * oh, x.shape[2] + kw + opts.StrideW() * ow,
                   x.shape[3]), np.int64)
    xp[:, pt:pt + x.shape[1], pl:pl + x.shape[2], :] = xo
    sh, sw_ = opts.StrideH(), opts.StrideW()
    cout = w.shape[3] if depthwise else w.shape[0]
    acc = np.zeros((x.shape[0], oh, ow, cout), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i:i + sh * oh:sh, j:j + sw_ * ow:sw_, :]
            if depthwise:
                # output channel oc reads input channel oc // depth_multiplier
                acc += patch[..., np.arange(cout) // (cout // x.shape[3])] * w[0, i, j, :]
            else:
                acc += patch @ w[:, i, j, :].T
    acc += b
    mult, shift = zip(*(ref.quantize_multiplier(float(sx[0]) * float(s) / float(sy[0])) for s in sw))
    y = mbqm(acc, np.array(mult, np.int64), np.array(shift, np.int64)) + zy[0]
    lo, hi = act_range(opts.FusedActivationFunction(), sy[0], zy[0])
    r.cur[yi] = np.clip(y, lo, hi).astype(np.int8)


def fully_connected(r, op):
    fb = r.fb
    ins = op.InputsAsNumpy()
    yi = op.OutputsAsNumpy()[0]
    w = r.data(ins[1], np.int8).astype(np.int64)
    x = r.cur[ins[0]].astype(np.int64).reshape(-1, w.shape[1])
    opts = fb.FullyConnectedOptions.FullyConnectedOptions()
    t = op.BuiltinOptions()
    opts.Init(t.Bytes, t.Pos)
    sx, zx = r.quant(ins[0])
    sw, zw = r.quant(ins[1])
    sy, zy = r.quant(yi)
    assert not zw.any()
    acc = (x - zx[0]) @ w.T
    if len(ins) > 2 and ins[2] >= 0:
        acc += r.data(ins[2], np.int32).astype(np.int64)
    mult, shift = zip(*(ref.quantize_multiplier(float(sx[0]) * float(s) / float(sy[0])) for s in sw))
    y = mbqm(acc, np.array(mult, np.int64), np.array(shift, np.int64)) + zy[0]
    lo, hi = act_range(opts.FusedActivationFunction(), sy[0], zy[0])
    r.cur[yi] = np.clip(y, lo, hi).astype(np.int8).reshape(r.tensor(yi).ShapeAsNumpy())


def avg_pool(r, op):
    fb = r.fb
    xi, yi = op.InputsAsNumpy()[0], op.OutputsAsNumpy()[0]
    x = r.cur[xi].astype(np.int64)
    opts = fb.Pool2DOptions.Pool2DOptions()
    t = op.BuiltinOptions()
    opts.Init(t.Bytes, t.Pos)
    fh, fw, sh, sw = opts.FilterHeight(), opts.FilterWidth(), opts.StrideH(), opts.StrideW()
    same = opts.Padding() == 0
    oh, pt = padding(same, x.shape[1], fh, sh)
    ow, pl = padding(same, x.shape[2], fw, sw)
    y = np.zeros((x.shape[0], oh, ow, x.shape[3]), np.int64)
    for a in range(oh):
        for c in range(ow):
            h0, w0 = a * sh - pt, c * sw - pl
            hs, ws = slice(max(h0, 0), min(h0 + fh, x.shape[1])), slice(max(w0, 0), min(w0 + fw, x.shape[2]))
            s = x[:, hs, ws, :].sum(axis=(1, 2))
            n = (hs.stop - hs.start) * (ws.stop - ws.start)
            y[:, a, c, :] = np.where(s > 0, (s + n // 2) // n, -((-(s - n // 2)) // n))
    sy, zy = r.quant(yi)
    lo, hi = act_range(opts.FusedActivationFunction(), sy[0], zy[0])
    r.cur[yi] = np.clip(y, lo, hi).astype(np.int8)


def softmax_row(x, mult, left_shift, diff_min):
    diffs = [int(v) - int(max(x)) for v in x]
    exps = [ref._exp_on_negative_values(ref.srdhm(d * (1 << left_shift), mult), 5) if d >= diff_min else None
            for d in diffs]
    total = sum(ref.rounding_divide_by_pot(e, 12) for e in exps if e is not None)
    headroom_plus_one = 32 - total.bit_length()
    num_bits_over_unit = 12 - headroom_plus_one
    shifted_minus_one = ref._wrap32(((total << headroom_plus_one) & 0xFFFFFFFF) - (1 << 31))
    half_denominator = ref._rounding_half_sum(shifted_minus_one, ref.INT32_MAX)
    shifted_scale = ref._mul_pot_sat(ref._newton_reciprocal_half(half_denominator), 1)
    out = []
    for e in exps:
        if e is None:
            out.append(-128)
            continue
        v = ref.rounding_divide_by_pot(ref.srdhm(shifted_scale, e), num_bits_over_unit + 31 - 8) - 128
        out.append(min(127, max(-128, v)))
    return out


def softmax(r, op):
    fb = r.fb
    xi, yi = op.InputsAsNumpy()[0], op.OutputsAsNumpy()[0]
    opts = fb.SoftmaxOptions.SoftmaxOptions()
    t = op.BuiltinOptions()
    opts.Init(t.Bytes, t.Pos)
    sx, _ = r.quant(xi)
    sy, zy = r.quant(yi)
    assert abs(float(sy[0]) - 1 / 256) < 1e-12 and zy[0] == -128
    # PreprocessSoftmaxScaling and CalculateInputRadius with 5 integer bits.
    real = min(float(opts.Beta()) * float(sx[0]) * (1 << 26), (1 << 31) - 1.0)
    mult, left_shift = ref.quantize_multiplier(real)
    assert left_shift >= 0
    diff_min = -int(math.floor(1.0 * 31 * (1 << 26) / (1 << left_shift)))
    x = r.cur[xi]
    rows = x.reshape(-1, x.shape[-1])
    r.cur[yi] = np.array([softmax_row(row, mult, left_shift, diff_min) for row in rows], np.int8).reshape(x.shape)


def run(path, fb, x):
    r = Reader(path, fb)
    r.cur = {int(r.g.Inputs(0)): x}
    B = fb.BuiltinOperator.BuiltinOperator
    for k in range(r.g.OperatorsLength()):
        op = r.g.Operators(k)
        code = max(r.m.OperatorCodes(op.OpcodeIndex()).DeprecatedBuiltinCode(),
                   r.m.OperatorCodes(op.OpcodeIndex()).BuiltinCode())
        if code in (B.CONV_2D, B.DEPTHWISE_CONV_2D):
            conv(r, op, code == B.DEPTHWISE_CONV_2D)
        elif code == B.FULLY_CONNECTED:
            fully_connected(r, op)
        elif code == B.AVERAGE_POOL_2D:
            avg_pool(r, op)
        elif code == B.RESHAPE:
            yi = op.OutputsAsNumpy()[0]
            r.cur[yi] = r.cur[op.InputsAsNumpy()[0]].reshape(r.tensor(yi).ShapeAsNumpy())
        elif code == B.SOFTMAX:
            softmax(r, op)
        else:
            raise SystemExit("operator code %d is not in this reference" % code)
    return r.cur[int(r.g.Outputs(0))], r.tensor(int(r.g.Outputs(0))).Name().decode()


def main():
    fb = load_schema()
    model, dirs = sys.argv[1], sys.argv[2:]
    for d in dirs:
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(d, "input_0.pb"), "rb").read())
        y, name = run(model, fb, numpy_helper.to_array(t))
        out = numpy_helper.from_array(y, name)
        open(os.path.join(d, "output_0.pb"), "wb").write(out.SerializeToString())
        print(d, y.ravel()[:8])


if __name__ == "__main__":
    main()
