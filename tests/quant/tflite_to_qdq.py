#!/usr/bin/env python3
"""Writes the ONNX QDQ version of an int8 TFLite model (the MLPerf Tiny models).

    tflite_to_qdq.py MODEL.tflite OUT.onnx
    tflite_to_qdq.py --nchw MODEL.tflite OUT.onnx [TEST_DATA_SET ...]

The ONNX model computes the same network the way ONNX's quantization tools write
it: int8 tensors between DequantizeLinear -> float op -> QuantizeLinear groups,
constant int8 weights behind a per-channel DequantizeLinear (OIHW), int32 biases
dequantized with scale x_scale * w_scale, fused activations as Relu / Clip before
the QuantizeLinear. Inputs and outputs keep the TFLite model's names, int8 dtype
and NHWC layout (a Transpose to NCHW follows the input), so the test data of the
.tflite model feeds the ONNX model unchanged.

With --nchw the model is what a PyTorch export looks like instead: its 4-D inputs
and outputs are NCHW (no Transpose at the boundary; the first conv reads the input
as it comes). Each TEST_DATA_SET folder given is then written again next to
OUT.onnx, as <OUT stem>_data/<folder name>/, with its 4-D tensors transposed to NCHW.

The .tflite flatbuffer is read with a small reader of the TFLite schema written
here (field numbers from tensorflow/lite/schema/schema.fbs), on top of the
`flatbuffers` package's Table.
"""
import os
import sys

import flatbuffers
import numpy as np
import onnx
from flatbuffers.table import Table
from onnx import TensorProto, helper, numpy_helper

# ---- a minimal reader of the TFLite schema -------------------------------------


class T:
    """A flatbuffer table with typed field access by field number."""

    def __init__(self, buf, pos):
        self.t = Table(buf, pos)

    def _off(self, field):
        return self.t.Offset(4 + 2 * field)

    def scalar(self, field, flags, default=0):
        o = self._off(field)
        return self.t.Get(flags, o + self.t.Pos) if o else default

    def table(self, field):
        o = self._off(field)
        return T(self.t.Bytes, self.t.Indirect(o + self.t.Pos)) if o else None

    def string(self, field):
        o = self._off(field)
        return self.t.String(o + self.t.Pos).decode() if o else ""

    def vector(self, field, flags=None, size=None):
        """A vector of scalars (numpy via flags/size) or, without flags, of tables."""
        o = self._off(field)
        if not o:
            return [] if flags is None else np.zeros(0)
        n = self.t.VectorLen(o)
        start = self.t.Vector(o)
        if flags is None:
            return [T(self.t.Bytes, self.t.Indirect(start + 4 * i)) for i in range(n)]
        return np.frombuffer(self.t.Bytes, dtype=flags, count=n, offset=start)


NT = flatbuffers.number_types
TENSOR_TYPES = {0: np.float32, 2: np.int32, 3: np.uint8, 4: np.int64, 7: np.int16, 9: np.int8}
BUILTIN = {0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
           6: "DEQUANTIZE", 9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU",
           21: "RELU6", 22: "RESHAPE", 25: "SOFTMAX", 28: "TANH", 34: "PAD", 40: "MEAN", 114: "QUANTIZE"}
ACT = {0: None, 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}


class Tensor:
    def __init__(self, t, buffers):
        self.shape = [int(d) for d in t.vector(0, np.int32)]
        self.type = TENSOR_TYPES[t.scalar(1, NT.Int8Flags)]
        self.name = t.string(3)
        q = t.table(4)
        self.scale = np.array(q.vector(2, np.float32), dtype=np.float32) if q else np.zeros(0, np.float32)
        self.zero_point = np.array(q.vector(3, np.int64), dtype=np.int64) if q else np.zeros(0, np.int64)
        self.axis = q.scalar(6, NT.Int32Flags) if q else 0
        b = buffers[t.scalar(2, NT.Uint32Flags)]
        data = b.vector(0, np.uint8)
        self.data = data.view(self.type).reshape(self.shape) if len(data) else None


def read_tflite(path):
    buf = bytearray(open(path, "rb").read())
    model = T(buf, flatbuffers.encode.Get(flatbuffers.packer.uoffset, buf, 0))
    codes = []
    for oc in model.vector(1):
        code = oc.scalar(3, NT.Int32Flags)
        codes.append(max(code, oc.scalar(0, NT.Int8Flags)))
    buffers = model.vector(4)
    sg = model.vector(2)[0]
    tensors = [Tensor(t, buffers) for t in sg.vector(0)]
    ops = []
    for op in sg.vector(3):
        code = codes[op.scalar(0, NT.Uint32Flags)]
        if code not in BUILTIN:
            raise SystemExit(f"{path}: builtin operator {code} is not supported by this script")
        ops.append((BUILTIN[code], [int(i) for i in op.vector(1, np.int32)],
                    [int(i) for i in op.vector(2, np.int32)], op.table(4)))
    return tensors, [int(i) for i in sg.vector(1, np.int32)], [int(i) for i in sg.vector(2, np.int32)], ops


