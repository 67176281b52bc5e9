#!/usr/bin/python3
"""A sequence chain whose positions are graph inputs (run-time sequence table,
generator/sequence/runtime_sequences.h), with numpy reference outputs in the ONNX
test-data layout: runtime_positions.onnx, runtime_positions_data_K/{input,output}_N.pb.
Run from anywhere: writes next to this script.

SplitToSequence(Relu(x), 2 on axis 1) -> 3 x [1,2,4]
  -> SequenceInsert(Sigmoid(y), p_ins)      run-time position (int64)
  -> SequenceErase(p_erase)                 run-time position (int64)
  -> SequenceAt(p_at)                       run-time position (int32)
  -> ConcatFromSequence(axis=1), ConcatFromSequence(new_axis=1) of the inserted
     sequence, SequenceLength.
Data sets cover positive, negative and end positions.
"""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)


def save_data(d, inputs, outputs):
    os.makedirs(d, exist_ok=True)
    for kind, values in (("input", inputs), ("output", outputs)):
        for k, v in enumerate(values):
            p = numpy_helper.from_array(np.asarray(v))
            with open(os.path.join(d, "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(p.SerializeToString())


def norm(p, n, allow_end):
    q = p + n if p < 0 else p
    assert 0 <= q <= n and (allow_end or q < n), (p, n)
    return q


def model():
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Constant", [], ["two"], value=numpy_helper.from_array(np.int64(2), "two")),
        helper.make_node("SplitToSequence", ["r", "two"], ["s0"], axis=1),    # 3 x [1,2,4]
        helper.make_node("Sigmoid", ["y"], ["sg"]),
        helper.make_node("SequenceInsert", ["s0", "sg", "p_ins"], ["s1"]),       # 4 elements
        helper.make_node("SequenceErase", ["s1", "p_erase"], ["s2"]),            # 3 elements
        helper.make_node("SequenceAt", ["s2", "p_at"], ["at"]),
        helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=1),         # [1,6,4]
        helper.make_node("ConcatFromSequence", ["s1"], ["stk"], axis=1, new_axis=1),  # [1,4,2,4]
        helper.make_node("SequenceLength", ["s2"], ["n"]),
    ]
    g = helper.make_graph(nodes, "runtime_positions",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 4]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4]),
                           helper.make_tensor_value_info("p_ins", TensorProto.INT64, []),
                           helper.make_tensor_value_info("p_erase", TensorProto.INT64, []),
                           helper.make_tensor_value_info("p_at", TensorProto.INT32, [])],
                          [helper.make_tensor_value_info("at", TensorProto.FLOAT, [1, 2, 4]),
                           helper.make_tensor_value_info("cat", TensorProto.FLOAT, [1, 6, 4]),
                           helper.make_tensor_value_info("stk", TensorProto.FLOAT, [1, 4, 2, 4]),
                           helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, "runtime_positions.onnx"))


def data(k, p_ins, p_erase, p_at):
    x = rng.standard_normal((1, 6, 4)).astype(np.float32)
    y = rng.standard_normal((1, 2, 4)).astype(np.float32)
    r = np.maximum(x, 0)
    s = [r[:, 0:2], r[:, 2:4], r[:, 4:6]]
    s.insert(norm(p_ins, len(s), True), 1 / (1 + np.exp(-y)))
    s1 = list(s)
    del s[norm(p_erase, len(s), False)]
    at = s[norm(p_at, len(s), False)]
    save_data(os.path.join(HERE, "runtime_positions_data_%d" % k),
              [x, y, np.int64(p_ins), np.int64(p_erase), np.int32(p_at)],
              [at, np.concatenate(s, axis=1), np.stack(s1, axis=1), np.int64(len(s))])


model()
data(0, 1, -1, 0)      # insert in the middle, erase the last, take the first
data(1, -3, 0, -1)     # insert at the front (negative), erase the front, take the last (negative)
data(2, 3, -2, 2)      # insert at the back (end position), erase from the back side, take the last
