#!/usr/bin/python3
"""Writes small models in the forms of ai.onnx opsets 18..21 (the operators whose
signature changed, the new operators Kiln expands, a model-local function) and one
test data set each, <name>.onnx + <name>_data/. The installed ONNX (1.12) has no
schemas past opset 17 and no onnx.reference, so the models are not run through
onnx.checker and every expected output is computed here with numpy, directly from
the operator definitions in ONNX's Operators.md.
Run: /usr/bin/python3 make_newer_opset_models.py"""
import math
import os

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(18)
F = TensorProto.FLOAT


def save(name, opset, nodes, inputs, outputs, initializers=(), functions=(), extra_opsets=()):
    """inputs / outputs: lists of (name, numpy array); shapes and types come from the arrays."""

    def vi(n, a):
        return helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))

    graph = helper.make_graph(nodes, name, [vi(n, a) for n, a in inputs], [vi(n, a) for n, a in outputs],
                              [numpy_helper.from_array(a, n) for n, a in initializers])
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="kiln-tests", functions=list(functions))
    model.ir_version = 8 if opset <= 18 else 9 if opset <= 20 else 10
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    d = os.path.join(HERE, name + "_data")
    os.makedirs(d, exist_ok=True)
    for j, (_, a) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "input_%d.pb" % j))
    for j, (_, a) in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "output_%d.pb" % j))
    print(name, [(n, a.shape) for n, a in outputs])


def rand(*shape):
    return rng.uniform(-2, 2, size=shape).astype(np.float32)


def const_node(out, array):
    return helper.make_node("Constant", [], [out], value=numpy_helper.from_array(array))


# ---- Reduce* with axes as an input (opset 18) ----------------------------------
x = rand(2, 3, 4)
save("reduce18", 18,
     [
         helper.make_node("ReduceMean", ["x", "axes1"], ["mean"], keepdims=1),
         const_node("axes_last", np.array([-1], np.int64)),
         helper.make_node("ReduceMax", ["x", "axes_last"], ["max"], keepdims=0),
         helper.make_node("ReduceSumSquare", ["x"], ["sumsq"], keepdims=0),  # no axes: every axis
         helper.make_node("ReduceL2", ["x", "no_axes"], ["same"], noop_with_empty_axes=1),  # empty axes: identity
         helper.make_node("ReduceLogSumExp", ["x", "axes02"], ["lse"], keepdims=1),
     ],
     [("x", x)],
     [("mean", x.mean(axis=1, keepdims=True)), ("max", x.max(axis=-1)),
      ("sumsq", np.array((x.astype(np.float64) ** 2).sum(), np.float32)), ("same", x),
      ("lse", np.log(np.exp(x.astype(np.float64)).sum(axis=(0, 2), keepdims=True)).astype(np.float32))],
     [("axes1", np.array([1], np.int64)), ("no_axes", np.array([], np.int64)), ("axes02", np.array([0, 2], np.int64))])

# ---- Split with num_outputs (opset 18): uneven (last chunk smaller) and even ----
x = rand(4, 7)
save("split18", 18,
     [
         helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3),
         helper.make_node("Split", ["x"], ["top", "bottom"], axis=0, num_outputs=2),
     ],
     [("x", x)],
     [("a", x[:, 0:3]), ("b", x[:, 3:6]), ("c", x[:, 6:7]), ("top", x[0:2]), ("bottom", x[2:4])])

# ---- Pad with axes (opset 18), edge mode at opset 19 ----------------------------
x = rand(1, 2, 3, 4)


def pad_ref(a, pads, mode, value=0.0):
    r = a.ndim
    width = [(pads[i], pads[i + r]) for i in range(r)]
    if mode == "constant":
        return np.pad(a, width, mode="constant", constant_values=value)
    return np.pad(a, width, mode={"reflect": "reflect", "edge": "edge"}[mode])


