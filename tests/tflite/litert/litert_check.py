#!/usr/bin/python3
"""Compares the committed reference outputs of tests/tflite/models/NAME with what
LiteRT computes for the same inputs (litert_run.mjs). A second opinion on the
NumPy evaluations of make_test_models.py; run by hand, it needs npm's
@litertjs/core (see litert_run.mjs). Float outputs must agree within kiln verify's
tolerance (|a - e| <= 1e-7 + 1e-3 |e|), integer ones exactly.

  tests/tflite/litert/litert_check.py float_math float_transpose_conv

LiteRT.js cannot pass int8 or int64 tensors in or out, so models with such inputs
or outputs (int8_tensor_ops, float_tensor_ops' ARG_MIN) cannot be checked here."""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "models")


def load(p):
    t = onnx.TensorProto()
    t.ParseFromString(open(p, "rb").read())
    return numpy_helper.to_array(t)


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sys.argv[1:]:
            for d in sorted(glob.glob(os.path.join(MODELS, name, "test_data_set_*"))):
                x = load(os.path.join(d, "input_0.pb"))
                x.tofile(os.path.join(tmp, "in.bin"))
                r = subprocess.run(["node", os.path.join(HERE, "litert_run.mjs"), os.path.join(MODELS, name + ".tflite"),
                                    os.path.join(tmp, "in.bin"), str(x.dtype), ",".join(map(str, x.shape)),
                                    os.path.join(tmp, "out")], capture_output=True, text=True)
                if r.returncode:
                    print(f"{name}: LiteRT failed: {r.stderr.strip().splitlines()[-1]}")
                    bad += 1
                    break
                outs = sorted(glob.glob(os.path.join(d, "output_*.pb")), key=lambda p: int(p.split("_")[-1][:-3]))
                for j, p in enumerate(outs):
                    e = load(p)
                    g = np.fromfile(os.path.join(tmp, "out", f"out_{j}.bin"), dtype=e.dtype).reshape(e.shape)
                    if e.dtype.kind == "f":
                        ok = bool(np.all(np.abs(g - e) <= 1e-7 + 1e-3 * np.abs(e)))
                        err = float(np.abs(g.astype(np.float64) - e).max())
                    else:
                        err = int(np.abs(g.astype(np.int64) - e.astype(np.int64)).max())
                        ok = err == 0
                    print(f"{name} {os.path.basename(d)} output {j} ({e.dtype}): max |LiteRT - reference| {err:.3g} "
                          f"{'ok' if ok else 'DIFFERS'}")
                    bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