# ---- the ONNX QDQ graph -----------------------------------------------------------


class Builder:
    def __init__(self, tensors):
        self.tensors = tensors
        self.nodes, self.inits = [], []
        self.nchw = {}  # tflite tensor index -> ONNX int8 value name (NCHW for 4-D)
        self.count = 0

    def fresh(self, p):
        self.count += 1
        return f"{p}_{self.count}"

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, ins, outs=None, **attrs):
        outs = outs or [self.fresh(op.lower())]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.fresh(op), **attrs))
        return outs[0]

    def params(self, t):
        s = self.init(self.fresh("scale"), np.float32(t.scale[0]))
        z = self.init(self.fresh("zp"), np.int8(t.zero_point[0]))
        return s, z

    def dq(self, i):
        s, z = self.params(self.tensors[i])
        return self.node("DequantizeLinear", [self.nchw[i], s, z])

    def q(self, real, i, act=None):
        t = self.tensors[i]
        if act == "RELU":
            real = self.node("Relu", [real])
        elif act in ("RELU6", "RELU_N1_TO_1"):
            lo, hi = (0.0, 6.0) if act == "RELU6" else (-1.0, 1.0)
            real = self.node("Clip", [real, self.init(self.fresh("lo"), np.float32(lo)),
                                      self.init(self.fresh("hi"), np.float32(hi))])
        s, z = self.params(t)
        self.nchw[i] = self.node("QuantizeLinear", [real, s, z])

    def weights(self, i, oihw):
        """Per-channel (axis 0) symmetric int8 weights, dequantized."""
        t = self.tensors[i]
        w = self.init(self.fresh("w"), oihw.astype(np.int8))
        s = self.init(self.fresh("w_scale"), t.scale.astype(np.float32))
        return self.node("DequantizeLinear", [w, s], axis=0)

    def bias(self, i, x, w):
        if i < 0:
            return []
        t = self.tensors[i]
        b = self.init(self.fresh("b"), t.data.astype(np.int32))
        scale = (np.float32(self.tensors[x].scale[0]) * self.tensors[w].scale).astype(np.float32)
        s = self.init(self.fresh("b_scale"), scale)
        return [self.node("DequantizeLinear", [b, s], axis=0)]


def pads_for(padding, in_hw, k_hw, strides, dil):
    if padding == 1:  # VALID
        return [0, 0, 0, 0]
    pads = [0, 0, 0, 0]
    for d in range(2):
        out = (in_hw[d] + strides[d] - 1) // strides[d]
        total = max(0, (out - 1) * strides[d] + (k_hw[d] - 1) * dil[d] + 1 - in_hw[d])
        pads[d], pads[d + 2] = total // 2, total - total // 2
    return pads


def nchw_shape(shape):
    return [shape[0], shape[3], shape[1], shape[2]] if len(shape) == 4 else shape


