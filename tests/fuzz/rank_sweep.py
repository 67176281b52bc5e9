#!/usr/bin/python3
"""A structured sweep beside libFuzzer: every ONNX node test of libonnx-testdata with
one graph input re-declared one rank lower, two ranks lower, one rank higher, as
rank 1 or rank 0 (a scalar), with its last dimension one larger, or with no shape
at all, compiled by a release `kiln`. A mutation libFuzzer
rarely makes (a consistent shape of another rank), and the one that reaches ONNX's
shape rules with ranks they index without checking. Prints each variant that did
not end in a clean error or a compile (exit >= 128, a signal, a timeout, or a
non-zero exit without a `kiln: error:` line) and keeps it in OUT; exits 1 if any.

  tests/fuzz/rank_sweep.py build/kiln OUT [KINDS]   (about 25 minutes on 2 loaded cores)
KINDS: a comma-separated subset of u, m1, m2, p1, r1, r0, s (all by default).
"""
import copy
import glob
import os
import subprocess
import sys

import onnx

NODE_TESTS = "/usr/share/libonnx-testdata/data/node"


def variants(dims, only=None):
    for kind, new_dims in all_variants(dims):
        if only is None or kind in only:
            yield kind, new_dims


def all_variants(dims):
    yield "u", None  # a tensor type without a shape
    if len(dims) >= 1:
        yield "m1", dims[1:]
        yield "s", dims[:-1] + [dims[-1] + 1]
    if len(dims) >= 2:
        yield "m2", dims[2:]
    # Rank 1 and rank 0 from rank 3 or more (m1 and m2 give them below that): inference
    # functions that read dimension 1 of a second input unchecked (MaxUnpool's indices,
    # found by make fuzz).
    if len(dims) >= 3:
        yield "r1", dims[-1:]
        yield "r0", []
    yield "p1", [1] + dims


def main():
    kiln, out = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
    os.makedirs(out, exist_ok=True)
    count, faults = 0, []
    for path in sorted(glob.glob(os.path.join(NODE_TESTS, "*", "model.onnx"))):
        test = os.path.basename(os.path.dirname(path))
        model = onnx.load(path)
        for i, vi in enumerate(model.graph.input):
            if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
                continue
            dims = [d.dim_value if d.HasField("dim_value") else 1 for d in vi.type.tensor_type.shape.dim]
            for kind, new_dims in variants(dims, only):
                m = copy.deepcopy(model)
                shape = m.graph.input[i].type.tensor_type.shape
                shape.ClearField("dim")
                if new_dims is None:
                    m.graph.input[i].type.tensor_type.ClearField("shape")
                for d in new_dims or []:
                    shape.dim.add().dim_value = d
                f = os.path.join(out, f"{test}.{i}.{kind}.onnx")
                onnx.save(m, f)
                count += 1
                try:
                    r = subprocess.run([kiln, "compile", f, "-o", os.path.join(out, "module")],
                                       capture_output=True, timeout=60)
                    rc, clean = r.returncode, r.returncode == 0 or (r.returncode == 1 and b"kiln: error:" in r.stderr)
                except subprocess.TimeoutExpired:
                    rc, clean = "timeout", False
                if clean:
                    os.remove(f)
                else:
                    faults.append(f)
                    print(f"FAULT {f}: exit {rc}", flush=True)
    print(f"{count} variants, {len(faults)} faults")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
