#!/usr/bin/env python3
"""Kiln's stage boundaries, checked over the #include lines of generator/.

1. ONNX stops at one boundary: only generator/onnx/ includes ONNX's headers
   (<onnx/...>, i.e. the protobuf classes, checker, shape inference, converter).
2. Each folder includes only the folders listed for it below: a pipeline stage
   sees the shared modules (ir, util, eval) and the few earlier stages whose
   types it takes; no stage includes a later stage, fold/ and onnx/ know nothing
   of each other. driver/, cli/ and verify/ assemble the pipeline and may use any
   stage.
Exits non-zero listing every violation (file:line, the include, the rule).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
GEN = ROOT / "generator"

SHARED = {"ir", "util"}
ALLOWED = {
    "util": set(),
    "ir": {"util"},
    "eval": SHARED,
    "planner": set(),
    "onnx": SHARED | {"eval"},            # the ONNX frontend
    "tflite": SHARED | {"quant"},         # the TFLite frontend (KilnQ* parameters)
    "fold": SHARED | {"eval"},
    "controlflow": SHARED | {"eval"},
    "sequence": SHARED,
    "quant": SHARED,
    "lower": SHARED | {"quant"},          # integer ops' parameters
    "bufferize": SHARED | {"lower"},      # KernelCall
    "schedule": SHARED | {"lower", "bufferize"},  # order, overlaps, fusions over lowered calls
    "emit": SHARED | {"bufferize"},
    "pipeline": None,                     # assemblers: anything
    "driver": None,
    "verify": None,
    "cli": None,
}

include_re = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
errors = []
for path in sorted(GEN.rglob("*")):
    if path.suffix not in (".h", ".cpp"):
        continue
    folder = path.relative_to(GEN).parts[0]
    allowed = ALLOWED.get(folder, "unknown")
    if allowed == "unknown":
        errors.append(f"{path.relative_to(ROOT)}: folder generator/{folder}/ has no rule in {__file__}")
        continue
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = include_re.match(line)
        if not m:
            continue
        bracket, target = m.groups()
        where = f"{path.relative_to(ROOT)}:{lineno}: #include {line.strip()[len('#include'):].strip()}"
        if bracket == "<":
            if target.startswith("onnx/") and folder != "onnx":
                errors.append(f"{where}: only generator/onnx/ may include ONNX's headers")
            continue
        top = target.split("/")[0]
        if "/" not in target or not (GEN / top).is_dir():
            continue  # a generated header (tflite schema) or a file of the same folder
        if top == folder or allowed is None:
            continue
        if top not in allowed:
            errors.append(f"{where}: generator/{folder}/ may include only {sorted(allowed) or 'nothing'} "
                          f"(tests/architecture/check_includes.py)")

for e in errors:
    print(e)
if errors:
    print(f"{len(errors)} include(s) cross a stage boundary")
    sys.exit(1)
print("stage boundaries hold")
