#!/usr/bin/python3
"""Hand-written sequence chain models with numpy reference outputs (ONNX test-data
layout: <model>.onnx, <model>_data/input_K.pb, output_K.pb; sequence inputs/outputs
as onnx.SequenceProto). Run from anywhere: writes next to this script.

chain:     SplitToSequence -> SequenceErase(neg) -> SequenceInsert(back, front)
           -> SequenceAt(neg) + SequenceLength + ConcatFromSequence(axis) and
           ConcatFromSequence(new_axis) of the edited list; producers are Relu/Mul so
           the Concat is written by placement.
seq_io:    a sequence input, SequenceMap (body: x*2+t), a sequence output, and
           SplitToSequence(keepdims=0) + SequenceAt of an element.
"""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def save(name, model, inputs, outputs):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    d = os.path.join(HERE, name + "_data")
    os.makedirs(d, exist_ok=True)
    for kind, values in (("input", inputs), ("output", outputs)):
        for k, v in enumerate(values):
            if isinstance(v, list):
                p = numpy_helper.from_list([np.asarray(e) for e in v])
            else:
                p = numpy_helper.from_array(np.asarray(v))
            with open(os.path.join(d, "%s_%d.pb" % (kind, k)), "wb") as f:
                f.write(p.SerializeToString())


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(value), name))


def chain():
    x = rng.standard_normal((1, 6, 4)).astype(np.float32)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        const("two", np.float32(2.0)),
        helper.make_node("Mul", ["r", "two"], ["m"]),
        const("splits", np.array([1, 2, 3], np.int64)),
        helper.make_node("SplitToSequence", ["m", "splits"], ["s0"], axis=1),      # [1,1,4] [1,2,4] [1,3,4]
        const("neg2", np.int64(-2)),
        helper.make_node("SequenceErase", ["s0", "neg2"], ["s1"]),                  # [1,1,4] [1,3,4]
        helper.make_node("Sigmoid", ["x"], ["sg"]),                                 # [1,6,4]
        helper.make_node("SequenceInsert", ["s1", "sg"], ["s2"]),                   # back
        const("zero", np.int64(0)),
        helper.make_node("Neg", ["x"], ["nx"]),
        helper.make_node("SequenceInsert", ["s2", "nx", "zero"], ["s3"]),           # front
        const("neg1", np.int64(-1)),
        helper.make_node("SequenceAt", ["s3", "neg1"], ["last"]),                   # sg
        helper.make_node("SequenceLength", ["s3"], ["len"]),
        helper.make_node("ConcatFromSequence", ["s3"], ["cat"], axis=1),            # [1,6+1+3+6,4]
        helper.make_node("Abs", ["x"], ["a"]),
        helper.make_node("Tanh", ["x"], ["t"]),
        helper.make_node("SequenceConstruct", ["a", "t"], ["p"]),
        helper.make_node("ConcatFromSequence", ["p"], ["stk"], axis=-1, new_axis=1),  # [1,6,4,2]
    ]
    g = helper.make_graph(nodes, "sequence_chain",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 4])],
                          [helper.make_tensor_value_info("last", TensorProto.FLOAT, [1, 6, 4]),
                           helper.make_tensor_value_info("len", TensorProto.INT64, []),
                           helper.make_tensor_value_info("cat", TensorProto.FLOAT, [1, 16, 4]),
                           helper.make_tensor_value_info("stk", TensorProto.FLOAT, [1, 6, 4, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m = onnx.shape_inference.infer_shapes(m)
    mm = np.maximum(x, 0) * 2
    parts = [mm[:, 0:1], mm[:, 1:3], mm[:, 3:6]]
    del parts[-2]
    sg = 1 / (1 + np.exp(-x))
    parts = [-x] + parts + [sg]
    save("chain", m, [x], [sg, np.int64(len(parts)), np.concatenate(parts, axis=1),
                           np.stack([np.abs(x), np.tanh(x)], axis=-1)])


def seq_io():
    xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    t = rng.standard_normal((3,)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    body = helper.make_graph(
        [const("b_two", np.float32(2.0)),
         helper.make_node("Mul", ["bx", "b_two"], ["bm"]),
         helper.make_node("Add", ["bm", "bt"], ["by"])],
        "map_body",
        [helper.make_tensor_value_info("bx", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("bt", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("by", TensorProto.FLOAT, [2, 3])])
    seq_t = helper.make_tensor_sequence_value_info
    nodes = [
        helper.make_node("SequenceMap", ["xs", "t"], ["ys"], body=body),
        helper.make_node("SplitToSequence", ["y"], ["rows"], axis=0, keepdims=0),   # 4 x [3]
        const("one", np.int64(1)),
        helper.make_node("SequenceErase", ["rows", "one"], ["rows2"]),
        const("neg1", np.int64(-1)),
        helper.make_node("SequenceAt", ["rows2", "neg1"], ["row"]),                 # y[3]
        helper.make_node("SequenceLength", ["rows2"], ["n"]),
    ]
    g = helper.make_graph(nodes, "sequence_io",
                          [seq_t("xs", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("t", TensorProto.FLOAT, [3]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])],
                          [seq_t("ys", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("row", TensorProto.FLOAT, [3]),
                           helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    save("seq_io", m, [xs, t, y], [[x * 2 + t for x in xs], y[3], np.int64(3)])


chain()
seq_io()
