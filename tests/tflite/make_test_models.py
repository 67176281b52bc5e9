#!/usr/bin/python3
"""Writes the small .tflite files of tests/tflite (run by hand; outputs are committed).

The flatbuffers are written through the Python builder that flatc generates from
Kiln's own schema subset (generator/tflite/tflite_schema.fbs), so this script and
the C++ reader share one definition of the format.

  models/tiny_int8_conv.tflite  a valid int8 CONV_2D + RELU6 + MAX_POOL_2D model
  malformed/*.tflite            one defect each; malformed/EXPECTED.txt lists the
                                part of the one-line error each must produce

Usage: tests/tflite/make_test_models.py   (from anywhere; needs flatc, python3-flatbuffers)
"""
import copy
import importlib
import os
import struct
import subprocess
import sys
import tempfile

import flatbuffers

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "generator", "tflite", "tflite_schema.fbs")

gen = tempfile.mkdtemp(prefix="kiln_tflite_py_")
subprocess.run(["flatc", "--python", "-o", gen, SCHEMA], check=True)
sys.path.insert(0, gen)
sys.path.insert(0, HERE)


def fb(name):
    return importlib.import_module("kiln.tflite_fb." + name)


TT = fb("TensorType").TensorType
OP = fb("BuiltinOperator").BuiltinOperator
BO = fb("BuiltinOptions").BuiltinOptions
PAD = fb("Padding").Padding
ACT = fb("ActivationFunctionType").ActivationFunctionType


# Operators whose version 1 TFLite's op resolver does not register (it starts them
# at a later version): written with that version so TFLite itself loads the file.
MIN_VERSION = {OP.BROADCAST_TO: 2}


def int_vector(b, start, values, kind="int32"):
    start(b, len(values))
    for v in reversed(values):
        {"int32": b.PrependInt32, "int64": b.PrependInt64, "float": b.PrependFloat32,
         "uint8": b.PrependUint8}[kind](v)
    return b.EndVector()


def table_vector(b, start, offsets):
    start(b, len(offsets))
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def build(model):
    """model: dict with buffers (bytes), tensors, operators, opcodes, inputs, outputs."""
    b = flatbuffers.Builder(1024)
    M, T, Q, O, C, S, B = (fb(n) for n in ("Model", "Tensor", "QuantizationParameters", "Operator",
                                            "OperatorCode", "SubGraph", "Buffer"))
    buffers = []
    external = model.get("external", {})  # buffer index -> (file offset, size)
    for k, data in enumerate(model["buffers"]):
        d = None
        if k in external:
            B.BufferStart(b)
            B.BufferAddOffset(b, external[k][0])
            B.BufferAddSize(b, external[k][1])
            buffers.append(B.BufferEnd(b))
            continue
        if data:
            b.StartVector(1, len(data), 16)
            for x in reversed(data):
                b.PrependUint8(x)
            d = b.EndVector()
        B.BufferStart(b)
        if d is not None:
            B.BufferAddData(b, d)
        buffers.append(B.BufferEnd(b))
    tensors = []
    for t in model["tensors"]:
        name = b.CreateString(t["name"])
        shape = int_vector(b, T.TensorStartShapeVector, t["shape"])
        q = None
        if "scale" in t:
            sc = int_vector(b, Q.QuantizationParametersStartScaleVector, t["scale"], "float")
            zp = int_vector(b, Q.QuantizationParametersStartZeroPointVector, t["zero_point"], "int64")
            Q.QuantizationParametersStart(b)
            Q.QuantizationParametersAddScale(b, sc)
            Q.QuantizationParametersAddZeroPoint(b, zp)
            Q.QuantizationParametersAddQuantizedDimension(b, t.get("qdim", 0))
            q = Q.QuantizationParametersEnd(b)
        T.TensorStart(b)
        T.TensorAddShape(b, shape)
        T.TensorAddType(b, t["type"])
        T.TensorAddBuffer(b, t.get("buffer", 0))
        T.TensorAddName(b, name)
        if q is not None:
            T.TensorAddQuantization(b, q)
        if t.get("is_variable"):
            T.TensorAddIsVariable(b, True)
        tensors.append(T.TensorEnd(b))
    ops = []
    for op in model["operators"]:
        opts = op["options"](b) if op.get("options") else None
        ins = int_vector(b, O.OperatorStartInputsVector, op["inputs"])
        outs = int_vector(b, O.OperatorStartOutputsVector, op["outputs"])
        O.OperatorStart(b)
        O.OperatorAddOpcodeIndex(b, op["opcode"])
        O.OperatorAddInputs(b, ins)
        O.OperatorAddOutputs(b, outs)
        if opts is not None and op.get("options_type") is not None:
            O.OperatorAddBuiltinOptionsType(b, op["options_type"])
            O.OperatorAddBuiltinOptions(b, opts)
        ops.append(O.OperatorEnd(b))
    codes = []
    for code in model["opcodes"]:
        C.OperatorCodeStart(b)
        C.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        C.OperatorCodeAddBuiltinCode(b, code)
        C.OperatorCodeAddVersion(b, MIN_VERSION.get(code, 1))
        codes.append(C.OperatorCodeEnd(b))
    sg_tensors = table_vector(b, S.SubGraphStartTensorsVector, tensors)
    sg_ins = int_vector(b, S.SubGraphStartInputsVector, model["inputs"])
    sg_outs = int_vector(b, S.SubGraphStartOutputsVector, model["outputs"])
    sg_ops = table_vector(b, S.SubGraphStartOperatorsVector, ops)
    S.SubGraphStart(b)
    S.SubGraphAddTensors(b, sg_tensors)
    S.SubGraphAddInputs(b, sg_ins)
    S.SubGraphAddOutputs(b, sg_outs)
    S.SubGraphAddOperators(b, sg_ops)
    sg = S.SubGraphEnd(b)
    m_codes = table_vector(b, M.ModelStartOperatorCodesVector, codes)
    m_sgs = table_vector(b, M.ModelStartSubgraphsVector, [sg])
    m_bufs = table_vector(b, M.ModelStartBuffersVector, buffers)
    M.ModelStart(b)
    M.ModelAddVersion(b, model.get("version", 3))
    M.ModelAddOperatorCodes(b, m_codes)
    M.ModelAddSubgraphs(b, m_sgs)
    M.ModelAddBuffers(b, m_bufs)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def conv_options(stride=1, padding=PAD.SAME, act=ACT.RELU6):
    def make(b):
        o = fb("Conv2DOptions")
        o.Conv2DOptionsStart(b)
        o.Conv2DOptionsAddPadding(b, padding)
        o.Conv2DOptionsAddStrideW(b, stride)
        o.Conv2DOptionsAddStrideH(b, stride)
        o.Conv2DOptionsAddFusedActivationFunction(b, act)
        return o.Conv2DOptionsEnd(b)
    return make


def pool_options(b):
    o = fb("Pool2DOptions")
    o.Pool2DOptionsStart(b)
    o.Pool2DOptionsAddPadding(b, PAD.VALID)
    o.Pool2DOptionsAddStrideW(b, 2)
    o.Pool2DOptionsAddStrideH(b, 2)
    o.Pool2DOptionsAddFilterWidth(b, 2)
    o.Pool2DOptionsAddFilterHeight(b, 2)
    return o.Pool2DOptionsEnd(b)


def tiny_int8_conv():
    """x int8 [1,4,4,2] -> CONV_2D 3x3 SAME, 3 filters, per-channel, RELU6 -> MAX_POOL_2D 2x2."""
    weights = [((i * 37) % 19) - 9 for i in range(3 * 3 * 3 * 2)]
    bias = [100, -250, 7]
    return {
        "buffers": [b"", bytes(w & 0xFF for w in weights), b"".join(struct.pack("<i", v) for v in bias)],
        "tensors": [
            {"name": "image", "shape": [1, 4, 4, 2], "type": TT.INT8, "scale": [0.05], "zero_point": [-3]},
            {"name": "conv/weights", "shape": [3, 3, 3, 2], "type": TT.INT8, "buffer": 1,
             "scale": [0.01, 0.02, 0.015], "zero_point": [0, 0, 0], "qdim": 0},
            {"name": "conv/bias", "shape": [3], "type": TT.INT32, "buffer": 2,
             "scale": [0.0005, 0.001, 0.00075], "zero_point": [0, 0, 0]},
            {"name": "conv/out", "shape": [1, 4, 4, 3], "type": TT.INT8, "scale": [0.03], "zero_point": [-128]},
            {"name": "scores", "shape": [1, 2, 2, 3], "type": TT.INT8, "scale": [0.03], "zero_point": [-128]},
        ],
        "opcodes": [OP.CONV_2D, OP.MAX_POOL_2D],
        "operators": [
            {"opcode": 0, "inputs": [0, 1, 2], "outputs": [3], "options_type": BO.Conv2DOptions,
             "options": conv_options()},
            {"opcode": 1, "inputs": [3], "outputs": [4], "options_type": BO.Pool2DOptions, "options": pool_options},
        ],
        "inputs": [0],
        "outputs": [4],
    }


def options(table, **fields):
    """A builder for an options table: options("Pool2DOptions", Padding=..., StrideW=...)."""
    def make(b):
        mod = fb(table)
        getattr(mod, table + "Start")(b)
        for k, v in fields.items():
            getattr(mod, table + "Add" + k)(b, v)
        return getattr(mod, table + "End")(b)
    return make


def tensor_bytes(a):
    import numpy as np
    return np.ascontiguousarray(a).tobytes()


class FloatModel:
    """A float model under construction, and its numpy evaluation (TFLite semantics)."""

    def __init__(self):
        self.m = {"buffers": [b""], "tensors": [], "opcodes": [], "operators": [], "inputs": [], "outputs": []}

    def tensor(self, name, shape, data=None, ttype=None):
        import numpy as np
        t = {"name": name, "shape": list(shape), "type": TT.FLOAT32 if ttype is None else ttype}
        if data is not None:
            t["buffer"] = len(self.m["buffers"])
            self.m["buffers"].append(tensor_bytes(data))
        self.m["tensors"].append(t)
        return len(self.m["tensors"]) - 1

    def op(self, code, inputs, outputs, options_type=None, opts=None):
        if code not in self.m["opcodes"]:
            self.m["opcodes"].append(code)
        self.m["operators"].append({"opcode": self.m["opcodes"].index(code), "inputs": inputs, "outputs": outputs,
                                    "options_type": options_type, "options": opts})


def same_pads(n, k, s):
    out = (n + s - 1) // s
    total = max(0, (out - 1) * s + k - n)
    return out, total // 2, total - total // 2


