"""What the e2e test-model scripts share (loop/, control_flow/): a model saved as
Kiln's tests write them (opset 13, IR 8, checked by ONNX's checker) and a test
data set folder in the ONNX backend-test layout (input_<j>.pb, output_<j>.pb).
Imported by the scripts with their parent folder on sys.path."""
import os

import numpy as np
import onnx
from onnx import helper, numpy_helper


def save_graph(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def write_data(d, inputs, outputs):
    os.makedirs(d, exist_ok=True)
    for j, a in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "input_%d.pb" % j))
    for j, a in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "output_%d.pb" % j))


def f32(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def i64(name, v):
    return numpy_helper.from_array(np.array(v, np.int64), name)