for opset, mode in ((18, "constant"), (19, "edge")):
    pads_2d = np.array([1, 2, 0, 1], np.int64)  # begin for axes (2, -1), then end
    nodes = [helper.make_node("Pad", ["x", "pads", "value", "axes"], ["y"], mode=mode)]
    inits = [("pads", pads_2d), ("value", np.array(0.5, np.float32)), ("axes", np.array([2, -1], np.int64))]
    nodes.append(helper.make_node("Pad", ["x", "pads1", "", "axes1"], ["z"], mode="reflect"))
    inits += [("pads1", np.array([2, 1], np.int64)), ("axes1", np.array([3], np.int64))]
    full = [0, 0, 1, 2, 0, 0, 0, 1]
    save("pad%d" % opset, opset, nodes, [("x", x)],
         [("y", pad_ref(x, full, mode, 0.5)), ("z", pad_ref(x, [0, 0, 0, 2, 0, 0, 0, 1], "reflect"))], inits)

# ---- Resize with axes (opset 18): nearest, scales and sizes on some axes ---------
x = rand(1, 2, 3, 4)


def nearest_indices(n_in, n_out, scale):
    # half_pixel coordinates, round_prefer_floor (the defaults).
    idx = []
    for o in range(n_out):
        c = (o + 0.5) / scale - 0.5
        i = math.floor(c) if c - math.floor(c) == 0.5 else int(round(c))
        idx.append(min(max(i, 0), n_in - 1))
    return np.array(idx)


yh = nearest_indices(3, 6, 2.0)
yw = nearest_indices(4, 6, 1.5)
save("resize18", 18,
     [
         helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest", axes=[2, 3]),
         helper.make_node("Resize", ["x", "", "", "sizes"], ["z"], mode="nearest", axes=[-1]),
     ],
     [("x", x)],
     [("y", x[:, :, yh][:, :, :, yw]), ("z", x[:, :, :, yw])],
     [("scales", np.array([2.0, 1.5], np.float32)), ("sizes", np.array([6], np.int64))])

# ---- Scatter reductions max / min (opset 18) ------------------------------------
data = rand(3, 4)
idx = np.array([[0, 1, 0, 2], [2, 1, 2, 0]], np.int64)
upd = rand(2, 4)
se = data.copy()
for i in range(2):
    for j in range(4):
        se[idx[i, j], j] = max(se[idx[i, j], j], upd[i, j])
nd_idx = np.array([[1], [0], [1]], np.int64)
nd_upd = rand(3, 4)
sn = data.copy()
for k in range(3):
    sn[nd_idx[k, 0]] = np.minimum(sn[nd_idx[k, 0]], nd_upd[k])
save("scatter18", 18,
     [
         helper.make_node("ScatterElements", ["data", "idx", "upd"], ["se"], axis=0, reduction="max"),
         helper.make_node("ScatterND", ["data", "nd_idx", "nd_upd"], ["sn"], reduction="min"),
     ],
     [("data", data), ("upd", upd), ("nd_upd", nd_upd)], [("se", se), ("sn", sn)],
     [("idx", idx), ("nd_idx", nd_idx)])

# ---- Pooling with the new default attributes spelled out (opsets 18, 19) ---------
x = rand(1, 2, 5, 5)
avg = np.zeros((1, 2, 4, 4), np.float32)
lp = np.zeros((1, 2, 4, 4), np.float32)
for i in range(4):
    for j in range(4):
        w = x[:, :, i:i + 2, j:j + 2].astype(np.float64)
        avg[:, :, i, j] = w.mean(axis=(2, 3))
        lp[:, :, i, j] = np.sqrt((w ** 2).sum(axis=(2, 3)))
save("pool19", 19,
     [
         helper.make_node("AveragePool", ["x"], ["avg"], kernel_shape=[2, 2], dilations=[1, 1]),
         helper.make_node("LpPool", ["x"], ["lp"], kernel_shape=[2, 2], p=2, ceil_mode=0, dilations=[1, 1]),
     ],
     [("x", x)], [("avg", avg), ("lp", lp)])

