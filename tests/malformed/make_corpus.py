#!/usr/bin/python3
"""Builds the malformed-model corpus (tests/malformed/corpus/): every file is a
small valid model broken in one way that once crashed, hung or fooled Kiln (issue
18: mutation testing and the fuzz target, tests/fuzz/). MANIFEST.tsv lists each
file, a text its one-line error must contain, and the setup the runner makes in
the model's folder before compiling (a FIFO or a symlink, which git cannot hold).

    /usr/bin/python3 tests/malformed/make_corpus.py   # rewrites corpus/ and MANIFEST.tsv
"""
import os
import shutil
import struct

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
F, I64 = TensorProto.FLOAT, TensorProto.INT64

entries = []  # (file, expected error text, setup)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, ir=8):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir)


def save(name, m, expect, setup=""):
    assert ";" not in expect, "CMake splits list items at ;"
    path = os.path.join(OUT, name + ".onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString() if not isinstance(m, bytes) else m)
    entries.append((name + ".onnx", expect, setup))


def weights(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---- valid base models -------------------------------------------------------
def conv_model(attrs=None, x_shape=(1, 3, 8, 8), w_shape=(4, 3, 3, 3), op="Conv", y_shape=None):
    a = {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1]}
    a.update(attrs or {})
    w = numpy_helper.from_array(weights(w_shape), "w")
    n = helper.make_node(op, ["x", "w"], ["y"], name="conv", **a)
    return model([n], [vi("x", F, list(x_shape))], [vi("y", F, y_shape)], [w])


def pool_model(op, attrs):
    a = {"kernel_shape": [2, 2], "strides": [2, 2]}
    a.update(attrs)
    n = helper.make_node(op, ["x"], ["y"], name="pool", **a)
    return model([n], [vi("x", F, [1, 3, 8, 8])], [vi("y", F, None)])


def unary_model(op, attrs=None, x_shape=(1, 8, 4, 4), extra_inputs=(), inits=(), opset=13):
    n = helper.make_node(op, ["x", *extra_inputs], ["y"], name=op.lower(), **(attrs or {}))
    return model([n], [vi("x", F, list(x_shape))], [vi("y", F, None)], inits, opset=opset)


def const_int64(name, values, dims=None):
    return numpy_helper.from_array(np.array(values, dtype=np.int64).reshape(dims if dims is not None else [len(values)]), name)


def raw_tensor(name, elem, dims, raw):
    t = TensorProto()
    t.name, t.data_type = name, elem
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def reshape_model(shape_tensor, opset=13):
    n = helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")
    return model([n], [vi("x", F, [2, 3])], [vi("y", F, None)], [shape_tensor], opset=opset)


def opset6_model(nodes, inputs, outputs, inits=()):
    return model(nodes, inputs, outputs, inits, opset=6, ir=3)


def external_model(location, length=None, dims=(4,)):
    t = TensorProto()
    t.name, t.data_type = "w", F
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", location
    if length is not None:
        e = t.external_data.add()
        e.key, e.value = "length", str(length)
    n = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return model([n], [vi("x", F, list(dims))], [vi("y", F, list(dims))], [t])


def indices_model(op, data_shape, indices, idx_shape, attrs=None, updates_shape=None, out_rank=2):
    idx = const_int64("i", indices, idx_shape)
    ins = ["x", "i"] + (["u"] if updates_shape else [])
    inputs = [vi("x", F, data_shape)] + ([vi("u", F, updates_shape)] if updates_shape else [])
    n = helper.make_node(op, ins, ["y"], name=op.lower(), **(attrs or {}))
    return model([n], inputs, [vi("y", F, ["d%d" % k for k in range(out_rank)])], [idx])


def build():
    # ---- crashes inside ONNX's shape inference / version converter -------------
    save("conv_stride_zero", conv_model({"strides": [0, 1]}), "attribute 'strides' is 0")
    save("conv_dilation_zero", conv_model({"dilations": [1, 0]}), "attribute 'dilations' is 0")
    save("conv_kernel_shape_zero", conv_model({"kernel_shape": [0, 3]}), "attribute 'kernel_shape' is 0")
    save("conv_group_zero", conv_model({"group": 0}), "attribute 'group' is 0")
    save("conv_pads_negative", conv_model({"pads": [1, -5, 1, 1]}), "attribute 'pads' is -5")
    save("maxpool_stride_zero", pool_model("MaxPool", {"strides": [0, 2]}), "attribute 'strides' is 0")
    save("averagepool_stride_zero", pool_model("AveragePool", {"strides": [2, 0]}), "attribute 'strides' is 0")
    save("lppool_kernel_zero", pool_model("LpPool", {"kernel_shape": [0, 2]}), "attribute 'kernel_shape' is 0")
    save("depthtospace_blocksize_2p32", unary_model("DepthToSpace", {"blocksize": 2**32}),
         "attribute 'blocksize' is 4294967296")
    save("spacetodepth_blocksize_zero", unary_model("SpaceToDepth", {"blocksize": 0}), "attribute 'blocksize' is 0")
    save("layernorm_axis_int64max",
         unary_model("LayerNormalization", {"axis": INT64_MAX}, x_shape=(2, 4), opset=17, extra_inputs=["g"],
                     inits=[numpy_helper.from_array(np.ones([4], np.float32), "g")]),
         "attribute 'axis' is 9223372036854775807")
    # In the attribute's range but not the input's rank: ONNX 1.12 indexed the shape
    # with it (a SEGV; found by re-declaring the node tests' inputs one rank lower).
    save("layernorm_axis_below_rank",
         unary_model("LayerNormalization", {"axis": -2}, x_shape=(4,), opset=17, extra_inputs=["g"],
                     inits=[numpy_helper.from_array(np.ones([4], np.float32), "g")]),
         "for input 'x' of rank 1 it must lie in [-1, 0]")
    save("softmax_axis_int64min", unary_model("Softmax", {"axis": INT64_MIN}), "attribute 'axis' is -9223372036854775808")
    save("transpose_perm_huge", unary_model("Transpose", {"perm": [0, 1, 2, 2**40]}), "attribute 'perm' is 1099511627776")
    save("convtranspose_rank0",
         conv_model({"pads": [0, 0, 0, 0]}, x_shape=(), w_shape=(3, 4, 3, 3), op="ConvTranspose"), "has rank 0")
    stft = helper.make_node("STFT", ["x", "step"], ["y"], name="stft")
    save("stft_rank0", model([stft], [vi("x", F, [])], [vi("y", F, None)], [const_int64("step", [2], [])], opset=17),
         "has rank 0")
    save("gemm_rank1", model([helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm")],
                             [vi("a", F, [4]), vi("b", F, [4, 2])], [vi("y", F, None)]), "has rank 1")
    relu = helper.make_node("Relu", ["x"], [], name="relu")
    save("opset6_node_without_output", opset6_model([relu], [vi("x", F, [2])], [vi("x", F, [2])]), "has no outputs")
    gemm = helper.make_node("Gemm", ["a", "b"], ["y"], name="gemm")
    save("opset6_gemm_two_inputs",
         opset6_model([gemm], [vi("a", F, [2, 3]), vi("b", F, [3, 4])], [vi("y", F, [2, 4])]), "has 2 inputs")
    short = raw_tensor("s", I64, [2], struct.pack("<q", 3))  # 8 of 16 bytes
    save("int64_initializer_raw_short", reshape_model(short), "raw_data has 8 bytes, expected 16")
    long_ = raw_tensor("s", I64, [2], struct.pack("<qqqq", 3, 2, 1, 0))
    save("int64_initializer_raw_long", reshape_model(long_), "raw_data has 32 bytes, expected 16")
    save("opset6_int64_initializer_raw_short", reshape_model(raw_tensor("s", I64, [2], b"\x03"), opset=6),
         "raw_data has 1 bytes, expected 16")
    typed = const_int64("s", [3, 2])
    typed.int64_data.append(7)
    typed.raw_data = b""
    t2 = TensorProto()
    t2.CopyFrom(typed)
    t2.ClearField("raw_data")
    t2.ClearField("int64_data")
    t2.int64_data.extend([3, 2, 7])
    save("int64_initializer_typed_count", reshape_model(t2), "holds 3 elements, its shape needs 2")
    save("initializer_negative_dim", reshape_model(raw_tensor("s", I64, [-2], b"")), "negative dimension")
    save("initializer_undefined_type", reshape_model(raw_tensor("s", 0, [2], b"\0" * 16)), "not a valid ONNX type")

    # ---- accepted nonsense: sizes that overflow, values out of range ------------
    save("initializer_dims_overflow", reshape_model(raw_tensor("s", I64, [2**32, 2**32], b"")),
         "more than 1073741824 elements")
    n = helper.make_node("Relu", ["x"], ["y"], name="relu")
    save("input_dims_overflow", model([n], [vi("x", F, [2**31, 2**31, 2**31])], [vi("y", F, None)]),
         "more than 1073741824 elements")
    save("output_dims_overflow", model([n], [vi("x", F, [2, 2])], [vi("y", F, [2**40, 2**40])]),
         "more than 1073741824 elements")
    save("input_dims_negative", model([n], [vi("x", F, [2, -3])], [vi("y", F, None)]), "declares dimension -3")
    expand = helper.make_node("Expand", ["x", "s"], ["y"], name="expand")
    save("expand_to_2p62", model([expand], [vi("x", F, [1])], [vi("y", F, None)], [const_int64("s", [2**62])]),
         "more than 1073741824 elements")
    save("expand_shape_declared_int64max",
         model([expand], [vi("x", F, [1]), vi("s", I64, [INT64_MAX])], [vi("y", F, None)]),
         "more than 1073741824 elements")
    tile = helper.make_node("Tile", ["x", "r"], ["y"], name="tile")
    save("tile_repeats_overflow", model([tile], [vi("x", F, [2, 2])], [vi("y", F, ["a", "b"])],
                                        [const_int64("r", [2**40, 2**40])]), "more than 1073741824 elements")
    save("tile_repeats_negative", model([tile], [vi("x", F, [2, 2])], [vi("y", F, ["a", "b"])],
                                        [const_int64("r", [2, -1])]), "must not be negative")
    cos = helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos")
    save("constantofshape_huge", model([cos], [], [vi("y", F, None)], [const_int64("s", [2**20, 2**20, 2**20])]),
         "more than 1073741824 elements")
    save("reshape_target_overflow", reshape_model(const_int64("s", [2**40, 2**40])), "more than 1073741824 elements")
    save("reshape_target_below_minus_one", reshape_model(const_int64("s", [-2, 3])), "holds the dimension -2")
    sl = helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="slice")
    save("slice_step_int64min",
         model([sl], [vi("x", F, [8])], [vi("y", F, None)],
               [const_int64("st", [7]), const_int64("en", [0]), const_int64("ax", [0]), const_int64("sp", [INT64_MIN])]),
         "holds the step -9223372036854775808")
    save("slice_step_zero",
         model([sl], [vi("x", F, [8])], [vi("y", F, None)],
               [const_int64("st", [0]), const_int64("en", [8]), const_int64("ax", [0]), const_int64("sp", [0])]),
         "holds the step 0")
    rng = helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")
    fl = lambda nm, v: numpy_helper.from_array(np.array(v, dtype=np.float32), nm)
    save("range_delta_zero", model([rng], [], [vi("y", F, None)], [fl("a", 0.0), fl("b", 10.0), fl("d", 0.0)]),
         "non-zero step")
    save("range_limit_nan", model([rng], [], [vi("y", F, None)], [fl("a", 0.0), fl("b", float("nan")), fl("d", 1.0)]),
         "must be a finite number")
    save("range_count_huge", model([rng], [], [vi("y", F, None)], [fl("a", 0.0), fl("b", 1e30), fl("d", 1.0)]),
         "Kiln's limit for one tensor")
    save("no_outputs", model([n], [vi("x", F, [2])], []), "no graph outputs")
    dup = [helper.make_node("Relu", ["x"], ["y"], name="a"), helper.make_node("Neg", ["x"], ["y"], name="b")]
    save("duplicate_node_output", model(dup, [vi("x", F, [2])], [vi("y", F, [2])]), "reuses a name")
    save("node_output_shadows_input", model([helper.make_node("Relu", ["x"], ["x"], name="r")],
                                            [vi("x", F, [2])], [vi("x", F, [2])]), "reuses a name")
    save("duplicate_graph_input", model([n], [vi("x", F, [2]), vi("x", F, [2])], [vi("y", F, [2])]), "listed twice")
    save("duplicate_graph_output", model([n], [vi("x", F, [2])], [vi("y", F, [2]), vi("y", F, [2])]), "listed twice")
    save("output_never_produced", model([n], [vi("x", F, [2])], [vi("z", F, [2])]), "is not produced")
    save("gather_index_out_of_range", indices_model("Gather", [4, 3], [0, 7], [2], {"axis": 0}),
         "constant index 7")
    save("gatherelements_index_out_of_range", indices_model("GatherElements", [2, 2], [0, 1, 1, 5], [2, 2], {"axis": 1}),
         "constant index 5")
    save("gathernd_index_out_of_range", indices_model("GatherND", [2, 2], [0, 1, 9, 0], [2, 2], out_rank=1), "constant index 9")
    save("scatterelements_index_out_of_range",
         indices_model("ScatterElements", [3, 3], [0, -4], [1, 2], {"axis": 1}, updates_shape=[1, 2]), "constant index -4")
    save("scatternd_index_out_of_range", indices_model("ScatterND", [4], [1, 6], [2, 1], updates_shape=[2], out_rank=1),
         "constant index 6")
    # A tensor attribute that claims 2^32 elements and holds none (once: a 4 GB allocation).
    big = TensorProto()
    big.name, big.data_type = "c", F
    big.dims.extend([2**32])
    save("constant_attribute_dims_2p32",
         model([helper.make_node("Constant", [], ["y"], name="c", value=big)], [], [vi("y", F, None)]),
         "more than 1073741824 elements")
    # A Loop whose trip count is INT64_MAX (once: steps * nodes overflowed past the unroll limit).
    body = helper.make_graph([helper.make_node("Add", ["v_in", "one"], ["v_out"], name="inc"),
                              helper.make_node("Identity", ["c_in"], ["c_out"], name="cond")], "body",
                             [vi("it", I64, []), vi("c_in", TensorProto.BOOL, []), vi("v_in", F, [1])],
                             [vi("c_out", TensorProto.BOOL, []), vi("v_out", F, [1])],
                             [numpy_helper.from_array(np.ones([1], np.float32), "one")])
    loop = helper.make_node("Loop", ["m", "", "v0"], ["v"], name="loop", body=body)
    save("loop_trip_count_int64max",
         model([loop], [vi("v0", F, [1])], [vi("v", F, [1])], [const_int64("m", [INT64_MAX], [])]),
         "exceeds Kiln's limit")

    # A Loop that carries a sequence is still unrolled (sequences are resolved at
    # compile time), and the unrolling is capped. (Loops without sequences compile to
    # a C loop whatever their trip count: the models that tested the cap before,
    # 5001 steps, 1000 x 1000 nested and the fuzzer's 8198-step early exit, are now
    # tests/e2e/models/loop/region_long_*.)
    seq_t = helper.make_tensor_sequence_value_info
    def seq_body(name, inner=None):
        p = name + "_"
        nodes = [helper.make_node("Identity", [p + "c_in"], [p + "c_out"], name=p + "cond"),
                 helper.make_node("SequenceInsert", [p + "q_in", p + "v_in"], [p + "q_out"], name=p + "insert")]
        if inner is None:
            nodes.append(helper.make_node("Add", [p + "v_in", "one"], [p + "v_out"], name=p + "inc"))
        else:
            nodes.append(helper.make_node("Loop", ["m2", "", p + "v_in"], [p + "v_out"], name=p + "loop", body=inner))
        return helper.make_graph(nodes, name, [vi(p + "it", I64, []), vi(p + "c_in", TensorProto.BOOL, []),
                                               seq_t(p + "q_in", F, [1]), vi(p + "v_in", F, [1])],
                                 [vi(p + "c_out", TensorProto.BOOL, []), seq_t(p + "q_out", F, [1]),
                                  vi(p + "v_out", F, [1])])
    def seq_loop_model(body, m, m2=None):
        nodes = [helper.make_node("SequenceEmpty", [], ["q0"], name="empty", dtype=F),
                 helper.make_node("Loop", ["m", "", "q0", "v0"], ["q", "v"], name="loop", body=body)]
        inits = [const_int64("m", [m], []), numpy_helper.from_array(np.ones([1], np.float32), "one")]
        if m2 is not None:
            inits.append(const_int64("m2", [m2], []))
        return model(nodes, [vi("v0", F, [1])], [vi("v", F, [1])], inits)
    save("loop_sequence_unroll_past_node_limit", seq_loop_model(seq_body("body"), 5001),
         "exceeds Kiln's limit of 10000 nodes")
    # Nested: the inner Loop (a C loop on its own) is instantiated once per outer
    # step: 3000 steps of the 3-node body are under the per-Loop cap, but with each
    # inner Loop a region of 4 nodes the graph-wide node limit stops it.
    inner_seqless = helper.make_graph(
        [helper.make_node("Identity", ["i_c_in"], ["i_c_out"], name="i_cond"),
         helper.make_node("Add", ["i_v_in", "one"], ["i_v_out"], name="i_inc")], "inner",
        [vi("i_it", I64, []), vi("i_c_in", TensorProto.BOOL, []), vi("i_v_in", F, [1])],
        [vi("i_c_out", TensorProto.BOOL, []), vi("i_v_out", F, [1])])
    save("loop_sequence_nested_unroll", seq_loop_model(seq_body("outer", inner_seqless), 3000, 1000),
         "nodes, Kiln's limit")

    # Found by `make fuzz` (UBSan): an empty initializer whose other dimensions
    # multiply past int64 (a mutated bias scale); the tensor holds nothing, but its
    # strides overflowed. Empty shapes are now held to the element limit too.
    empty_huge = raw_tensor("e", TensorProto.FLOAT, [5, 123529179, 0, 123529179, 1319], b"")
    save("fuzz_empty_initializer_huge_dims",
         model([helper.make_node("Identity", ["x"], ["y"], name="id")], [vi("x", F, [1])], [vi("y", F, [1])],
               [empty_huge]),
         "(empty) has non-zero dimensions whose product is above")

    # Found by `make fuzz` (a SEGV inside ONNX's convPoolShapeInference): a rank-2
    # graph input reaching a Conv through DequantizeLinear; the Conv's rank rule now
    # sees ranks through rank-keeping ops.
    dq = helper.make_node("DequantizeLinear", ["xq", "s", "zp"], ["xf"], name="dq")
    conv_r2 = helper.make_node("Conv", ["xf", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])
    save("fuzz_conv_rank2_through_dequantize",
         model([dq, conv_r2], [vi("xq", TensorProto.INT8, [1, 12])], [vi("y", F, None)],
               [numpy_helper.from_array(weights((8, 3, 3, 3)), "w"),
                numpy_helper.from_array(np.array(0.1, np.float32), "s"),
                numpy_helper.from_array(np.array(0, np.int8), "zp")]),
         "input 'xf' has rank 2")
    # Ranks only inference knows: validation types each node by ONNX's own inference
    # once the node's rules held, so a Conv behind a Flatten sees its rank-2 input.
    flat = helper.make_node("Flatten", ["x"], ["xf"], name="flatten")
    save("conv_rank2_behind_flatten",
         model([flat, conv_r2], [vi("x", F, [1, 3, 4, 4])], [vi("y", F, ["n", "c"])],
               [numpy_helper.from_array(weights((8, 3, 3, 3)), "w")]),
         "input 'xf' has rank 2")
    # Input and weights of different ranks: the kernel's rank comes from the weights,
    # ONNX indexes the input's pads and strides with it (a SEGV).
    save("conv_input_rank3_weights_rank4",
         model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [vi("x", F, [1, 3, 4])],
               [vi("y", F, ["n", "c"])], [numpy_helper.from_array(weights((8, 3, 3, 3)), "w")]),
         "input 'x' has rank 3 but the weights 'w' have rank 4")
    # An input whose shape ONNX's inference reads without checking it has one.
    unpool = helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2, 2], strides=[2, 2])
    save("maxunpool_indices_without_shape",
         model([unpool], [vi("x", F, [1, 1, 2, 2]), vi("i", TensorProto.INT64, None)], [vi("y", F, [1, 1, 4, 4])]),
         "input 'i' has no known shape")
    # Indices of another rank than the input: ONNX reads the indices' dimension 1
    # unchecked (rank-1 indices: a SEGV, found by make fuzz).
    save("maxunpool_indices_rank1",
         model([unpool], [vi("x", F, [1, 1, 2, 2]), vi("i", TensorProto.INT64, [4])], [vi("y", F, [1, 1, 4, 4])]),
         "input 'x' has rank 4 but the indices 'i' have rank 1")
    with open(os.path.join(HERE, "fuzz_raw", "maxunpool_indices_rank1.onnx"), "rb") as raw:
        save("fuzz_raw_maxunpool_indices_rank1", raw.read(), "input 'xI' has rank 4 but the indices 'output_shape' have rank 1")
    save("eyelike_input_without_shape",
         model([helper.make_node("EyeLike", ["x"], ["y"], name="eye")], [vi("x", F, None)], [vi("y", F, [2, 2])]),
         "input 'x' has no known shape")
    # ... and the fuzzer's input itself, byte for byte (fuzz_raw/ is kept as found).
    with open(os.path.join(HERE, "fuzz_raw", "conv_rank2_through_dequantize.onnx"), "rb") as raw:
        save("fuzz_raw_conv_rank2_through_dequantize", raw.read(), "input 'dequantizelinear11' has rank 2")

    # Opsets 18..21 are rewritten to opset-17 forms before node validation: a rewrite
    # checks the inputs and outputs it reads (found by make fuzz: a Gelu with no
    # output was a protobuf CHECK abort, exit 134).
    gelu = helper.make_node("Gelu", ["x"], [], name="gelu")
    save("fuzz_gelu_without_output", model([gelu], [vi("x", F, [2])], [vi("x", F, [2])], opset=20),
         "Gelu 'gelu': output 0 is missing")
    pad18 = helper.make_node("Pad", ["x"], ["y"], name="pad")
    save("pad18_without_pads", model([pad18], [vi("x", F, [2])], [vi("y", F, None)], opset=18),
         "Pad 'pad': input 1 is missing")
    with open(os.path.join(HERE, "fuzz_raw", "maxunpool_indices_without_shape.onnx"), "rb") as raw:
        save("fuzz_raw_maxunpool_indices_without_shape", raw.read(), "input 'xI' has no known shape")
    with open(os.path.join(HERE, "fuzz_raw", "gelu_without_output.onnx"), "rb") as raw:
        save("fuzz_raw_gelu_without_output", raw.read(), "output 0 is missing")
    # SplitToSequence with a scalar split of 0: ONNX 1.12's inference divides the
    # axis length by it (SIGFPE, found by make fuzz).
    split0 = helper.make_node("SplitToSequence", ["x", "n"], ["s"], name="split", axis=0)
    at = helper.make_node("SequenceAt", ["s", "k"], ["y"], name="at")
    save("splittosequence_scalar_split_zero",
         model([split0, at], [vi("x", F, [4, 2])], [vi("y", F, [1, 2])],
               [helper.make_tensor("n", I64, [], [0]), helper.make_tensor("k", I64, [], [0])]),
         "a scalar split must be positive")
    with open(os.path.join(HERE, "fuzz_raw", "splittosequence_scalar_split_zero.onnx"), "rb") as raw:
        save("fuzz_raw_splittosequence_scalar_split_zero", raw.read(), "a scalar split must be positive")

    # An empty int64 vector broadcast against a one-element one: ONNX 1.12's data
    # propagation (Add / Sub / Mul from opset 14) reads element 0 of the empty side (a
    # SEGV, found by make fuzz through Resize-18's rewrite of an empty axes list).
    empty = helper.make_node("Constant", [], ["e"], name="empty", value=helper.make_tensor("v", I64, [0], []))
    rank = [helper.make_node("Shape", ["x"], ["s"], name="shape"), helper.make_node("Shape", ["s"], ["r"], name="rank")]
    save("empty_shape_vector_plus_rank",
         model([empty] + rank + [helper.make_node("Add", ["e", "r"], ["y"], name="add")], [vi("x", F, [1, 2, 3, 4])],
               [vi("y", I64, [0])], opset=14),
         "input 'e' is an empty int64 vector broadcast against the one-element 'r'")
    resize_empty = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize", axes=[], mode="nearest")
    save("resize18_empty_axes",
         model([resize_empty], [vi("x", F, [1, 2, 3, 4])], [vi("y", F, [1, 2, 3, 4])],
               [helper.make_tensor("scales", F, [0], [])], opset=18),
         "attribute axes must be a non-empty list of ints")
    with open(os.path.join(HERE, "fuzz_raw", "resize18_empty_axes.onnx"), "rb") as raw:
        save("fuzz_raw_resize18_empty_axes", raw.read(), "attribute axes must be a non-empty list of ints")

    # Issue 28, found by a black-box campaign. A node turned into Scan with no body:
    # ONNX's inference function reads the body unchecked (a SEGV under the fault guard).
    save("scan_without_body",
         model([helper.make_node("Scan", ["x"], ["y"], name="scan")], [vi("x", F, [2, 3])], [vi("y", F, None)]),
         "Scan 'scan': has no attribute 'body'")
    # A rank-0 element behind a rank-2 one: the settle pass inserted the new axis at
    # index 1 of the rank-0 shape (a SEGV).
    save("concatfromsequence_rank0_element",
         model([helper.make_node("SequenceConstruct", ["a", "b"], ["s"], name="sc"),
                helper.make_node("ConcatFromSequence", ["s"], ["y"], name="cat", axis=1, new_axis=1)],
               [vi("a", F, [2, 3]), vi("b", F, [])], [vi("y", F, ["n", "m", "k"])]),
         "element 1 has rank 0 but element 0 has rank 2")
    # A ConstantOfShape value of shape [0] (dims and data agree, no element to fill with):
    # folding read element 0 (an internal error).
    empty_value = onnx.TensorProto(name="value", data_type=F, dims=[0])
    save("constantofshape_value_empty",
         model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="cos", value=empty_value)], [], [vi("y", F, [2, 2])],
               [const_int64("s", [2, 2])]),
         "holds 0 elements")

    # Model text in messages is escaped and cut (util/quoted.h): a newline, BEL and
    # U+202E in a name, a 10 KB attribute string (it made a 5 KB error line).
    relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
    save("name_with_newline_bel_rlo",
         model([relu], [vi("x", F, [2])], [vi("z\nq\x07\u202eevil", F, [2])]), "'z\\nq\\x07\\u202eevil' is not produced")
    save("attribute_string_10kb",
         model([helper.make_node("Resize", ["x", "", "s"], ["y"], name="rs\nz", mode="m" * 10240)],
               [vi("x", F, [1, 1, 2, 2])], [vi("y", F, [1, 1, 4, 4])], [helper.make_tensor("s", F, [4], [1, 1, 2, 2])]),
         "...' (10240 bytes) is not supported")

    # Model-local functions that call the next one twice, 24 levels deep: 2^24 nodes
    # once inlined, refused at the node limit while inlining grows.
    funcs = []
    for level in range(24):
        callee = f"F{level + 1}" if level < 23 else None
        body = ([helper.make_node(callee, ["a"], ["t"], domain="local"), helper.make_node(callee, ["t"], ["b"], domain="local")]
                if callee else [helper.make_node("Relu", ["a"], ["b"])])
        funcs.append(helper.make_function("local", f"F{level}", ["a"], ["b"], body,
                                          [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]))
    fan = model([helper.make_node("F0", ["x"], ["y"], name="f0", domain="local")], [vi("x", F, [2])],
                [vi("y", F, [2])])
    fan.opset_import.append(helper.make_opsetid("local", 1))
    fan.functions.extend(funcs)
    save("functions_fan_out_2p24", fan, "inlining the model's functions gives more than 10000 nodes")

    # ---- per-channel vectors the kernel indexes by channel (an out-of-bounds read
    # on the device when short) ---------------------------------------------------
    fl32 = lambda nm, v: numpy_helper.from_array(np.array(v, dtype=np.float32), nm)
    conv_b = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", kernel_shape=[3, 3])
    save("conv_bias_short", model([conv_b], [vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 4, 6, 6])],
                                  [numpy_helper.from_array(weights((4, 3, 3, 3)), "w"), fl32("b", [0, 0])]),
         "bias 'b' has shape [2], 2 values")
    save("conv_bias_input_short", model([conv_b], [vi("x", F, [1, 3, 8, 8]), vi("b", F, [3])],
                                        [vi("y", F, [1, 4, 6, 6])], [numpy_helper.from_array(weights((4, 3, 3, 3)), "w")]),
         "bias 'b' has shape [3], 3 values")
    ct = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="convt")
    save("convtranspose_bias_short", model([ct], [vi("x", F, [1, 3, 4, 4])], [vi("y", F, [1, 4, 6, 6])],
                                           [numpy_helper.from_array(weights((3, 4, 3, 3)), "w"), fl32("b", [0])]),
         "bias 'b' has shape [1], 1 values")
    u8 = lambda nm, v: numpy_helper.from_array(np.array(v, dtype=np.uint8), nm)
    qc = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], name="qconv")
    save("qlinearconv_bias_short",
         model([qc], [vi("x", TensorProto.UINT8, [1, 3, 4, 4])], [vi("y", TensorProto.UINT8, [1, 4, 2, 2])],
               [fl32("xs", 1.0), u8("xz", 0), u8("w", np.ones([4, 3, 3, 3])), fl32("ws", 1.0), u8("wz", 0),
                fl32("ys", 1.0), u8("yz", 0), numpy_helper.from_array(np.zeros([2], np.int32), "b")]),
         "bias 'b' has shape [2], 2 values")

    # ---- more sizes and values a model controls -----------------------------------
    save("conv_pads_2p62", conv_model({"pads": [2**62, 0, 2**62, 0]}), "attribute 'pads' is 4611686018427387904")
    # A window that reaches past 2^31 (dilation 2^30, pads 2^30 - 1): the kernels'
    # 32-bit position arithmetic would wrap (once compiled).
    save("conv_dilation_reach_2p31", conv_model({"dilations": [2**30, 1], "pads": [2**30 - 1, 1, 2**30 - 1, 1]},
                                                x_shape=(1, 3, 3, 8), y_shape=[1, 4, 1, 8]),
         "past the 2^31 the kernels index with")
    save("maxpool_kernel_2p40", pool_model("MaxPool", {"kernel_shape": [2**40, 2]}), "attribute 'kernel_shape' is 1099511627776")
    pad = helper.make_node("Pad", ["x", "p"], ["y"], name="pad")
    save("pad_to_2p41", model([pad], [vi("x", F, [1, 3, 8, 8])], [vi("y", F, ["a", "b", "c", "d"])],
                              [const_int64("p", [0, 0, 2**40, 0, 0, 0, 2**40, 0])]), "more than 1073741824 elements")
    rs = helper.make_node("Resize", ["x", "", "", "s"], ["y"], name="resize")
    save("resize_sizes_2p40", model([rs], [vi("x", F, [1, 3, 8, 8])], [vi("y", F, ["a", "b", "c", "d"])],
                                    [const_int64("s", [1, 3, 2**40, 2**40])]), "more than 1073741824 elements")
    save("range_int64_span_overflow",
         model([rng], [], [vi("y", I64, ["n"])], [const_int64("a", [INT64_MIN], []), const_int64("b", [INT64_MAX], []),
                                                  const_int64("d", [1], [])]), "Kiln's limit for one tensor")
    split = helper.make_node("Split", ["x", "s"], ["y", "z"], name="split", axis=0)
    save("split_sizes_negative", model([split], [vi("x", F, [4, 2])], [vi("y", F, ["a", 2]), vi("z", F, ["b", 2])],
                                       [const_int64("s", [6, -2])]), "holds -2")
    seq = [helper.make_node("SplitToSequence", ["x"], ["s"], name="split", axis=0),
           helper.make_node("SequenceInsert", ["s", "x1", "p"], ["s2"], name="insert"),
           helper.make_node("ConcatFromSequence", ["s2"], ["y"], name="concat", axis=0)]
    save("sequence_insert_position_2p40",
         model(seq, [vi("x", F, [3, 2]), vi("x1", F, [1, 2])], [vi("y", F, ["n", 2])], [const_int64("p", [2**40], [])]),
         "position 1099511627776 is out of range")
    save("rank_200_input", model([n], [vi("x", F, [1] * 200)], [vi("y", F, None)]), "above Kiln's limit of 64")
    save("opset_2p40", model([n], [vi("x", F, [2])], [vi("y", F, [2])], opset=2**40), "model uses opset 1099511627776")
    save("float16_raw_odd_length", reshape_model(raw_tensor("s", TensorProto.FLOAT16, [2], b"\0\0\0")),
         "raw_data has 3 bytes, expected 4")
    save("string_initializer", model([helper.make_node("Identity", ["s"], ["y"], name="id")], [],
                                     [vi("y", TensorProto.STRING, [2])],
                                     [helper.make_tensor("s", TensorProto.STRING, [2], [b"a", b"b"])]),
         "(string) is not supported")

    # ---- external data: links, FIFOs, devices, escapes ----------------------------
    save("external_symlink_to_passwd", external_model("passwd"), "outside the model's folder", "symlink:passwd=/etc/passwd")
    save("external_symlink_to_dev_zero", external_model("zero"), "outside the model's folder", "symlink:zero=/dev/zero")
    save("external_fifo", external_model("pipe"), "is not a regular file", "fifo:pipe")
    save("external_directory", external_model("sub"), "is not a regular file", "dir:sub")
    save("external_dotdot", external_model("../escape.bin"), "does not exist")
    save("external_absolute", external_model("/etc/passwd"), "must be a relative path")
    save("external_length_mismatch", external_model("w.bin", length=8), "external data length 8",
         "file:w.bin=16")
    save("external_too_short", external_model("w.bin"), "is too short", "file:w.bin=4")
    # ---- not a model at all ----------------------------------------------------
    save("truncated_protobuf", conv_model().SerializeToString()[:57], "not a valid ONNX")
    save("empty_file", b"", "has no graph")


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    build()
    with open(os.path.join(OUT, "MANIFEST.tsv"), "w") as f:
        f.write("# file\texpected error text\tsetup (made by run_malformed.sh in the model's folder)\n")
        for name, expect, setup in entries:
            f.write(f"{name}\t{expect}\t{setup}\n")
    print(f"{len(entries)} malformed models in {OUT}")


if __name__ == "__main__":
    main()
