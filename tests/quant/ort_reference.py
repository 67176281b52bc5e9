#!/usr/bin/env python3
"""Writes onnxruntime's outputs of an ONNX model as ONNX test data.

    ort_reference.py MODEL.onnx IN_DIR OUT_DIR --node-modules DIR

IN_DIR holds input_<i>.pb (TensorProto, named as the model's inputs); OUT_DIR gets
the same inputs and output_<i>.pb from onnxruntime. onnxruntime runs in node.js
(`npm install --ignore-scripts onnxruntime-node` in a scratch folder; pass its
node_modules with --node-modules). The tests use the committed results: they never
need onnxruntime or the network.
"""
import argparse
import base64
import glob
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--node-modules", required=True,
                    help="node_modules of a scratch `npm install onnxruntime-node`")
    a = ap.parse_args()
    model = onnx.load(a.model)
    inputs = {}
    os.makedirs(a.out_dir, exist_ok=True)
    for i, path in enumerate(sorted(glob.glob(os.path.join(a.in_dir, "input_*.pb")))):
        t = onnx.TensorProto()
        t.ParseFromString(open(path, "rb").read())
        arr = numpy_helper.to_array(t)
        name = t.name or model.graph.input[i].name
        inputs[name] = {"dtype": str(arr.dtype), "dims": list(arr.shape),
                        "data": base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode()}
        if os.path.abspath(a.in_dir) != os.path.abspath(a.out_dir):
            shutil.copy(path, os.path.join(a.out_dir, os.path.basename(path)))
    with tempfile.TemporaryDirectory() as tmp:
        req, res = os.path.join(tmp, "request.json"), os.path.join(tmp, "result.json")
        json.dump({"inputs": inputs}, open(req, "w"))
        env = dict(os.environ, NODE_PATH=a.node_modules)
        subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), a.model, req, res], check=True, env=env)
        outputs = json.load(open(res))["outputs"]
    for i, o in enumerate(model.graph.output):
        r = outputs[o.name]
        arr = np.frombuffer(base64.b64decode(r["data"]), dtype=r["dtype"]).reshape(r["dims"])
        t = numpy_helper.from_array(arr, o.name)
        open(os.path.join(a.out_dir, f"output_{i}.pb"), "wb").write(t.SerializeToString())


if __name__ == "__main__":
    main()