# ---- New operators expanded into opset-17 ones --------------------------------------
x = rand(2, 3, 4)
save("mish18", 18, [helper.make_node("Mish", ["x"], ["y"])], [("x", x)],
     [("y", (x * np.tanh(np.log1p(np.exp(x.astype(np.float64))))).astype(np.float32))])

erf = np.vectorize(math.erf)
xd = x.astype(np.float64)
save("gelu20", 20,
     [helper.make_node("Gelu", ["x"], ["exact"]), helper.make_node("Gelu", ["x"], ["approx"], approximate="tanh")],
     [("x", x)],
     [("exact", (0.5 * xd * (1 + erf(xd / math.sqrt(2)))).astype(np.float32)),
      ("approx", (0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))).astype(np.float32))])


def group_norm(a, groups, scale, bias, eps, per_channel):
    n, c = a.shape[:2]
    g = a.astype(np.float64).reshape(n, groups, -1)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    if per_channel:
        y = g.reshape(n, c, -1) * scale.reshape(c, 1) + bias.reshape(c, 1)
    else:
        y = g * scale.reshape(groups, 1) + bias.reshape(groups, 1)
    return y.reshape(a.shape).astype(np.float32)


x = rand(2, 6, 3, 2)
for opset, per_channel in ((18, False), (21, True)):
    n_affine = 6 if per_channel else 3
    scale, bias = rand(n_affine), rand(n_affine)
    save("groupnorm%d" % opset, opset,
         [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=3, epsilon=1e-3)],
         [("x", x)], [("y", group_norm(x, 3, scale, bias, 1e-3, per_channel))], [("scale", scale), ("bias", bias)])

# ---- Operators whose opset-21 versions only add types, and QuantizeLinear-21 -------
x = rand(2, 3, 4)
scale = np.array(0.02, np.float32)
q = np.clip(np.round(x.transpose(0, 2, 1) / scale), -128, 127).astype(np.int8)
save("misc21", 21,
     [
         helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
         helper.make_node("QuantizeLinear", ["t", "scale"], ["q"], output_dtype=TensorProto.INT8),
         helper.make_node("DequantizeLinear", ["q", "scale"], ["dq"]),
         helper.make_node("Flatten", ["dq"], ["flat"], axis=1),
         helper.make_node("Unsqueeze", ["flat", "ax0"], ["u"]),
         helper.make_node("Squeeze", ["u", "ax0"], ["s"]),
         helper.make_node("Shape", ["s"], ["shape"]),
         helper.make_node("Reshape", ["s", "shape"], ["r"]),
         helper.make_node("Cast", ["r"], ["c"], to=TensorProto.FLOAT, saturate=1),
         helper.make_node("Identity", ["c"], ["y"]),
     ],
     [("x", x)], [("q", q), ("y", (q.astype(np.float32) * scale).reshape(2, 12))],
     [("scale", scale), ("ax0", np.array([0], np.int64))])

# ---- A model-local function (as PyTorch's dynamo exporter writes them) -------------
alpha_ref = AttributeProto()
alpha_ref.name = "alpha"
alpha_ref.type = AttributeProto.FLOAT
alpha_ref.ref_attr_name = "alpha"
leaky = helper.make_node("LeakyRelu", ["s"], ["y"])
leaky.attribute.append(alpha_ref)
fn = helper.make_function("local.fn", "AddLeaky", ["a", "b"], ["y"],
                          [helper.make_node("Add", ["a", "b"], ["s"]), leaky],
                          [helper.make_opsetid("", 18)], ["alpha"])
x, b = rand(3, 4), rand(4)


def leaky_ref(v, alpha):
    return np.where(v >= 0, v, v * np.float32(alpha)).astype(np.float32)


save("function18", 18,
     [
         helper.make_node("AddLeaky", ["x", "b"], ["h"], domain="local.fn", alpha=0.1),
         helper.make_node("AddLeaky", ["h", "b"], ["y"], domain="local.fn", alpha=0.3),
     ],
     [("x", x)], [("y", leaky_ref(leaky_ref(x + b, 0.1) + b, 0.3))], [("b", b)],
     functions=[fn], extra_opsets=[("local.fn", 1)])