def convert(path, out_path, nchw=False):
    tensors, inputs, outputs, ops = read_tflite(path)
    b = Builder(tensors)
    graph_inputs, graph_outputs = [], []
    for i in inputs:
        t = tensors[i]
        if nchw:
            graph_inputs.append(helper.make_tensor_value_info(t.name, TensorProto.INT8, nchw_shape(t.shape)))
            b.nchw[i] = t.name
            continue
        graph_inputs.append(helper.make_tensor_value_info(t.name, TensorProto.INT8, t.shape))
        b.nchw[i] = b.node("Transpose", [t.name], perm=[0, 3, 1, 2]) if len(t.shape) == 4 else t.name

    for op, ins, outs, opt in ops:
        T4 = lambda i: tensors[i].shape  # noqa: E731
        if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            dw = op == "DEPTHWISE_CONV_2D"
            x, w, bi = ins[0], ins[1], ins[2] if len(ins) > 2 else -1
            n, h, wd, c = T4(x)
            wt = tensors[w].data
            if dw:  # [1, KH, KW, Cout] -> [Cout, 1, KH, KW]
                kh, kw = wt.shape[1], wt.shape[2]
                oihw = wt.transpose(3, 0, 1, 2)
                act = ACT[opt.scalar(4, NT.Int8Flags)]
                strides = [opt.scalar(2, NT.Int32Flags), opt.scalar(1, NT.Int32Flags)]
                dil = [opt.scalar(6, NT.Int32Flags, 1), opt.scalar(5, NT.Int32Flags, 1)]
                group = c
            else:  # OHWI -> OIHW
                kh, kw = wt.shape[1], wt.shape[2]
                oihw = wt.transpose(0, 3, 1, 2)
                act = ACT[opt.scalar(3, NT.Int8Flags)]
                strides = [opt.scalar(2, NT.Int32Flags), opt.scalar(1, NT.Int32Flags)]
                dil = [opt.scalar(5, NT.Int32Flags, 1), opt.scalar(4, NT.Int32Flags, 1)]
                group = 1
            pads = pads_for(opt.scalar(0, NT.Int8Flags), [h, wd], [kh, kw], strides, dil)
            y = b.node("Conv", [b.dq(x), b.weights(w, oihw)] + b.bias(bi, x, w), kernel_shape=[kh, kw],
                       strides=strides, dilations=dil, pads=pads, group=group)
            b.q(y, outs[0], act)
        elif op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
            x = ins[0]
            strides = [opt.scalar(2, NT.Int32Flags), opt.scalar(1, NT.Int32Flags)]
            k = [opt.scalar(4, NT.Int32Flags), opt.scalar(3, NT.Int32Flags)]
            pads = pads_for(opt.scalar(0, NT.Int8Flags), T4(x)[1:3], k, strides, [1, 1])
            kind = "AveragePool" if op == "AVERAGE_POOL_2D" else "MaxPool"
            y = b.node(kind, [b.dq(x)], kernel_shape=k, strides=strides, pads=pads)
            b.q(y, outs[0], ACT[opt.scalar(5, NT.Int8Flags)])
        elif op == "FULLY_CONNECTED":
            x, w, bi = ins[0], ins[1], ins[2] if len(ins) > 2 else -1
            wt = tensors[w].data  # [Nout, K]
            xin = b.dq(x)
            if len(T4(x)) != 2:
                raise SystemExit("FULLY_CONNECTED on a non-2-D input is not supported by this script")
            y = b.node("Gemm", [xin, b.weights(w, wt)] + b.bias(bi, x, w), transB=1)
            b.q(y, outs[0], ACT[opt.scalar(0, NT.Int8Flags)])
        elif op == "ADD":
            y = b.node("Add", [b.dq(ins[0]), b.dq(ins[1])])
            b.q(y, outs[0], ACT[opt.scalar(0, NT.Int8Flags)])
        elif op == "RESHAPE":
            x = ins[0]
            src = b.nchw[x]
            if len(T4(x)) == 4:  # TFLite reshapes NHWC bytes
                src = b.node("Transpose", [src], perm=[0, 2, 3, 1])
            shape = b.init(b.fresh("shape"), np.array(tensors[outs[0]].shape, np.int64))
            y = b.node("Reshape", [src, shape])
            if len(tensors[outs[0]].shape) == 4:
                y = b.node("Transpose", [y], perm=[0, 3, 1, 2])
            b.nchw[outs[0]] = y  # int8 data movement: same quantization
        elif op == "SOFTMAX":
            beta = opt.scalar(0, NT.Float32Flags, 1.0) if opt else 1.0
            if beta != 1.0:
                raise SystemExit("SOFTMAX with beta != 1 is not supported by this script")
            y = b.node("Softmax", [b.dq(ins[0])], axis=-1)
            b.q(y, outs[0])
        else:
            raise SystemExit(f"{path}: {op} is not supported by this script")

    for o in outputs:
        t = tensors[o]
        src = b.nchw[o]
        if len(t.shape) == 4 and not nchw:
            src = b.node("Transpose", [src], perm=[0, 2, 3, 1])
        b.node("Identity", [src], [t.name])
        shape = nchw_shape(t.shape) if nchw else t.shape
        graph_outputs.append(helper.make_tensor_value_info(t.name, TensorProto.INT8, shape))

    graph = helper.make_graph(b.nodes, path.split("/")[-1].replace(".tflite", ""), graph_inputs, graph_outputs,
                              b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="tflite_to_qdq.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    onnx.save(model, out_path)


def write_nchw_data(out_path, data_sets):
    """Each test data set again, its 4-D tensors (.pb) transposed NHWC -> NCHW."""
    stem = os.path.splitext(os.path.abspath(out_path))[0]
    for d in data_sets:
        dst = os.path.join(stem + "_data", os.path.basename(os.path.normpath(d)))
        os.makedirs(dst, exist_ok=True)
        for f in sorted(os.listdir(d)):
            if not f.endswith(".pb"):
                continue
            t = onnx.TensorProto()
            with open(os.path.join(d, f), "rb") as fh:
                t.ParseFromString(fh.read())
            a = numpy_helper.to_array(t)
            if a.ndim == 4:
                a = np.ascontiguousarray(a.transpose(0, 3, 1, 2))
            with open(os.path.join(dst, f), "wb") as fh:
                fh.write(numpy_helper.from_array(a, t.name).SerializeToString())


if __name__ == "__main__":
    args = sys.argv[1:]
    nchw = bool(args) and args[0] == "--nchw"
    if nchw:
        args = args[1:]
    if len(args) < 2 or (len(args) > 2 and not nchw):
        raise SystemExit(__doc__)
    convert(args[0], args[1], nchw)
    if nchw:
        write_nchw_data(args[1], args[2:])