def np_conv_nhwc(x, w, b, stride, groups_depthwise=False):
    """SAME padding, w OHWI (or [1,KH,KW,C] depthwise with multiplier)."""
    import numpy as np
    n, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    oh, pt, _ = same_pads(h, kh, stride)
    ow, pl, _ = same_pads(wd, kw, stride)
    cout = w.shape[3] if groups_depthwise else w.shape[0]
    y = np.zeros((n, oh, ow, cout), np.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for bb in range(kw):
                    yi, xj = i * stride + a - pt, j * stride + bb - pl
                    if 0 <= yi < h and 0 <= xj < wd:
                        px = x[0, yi, xj, :].astype(np.float64)
                        if groups_depthwise:
                            mult = cout // c
                            y[0, i, j, :] += np.repeat(px, mult) * w[0, a, bb, :]
                        else:
                            y[0, i, j, :] += w[:, a, bb, :] @ px
    return (y + b).astype(np.float32)


def float_cnn():
    """Float CONV_2D/DEPTHWISE/MAX_POOL/AVERAGE_POOL/LOGISTIC/ADD/MEAN/FULLY_CONNECTED/SOFTMAX."""
    import numpy as np
    rng = np.random.default_rng(7)
    fm = FloatModel()
    x = fm.tensor("input", [1, 8, 8, 3])
    w1 = (rng.standard_normal((4, 3, 3, 3)) * 0.4).astype(np.float32)
    b1 = (rng.standard_normal(4) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((1, 3, 3, 8)) * 0.4).astype(np.float32)
    b2 = (rng.standard_normal(8) * 0.1).astype(np.float32)
    add_c = (rng.standard_normal(8) * 0.5).astype(np.float32)
    w3 = (rng.standard_normal((5, 8)) * 0.7).astype(np.float32)
    b3 = (rng.standard_normal(5) * 0.1).astype(np.float32)
    t = [fm.tensor("conv1/w", w1.shape, w1), fm.tensor("conv1/b", [4], b1), fm.tensor("conv1", [1, 4, 4, 4]),
         fm.tensor("dw/w", w2.shape, w2), fm.tensor("dw/b", [8], b2), fm.tensor("dw", [1, 4, 4, 8]),
         fm.tensor("maxpool", [1, 2, 2, 8]), fm.tensor("avgpool", [1, 2, 2, 8]), fm.tensor("sigmoid", [1, 2, 2, 8]),
         fm.tensor("add/c", [8], add_c), fm.tensor("add", [1, 2, 2, 8]),
         fm.tensor("mean/axes", [2], np.array([1, 2], np.int32), TT.INT32), fm.tensor("mean", [1, 8]),
         fm.tensor("fc/w", w3.shape, w3), fm.tensor("fc/b", [5], b3), fm.tensor("logits", [1, 5]),
         fm.tensor("probabilities", [1, 5])]
    fm.op(OP.CONV_2D, [x, t[0], t[1]], [t[2]], BO.Conv2DOptions,
          options("Conv2DOptions", Padding=PAD.SAME, StrideW=2, StrideH=2, FusedActivationFunction=ACT.RELU6))
    fm.op(OP.DEPTHWISE_CONV_2D, [t[2], t[3], t[4]], [t[5]], BO.DepthwiseConv2DOptions,
          options("DepthwiseConv2DOptions", Padding=PAD.SAME, StrideW=1, StrideH=1, DepthMultiplier=2,
                  FusedActivationFunction=ACT.RELU))
    fm.op(OP.MAX_POOL_2D, [t[5]], [t[6]], BO.Pool2DOptions,
          options("Pool2DOptions", Padding=PAD.VALID, StrideW=2, StrideH=2, FilterWidth=2, FilterHeight=2))
    fm.op(OP.AVERAGE_POOL_2D, [t[6]], [t[7]], BO.Pool2DOptions,
          options("Pool2DOptions", Padding=PAD.SAME, StrideW=1, StrideH=1, FilterWidth=2, FilterHeight=2))
    fm.op(OP.LOGISTIC, [t[7]], [t[8]])
    fm.op(OP.ADD, [t[8], t[9]], [t[10]], BO.AddOptions, options("AddOptions", FusedActivationFunction=ACT.NONE))
    fm.op(OP.MEAN, [t[10], t[11]], [t[12]], BO.ReducerOptions, options("ReducerOptions", KeepDims=False))
    fm.op(OP.FULLY_CONNECTED, [t[12], t[13], t[14]], [t[15]], BO.FullyConnectedOptions,
          options("FullyConnectedOptions", FusedActivationFunction=ACT.NONE))
    fm.op(OP.SOFTMAX, [t[15]], [t[16]], BO.SoftmaxOptions, options("SoftmaxOptions", Beta=0.5))
    fm.m["inputs"], fm.m["outputs"] = [x], [t[16]]

    def evaluate(xv):
        a = np.clip(np_conv_nhwc(xv, w1, b1, 2), 0, 6)
        a = np.maximum(np_conv_nhwc(a, w2, b2, 1, True), 0)
        a = a.reshape(1, 2, 2, 2, 2, 8).max(axis=(2, 4))
        p = np.zeros_like(a)
        for i in range(2):
            for j in range(2):
                p[0, i, j] = a[0, i:i + 2, j:j + 2].reshape(-1, 8).mean(axis=0)  # SAME: taps inside only
        a = 1 / (1 + np.exp(-p)) + add_c
        a = a.mean(axis=(1, 2))
        z = (a @ w3.T + b3) * 0.5
        e = np.exp(z - z.max())
        return (e / e.sum()).astype(np.float32)

    inputs = [rng.standard_normal((1, 8, 8, 3)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("input", "probabilities")


def float_data_movement():
    """TRANSPOSE/PAD/STRIDED_SLICE/SPLIT/CONCATENATION/PACK/UNPACK/SLICE/RESHAPE/TANH/HARD_SWISH/LEAKY_RELU/MUL/SUB."""
    import numpy as np
    rng = np.random.default_rng(11)
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)
    x = fm.tensor("x", [1, 4, 6])
    T = lambda name, shape, data=None, tt=None: fm.tensor(name, shape, data, tt)
    perm = T("perm", [3], i32([0, 2, 1]), TT.INT32); xt = T("transposed", [1, 6, 4])
    pads = T("pads", [3, 2], i32([[0, 0], [1, 0], [0, 2]]), TT.INT32); xp = T("padded", [1, 7, 6])
    sb, se, ss = (T(n, [3], i32(v), TT.INT32) for n, v in (("sb", [0, 1, 0]), ("se", [1, 7, 6]), ("ss", [1, 2, 1])))
    xs = T("strided", [3, 6])
    ax = T("axis", [], i32(1), TT.INT32); s0 = T("split0", [3, 3]); s1 = T("split1", [3, 3])
    cat = T("concat", [6, 3]); th = T("tanh", [6, 3]); hs = T("hswish", [3, 3]); lr = T("leaky", [3, 3])
    pk = T("packed", [2, 3, 3]); u0 = T("unpacked0", [3, 3]); u1 = T("unpacked1", [3, 3])
    mul = T("mul", [3, 3]); sub = T("sub", [3, 3])
    lb, ls = T("slice_begin", [2], i32([1, 0]), TT.INT32), T("slice_size", [2], i32([-1, 2]), TT.INT32)
    sl = T("sliced", [2, 2]); shp = T("shape", [1], i32([4]), TT.INT32); out = T("y", [4])
    fm.op(OP.TRANSPOSE, [x, perm], [xt])
    fm.op(OP.PAD, [xt, pads], [xp])
    fm.op(OP.STRIDED_SLICE, [xp, sb, se, ss], [xs], BO.StridedSliceOptions,
          options("StridedSliceOptions", ShrinkAxisMask=1))
    fm.op(OP.SPLIT, [ax, xs], [s0, s1], BO.SplitOptions, options("SplitOptions", NumSplits=2))
    fm.op(OP.CONCATENATION, [s0, s1], [cat], BO.ConcatenationOptions, options("ConcatenationOptions", Axis=0))
    fm.op(OP.TANH, [cat], [th])
    fm.op(OP.HARD_SWISH, [s0], [hs])
    fm.op(OP.LEAKY_RELU, [s1], [lr], BO.LeakyReluOptions, options("LeakyReluOptions", Alpha=0.25))
    fm.op(OP.PACK, [hs, lr], [pk], BO.PackOptions, options("PackOptions", ValuesCount=2, Axis=0))
    fm.op(OP.UNPACK, [pk], [u0, u1], BO.UnpackOptions, options("UnpackOptions", Num=2, Axis=0))
    fm.op(OP.MUL, [u0, u1], [mul], BO.MulOptions, options("MulOptions", FusedActivationFunction=ACT.RELU))
    fm.op(OP.SUB, [mul, u1], [sub], BO.SubOptions, options("SubOptions"))
    fm.op(OP.SLICE, [sub, lb, ls], [sl])
    fm.op(OP.RESHAPE, [sl, shp], [out])
    fm.m["inputs"], fm.m["outputs"] = [x], [th, out]

    def evaluate(xv):
        a = np.transpose(xv, (0, 2, 1))
        a = np.pad(a, ((0, 0), (1, 0), (0, 2)))
        a = a[0, 1:7:2, :]
        p0, p1 = a[:, :3], a[:, 3:]
        th_v = np.tanh(np.concatenate([p0, p1], 0))
        hs_v = p0 * np.clip(p0 + 3, 0, 6) / 6
        lr_v = np.where(p1 > 0, p1, 0.25 * p1)
        m = np.maximum(hs_v * lr_v, 0)
        sb_v = m - lr_v
        return [th_v.astype(np.float32), sb_v[1:, 0:2].reshape(4).astype(np.float32)]

    inputs = [rng.standard_normal((1, 4, 6)).astype(np.float32) * 2 for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", ["tanh", "y"])


def int8_misc():
    """float -> QUANTIZE -> LOGISTIC / TANH / HARD_SWISH / LEAKY_RELU -> CONCATENATION (mixed
    quantization) -> PAD -> RESIZE_NEAREST_NEIGHBOR -> QUANTIZE int8->int8 -> DEQUANTIZE -> float:
    the int8 paths that become KilnQLookup tables, a requantizing concat, a zero-point pad and
    a nearest-neighbour resize as data movement."""
    import numpy as np
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)

    def q(name, shape, scale, zp):
        t = fm.tensor(name, shape, ttype=TT.INT8)
        fm.m["tensors"][t].update(scale=[scale], zero_point=[zp])
        return t

    x = fm.tensor("x", [1, 2, 2, 4])
    xq = q("xq", [1, 2, 2, 4], 0.05, 3)
    lg = q("logistic", [1, 2, 2, 4], 1 / 256, -128)
    th = q("tanh", [1, 2, 2, 4], 1 / 128, 0)
    hs = q("hswish", [1, 2, 2, 4], 0.04, -20)
    lr = q("leaky", [1, 2, 2, 4], 0.05, 3)
    cat = q("concat", [1, 2, 2, 16], 0.05, 3)
    pads = fm.tensor("pads", [4, 2], i32([[0, 0], [1, 1], [0, 0], [0, 0]]), TT.INT32)
    pd = q("padded", [1, 4, 2, 16], 0.05, 3)
    size = fm.tensor("size", [2], i32([8, 3]), TT.INT32)
    rs = q("resized", [1, 8, 3, 16], 0.05, 3)
    rq = q("requantized", [1, 8, 3, 16], 0.1, -7)
    y = fm.tensor("y", [1, 8, 3, 16])
    fm.op(OP.QUANTIZE, [x], [xq])
    fm.op(OP.LOGISTIC, [xq], [lg])
    fm.op(OP.TANH, [xq], [th])
    fm.op(OP.HARD_SWISH, [xq], [hs])
    fm.op(OP.LEAKY_RELU, [xq], [lr], BO.LeakyReluOptions, options("LeakyReluOptions", Alpha=0.1))
    fm.op(OP.CONCATENATION, [lg, th, hs, lr], [cat], BO.ConcatenationOptions, options("ConcatenationOptions", Axis=3))
    fm.op(OP.PAD, [cat, pads], [pd])
    fm.op(OP.RESIZE_NEAREST_NEIGHBOR, [pd, size], [rs], BO.ResizeNearestNeighborOptions,
          options("ResizeNearestNeighborOptions", HalfPixelCenters=True))
    fm.op(OP.QUANTIZE, [rs], [rq])
    fm.op(OP.DEQUANTIZE, [rq], [y])
    fm.m["inputs"], fm.m["outputs"] = [x], [y]
    return fm.m


def int8_ops():
    """The int8 operators beyond MLPerf Tiny's, end to end against TFLite's integer
    arithmetic: QUANTIZE float -> int8 (ties away from zero; inputs on 1/16 make
    many exact ties), MEAN (contiguous and non-contiguous axes), RESIZE_BILINEAR
    (half-pixel, align-corners, plain), BATCH_MATMUL (constant operand with
    broadcast, adj_y, two run-time operands with adj_x), SUB + fused RELU, MUL +
    fused RELU6, PADV2, TRANSPOSE, STRIDED_SLICE (negative stride, shrink), SLICE,
    SPLIT, PACK, UNPACK, EXPAND_DIMS, SQUEEZE, LEAKY_RELU, HARD_SWISH, LOGISTIC, TANH and a CONCATENATION whose
    inputs are quantized differently (TFLite refuses that; Kiln requantizes the
    input as QUANTIZE int8 -> int8 does).

    No TFLite runtime exists on the build machine: the expected outputs come from
    tflite_int_ref.py, a Python transcription of TFLite's integer reference kernels
    that shares no code with Kiln."""
    import numpy as np
    import tflite_int_ref as R
    rng = np.random.default_rng(21)
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)

    def q(name, shape, scale, zp, data=None):
        t = fm.tensor(name, shape, data, TT.INT8)
        fm.m["tensors"][t].update(scale=[scale], zero_point=[zp])
        return t

    def c32(name, v):
        v = i32(v)
        return fm.tensor(name, list(v.shape), v, TT.INT32)

    QX, QX2 = (0.125, -3), (0.3, 5)
    x = fm.tensor("x", [1, 4, 6, 3])
    xq = q("xq", [1, 4, 6, 3], *QX)
    xq2 = q("xq_coarse", [1, 4, 6, 3], *QX2)
    fm.op(OP.QUANTIZE, [x], [xq])
    fm.op(OP.QUANTIZE, [x], [xq2])

    QM1, QM2 = (0.05, 2), (0.11, -7)
    m1 = q("mean_hw", [1, 1, 1, 3], *QM1)
    m2 = q("mean_h_c", [1, 6], *QM2)
    fm.op(OP.MEAN, [xq, c32("mean_hw/axes", [1, 2])], [m1], BO.ReducerOptions, options("ReducerOptions", KeepDims=True))
    fm.op(OP.MEAN, [xq, c32("mean_h_c/axes", [1, -1])], [m2], BO.ReducerOptions, options("ReducerOptions", KeepDims=False))

    rz1 = q("resize_half_pixel", [1, 7, 9, 3], *QX)
    rz2 = q("resize_corners", [1, 3, 4, 3], *QX)
    rz3 = q("resize_plain", [1, 8, 11, 3], *QX)
    fm.op(OP.RESIZE_BILINEAR, [xq, c32("rz1/size", [7, 9])], [rz1], BO.ResizeBilinearOptions,
          options("ResizeBilinearOptions", HalfPixelCenters=True))
    fm.op(OP.RESIZE_BILINEAR, [xq, c32("rz2/size", [3, 4])], [rz2], BO.ResizeBilinearOptions,
          options("ResizeBilinearOptions", AlignCorners=True))
    fm.op(OP.RESIZE_BILINEAR, [xq, c32("rz3/size", [8, 11])], [rz3])

    QW, QW2, QB1, QB2, QB3 = (0.02, 4), (0.03, -1), (0.35, -5), (0.7, 3), (8.0, 10)
    w = rng.integers(-128, 128, (1, 3, 5)).astype(np.int8)
    w2 = rng.integers(-128, 128, (4, 5, 3)).astype(np.int8)
    a = q("rows", [4, 6, 3], *QX)
    fm.op(OP.RESHAPE, [xq, c32("rows/shape", [4, 6, 3])], [a])
    bm1 = q("matmul_const", [4, 6, 5], *QB1)
    bm2 = q("matmul_adj_y", [4, 6, 5], *QB2)
    bm3 = q("matmul_gram", [4, 3, 3], *QB3)
    fm.op(OP.BATCH_MATMUL, [a, q("matmul_const/w", [1, 3, 5], *QW, data=w)], [bm1])
    fm.op(OP.BATCH_MATMUL, [a, q("matmul_adj_y/w", [4, 5, 3], *QW2, data=w2)], [bm2], BO.BatchMatMulOptions,
          options("BatchMatMulOptions", AdjY=True))
    fm.op(OP.BATCH_MATMUL, [a, a], [bm3], BO.BatchMatMulOptions, options("BatchMatMulOptions", AdjX=True))

    QC, QS, QML = (0.1, 1), (0.2, -10), (0.5, -128)
    cvals = np.array([12, -40, 90], np.int8)
    sub = q("sub_relu", [1, 4, 6, 3], *QS)
    mulv = q("mul_relu6", [1, 4, 6, 3], *QML)
    fm.op(OP.SUB, [xq, q("sub/c", [3], *QC, data=cvals)], [sub], BO.SubOptions,
          options("SubOptions", FusedActivationFunction=ACT.RELU))
    fm.op(OP.MUL, [xq, xq2], [mulv], BO.MulOptions, options("MulOptions", FusedActivationFunction=ACT.RELU6))

    pad = q("padv2", [1, 5, 8, 3], *QX)
    fm.op(OP.PADV2, [xq, c32("padv2/pads", [[0, 0], [1, 0], [0, 2], [0, 0]]), q("padv2/value", [], *QX,
                                                                                    data=np.array(37, np.int8))],
          [pad])

    t = q("transposed", [1, 6, 4, 3], *QX)
    fm.op(OP.TRANSPOSE, [xq, c32("perm", [0, 2, 1, 3])], [t])
    ss = q("strided", [3, 4, 3], *QX)
    fm.op(OP.STRIDED_SLICE, [t, c32("ss/begin", [0, 5, 0, 0]), c32("ss/end", [1, 0, 4, 3]), c32("ss/strides", [1, -2, 1, 1])],
          [ss], BO.StridedSliceOptions, options("StridedSliceOptions", ShrinkAxisMask=1))
    sl = q("sliced", [2, 4, 2], *QX)
    fm.op(OP.SLICE, [ss, c32("slice/begin", [1, 0, 0]), c32("slice/size", [2, -1, 2])], [sl])
    sp0, sp1 = q("split0", [2, 2, 2], *QX), q("split1", [2, 2, 2], *QX)
    fm.op(OP.SPLIT, [c32("split/axis", 1), sl], [sp0, sp1], BO.SplitOptions, options("SplitOptions", NumSplits=2))
    pk = q("packed", [2, 2, 2, 2], *QX)
    fm.op(OP.PACK, [sp0, sp1], [pk], BO.PackOptions, options("PackOptions", ValuesCount=2, Axis=0))
    u0, u1 = q("unpacked0", [2, 2, 2], *QX), q("unpacked1", [2, 2, 2], *QX)
    fm.op(OP.UNPACK, [pk], [u0, u1], BO.UnpackOptions, options("UnpackOptions", Num=2, Axis=3))
    ed = q("expanded", [2, 1, 2, 2], *QX)
    fm.op(OP.EXPAND_DIMS, [u0, c32("expand/axis", 1)], [ed])
    sq = q("squeezed", [2, 2, 2], *QX)
    fm.op(OP.SQUEEZE, [ed], [sq], BO.SqueezeOptions, options("SqueezeOptions"))
    QL = (0.09, -20)
    lr = q("leaky", [2, 2, 2], *QL)
    fm.op(OP.LEAKY_RELU, [u1], [lr], BO.LeakyReluOptions, options("LeakyReluOptions", Alpha=0.2))
    cat = q("concat", [2, 2, 4], *QX)
    fm.op(OP.CONCATENATION, [sq, lr], [cat], BO.ConcatenationOptions, options("ConcatenationOptions", Axis=2))

    QH1, QH2 = (0.06, -30), (0.02, -100)
    hs1 = q("hard_swish", [1, 4, 6, 3], *QH1)
    hs2 = q("hard_swish_fine", [1, 4, 6, 3], *QH2)
    fm.op(OP.HARD_SWISH, [xq], [hs1])
    fm.op(OP.HARD_SWISH, [xq2], [hs2])

    lg = q("logistic", [1, 4, 6, 3], 1 / 256, -128)
    th = q("tanh", [1, 4, 6, 3], 1 / 128, 0)
    lg2 = q("logistic_coarse", [1, 4, 6, 3], 1 / 256, -128)
    fm.op(OP.LOGISTIC, [xq], [lg])
    fm.op(OP.TANH, [xq], [th])
    fm.op(OP.LOGISTIC, [xq2], [lg2])

    # STRIDED_SLICE's masks and offset as TFLite resolves them: begin_mask on a
    # shrunk axis, negative indices, end_mask, and `offset` (end relative to begin).
    ssm = q("strided_masks", [3, 2], *QX)
    fm.op(OP.STRIDED_SLICE, [xq, c32("ssm/begin", [3, -3, 1, 0]), c32("ssm/end", [0, 2, 0, -1]),
                             c32("ssm/strides", [1, 1, 2, 1])], [ssm], BO.StridedSliceOptions,
          options("StridedSliceOptions", BeginMask=0b0001, EndMask=0b0100, ShrinkAxisMask=0b0011))
    sso = q("strided_offset", [1, 2, 3, 2], *QX)
    fm.op(OP.STRIDED_SLICE, [xq, c32("sso/begin", [0, 1, 2, 1]), c32("sso/end", [1, 2, 3, 2]),
                             c32("sso/strides", [1, 1, 1, 1])], [sso], BO.StridedSliceOptions,
          options("StridedSliceOptions", Offset=True))

    outputs = [xq, xq2, m1, m2, rz1, rz2, rz3, bm1, bm2, bm3, sub, mulv, pad, cat, hs1, hs2, lg, th, lg2, ssm, sso]
    fm.m["inputs"], fm.m["outputs"] = [x], outputs
    names = [fm.m["tensors"][o]["name"] for o in outputs]

    def evaluate(xv):
        xq_v = R.quantize(xv, *QX)
        xq2_v = R.quantize(xv, *QX2)
        rows = xq_v.reshape(4, 6, 3)
        t_v = np.transpose(xq_v, (0, 2, 1, 3))
        ss_v = t_v[0, 5:0:-2]
        sl_v = ss_v[1:3, :, 0:2]
        sp0_v, sp1_v = sl_v[:, 0:2], sl_v[:, 2:4]
        pk_v = np.stack([sp0_v, sp1_v], 0)
        u0_v, u1_v = pk_v[..., 0], pk_v[..., 1]
        lr_v = R.leaky_relu(u1_v, QX, QL, 0.2)
        cat_v = np.concatenate([u0_v, R.requantize(lr_v, *QL, *QX)], 2)
        return [xq_v, xq2_v,
                R.mean(xq_v, QX, QM1, [1, 2], True), R.mean(xq_v, QX, QM2, [1, -1], False),
                R.resize_bilinear(xq_v, 7, 9, half_pixel=True), R.resize_bilinear(xq_v, 3, 4, align_corners=True),
                R.resize_bilinear(xq_v, 8, 11),
                R.batch_matmul(rows, QX, w, QW, QB1), R.batch_matmul(rows, QX, w2, QW2, QB2, adj_y=True),
                R.batch_matmul(rows, QX, rows, QX, QB3, adj_x=True),
                R.add_sub(xq_v, QX, cvals, QC, QS, subtract=True, act="relu"),
                R.mul(xq_v, QX, xq2_v, QX2, QML, act="relu6"),
                np.pad(xq_v, ((0, 0), (1, 0), (0, 2), (0, 0)), constant_values=37),
                cat_v, R.hard_swish(xq_v, QX, QH1), R.hard_swish(xq2_v, QX2, QH2),
                R.logistic(xq_v, QX), R.tanh(xq_v, QX), R.logistic(xq2_v, QX2),
                xq_v[0, 1, 1::2, 0:2], xq_v[:, 1:3, 2:5, 1:3]]

    # Multiples of 1/16 in [-15, 15]: x / 0.125 is often exactly k + 0.5.
    inputs = [(rng.integers(-240, 241, (1, 4, 6, 3)) / 16).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", names)


def float_misc():
    """PADV2 (constant value), EXPAND_DIMS, SQUEEZE, SUB with fused RELU6, MUL with
    fused RELU_N1_TO_1, ADD with fused RELU, and a QUANTIZE -> DEQUANTIZE round trip
    whose inputs sit on exact ties (TFLite rounds them away from zero)."""
    import numpy as np
    import tflite_int_ref as R
    rng = np.random.default_rng(9)
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)
    T = lambda name, shape, data=None, tt=None: fm.tensor(name, shape, data, tt)
    x = T("x", [1, 3, 4, 2])
    pv = T("pad_value", [], np.array(0.5, np.float32))
    padded = T("padded", [1, 4, 6, 2])
    expanded = T("expanded", [1, 4, 1, 6, 2])
    squeezed = T("squeezed", [4, 6, 2])
    c = (rng.standard_normal(2) * 0.5).astype(np.float32)
    sub = T("sub_relu6", [4, 6, 2])
    mul = T("mul_relu_n1_to_1", [4, 6, 2])
    add = T("add_relu", [4, 6, 2])
    xq = fm.tensor("xq", [1, 3, 4, 2], ttype=TT.INT8)
    fm.m["tensors"][xq].update(scale=[0.25], zero_point=[1])
    deq = T("dequantized", [1, 3, 4, 2])
    fm.op(OP.PADV2, [x, T("pads", [4, 2], i32([[0, 0], [1, 0], [0, 2], [0, 0]]), TT.INT32), pv], [padded])
    fm.op(OP.EXPAND_DIMS, [padded, T("axis", [], i32(2), TT.INT32)], [expanded])
    fm.op(OP.SQUEEZE, [expanded], [squeezed], BO.SqueezeOptions, options("SqueezeOptions"))
    fm.op(OP.SUB, [squeezed, T("c", [2], c)], [sub], BO.SubOptions, options("SubOptions", FusedActivationFunction=ACT.RELU6))
    fm.op(OP.MUL, [squeezed, sub], [mul], BO.MulOptions, options("MulOptions", FusedActivationFunction=ACT.RELU_N1_TO_1))
    fm.op(OP.ADD, [mul, squeezed], [add], BO.AddOptions, options("AddOptions", FusedActivationFunction=ACT.RELU))
    fm.op(OP.QUANTIZE, [x], [xq])
    fm.op(OP.DEQUANTIZE, [xq], [deq])
    fm.m["inputs"], fm.m["outputs"] = [x], [add, deq]

    def evaluate(xv):
        p = np.pad(xv, ((0, 0), (1, 0), (0, 2), (0, 0)), constant_values=0.5)[0]
        s_ = np.clip(p - c, 0, 6)
        m = np.clip(p * s_, -1, 1)
        a = np.maximum(m + p, 0)
        q = R.quantize(xv, 0.25, 1).astype(np.float32)
        return [a.astype(np.float32), ((q - 1) * np.float32(0.25)).astype(np.float32)]

    # Multiples of 1/8 in [-6, 6]: x / 0.25 is often exactly k + 0.5.
    inputs = [(rng.integers(-48, 49, (1, 3, 4, 2)) / 8).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", ["add_relu", "dequantized"])


def int8_tables():
    """Every one of the 256 int8 inputs through the element-wise int8 operators
    that Kiln turns into lookup tables: LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU,
    RELU, RELU6 and QUANTIZE int8 -> int8, and LOGISTIC / TANH behind a QUANTIZE
    (Kiln composes the two tables into one). Expected outputs from
    tflite_int_ref.py (TFLite's integer kernels in Python; no TFLite runtime here)."""
    import numpy as np
    import tflite_int_ref as R
    fm = FloatModel()

    def q(name, scale, zp):
        t = fm.tensor(name, [256], ttype=TT.INT8)
        fm.m["tensors"][t].update(scale=[scale], zero_point=[zp])
        return t

    QX, QC, QH, QL, QR = (0.07, 10), (0.2, 3), (0.05, -40), (0.04, 20), (0.03, -128)
    x = q("x", *QX)
    outs = {name: q(name, *qp) for name, qp in (
        ("logistic", (1 / 256, -128)), ("tanh", (1 / 128, 0)), ("hard_swish", QH), ("leaky_relu", QL),
        ("relu", QR), ("relu6", QX), ("requantized", QC), ("logistic_of_requantized", (1 / 256, -128)),
        ("tanh_of_requantized", (1 / 128, 0)))}
    fm.op(OP.LOGISTIC, [x], [outs["logistic"]])
    fm.op(OP.TANH, [x], [outs["tanh"]])
    fm.op(OP.HARD_SWISH, [x], [outs["hard_swish"]])
    fm.op(OP.LEAKY_RELU, [x], [outs["leaky_relu"]], BO.LeakyReluOptions, options("LeakyReluOptions", Alpha=0.3))
    fm.op(OP.RELU, [x], [outs["relu"]])
    fm.op(OP.RELU6, [x], [outs["relu6"]])
    fm.op(OP.QUANTIZE, [x], [outs["requantized"]])
    fm.op(OP.LOGISTIC, [outs["requantized"]], [outs["logistic_of_requantized"]])
    fm.op(OP.TANH, [outs["requantized"]], [outs["tanh_of_requantized"]])
    fm.m["inputs"], fm.m["outputs"] = [x], list(outs.values())

    def evaluate(xv):
        rq = R.requantize(xv, *QX, *QC)
        return [R.logistic(xv, QX), R.tanh(xv, QX), R.hard_swish(xv, QX, QH), R.leaky_relu(xv, QX, QL, 0.3),
                R.relu(xv, QX, QR), R.relu6(xv, QX), rq, R.logistic(rq, QC), R.tanh(rq, QC)]

    every = np.arange(-128, 128, dtype=np.int8)
    inputs = [every, every[::-1].copy()]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", list(outs.keys()))


def int8_lstm():
    """UNIDIRECTIONAL_SEQUENCE_LSTM on int8 as TFLite Micro runs it (int16 gates and
    cell state, its table-interpolated int16 sigmoid and tanh): one batch-major
    operator and one time-major with cell clipping, zero initial state. Expected
    outputs from tflite_int_ref.lstm (no TFLite runtime on the build machine)."""
    import numpy as np
    import tflite_int_ref as R
    rng = np.random.default_rng(17)
    fm = FloatModel()
    B, T, I, H = 2, 4, 3, 5
    QX, QH, CELL = (0.05, -4), (1 / 128, 2), 2.0 ** -11

    def q(name, shape, scale, zp, data=None, tt=TT.INT8):
        t = fm.tensor(name, shape, data, tt)
        fm.m["tensors"][t].update(scale=[scale], zero_point=[zp])
        return t

    x = q("sequence", [B, T, I], *QX)

    def lstm_op(prefix, time_major, clip):
        w = {g: rng.integers(-127, 128, (H, I)).astype(np.int8) for g in "ifco"}
        rw = {g: rng.integers(-127, 128, (H, H)).astype(np.int8) for g in "ifco"}
        wq = {g: float(np.float32(0.004 + 0.002 * k)) for k, g in enumerate("ifco")}
        rwq = {g: float(np.float32(0.01 + 0.003 * k)) for k, g in enumerate("ifco")}
        bias = {g: rng.integers(-3000, 3000, H).astype(np.int32) for g in "ifco"}
        ins = [x if not time_major else x_tm]
        ins += [q(f"{prefix}/w_{g}", [H, I], wq[g], 0, w[g]) for g in "ifco"]
        ins += [q(f"{prefix}/r_{g}", [H, H], rwq[g], 0, rw[g]) for g in "ifco"]
        ins += [-1, -1, -1]
        ins += [q(f"{prefix}/b_{g}", [H], QX[0] * wq[g], 0, bias[g], TT.INT32) for g in "ifco"]
        ins += [-1, -1]
        hs = q(f"{prefix}/output_state", [B, H], *QH)
        cs = q(f"{prefix}/cell_state", [B, H], CELL, 0, tt=TT.INT16)
        for t in (hs, cs):
            fm.m["tensors"][t]["is_variable"] = True
        ins += [hs, cs, -1, -1, -1, -1]
        y = q(f"{prefix}/hidden", [T, B, H] if time_major else [B, T, H], *QH)
        fm.op(OP.UNIDIRECTIONAL_SEQUENCE_LSTM, ins, [y], BO.UnidirectionalSequenceLSTMOptions,
              options("UnidirectionalSequenceLSTMOptions", FusedActivationFunction=ACT.TANH, TimeMajor=time_major,
                      CellClip=clip))
        return y, (w, rw, bias, wq, rwq, time_major, clip)

    x_tm = q("sequence_time_major", [T, B, I], *QX)
    fm.op(OP.TRANSPOSE, [x, fm.tensor("perm", [3], np.array([1, 0, 2], np.int32), TT.INT32)], [x_tm])
    y1, p1 = lstm_op("lstm", False, 0.0)
    y2, p2 = lstm_op("lstm_tm", True, 0.5)  # a clip that binds
    fm.m["inputs"], fm.m["outputs"] = [x], [y1, y2]

    def evaluate(xv):
        out = []
        for xin, (w, rw, bias, wq, rwq, tm, clip) in ((xv, p1), (np.swapaxes(xv, 0, 1).copy(), p2)):
            out.append(R.lstm(xin, QX, w, rw, bias, wq, rwq, QH, CELL, time_major=tm, cell_clip=clip))
        return out

    inputs = [rng.integers(-128, 128, (B, T, I)).astype(np.int8) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("sequence", ["lstm/hidden", "lstm_tm/hidden"])


def float_lstm():
    """UNIDIRECTIONAL_SEQUENCE_LSTM, batch major, with peepholes. Its state tensors are
    variables: the first case starts from zero state, the second from the state the
    first left (kiln verify runs the cases in order, as TFLite Micro runs frames)."""
    import numpy as np
    rng = np.random.default_rng(5)
    fm = FloatModel()
    B, T, I, H = 2, 5, 3, 4
    x = fm.tensor("sequence", [B, T, I])
    w = {g: (rng.standard_normal((H, I)) * 0.6).astype(np.float32) for g in "ifco"}
    r = {g: (rng.standard_normal((H, H)) * 0.5).astype(np.float32) for g in "ifco"}
    p = {g: (rng.standard_normal(H) * 0.3).astype(np.float32) for g in "ifo"}
    bias = {g: (rng.standard_normal(H) * 0.2).astype(np.float32) for g in "ifco"}
    ins = [x]
    ins += [fm.tensor(f"w_{g}", [H, I], w[g]) for g in "ifco"]
    ins += [fm.tensor(f"r_{g}", [H, H], r[g]) for g in "ifco"]
    ins += [fm.tensor(f"p_{g}", [H], p[g]) for g in "ifo"]
    ins += [fm.tensor(f"b_{g}", [H], bias[g]) for g in "ifco"]
    ins += [-1, -1]
    for name in ("output_state", "cell_state"):
        t = fm.tensor(name, [B, H])
        fm.m["tensors"][t]["is_variable"] = True
        ins.append(t)
    y = fm.tensor("hidden", [B, T, H])
    fm.op(OP.UNIDIRECTIONAL_SEQUENCE_LSTM, ins, [y], BO.UnidirectionalSequenceLSTMOptions,
          options("UnidirectionalSequenceLSTMOptions", FusedActivationFunction=ACT.TANH, TimeMajor=False))
    fm.m["inputs"], fm.m["outputs"] = [x], [y]
    sig = lambda v: 1 / (1 + np.exp(-v))

    state = [np.zeros((B, H)), np.zeros((B, H))]

    def evaluate(xv):
        xv = xv.astype(np.float64)
        out = np.zeros((B, T, H))
        h, c = state
        for t in range(T):
            xt = xv[:, t, :]
            i = sig(xt @ w["i"].T + h @ r["i"].T + p["i"] * c + bias["i"])
            f = sig(xt @ w["f"].T + h @ r["f"].T + p["f"] * c + bias["f"])
            g = np.tanh(xt @ w["c"].T + h @ r["c"].T + bias["c"])
            c = f * c + i * g
            o = sig(xt @ w["o"].T + h @ r["o"].T + p["o"] * c + bias["o"])
            h = o * np.tanh(c)
            out[:, t, :] = h
        state[:] = [h, c]
        return out.astype(np.float32)

    inputs = [rng.standard_normal((B, T, I)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("sequence", "hidden")


def var_handle_options(shared_name, container=""):
    def make(b):
        mod = fb("VarHandleOptions")
        c, n = b.CreateString(container), b.CreateString(shared_name)
        mod.VarHandleOptionsStart(b)
        mod.VarHandleOptionsAddContainer(b, c)
        mod.VarHandleOptionsAddSharedName(b, n)
        return mod.VarHandleOptionsEnd(b)
    return make


STREAM_FRAMES = 20


def float_accumulator():
    """Resource variables carried across runs: a running sum of the input (READ_VARIABLE
    -> ADD(input) -> ASSIGN_VARIABLE, the sum computed into the state's own bytes) and a
    frame counter that is also a model output (written back by a copy). Outputs: half
    the running sum, the number of frames so far."""
    import numpy as np
    rng = np.random.default_rng(32)
    fm = FloatModel()
    x = fm.tensor("frame", [1, 4])
    handles = [fm.tensor(n + "_handle", [], ttype=TT.RESOURCE) for n in ("sum", "count")]
    fm.op(OP.VAR_HANDLE, [], [handles[0]], BO.VarHandleOptions, var_handle_options("sum", "stream"))
    fm.op(OP.VAR_HANDLE, [], [handles[1]], BO.VarHandleOptions, var_handle_options("count"))
    acc, total = fm.tensor("sum_before", [1, 4]), fm.tensor("sum_after", [1, 4])
    n, n1 = fm.tensor("count_before", [1]), fm.tensor("frames", [1])
    half, y = fm.tensor("half", [1], np.array([0.5], np.float32)), fm.tensor("half_sum", [1, 4])
    one = fm.tensor("one", [1], np.array([1.0], np.float32))
    fm.op(OP.READ_VARIABLE, [handles[0]], [acc])
    fm.op(OP.ADD, [acc, x], [total], BO.AddOptions, options("AddOptions"))
    fm.op(OP.ASSIGN_VARIABLE, [handles[0], total], [])
    fm.op(OP.READ_VARIABLE, [handles[1]], [n])
    fm.op(OP.ADD, [n, one], [n1], BO.AddOptions, options("AddOptions"))
    fm.op(OP.ASSIGN_VARIABLE, [handles[1], n1], [])
    fm.op(OP.MUL, [total, half], [y], BO.MulOptions, options("MulOptions"))
    fm.m["inputs"], fm.m["outputs"] = [x], [y, n1]
    frames = [rng.standard_normal((1, 4)).astype(np.float32) for _ in range(STREAM_FRAMES)]
    outs, s = [], np.zeros((1, 4), np.float32)
    for k, xv in enumerate(frames):
        s = (s + xv).astype(np.float32)
        outs.append([(s * np.float32(0.5)).astype(np.float32), np.array([k + 1], np.float32)])
    return fm.m, frames, outs, ["half_sum", "frames"]


def int8_delay_line():
    """An int8 resource variable (zero point -5) as a one-frame delay: each run outputs
    the frame before; the first run outputs the variable's reset value, the zero
    point in every byte, as TFLite Micro resets int8 variables."""
    import numpy as np
    rng = np.random.default_rng(34)
    fm = FloatModel()
    x = fm.tensor("frame", [1, 4], ttype=TT.INT8)
    y = fm.tensor("previous", [1, 4], ttype=TT.INT8)
    for t in (x, y):
        fm.m["tensors"][t].update(scale=[0.1], zero_point=[-5])
    h = fm.tensor("delay_handle", [], ttype=TT.RESOURCE)
    fm.op(OP.VAR_HANDLE, [], [h], BO.VarHandleOptions, var_handle_options("delay"))
    fm.op(OP.READ_VARIABLE, [h], [y])
    fm.op(OP.ASSIGN_VARIABLE, [h, x], [])
    fm.m["inputs"], fm.m["outputs"] = [x], [y]
    frames = [rng.integers(-128, 128, (1, 4)).astype(np.int8) for _ in range(STREAM_FRAMES)]
    outs = [np.full((1, 4), -5, np.int8)] + frames[:-1]
    return fm.m, list(zip(frames, outs)), ("frame", "previous")


def float_lstm_stream():
    """UNIDIRECTIONAL_SEQUENCE_LSTM over one time step per run, its hidden and cell
    state (variables) carried from run to run, time major, no peepholes."""
    import numpy as np
    rng = np.random.default_rng(33)
    fm = FloatModel()
    I, H = 3, 5
    x = fm.tensor("frame", [1, 1, I])
    w = {g: (rng.standard_normal((H, I)) * 0.6).astype(np.float32) for g in "ifco"}
    r = {g: (rng.standard_normal((H, H)) * 0.5).astype(np.float32) for g in "ifco"}
    bias = {g: (rng.standard_normal(H) * 0.2).astype(np.float32) for g in "ifco"}
    ins = [x]
    ins += [fm.tensor(f"w_{g}", [H, I], w[g]) for g in "ifco"]
    ins += [fm.tensor(f"r_{g}", [H, H], r[g]) for g in "ifco"]
    ins += [-1, -1, -1]
    ins += [fm.tensor(f"b_{g}", [H], bias[g]) for g in "ifco"]
    ins += [-1, -1]
    for name in ("hidden_state", "cell_state"):
        t = fm.tensor(name, [1, H])
        fm.m["tensors"][t]["is_variable"] = True
        ins.append(t)
    y = fm.tensor("hidden", [1, 1, H])
    fm.op(OP.UNIDIRECTIONAL_SEQUENCE_LSTM, ins, [y], BO.UnidirectionalSequenceLSTMOptions,
          options("UnidirectionalSequenceLSTMOptions", FusedActivationFunction=ACT.TANH, TimeMajor=True))
    fm.m["inputs"], fm.m["outputs"] = [x], [y]
    sig = lambda v: 1 / (1 + np.exp(-v))
    frames = [rng.standard_normal((1, 1, I)).astype(np.float32) for _ in range(STREAM_FRAMES)]
    h, c, outs = np.zeros((1, H)), np.zeros((1, H)), []
    for xv in frames:
        xt = xv[0].astype(np.float64)
        i = sig(xt @ w["i"].T + h @ r["i"].T + bias["i"])
        f = sig(xt @ w["f"].T + h @ r["f"].T + bias["f"])
        g = np.tanh(xt @ w["c"].T + h @ r["c"].T + bias["c"])
        c = f * c + i * g
        o = sig(xt @ w["o"].T + h @ r["o"].T + bias["o"])
        h = o * np.tanh(c)
        outs.append([h.reshape(1, 1, H).astype(np.float32)])
    return fm.m, frames, outs, ["hidden"]


def write_stream_model(name, model, frames, outs, out_names):
    """NAME.tflite, NAME/test_data_set_<k> (frame k, for kiln verify, which runs the
    sets in order) and NAME/stream_data.h: every frame's input and the outputs after
    it, run by run from the reset state, for tests/e2e/state_stream.c (C floats,
    written with 9 significant digits so they read back exactly)."""
    folder = os.path.join(HERE, "models")
    write_float_model(name, model, list(zip(frames, outs)), ("frame", out_names))
    flat_in = [f.reshape(-1) for f in frames]
    flat_out = [__import__("numpy").concatenate([o.reshape(-1) for o in ys]) for ys in outs]
    fmt = lambda v: ", ".join("%.9ef" % float(x) for x in v)
    lines = ["/* Written by tests/tflite/make_test_models.py: the frames of %s.tflite and the" % name,
             " * outputs after each, the state carried from run to run. */",
             "#define STREAM_FRAMES %du" % len(frames),
             "#define STREAM_INPUT_FLOATS %du" % flat_in[0].size,
             "#define STREAM_OUTPUT_FLOATS %du" % flat_out[0].size,
             "static const float stream_inputs[STREAM_FRAMES][STREAM_INPUT_FLOATS] = {"]
    lines += ["  {%s}," % fmt(v) for v in flat_in]
    lines += ["};", "static const float stream_expected[STREAM_FRAMES][STREAM_OUTPUT_FLOATS] = {"]
    lines += ["  {%s}," % fmt(v) for v in flat_out]
    lines += ["};", ""]
    os.makedirs(os.path.join(folder, name), exist_ok=True)
    write(os.path.join(folder, name, "stream_data.h"), "\n".join(lines).encode())


def np_resize_bilinear(x, oh, ow, align_corners, half_pixel):
    """TFLite's reference ResizeBilinear (NHWC, float32 coordinates)."""
    import numpy as np
    n, h, w, c = x.shape

    def scale(i, o):
        return np.float32((i - 1) / (o - 1)) if align_corners and o > 1 else np.float32(i / o)

    def coords(v, s, size):
        f = (np.float32(v) + np.float32(0.5)) * s - np.float32(0.5) if half_pixel else np.float32(v) * s
        lo = max(int(np.floor(f)), 0)
        hi = min(int(np.ceil(f)), size - 1)
        return f, lo, hi

    y = np.zeros((n, oh, ow, c), np.float32)
    for i in range(oh):
        fy, y0, y1 = coords(i, scale(h, oh), h)
        for j in range(ow):
            fx, x0, x1 = coords(j, scale(w, ow), w)
            dy, dx = fy - y0, fx - x0
            y[0, i, j] = (x[0, y0, x0] * (1 - dy) * (1 - dx) + x[0, y1, x0] * dy * (1 - dx) +
                          x[0, y0, x1] * (1 - dy) * dx + x[0, y1, x1] * dy * dx)
    return y


def np_resize_nearest(x, oh, ow, align_corners, half_pixel):
    """TFLite's reference ResizeNearestNeighbor."""
    import numpy as np
    n, h, w, c = x.shape

    def index(v, i, o):
        s = np.float32((i - 1) / (o - 1)) if align_corners and o > 1 else np.float32(i / o)
        f = (np.float32(v) + np.float32(0.5 if half_pixel else 0.0)) * s
        k = int(np.floor(f + np.float32(0.5))) if align_corners else int(np.floor(f))
        k = min(k, i - 1)
        return max(0, k) if half_pixel else k

    y = np.zeros((n, oh, ow, c), np.float32)
    for a in range(oh):
        for b in range(ow):
            y[0, a, b] = x[0, index(a, h, oh), index(b, w, ow)]
    return y


def float_resize_matmul():
    """RESIZE_BILINEAR (half-pixel, align-corners), RESIZE_NEAREST_NEIGHBOR (asymmetric,
    align-corners), RELU_N1_TO_1, MEAN with keep_dims, BATCH_MATMUL with adj_y."""
    import numpy as np
    rng = np.random.default_rng(3)
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)
    x = fm.tensor("image", [1, 3, 4, 2])
    size = fm.tensor("size", [2], i32([5, 7]), TT.INT32)
    rb_h, rb_a, rn, rn_a = (fm.tensor(n, [1, 5, 7, 2]) for n in ("bilinear_half", "bilinear_corners", "nearest",
                                                                   "nearest_corners"))
    s1, s2, s3 = (fm.tensor(n, [1, 5, 7, 2]) for n in ("sum1", "sum2", "sum3"))
    clipped = fm.tensor("clipped", [1, 5, 7, 2])
    axes = fm.tensor("axes", [1], i32([2]), TT.INT32)
    mean = fm.tensor("mean", [1, 5, 1, 2])
    shp = fm.tensor("shape", [3], i32([1, 5, 2]), TT.INT32)
    m3 = fm.tensor("mean3", [1, 5, 2])
    wmat = (rng.standard_normal((1, 3, 2)) * 0.8).astype(np.float32)
    wt = fm.tensor("w", [1, 3, 2], wmat)
    out = fm.tensor("product", [1, 5, 3])
    fm.op(OP.RESIZE_BILINEAR, [x, size], [rb_h], BO.ResizeBilinearOptions,
          options("ResizeBilinearOptions", HalfPixelCenters=True))
    fm.op(OP.RESIZE_BILINEAR, [x, size], [rb_a], BO.ResizeBilinearOptions,
          options("ResizeBilinearOptions", AlignCorners=True))
    fm.op(OP.RESIZE_NEAREST_NEIGHBOR, [x, size], [rn])
    fm.op(OP.RESIZE_NEAREST_NEIGHBOR, [x, size], [rn_a], BO.ResizeNearestNeighborOptions,
          options("ResizeNearestNeighborOptions", AlignCorners=True))
    fm.op(OP.ADD, [rb_h, rb_a], [s1])
    fm.op(OP.ADD, [s1, rn], [s2])
    fm.op(OP.SUB, [s2, rn_a], [s3])
    fm.op(OP.RELU_N1_TO_1, [s3], [clipped])
    fm.op(OP.MEAN, [clipped, axes], [mean], BO.ReducerOptions, options("ReducerOptions", KeepDims=True))
    fm.op(OP.RESHAPE, [mean, shp], [m3])
    fm.op(OP.BATCH_MATMUL, [m3, wt], [out], BO.BatchMatMulOptions, options("BatchMatMulOptions", AdjY=True))
    fm.m["inputs"], fm.m["outputs"] = [x], [out, rb_h, rb_a, rn, rn_a]

    def evaluate(xv):
        a = np_resize_bilinear(xv, 5, 7, False, True)
        b = np_resize_bilinear(xv, 5, 7, True, False)
        n0 = np_resize_nearest(xv, 5, 7, False, False)
        n1 = np_resize_nearest(xv, 5, 7, True, False)
        z = np.clip(a + b + n0 - n1, -1, 1).mean(axis=2, keepdims=True).reshape(1, 5, 2)
        return [(z @ np.swapaxes(wmat, 1, 2)).astype(np.float32), a, b, n0, n1]

    inputs = [rng.standard_normal((1, 3, 4, 2)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("image", ["product", "bilinear_half", "bilinear_corners", "nearest", "nearest_corners"])


def float_reshape_rank0():
    """RESHAPE to rank 0 (an empty int32 shape tensor: a zero-byte constant, which once
    made the emitter's "overlaps the one before it" internal error), then MUL by x."""
    import numpy as np
    rng = np.random.default_rng(28)
    fm = FloatModel()
    x = fm.tensor("x", [1, 1])
    shp = fm.tensor("shape", [0], np.array([], np.int32), TT.INT32)
    r = fm.tensor("scalar", [])
    w = fm.tensor("w", [1, 3], np.array([[0.5, -2.0, 3.0]], np.float32))
    y = fm.tensor("y", [1, 3])
    fm.op(OP.RESHAPE, [x, shp], [r])
    fm.op(OP.MUL, [r, w], [y], BO.MulOptions, options("MulOptions"))
    fm.m["inputs"], fm.m["outputs"] = [x], [y]
    inputs = [rng.standard_normal((1, 1)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, [(xv.reshape(()) * np.array([[0.5, -2.0, 3.0]], np.float32)).astype(np.float32)])
                  for xv in inputs], ("x", ["y"])



def float_math():
    """TFLM's element-wise float operators: the unary math (ABS, CEIL, FLOOR,
    ROUND on exact ties, NEG, RELU6, SIN, COS, EXP, ELU, SQUARE, SQRT, RSQRT, LOG), the
    binary ones (DIV with a fused RELU6, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
    FLOOR_DIV), summed by ADD_N; the six comparisons and LOGICAL_AND / OR / NOT
    feeding SELECT_V2, and CAST bool -> float32 and float32 -> int32."""
    import numpy as np
    rng = np.random.default_rng(31)
    fm = FloatModel()
    S = [1, 4, 6, 3]
    T = lambda name, data=None, tt=None, shape=S: fm.tensor(name, shape, data, tt)
    x = T("x")
    c = (rng.integers(-8, 9, 3) / 4).astype(np.float32)
    cv = T("c", c, shape=[3])
    half = T("half", np.array(0.5, np.float32), shape=[])
    pos = T("pos")
    absx = T("abs")
    fm.op(OP.ABS, [x], [absx])
    fm.op(OP.ADD, [absx, half], [pos], BO.AddOptions, options("AddOptions"))
    unary = {}
    for code, name, src in [(OP.CEIL, "ceil", x), (OP.FLOOR, "floor", x), (OP.ROUND, "round", x), (OP.NEG, "neg", x),
                            (OP.SIN, "sin", x), (OP.COS, "cos", x), (OP.EXP, "exp", x), (OP.ELU, "elu", x),
                            (OP.SQUARE, "square", x), (OP.SQRT, "sqrt", pos), (OP.RSQRT, "rsqrt", pos),
                            (OP.LOG, "log", pos)]:
        unary[name] = T(name)
        fm.op(code, [src], [unary[name]])
    relu6 = T("relu6")
    fm.op(OP.RELU6, [x], [relu6])
    rounding = T("rounding")
    fm.op(OP.ADD_N, [absx, unary["ceil"], unary["floor"], unary["round"], unary["neg"], relu6], [rounding])
    transcendental = T("transcendental")
    fm.op(OP.ADD_N, [unary[k] for k in ("sin", "cos", "exp", "elu", "square", "sqrt", "rsqrt", "log")], [transcendental])
    binary = {}
    for code, name, a, b, ot, o in [
            (OP.DIV, "div_relu6", x, pos, BO.DivOptions, options("DivOptions", FusedActivationFunction=ACT.RELU6)),
            (OP.MAXIMUM, "maximum", x, cv, None, None), (OP.MINIMUM, "minimum", x, cv, None, None),
            (OP.SQUARED_DIFFERENCE, "squared_difference", x, cv, None, None),
            (OP.FLOOR_DIV, "floor_div", x, pos, None, None)]:
        binary[name] = T(name)
        fm.op(code, [a, b], [binary[name]], ot, o)
    binaries = T("binaries")
    fm.op(OP.ADD_N, list(binary.values()), [binaries])
    B = lambda name: T(name, tt=TT.BOOL)
    cmp = {}
    for code, name, a, b in [(OP.EQUAL, "is_integral", unary["floor"], unary["ceil"]), (OP.LESS, "less", x, cv),
                             (OP.GREATER_EQUAL, "greater_equal", x, cv), (OP.NOT_EQUAL, "not_equal", x, cv),
                             (OP.LESS_EQUAL, "less_equal", x, cv), (OP.GREATER, "greater", x, cv)]:
        cmp[name] = B(name)
        fm.op(code, [a, b], [cmp[name]])
    both, either, neither, cond = B("both"), B("either"), B("neither"), B("cond")
    fm.op(OP.LOGICAL_AND, [cmp["less_equal"], cmp["is_integral"]], [both])
    fm.op(OP.LOGICAL_OR, [cmp["greater"], cmp["not_equal"]], [either])
    fm.op(OP.LOGICAL_NOT, [either], [neither])
    fm.op(OP.LOGICAL_OR, [both, neither], [cond])
    selected = T("selected")
    fm.op(OP.SELECT_V2, [cond, x, unary["neg"]], [selected])
    cond_f, ge_f = T("cond_f32"), T("greater_equal_f32")
    fm.op(OP.CAST, [cond], [cond_f])
    fm.op(OP.CAST, [cmp["greater_equal"]], [ge_f])
    less_or_cond = T("flags")
    fm.op(OP.ADD, [cond_f, ge_f], [less_or_cond], BO.AddOptions, options("AddOptions"))
    truncated = T("truncated", tt=TT.INT32)
    fm.op(OP.CAST, [transcendental], [truncated])
    fm.m["inputs"] = [x]
    fm.m["outputs"] = [rounding, transcendental, binaries, selected, less_or_cond, truncated]

    def evaluate(xv):
        f = np.float32
        p = np.abs(xv) + f(0.5)
        rnd = np.abs(xv) + np.ceil(xv) + np.floor(xv) + np.round(xv) - xv + np.clip(xv, 0, 6)
        elu = np.where(xv > 0, xv, np.expm1(xv.astype(np.float64)).astype(f))
        tr = (np.sin(xv) + np.cos(xv) + np.exp(xv) + elu + xv * xv + np.sqrt(p) + f(1) / np.sqrt(p) + np.log(p)).astype(f)
        bi = (np.clip(xv / p, 0, 6) + np.maximum(xv, c) + np.minimum(xv, c) + (xv - c) * (xv - c) +
              np.floor(xv / p)).astype(f)
        integral = np.floor(xv) == np.ceil(xv)
        cond = ((xv <= c) & integral) | ~((xv > c) | (xv != c))
        sel = np.where(cond, xv, -xv).astype(f)
        flags = (cond.astype(f) + (xv >= c).astype(f)).astype(f)
        return [rnd.astype(f), tr, bi, sel, flags, tr.astype(np.int32)]

    # Multiples of 1/4 in [-3, 3]: ties for ROUND, integral values for EQUAL, equal values for the comparisons.
    inputs = [(rng.integers(-12, 13, S) / 4).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", ["rounding", "transcendental", "binaries", "selected",
                                                                "flags", "truncated"])


def float_tensor_ops():
    """TFLM's float operators on whole tensors: SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX
    (int32) and ARG_MIN (int64), GATHER, GATHER_ND, EMBEDDING_LOOKUP, FILL from a
    run-time scalar, ZEROS_LIKE, BROADCAST_TO, SPLIT_V (with a -1 size), REVERSE_V2,
    MIRROR_PAD (REFLECT), SPACE_TO_DEPTH, CUMSUM (exclusive, reverse),
    L2_NORMALIZATION, LOG_SOFTMAX, PRELU, SHAPE, DEPTH_TO_SPACE then RELU, and a float16 constant
    through DEQUANTIZE."""
    import numpy as np
    rng = np.random.default_rng(32)
    fm = FloatModel()
    S = [1, 4, 6, 4]
    i32 = lambda v: np.array(v, np.int32)
    T = lambda name, shape, data=None, tt=None: fm.tensor(name, shape, data, tt)
    I = lambda name, v: T(name, list(np.array(v).shape), i32(v), TT.INT32)
    x = T("x", S)
    red = lambda opts=True: (BO.ReducerOptions, options("ReducerOptions", KeepDims=opts))
    out = {}

    def node(code, name, shape, inputs, tt=None, ot=None, o=None):
        out[name] = T(name, shape, tt=tt)
        fm.op(code, inputs, [out[name]], ot, o)
        return out[name]

    node(OP.SUM, "sum", [1, 1, 1, 4], [x, I("sum_axes", [1, 2])], None, *red(True))
    node(OP.REDUCE_MAX, "reduce_max", [1, 4, 6], [x, I("max_axes", [3])], None, *red(False))
    node(OP.REDUCE_MIN, "reduce_min", [1, 4, 6, 1], [x, I("min_axes", [-1])], None, *red(True))
    node(OP.ARG_MAX, "arg_max", [1, 4, 6], [x, I("argmax_axis", [3])], TT.INT32, BO.ArgMaxOptions,
         options("ArgMaxOptions", OutputType=TT.INT32))
    node(OP.ARG_MIN, "arg_min", [1, 6, 4], [x, I("argmin_axis", [1])], TT.INT64, BO.ArgMinOptions,
         options("ArgMinOptions", OutputType=TT.INT64))
    node(OP.GATHER, "gather", [1, 4, 6, 3], [x, I("gather_idx", [2, 0, 2])], None, BO.GatherOptions,
         options("GatherOptions", Axis=3))
    node(OP.GATHER_ND, "gather_nd", [2, 4], [x, I("gather_nd_idx", [[0, 1, 2], [0, 3, 5]])])
    table = T("table", [24, 4])
    fm.op(OP.RESHAPE, [x, I("table_shape", [24, 4])], [table], BO.ReshapeOptions,
          options("ReshapeOptions"))
    node(OP.EMBEDDING_LOOKUP, "embedding", [3, 4], [I("ids", [5, 0, 23]), table])
    peak = node(OP.REDUCE_MAX, "peak", [], [x, I("all_axes", [0, 1, 2, 3])], None, *red(False))
    node(OP.FILL, "fill", [2, 3], [I("fill_dims", [2, 3]), peak])
    zeros = node(OP.ZEROS_LIKE, "zeros", S, [x])
    broad = node(OP.BROADCAST_TO, "broadcast", S, [out["sum"], I("broadcast_shape", S)])
    node(OP.ADD, "centered_plus_zero", S, [broad, zeros], None, BO.AddOptions, options("AddOptions"))
    s1, s2 = T("split_first", [1, 4, 6, 1]), T("split_rest", [1, 4, 6, 3])
    fm.op(OP.SPLIT_V, [x, I("sizes", [1, -1]), I("split_axis", 3)], [s1, s2], BO.SplitVOptions,
          options("SplitVOptions", NumSplits=2))
    out["split_first"], out["split_rest"] = s1, s2
    node(OP.REVERSE_V2, "reverse", S, [x, I("reverse_axes", [1, 3])])
    node(OP.MIRROR_PAD, "mirror_pad", [1, 7, 9, 4], [x, I("mirror_pads", [[0, 0], [1, 2], [2, 1], [0, 0]])], None,
         BO.MirrorPadOptions, options("MirrorPadOptions", Mode=0))
    node(OP.SPACE_TO_DEPTH, "space_to_depth", [1, 2, 3, 16], [x], None, BO.SpaceToDepthOptions,
         options("SpaceToDepthOptions", BlockSize=2))
    node(OP.CUMSUM, "cumsum", S, [x, I("cumsum_axis", 2)], None, BO.CumsumOptions,
         options("CumsumOptions", Exclusive=True, Reverse=True))
    node(OP.L2_NORMALIZATION, "l2_norm", S, [x], None, BO.L2NormOptions, options("L2NormOptions"))
    node(OP.LOG_SOFTMAX, "log_softmax", S, [x])
    alpha = (rng.standard_normal((1, 1, 4)) * 0.5).astype(np.float32)
    node(OP.PRELU, "prelu", S, [x, T("alpha", [1, 1, 4], alpha)])
    node(OP.SHAPE, "shape", [4], [x], TT.INT32, BO.ShapeOptions, options("ShapeOptions", OutType=TT.INT32))
    node(OP.DEPTH_TO_SPACE, "depth_to_space", S, [out["space_to_depth"]], None, BO.DepthToSpaceOptions,
         options("DepthToSpaceOptions", BlockSize=2))
    node(OP.RELU, "relu", S, [out["depth_to_space"]])
    # TFLite's "float16 quantization": a float16 constant widened by DEQUANTIZE.
    w16 = (rng.integers(-64, 65, 4) / 16).astype(np.float16)
    w32 = node(OP.DEQUANTIZE, "w_dequantized", [4], [T("w16", [4], w16, TT.FLOAT16)])
    node(OP.MUL, "scaled", S, [x, w32], None, BO.MulOptions, options("MulOptions"))
    names = ["sum", "reduce_max", "reduce_min", "arg_max", "arg_min", "gather", "gather_nd", "embedding", "fill",
             "centered_plus_zero", "split_first", "split_rest", "reverse", "mirror_pad", "space_to_depth", "cumsum",
             "l2_norm", "log_softmax", "prelu", "shape", "relu", "scaled"]
    fm.m["inputs"], fm.m["outputs"] = [x], [out[n] for n in names]

    def evaluate(xv):
        f = np.float32
        sq = np.sqrt((xv.astype(np.float64) ** 2).sum(axis=-1, keepdims=True))
        m = xv.max(axis=-1, keepdims=True)
        lsm = (xv - m) - np.log(np.exp((xv - m).astype(np.float64)).sum(axis=-1, keepdims=True))
        cs = np.flip(np.cumsum(np.flip(xv, 2), axis=2), 2) - xv  # exclusive, reverse
        s2d = xv.reshape(1, 2, 2, 3, 2, 4).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 3, 16)
        return [xv.sum(axis=(1, 2), keepdims=True).astype(f), xv.max(axis=3), xv.min(axis=-1, keepdims=True),
                xv.argmax(axis=3).astype(np.int32), xv.argmin(axis=1).astype(np.int64), xv[..., [2, 0, 2]],
                np.stack([xv[0, 1, 2], xv[0, 3, 5]]), xv.reshape(24, 4)[[5, 0, 23]],
                np.full((2, 3), xv.max(), f), np.broadcast_to(xv.sum(axis=(1, 2), keepdims=True), xv.shape).astype(f),
                xv[..., :1], xv[..., 1:], xv[:, ::-1, :, ::-1],
                np.pad(xv, ((0, 0), (1, 2), (2, 1), (0, 0)), mode="reflect"), s2d, cs.astype(f),
                (xv / np.maximum(sq, 1e-6)).astype(f), lsm.astype(f), np.where(xv < 0, alpha * xv, xv).astype(f),
                np.array(S, np.int32), np.maximum(xv, 0), (xv * w16.astype(f)).astype(f)]

    # Multiples of 1/8: sums are exact; distinct enough for arg max / min to have one winner per row.
    inputs = []
    for _ in range(2):
        v = rng.permutation(96).reshape(S).astype(np.float32) / 8 - 6
        inputs.append(v.astype(np.float32))
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", names)


def np_transpose_conv(x, w, b, stride, out_hw, padding):
    """TFLite's TRANSPOSE_CONV: every input pixel scatters its taps at i * s - pad;
    pad from a forward conv of the output's size. w is [O, kh, kw, I]."""
    import numpy as np
    n, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    oh, ow = out_hw

    def pad_before(out, k):
        if padding == "VALID":
            return 0
        fwd = (out + stride - 1) // stride
        return max(0, (fwd - 1) * stride + k - out) // 2
    pt, pl = pad_before(oh, kh), pad_before(ow, kw)
    y = np.zeros((n, oh, ow, o), np.float64)
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for c in range(kw):
                    r, q = i * stride - pt + a, j * stride - pl + c
                    if 0 <= r < oh and 0 <= q < ow:
                        y[:, r, q, :] += x[:, i, j, :].astype(np.float64) @ w[:, a, c, :].T.astype(np.float64)
    if b is not None:
        y += b
    return y


def float_transpose_conv():
    """TRANSPOSE_CONV as TFLite's converter writes it: SAME stride 2 with a bias and
    a fused RELU, then VALID stride 1 without a bias (kernel 2x2)."""
    import numpy as np
    rng = np.random.default_rng(33)
    fm = FloatModel()
    i32 = lambda v: np.array(v, np.int32)
    x = fm.tensor("x", [1, 3, 5, 4])
    w1 = (rng.standard_normal((3, 3, 3, 4)) * 0.3).astype(np.float32)
    b1 = (rng.standard_normal(3) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((2, 2, 2, 3)) * 0.3).astype(np.float32)
    y1 = fm.tensor("up", [1, 6, 10, 3])
    y2 = fm.tensor("grown", [1, 7, 11, 2])
    fm.op(OP.TRANSPOSE_CONV, [fm.tensor("shape1", [4], i32([1, 6, 10, 3]), TT.INT32), fm.tensor("w1", [3, 3, 3, 4], w1),
                              x, fm.tensor("b1", [3], b1)], [y1], BO.TransposeConvOptions,
          options("TransposeConvOptions", Padding=PAD.SAME, StrideW=2, StrideH=2, FusedActivationFunction=ACT.RELU))
    fm.op(OP.TRANSPOSE_CONV, [fm.tensor("shape2", [4], i32([1, 7, 11, 2]), TT.INT32), fm.tensor("w2", [2, 2, 2, 3], w2),
                              y1], [y2], BO.TransposeConvOptions,
          options("TransposeConvOptions", Padding=PAD.VALID, StrideW=1, StrideH=1))
    fm.m["inputs"], fm.m["outputs"] = [x], [y1, y2]

    def evaluate(xv):
        u = np.maximum(np_transpose_conv(xv, w1, b1, 2, (6, 10), "SAME"), 0).astype(np.float32)
        return [u, np_transpose_conv(u, w2, None, 1, (7, 11), "VALID").astype(np.float32)]

    inputs = [rng.standard_normal((1, 3, 5, 4)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", ["up", "grown"])



def int8_tensor_ops():
    """TFLM's byte-moving operators on int8 tensors, whose output keeps the input's
    quantization: GATHER, GATHER_ND, REVERSE_V2, SPACE_TO_DEPTH, MIRROR_PAD,
    BROADCAST_TO, SPLIT_V, REDUCE_MAX, ARG_MAX, DEPTH_TO_SPACE and SELECT_V2 (its
    condition from a comparison of two int8 tensors of one quantization), and
    RELU_N1_TO_1 (a clamp to the quantized [-1, 1] when the scales agree), PAD (with
    the zero point), MAX_POOL_2D and RESIZE_NEAREST_NEIGHBOR (2x). TFLite's kernels copy or
    compare the raw bytes; so must Kiln (exact)."""
    import numpy as np
    rng = np.random.default_rng(34)
    fm = FloatModel()
    S = [1, 4, 6, 4]
    i32 = lambda v: np.array(v, np.int32)
    Q = dict(scale=[0.05], zero_point=[-3])

    def T(name, shape, data=None, tt=TT.INT8, q=True):
        t = fm.tensor(name, shape, data, tt)
        if q and tt == TT.INT8:
            fm.m["tensors"][t].update(**Q)
        return t
    I = lambda name, v: T(name, list(np.array(v).shape), i32(v), TT.INT32)
    x = T("x", S)
    out = {}

    def node(code, name, shape, inputs, tt=TT.INT8, ot=None, o=None):
        out[name] = T(name, shape, tt=tt)
        fm.op(code, inputs, [out[name]], ot, o)
        return out[name]

    node(OP.GATHER, "gather", [1, 4, 2, 4], [x, I("gather_idx", [5, 1])], TT.INT8, BO.GatherOptions,
         options("GatherOptions", Axis=2))
    node(OP.GATHER_ND, "gather_nd", [3, 4], [x, I("gather_nd_idx", [[0, 0, 0], [0, 3, 5], [0, 2, 1]])])
    node(OP.REVERSE_V2, "reverse", S, [x, I("reverse_axes", [2])])
    node(OP.SPACE_TO_DEPTH, "space_to_depth", [1, 2, 3, 16], [x], TT.INT8, BO.SpaceToDepthOptions,
         options("SpaceToDepthOptions", BlockSize=2))
    node(OP.MIRROR_PAD, "mirror_pad", [1, 6, 7, 4], [x, I("mirror_pads", [[0, 0], [2, 0], [0, 1], [0, 0]])], TT.INT8,
         BO.MirrorPadOptions, options("MirrorPadOptions", Mode=0))
    row = T("row", [1, 1, 6, 4])
    fm.op(OP.SLICE, [x, I("row_begin", [0, 2, 0, 0]), I("row_size", [1, 1, 6, 4])], [row], BO.SliceOptions,
          options("SliceOptions"))
    node(OP.BROADCAST_TO, "broadcast", S, [row, I("broadcast_shape", S)])
    s1, s2 = T("split_a", [1, 4, 6, 3]), T("split_b", [1, 4, 6, 1])
    fm.op(OP.SPLIT_V, [x, I("sizes", [-1, 1]), I("split_axis", -1)], [s1, s2], BO.SplitVOptions,
          options("SplitVOptions", NumSplits=2))
    out["split_a"], out["split_b"] = s1, s2
    node(OP.REDUCE_MAX, "reduce_max", [1, 1, 1, 4], [x, I("max_axes", [1, 2])], TT.INT8, BO.ReducerOptions,
         options("ReducerOptions", KeepDims=True))
    node(OP.ARG_MAX, "arg_max", [1, 4, 6], [x, I("argmax_axis", [-1])], TT.INT32, BO.ArgMaxOptions,
         options("ArgMaxOptions", OutputType=TT.INT32))
    flipped = out["reverse"]
    cond = T("greater", S, tt=TT.BOOL)
    fm.op(OP.GREATER, [x, flipped], [cond])
    node(OP.SELECT_V2, "select", S, [cond, x, flipped])
    node(OP.DEPTH_TO_SPACE, "depth_to_space", S, [out["space_to_depth"]], TT.INT8, BO.DepthToSpaceOptions,
         options("DepthToSpaceOptions", BlockSize=2))
    node(OP.RELU_N1_TO_1, "relu_n1_to_1", S, [x])
    node(OP.PAD, "pad", [1, 5, 8, 4], [x, I("pads", [[0, 0], [1, 0], [0, 2], [0, 0]])], TT.INT8, BO.PadOptions,
         options("PadOptions"))
    node(OP.MAX_POOL_2D, "max_pool", [1, 2, 3, 4], [x], TT.INT8, BO.Pool2DOptions,
         options("Pool2DOptions", Padding=PAD.VALID, StrideW=2, StrideH=2, FilterWidth=2, FilterHeight=2))
    node(OP.RESIZE_NEAREST_NEIGHBOR, "resize_nearest", [1, 8, 12, 4], [x, I("resize_size", [8, 12])], TT.INT8,
         BO.ResizeNearestNeighborOptions, options("ResizeNearestNeighborOptions"))
    names = ["gather", "gather_nd", "reverse", "space_to_depth", "mirror_pad", "broadcast", "split_a", "split_b",
             "reduce_max", "arg_max", "select", "depth_to_space", "relu_n1_to_1", "pad", "max_pool", "resize_nearest"]
    fm.m["inputs"], fm.m["outputs"] = [x], [out[n] for n in names]

    def evaluate(xv):
        rev = xv[:, :, ::-1, :]
        return [xv[:, :, [5, 1], :], np.stack([xv[0, 0, 0], xv[0, 3, 5], xv[0, 2, 1]]), rev,
                xv.reshape(1, 2, 2, 3, 2, 4).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 3, 16),
                np.pad(xv, ((0, 0), (2, 0), (0, 1), (0, 0)), mode="reflect"),
                np.broadcast_to(xv[:, 2:3], xv.shape).copy(), xv[..., :3], xv[..., 3:],
                xv.max(axis=(1, 2), keepdims=True), xv.argmax(axis=-1).astype(np.int32),
                np.where(xv > rev, xv, rev), xv,
                # [-1, 1] on the scale 0.05, zero point -3: [-23, 17]
                np.clip(xv, -23, 17).astype(np.int8),
                np.pad(xv, ((0, 0), (1, 0), (0, 2), (0, 0)), constant_values=-3),  # the zero point
                xv.reshape(1, 2, 2, 3, 2, 4).max(axis=(2, 4)),
                xv.repeat(2, axis=1).repeat(2, axis=2)]

    inputs = [rng.integers(-128, 128, S).astype(np.int8) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", names)


def write_float_model(name, model, cases, names):
    from onnx import numpy_helper
    folder = os.path.join(HERE, "models")
    write(os.path.join(folder, name + ".tflite"), build(model))
    in_name, out_names = names
    if isinstance(out_names, str):
        out_names = [out_names]
    for k, (xv, ys) in enumerate(cases):
        d = os.path.join(folder, name, f"test_data_set_{k}")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "input_0.pb"), numpy_helper.from_array(xv, in_name).SerializeToString())
        ys = ys if isinstance(ys, list) else [ys]
        for j, (yv, yn) in enumerate(zip(ys, out_names)):
            write(os.path.join(d, f"output_{j}.pb"), numpy_helper.from_array(yv, yn).SerializeToString())


def build_with_external_buffer(model, index, offset_delta=0):
    """The model with buffer `index` stored after the flatbuffer (the >2 GB layout:
    Buffer.offset/size into the file), 16-byte aligned."""
    m = copy.deepcopy(model)
    data = m["buffers"][index]
    m["external"] = {index: (0xFFFFFFFF, len(data))}  # placeholder of the same encoded size
    length = len(build(m))
    offset = (length + 15) // 16 * 16
    m["external"] = {index: (offset + offset_delta, len(data))}
    flat = build(m)
    assert len(flat) == length
    return flat + bytes(offset - length) + data


def depthwise_layers(fm, rng, x, x_name, qx, layers):
    """DEPTHWISE_CONV_2D int8 layers on x, random per-channel weights and biases;
    layers: (name, kernel (h, w), multiplier, stride (h, w), dilation (h, w), same,
    act, (y_scale, y_zp)). Returns the output tensors and a function of x's int8
    value giving their expected values (tflite_int_ref.depthwise_conv)."""
    import numpy as np
    import tflite_int_ref as R
    c = fm.m["tensors"][x]["shape"][3]
    acts = {None: ACT.NONE, "relu": ACT.RELU, "relu6": ACT.RELU6}
    outs, refs = [], []
    for name, (kh, kw), mult, stride, dil, same, act, qy in layers:
        cout = c * mult
        w = rng.integers(-127, 128, (1, kh, kw, cout)).astype(np.int8)
        ws = [float(np.float32(v)) for v in rng.uniform(0.004, 0.02, cout)]
        bias = rng.integers(-3000, 3000, cout).astype(np.int32)
        wt = fm.tensor(name + "/w", [1, kh, kw, cout], w, TT.INT8)
        fm.m["tensors"][wt].update(scale=ws, zero_point=[0] * cout, qdim=3)
        bt = fm.tensor(name + "/b", [cout], bias, TT.INT32)
        fm.m["tensors"][bt].update(scale=[qx[0] * s for s in ws], zero_point=[0] * cout)
        ref = R.depthwise_conv(np.zeros([1] + fm.m["tensors"][x]["shape"][1:], np.int8), qx, w, ws, bias, qy,
                               stride, dil, same, act)
        yt = fm.tensor(name, list(ref.shape), None, TT.INT8)
        fm.m["tensors"][yt].update(scale=[qy[0]], zero_point=[qy[1]])
        fm.op(OP.DEPTHWISE_CONV_2D, [x, wt, bt], [yt], BO.DepthwiseConv2DOptions,
              options("DepthwiseConv2DOptions", Padding=PAD.SAME if same else PAD.VALID, StrideH=stride[0],
                      StrideW=stride[1], DepthMultiplier=mult, DilationHFactor=dil[0], DilationWFactor=dil[1],
                      FusedActivationFunction=acts[act]))
        outs.append(yt)
        refs.append(lambda xv, w=w, ws=ws, bias=bias, qy=qy, stride=stride, dil=dil, same=same, act=act:
                    R.depthwise_conv(xv, qx, w, ws, bias, qy, stride, dil, same, act))
    return outs, lambda xv: [f(xv) for f in refs]


def int8_depthwise():
    """DEPTHWISE_CONV_2D with a depth multiplier, against tflite_int_ref.depthwise_conv
    (TFLite's per-channel integer reference), exactly: one input channel (the
    Conv2D forms: packed, strip, int16 with a partial clamp, 1x1) and several
    (the depthwise kernel), odd kernels, strides, dilations, both paddings."""
    import numpy as np
    import tflite_int_ref as R
    rng = np.random.default_rng(30)
    fm = FloatModel()
    QX = (0.1, -5)
    x = fm.tensor("x", [1, 9, 11, 4])
    xq = fm.tensor("xq", [1, 9, 11, 4], None, TT.INT8)
    fm.m["tensors"][xq].update(scale=[QX[0]], zero_point=[QX[1]])
    fm.op(OP.QUANTIZE, [x], [xq])
    x1 = fm.tensor("x1", [1, 9, 11, 1], None, TT.INT8)
    fm.m["tensors"][x1].update(scale=[QX[0]], zero_point=[QX[1]])
    fm.op(OP.SLICE, [xq, fm.tensor("x1/begin", [4], np.array([0, 0, 0, 2], np.int32), TT.INT32),
                     fm.tensor("x1/size", [4], np.array([1, 9, 11, 1], np.int32), TT.INT32)], [x1])
    one = [("c1_3x3_m8", (3, 3), 8, (1, 1), (1, 1), True, None, (0.5, 3)),
           ("c1_4x3_m8_relu6", (4, 3), 8, (1, 1), (1, 1), True, "relu6", (0.05, -128)),
           ("c1_10x8_m8_s2", (10, 8), 8, (2, 2), (1, 1), True, "relu", (0.6, -128)),
           ("c1_5x4_m3_s2x3_d2x1", (5, 4), 3, (2, 3), (2, 1), False, None, (0.3, 10)),
           ("c1_2x2_m5_d2_same", (2, 2), 5, (1, 2), (2, 2), True, None, (0.2, -7)),
           ("c1_1x1_m4", (1, 1), 4, (1, 1), (1, 1), False, "relu", (0.1, -128))]
    many = [("c4_3x3_m2_s2", (3, 3), 2, (2, 2), (1, 1), True, None, (0.4, 2)),
            ("c4_2x3_m3_d1x2", (2, 3), 3, (1, 1), (1, 2), False, "relu", (0.3, -128)),
            ("c4_3x3_m4_relu6", (3, 3), 4, (1, 2), (1, 1), True, "relu6", (0.05, -100))]
    outs1, ref1 = depthwise_layers(fm, rng, x1, "x1", QX, one)
    outs4, ref4 = depthwise_layers(fm, rng, xq, "xq", QX, many)
    outputs = outs1 + outs4
    fm.m["inputs"], fm.m["outputs"] = [x], outputs
    names = [fm.m["tensors"][o]["name"] for o in outputs]

    def evaluate(xv):
        xq_v = R.quantize(xv, *QX)
        return ref1(xq_v[..., 2:3]) + ref4(xq_v)

    inputs = [rng.uniform(-13, 13, (1, 9, 11, 4)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, evaluate(xv)) for xv in inputs], ("x", names)


def int8_dw_micro_speech():
    """TFLite Micro's micro_speech layer alone: DEPTHWISE_CONV_2D of the 49x40x1
    spectrogram, 10x8 kernel, depth multiplier 8, stride 2, SAME, RELU (320,000
    MACs), for its instruction count (docs/quantization.md) and exactness."""
    import numpy as np
    import tflite_int_ref as R
    rng = np.random.default_rng(8)
    fm = FloatModel()
    QX = (0.05, -20)
    x = fm.tensor("x", [1, 49, 40, 1])
    xq = fm.tensor("xq", [1, 49, 40, 1], None, TT.INT8)
    fm.m["tensors"][xq].update(scale=[QX[0]], zero_point=[QX[1]])
    fm.op(OP.QUANTIZE, [x], [xq])
    outs, ref = depthwise_layers(fm, rng, xq, "xq", QX,
                                 [("dw", (10, 8), 8, (2, 2), (1, 1), True, "relu", (0.25, -128))])
    fm.m["inputs"], fm.m["outputs"] = [x], outs
    inputs = [rng.uniform(-6, 6, (1, 49, 40, 1)).astype(np.float32) for _ in range(2)]
    return fm.m, [(xv, ref(R.quantize(xv, *QX))) for xv in inputs], ("x", ["dw"])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    write_float_model("float_cnn", *float_cnn())
    write_float_model("float_data_movement", *float_data_movement())
    write_float_model("float_lstm", *float_lstm())
    write_stream_model("float_accumulator", *float_accumulator())
    write_stream_model("float_lstm_stream", *float_lstm_stream())
    write_float_model("int8_delay_line", *int8_delay_line())
    write_float_model("float_resize_matmul", *float_resize_matmul())
    write_float_model("int8_ops", *int8_ops())
    write_float_model("float_misc", *float_misc())
    write_float_model("int8_tables", *int8_tables())
    write_float_model("int8_lstm", *int8_lstm())
    write_float_model("int8_depthwise", *int8_depthwise())
    write_float_model("int8_dw_micro_speech", *int8_dw_micro_speech())
    write_float_model("float_reshape_rank0", *float_reshape_rank0())
    write_float_model("float_math", *float_math())
    write_float_model("float_tensor_ops", *float_tensor_ops())
    write_float_model("float_transpose_conv", *float_transpose_conv())
    write_float_model("int8_tensor_ops", *int8_tensor_ops())

    write(os.path.join(HERE, "models", "int8_misc.tflite"), build(int8_misc()))

    good = tiny_int8_conv()
    valid = build(good)
    write(os.path.join(HERE, "models", "tiny_int8_conv.tflite"), valid)

    cases = {}  # name -> (bytes, expected error fragment)

    def variant(name, expect, edit):
        m = copy.deepcopy(good)
        # deepcopy keeps the option builders (functions) shared, which is fine
        edit(m)
        cases[name] = (build(m), expect)

    write(os.path.join(HERE, "models", "tiny_int8_conv_external.tflite"), build_with_external_buffer(good, 1))
    cases["external_buffer_outside_file"] = (build_with_external_buffer(good, 1, offset_delta=40),
                                             "lies outside the file")

    cases["truncated"] = (valid[: len(valid) // 2], "corrupt or truncated")
    cases["truncated_after_identifier"] = (valid[:12], "corrupt or truncated")
    bad_root = bytearray(valid)
    bad_root[0:4] = struct.pack("<I", len(valid) + 1000)
    cases["root_offset_outside"] = (bytes(bad_root), "corrupt or truncated")
    garbage = bytearray(b"\x00\x00\x00\x00TFL3" + bytes((i * 89 + 7) % 256 for i in range(300)))
    garbage[0:4] = struct.pack("<I", 16)
    cases["garbage_with_identifier"] = (bytes(garbage), "corrupt or truncated")
    vt = bytearray(valid)
    root = struct.unpack("<I", vt[0:4])[0]
    vt[root:root + 4] = struct.pack("<i", -0x7FFFFFF0)  # the root table's vtable offset
    cases["vtable_offset_outside"] = (bytes(vt), "corrupt or truncated")

    variant("buffer_index_out_of_range", "refers to buffer 99 but the model has 3",
            lambda m: m["tensors"][1].update(buffer=99))
    variant("negative_dim", "negative dimension -4", lambda m: m["tensors"][0].update(shape=[1, -4, 4, 2]))
    variant("huge_dims", "more than 2^31-1 elements",
            lambda m: m["tensors"][3].update(shape=[1, 65536, 65536, 3]))
    variant("buffer_too_short", "needs 54", lambda m: m["buffers"].__setitem__(1, m["buffers"][1][:50]))
    variant("missing_options", "missing or wrong builtin options (expected Conv2DOptions)",
            lambda m: m["operators"][0].update(options=None))
    variant("wrong_options_type", "missing or wrong builtin options (expected Pool2DOptions)",
            lambda m: m["operators"][1].update(options_type=BO.Conv2DOptions, options=conv_options()))
    variant("quant_scales_vs_channels", "has 2 quantization scales for axis 0 of size 3",
            lambda m: m["tensors"][1].update(scale=[0.01, 0.02], zero_point=[0, 0]))
    # One zero point for many scales is valid (TFLM applies it to every channel).
    variant("quant_zero_points_vs_scales", "has 3 quantization scales but 2 zero points",
            lambda m: m["tensors"][1].update(zero_point=[0, 0]))
    variant("quant_axis_out_of_range", "quantized along axis 7",
            lambda m: m["tensors"][1].update(qdim=7))
    variant("quant_scale_zero", "quantization scale 0", lambda m: m["tensors"][0].update(scale=[0.0]))
    variant("opcode_index_out_of_range", "refers to operator code 5",
            lambda m: m["operators"][1].update(opcode=5))
    variant("tensor_index_out_of_range", "refers to tensor 42",
            lambda m: m["operators"][0].update(inputs=[0, 42, 2]))
    variant("graph_output_out_of_range", "output list refers to tensor 9", lambda m: m.update(outputs=[9]))
    variant("too_few_inputs", "CONV_2D (operator 0): has 1 inputs, expected 2 to 3",
            lambda m: m["operators"][0].update(inputs=[0]))
    variant("unsupported_op", "SVDF (operator 1): this operator is not supported",
            lambda m: m.update(opcodes=[OP.CONV_2D, OP.SVDF]))
    variant("input_not_produced", "is neither a constant, a model input, nor the output of an earlier operator",
            lambda m: m["operators"].reverse())
    variant("zero_stride", "strides must be positive",
            lambda m: m["operators"][0].update(options=conv_options(stride=0)))
    variant("wrong_output_shape", "gives 4x4", lambda m: m["tensors"][3].update(shape=[1, 5, 4, 3]))
    variant("schema_version", "schema version 2", lambda m: m.update(version=2))
    variant("asymmetric_weights", "must be symmetric", lambda m: m["tensors"][1].update(zero_point=[0, 1, 0]))
    # Hostile values (issue 18): each once compiled, or is a class the ONNX corpus
    # (tests/malformed) covers too.
    conv_opts = lambda **kw: options("Conv2DOptions", **{"Padding": PAD.SAME, "StrideW": 1, "StrideH": 1,
                                                          "FusedActivationFunction": ACT.RELU6, **kw})
    pool_opts = lambda **kw: options("Pool2DOptions", **{"Padding": PAD.VALID, "StrideW": 2, "StrideH": 2,
                                                          "FilterWidth": 2, "FilterHeight": 2, **kw})
    variant("conv_dilation_2p31", "past the 2^31 the kernels index with",  # once compiled: the C wrapped
            lambda m: m["operators"][0].update(options=conv_opts(DilationWFactor=2**31 - 1, DilationHFactor=1)))
    variant("conv_dilation_zero", "dilations must be positive",
            lambda m: m["operators"][0].update(options=conv_opts(DilationWFactor=0, DilationHFactor=1)))
    variant("conv_padding_enum", "unknown padding", lambda m: m["operators"][0].update(options=conv_opts(Padding=7)))
    variant("pool_filter_zero", "the window must not be empty",
            lambda m: m["operators"][1].update(options=pool_opts(FilterWidth=0)))
    variant("pool_stride_zero", "strides must be positive",
            lambda m: m["operators"][1].update(options=pool_opts(StrideH=0)))

    def short_bias(m):
        m["buffers"][2] = m["buffers"][2][:8]
        m["tensors"][2].update(shape=[2], scale=[0.0005, 0.001], zero_point=[0, 0])
    variant("bias_short", "bias 'conv/bias' has shape [2], expected [3]", short_bias)
    variant("quant_scale_nan", "has quantization scale nan", lambda m: m["tensors"][0].update(scale=[float("nan")]))
    variant("quant_zero_point_outside_int8", "has zero point 1000 outside int8",
            lambda m: m["tensors"][0].update(zero_point=[1000]))
    variant("tensor_type_enum", "has element type type 99", lambda m: m["tensors"][0].update(type=99))
    variant("opcode_negative", "BUILTIN_-5 (operator 1): this operator is not supported",
            lambda m: m.update(opcodes=[OP.CONV_2D, -5]))
    variant("tensor_index_negative", "refers to tensor -7", lambda m: m["operators"][1].update(inputs=[-7]))
    variant("rank_100", "has rank 100", lambda m: m["tensors"][0].update(shape=[1] * 100))
    variant("no_outputs", "the model has no outputs", lambda m: m.update(outputs=[]))
    variant("duplicate_output", "is listed twice as a model output", lambda m: m.update(outputs=[4, 4]))
    variant("input_is_constant", "is a constant tensor", lambda m: m.update(inputs=[1]))

    # Found by `make fuzz` (UBSan): a denormal output scale made RELU6's bound
    # 6 / scale inf, converted to int64 (undefined). The file fails later (operator
    # 1 has no input); under the fuzz target's sanitizers it replays from the seed
    # corpus, which holds this folder.
    def denormal_scale(m):
        m["tensors"][3].update(scale=[1e-45])
        m["operators"][1].update(inputs=[-1])
    variant("fuzz_denormal_scale_relu6", "MAX_POOL_2D (operator 1): input 0 is missing", denormal_scale)

    # Invalid parameters of the int8 operators beyond MLPerf Tiny's (int8_ops).
    ops_model = int8_ops()[0]

    def ops_variant(name, expect, edit):
        m = copy.deepcopy(ops_model)
        by_name = {t["name"]: t for t in m["tensors"]}
        edit(m, by_name)
        cases[name] = (build(m), expect)

    ops_variant("mean_axis_out_of_range", "MEAN (operator 2): axis 4 is out of range for rank 4",
                lambda m, t: m["buffers"].__setitem__(t["mean_hw/axes"]["buffer"], struct.pack("<2i", 1, 4)))
    ops_variant("resize_bilinear_requantizes", "RESIZE_BILINEAR (operator 4): input and output must have the same quantization",
                lambda m, t: t["resize_half_pixel"].update(scale=[0.25]))
    ops_variant("batch_matmul_inner_dims", "BATCH_MATMUL (operator 8): inner dimensions differ",
                lambda m, t: t["matmul_const/w"].update(shape=[1, 5, 3]))

    # Int8 LSTMs that TFLite Micro's integer kernel does not take.
    lstm_model = int8_lstm()[0]

    def lstm_variant(name, expect, edit):
        m = copy.deepcopy(lstm_model)
        edit(m, {t["name"]: t for t in m["tensors"]})
        cases[name] = (build(m), expect)

    lstm_variant("lstm_int8_cell_scale_not_power_of_two",
                 "UNIDIRECTIONAL_SEQUENCE_LSTM (operator 1): the cell state scale must be a power of two",
                 lambda m, t: t["lstm/cell_state"].update(scale=[0.0003]))
    lstm_variant("lstm_int8_asymmetric_weights", "UNIDIRECTIONAL_SEQUENCE_LSTM (operator 2): weights 'lstm_tm/r_c' must be symmetric",
                 lambda m, t: t["lstm_tm/r_c"].update(zero_point=[3]))
    lstm_variant("lstm_int8_bias_overflow", "could overflow the int32 accumulator",
                 lambda m, t: m["buffers"].__setitem__(t["lstm/b_f"]["buffer"], struct.pack("<5i", *[2 ** 31 - 1] * 5)))
    lstm_variant("lstm_int8_output_quantization",
                 "UNIDIRECTIONAL_SEQUENCE_LSTM (operator 1): output 'lstm/hidden' must have the hidden state's quantization",
                 lambda m, t: t["lstm/hidden"].update(scale=[0.01]))

    # Resource variables Kiln cannot keep (float_accumulator's operators: 0, 1
    # VAR_HANDLE sum / count, 2 READ_VARIABLE, 3 ADD, 4 ASSIGN_VARIABLE, ...).
    acc_model = float_accumulator()[0]

    def acc_variant(name, expect, edit):
        m = copy.deepcopy(acc_model)
        edit(m, {t["name"]: t for t in m["tensors"]})
        cases[name] = (build(m), expect)

    def call_once(m, t):
        m["opcodes"].append(OP.CALL_ONCE)
        m["operators"].insert(0, {"opcode": len(m["opcodes"]) - 1, "inputs": [], "outputs": []})
    acc_variant("variables_call_once", "CALL_ONCE (operator 0): CALL_ONCE runs another subgraph once", call_once)
    acc_variant("variables_read_without_handle",
                "READ_VARIABLE (operator 2): input 0 ('frame') is not the handle of an earlier VAR_HANDLE",
                lambda m, t: m["operators"][2].update(inputs=[m["tensors"].index(t["frame"])]))
    acc_variant("variables_assign_other_shape",
                "ASSIGN_VARIABLE (operator 4): assigns float32 [1] to variable 'stream/sum' (float32 [1,4])",
                lambda m, t: m["operators"][4].update(inputs=[m["operators"][4]["inputs"][0],
                                                              m["tensors"].index(t["half"])]))
    acc_variant("variables_read_other_type",
                "READ_VARIABLE (operator 5): tensor 'count_before' (float32 [1]) does not match variable 'stream/sum' (float32 [1,4])",
                lambda m, t: m["operators"][5].update(inputs=[m["operators"][0]["outputs"][0]]))

    out = os.path.join(HERE, "malformed")
    # Inputs found by `make fuzz` as they were found (mutants of the test models),
    # kept byte for byte: each was an internal error or a sanitizer report.
    raw = {
        # ADD reads its own output tensor: a cycle, found only by the scheduler.
        "fuzz_raw_add_reads_own_output": "output 'add' is also one of its inputs",
        # ADD's inputs [5,8] and [8] against a declared output [1,2,2,8]: folding
        # broadcast into the declared shape.
        "fuzz_raw_add_declared_shape": "not to the declared output shape",
        # A zero_point vector ([long]) whose 8-byte elements are not 8-byte aligned
        # (the flatbuffer verifier checks only the length word): read through an
        # int64 pointer, undefined behaviour (UBSan); now copied out, and this
        # file's zero point is out of range.
        "fuzz_raw_misaligned_zero_point": "has zero point 25769803780 out of the int32 range",
        # A scale ratio of 2^30 or more before an int8 LEAKY_RELU / requantizing op:
        # adding the zero point to the saturated rescale overflowed int32 while the
        # lookup table was built (UBSan; LookupTables.HugeScaleRatiosSaturate), before
        # the error each file also holds.
        "fuzz_raw_leaky_relu_table_overflow": "STRIDED_SLICE (operator 30): the slice gives [0,2,3,2] but the output is [1,2,3,2]",
        "fuzz_raw_requantize_table_overflow": "UNPACK (operator 19): input 'packed' and output 'unpacked0' have different quantization",
    }
    for name, expect in raw.items():
        with open(os.path.join(out, name + ".tflite"), "rb") as f:
            cases[name] = (f.read(), expect)
    for f in os.listdir(out):
        if f.endswith(".tflite"):
            os.remove(os.path.join(out, f))
    with open(os.path.join(out, "EXPECTED.txt"), "w") as listing:
        listing.write("# file<TAB>part of the one-line error `kiln compile` must print (tests/malformed/run_malformed.sh runs each)\n")
        for name, (data, expect) in sorted(cases.items()):
            write(os.path.join(out, name + ".tflite"), data)
            listing.write(f"{name}.tflite\t{expect}\n")
    print(f"wrote models/tiny_int8_conv.tflite and {len(cases)} malformed files")


if __name__ == "__main__":
    main()
