#!/usr/bin/python3
"""Writes Loops whose trip count or stop condition only becomes a constant after
folding, and their test data (numpy references): <name>.onnx + <name>_data/.

shape_trip     x [n, 4] of open n; M = Shape(x)[0]; the body adds row i of x to a
               decaying state and emits Relu of it: s_{i+1} = 0.5 s_i + x[i],
               ys[i] = relu(s_{i+1}). Compiled with --input-shape x=3,4: M = 3 once
               Shape folds, the scan output ys is [3, 4].
computed_trip  x [n, k] of open n, k; M = Shape(x)[0] * 2 + 1 (Mul / Add of a folded
               Shape), and the body stops once i + 1 reaches k (cond_out =
               Less(i + 1, Shape(x)[1])): s_{i+1} = 0.5 s_i + mean_rows(x) * (i + 1).
               With --input-shape x=2,4: M = 5 and the stop after 4 steps are both
               decided by folding, so the loop unrolls to exactly 4 steps, with no
               run-time selects.
Run: /usr/bin/python3 make_folded_trip_models.py"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from test_model_files import f32, i64, save_graph, write_data  # noqa: E402
rng = np.random.default_rng(152)


def save(graph, name):
    save_graph(graph, os.path.join(HERE, name + ".onnx"))



# ---- shape_trip ---------------------------------------------------------------------
body = helper.make_graph(
    [
        helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
        helper.make_node("Mul", ["s_in", "half"], ["decayed"]),
        helper.make_node("Add", ["decayed", "row"], ["s_out"]),
        helper.make_node("Relu", ["s_out"], ["y"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [4]),
     helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
)
graph = helper.make_graph(
    [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["M"], axis=0),
        helper.make_node("Loop", ["M", "", "s0"], ["s", "ys"], body=body, name="rows"),
    ],
    "shape_trip",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4])],
    [helper.make_tensor_value_info("s", TensorProto.FLOAT, [4]),
     helper.make_tensor_value_info("ys", TensorProto.FLOAT, ["n", 4])],
    [i64("zero", 0), f32("s0", [0.25, -0.5, 1.0, 0.0]), f32("half", 0.5)],
)
save(graph, "shape_trip")
x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
s = np.array([0.25, -0.5, 1.0, 0.0], np.float32)
ys = []
for i in range(3):
    s = (s * np.float32(0.5) + x[i]).astype(np.float32)
    ys.append(np.maximum(s, 0))
write_data(os.path.join(HERE, "shape_trip_data"), [x], [s, np.stack(ys)])

# ---- computed_trip ------------------------------------------------------------------
body = helper.make_graph(
    [
        helper.make_node("Add", ["i", "one"], ["next"]),
        helper.make_node("Cast", ["next"], ["next_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["mean", "next_f"], ["step"]),
        helper.make_node("Mul", ["s_in", "half"], ["decayed"]),
        helper.make_node("Add", ["decayed", "step"], ["s_out"]),
        helper.make_node("Less", ["next", "k"], ["cond_out"]),
    ],
    "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_in", TensorProto.FLOAT, ["k"])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("s_out", TensorProto.FLOAT, ["k"])],
)
graph = helper.make_graph(
    [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["k"], axis=0),
        helper.make_node("Mul", ["n", "two"], ["n2"]),
        helper.make_node("Add", ["n2", "one"], ["M"]),
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[0], keepdims=0),
        helper.make_node("Mul", ["mean", "zero_f"], ["s0"]),
        helper.make_node("Loop", ["M", "", "s0"], ["s"], body=body, name="until_k"),
    ],
    "computed_trip",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "k"])],
    [helper.make_tensor_value_info("s", TensorProto.FLOAT, ["k"])],
    [i64("zero", 0), i64("one", 1), i64("two", 2), f32("half", 0.5), f32("zero_f", 0.0)],
)
save(graph, "computed_trip")
x = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
mean = x.mean(axis=0).astype(np.float32)
s = np.zeros(4, np.float32)
M, k = 2 * 2 + 1, 4
for i in range(M):
    s = (s * np.float32(0.5) + mean * np.float32(i + 1)).astype(np.float32)
    if not i + 1 < k:
        break
write_data(os.path.join(HERE, "computed_trip_data"), [x], [s])
print("ok")
