#!/usr/bin/python3
"""A valid model whose graph inputs and outputs are named with C's reserved and
standard identifiers (predefined macros, <stdint.h> / <math.h> / <stddef.h> names,
C and C++ keywords, Kiln's own prefix) and with pairs that collide after
sanitizing or upper-casing ("ab" / "Ab", "x y" / "x_y"). Every input has its own
size, so a size macro that names the wrong tensor is seen. One more output is a
rank-0 SplitToSequence element (its Squeeze has a zero-byte axes constant, which
once failed in the emitter). tests/malformed/CMakeLists.txt runs it on the host
under ASan/UBSan with -Werror (kiln verify) and compiles check_macros.c against
its metadata.h (run_reserved_names.sh).

    /usr/bin/python3 make_reserved_names.py   # writes reserved_names.onnx and reserved_names_data/
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = ["__LINE__", "__FILE__", "__DATE__", "__STDC__", "__STDC_VERSION__", "__func__", "INT32_MAX",
          "SIZE_MAX", "ab", "Ab", "x y", "x_y", "int", "class", "NULL", "FLT_EPSILON", "kiln_run", "_Bool"]
OUTPUTS = ["__TIME__", "__STDC_HOSTED__", "__cplusplus", "__COUNTER__", "INT64_MIN", "UINT8_MAX", "FLT_MAX",
           "INFINITY", "isnan", "offsetof", "cd", "Cd", "errno", "assert", "KILN_OK", "size_t", "_Pragma", "new"]
# Element counts: "ab" 16 floats (64 bytes), "Ab" 4 floats (16 bytes), the rest their own.
COUNTS = [1, 2, 3, 5, 6, 7, 8, 9, 16, 4, 10, 11, 12, 13, 14, 15, 17, 18]
assert len(INPUTS) == len(OUTPUTS) == len(COUNTS)

nodes = [helper.make_node("Neg", [i], [o], name="neg_" + str(k)) for k, (i, o) in enumerate(zip(INPUTS, OUTPUTS))]
c = np.arange(4, dtype=np.float32) * 1.5
nodes += [
    helper.make_node("SplitToSequence", ["c"], ["s"], name="split", axis=0, keepdims=0),
    helper.make_node("SequenceAt", ["s", "p"], ["e"], name="at"),
    helper.make_node("Add", ["e", INPUTS[0]], ["seq_at"], name="add"),
]
graph = helper.make_graph(
    nodes, "reserved_names",
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, [k]) for n, k in zip(INPUTS, COUNTS)],
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, [k]) for n, k in zip(OUTPUTS, COUNTS)] +
    [helper.make_tensor_value_info("seq_at", TensorProto.FLOAT, [1])],
    [numpy_helper.from_array(c, "c"), numpy_helper.from_array(np.array(2, dtype=np.int64), "p")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "reserved_names.onnx"))

rng = np.random.default_rng(28)
xs = [rng.standard_normal([k]).astype(np.float32) for k in COUNTS]
outs = [-x for x in xs] + [c[2:3] + xs[0]]
d = os.path.join(HERE, "reserved_names_data")
os.makedirs(d, exist_ok=True)
for i, (name, a) in enumerate(zip(INPUTS, xs)):
    with open(os.path.join(d, f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
for i, (name, a) in enumerate(zip(OUTPUTS + ["seq_at"], outs)):
    with open(os.path.join(d, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
