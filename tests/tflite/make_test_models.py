#!/usr/bin/python3
"""Writes the small .tflite files of tests/tflite (run by hand; outputs are committed).

The flatbuffers are written through the Python builder that flatc generates from
Kiln's own schema subset (generator/tflite/tflite_schema.fbs), so this script and
the C++ reader share one definition of the format.

  models/tiny_int8_conv.tflite  a valid int8 CONV_2D + RELU6 + MAX_POOL_2D model
  malformed/*.tflite            one defect each; malformed/EXPECTED.txt lists the
                                part of the one-line error each must produce

Usage: tests/tflite/make_test_models.py   (from anywhere; needs flatc, python3-flatbuffers)
"""
import copy
import importlib
import os
import struct
import subprocess
import sys
import tempfile

import flatbuffers

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "generator", "tflite", "tflite_schema.fbs")

gen = tempfile.mkdtemp(prefix="kiln_tflite_py_")
subprocess.run(["flatc", "--python", "-o", gen, SCHEMA], check=True)
sys.path.insert(0, gen)


def fb(name):
    return importlib.import_module("kiln.tflite_fb." + name)


TT = fb("TensorType").TensorType
OP = fb("BuiltinOperator").BuiltinOperator
BO = fb("BuiltinOptions").BuiltinOptions
PAD = fb("Padding").Padding
ACT = fb("ActivationFunctionType").ActivationFunctionType


def int_vector(b, start, values, kind="int32"):
    start(b, len(values))
    for v in reversed(values):
        {"int32": b.PrependInt32, "int64": b.PrependInt64, "float": b.PrependFloat32,
         "uint8": b.PrependUint8}[kind](v)
    return b.EndVector()


def table_vector(b, start, offsets):
    start(b, len(offsets))
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def build(model):
    """model: dict with buffers (bytes), tensors, operators, opcodes, inputs, outputs."""
    b = flatbuffers.Builder(1024)
    M, T, Q, O, C, S, B = (fb(n) for n in ("Model", "Tensor", "QuantizationParameters", "Operator",
                                            "OperatorCode", "SubGraph", "Buffer"))
    buffers = []
    for data in model["buffers"]:
        d = None
        if data:
            b.StartVector(1, len(data), 16)
            for x in reversed(data):
                b.PrependUint8(x)
            d = b.EndVector()
        B.BufferStart(b)
        if d is not None:
            B.BufferAddData(b, d)
        buffers.append(B.BufferEnd(b))
    tensors = []
    for t in model["tensors"]:
        name = b.CreateString(t["name"])
        shape = int_vector(b, T.TensorStartShapeVector, t["shape"])
        q = None
        if "scale" in t:
            sc = int_vector(b, Q.QuantizationParametersStartScaleVector, t["scale"], "float")
            zp = int_vector(b, Q.QuantizationParametersStartZeroPointVector, t["zero_point"], "int64")
            Q.QuantizationParametersStart(b)
            Q.QuantizationParametersAddScale(b, sc)
            Q.QuantizationParametersAddZeroPoint(b, zp)
            Q.QuantizationParametersAddQuantizedDimension(b, t.get("qdim", 0))
            q = Q.QuantizationParametersEnd(b)
        T.TensorStart(b)
        T.TensorAddShape(b, shape)
        T.TensorAddType(b, t["type"])
        T.TensorAddBuffer(b, t.get("buffer", 0))
        T.TensorAddName(b, name)
        if q is not None:
            T.TensorAddQuantization(b, q)
        tensors.append(T.TensorEnd(b))
    ops = []
    for op in model["operators"]:
        opts = op["options"](b) if op.get("options") else None
        ins = int_vector(b, O.OperatorStartInputsVector, op["inputs"])
        outs = int_vector(b, O.OperatorStartOutputsVector, op["outputs"])
        O.OperatorStart(b)
        O.OperatorAddOpcodeIndex(b, op["opcode"])
        O.OperatorAddInputs(b, ins)
        O.OperatorAddOutputs(b, outs)
        if opts is not None:
            O.OperatorAddBuiltinOptionsType(b, op["options_type"])
            O.OperatorAddBuiltinOptions(b, opts)
        ops.append(O.OperatorEnd(b))
    codes = []
    for code in model["opcodes"]:
        C.OperatorCodeStart(b)
        C.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        C.OperatorCodeAddBuiltinCode(b, code)
        C.OperatorCodeAddVersion(b, 1)
        codes.append(C.OperatorCodeEnd(b))
    sg_tensors = table_vector(b, S.SubGraphStartTensorsVector, tensors)
    sg_ins = int_vector(b, S.SubGraphStartInputsVector, model["inputs"])
    sg_outs = int_vector(b, S.SubGraphStartOutputsVector, model["outputs"])
    sg_ops = table_vector(b, S.SubGraphStartOperatorsVector, ops)
    S.SubGraphStart(b)
    S.SubGraphAddTensors(b, sg_tensors)
    S.SubGraphAddInputs(b, sg_ins)
    S.SubGraphAddOutputs(b, sg_outs)
    S.SubGraphAddOperators(b, sg_ops)
    sg = S.SubGraphEnd(b)
    m_codes = table_vector(b, M.ModelStartOperatorCodesVector, codes)
    m_sgs = table_vector(b, M.ModelStartSubgraphsVector, [sg])
    m_bufs = table_vector(b, M.ModelStartBuffersVector, buffers)
    M.ModelStart(b)
    M.ModelAddVersion(b, model.get("version", 3))
    M.ModelAddOperatorCodes(b, m_codes)
    M.ModelAddSubgraphs(b, m_sgs)
    M.ModelAddBuffers(b, m_bufs)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def conv_options(stride=1, padding=PAD.SAME, act=ACT.RELU6):
    def make(b):
        o = fb("Conv2DOptions")
        o.Conv2DOptionsStart(b)
        o.Conv2DOptionsAddPadding(b, padding)
        o.Conv2DOptionsAddStrideW(b, stride)
        o.Conv2DOptionsAddStrideH(b, stride)
        o.Conv2DOptionsAddFusedActivationFunction(b, act)
        return o.Conv2DOptionsEnd(b)
    return make


def pool_options(b):
    o = fb("Pool2DOptions")
    o.Pool2DOptionsStart(b)
    o.Pool2DOptionsAddPadding(b, PAD.VALID)
    o.Pool2DOptionsAddStrideW(b, 2)
    o.Pool2DOptionsAddStrideH(b, 2)
    o.Pool2DOptionsAddFilterWidth(b, 2)
    o.Pool2DOptionsAddFilterHeight(b, 2)
    return o.Pool2DOptionsEnd(b)


def tiny_int8_conv():
    """x int8 [1,4,4,2] -> CONV_2D 3x3 SAME, 3 filters, per-channel, RELU6 -> MAX_POOL_2D 2x2."""
    weights = [((i * 37) % 19) - 9 for i in range(3 * 3 * 3 * 2)]
    bias = [100, -250, 7]
    return {
        "buffers": [b"", bytes(w & 0xFF for w in weights), b"".join(struct.pack("<i", v) for v in bias)],
        "tensors": [
            {"name": "image", "shape": [1, 4, 4, 2], "type": TT.INT8, "scale": [0.05], "zero_point": [-3]},
            {"name": "conv/weights", "shape": [3, 3, 3, 2], "type": TT.INT8, "buffer": 1,
             "scale": [0.01, 0.02, 0.015], "zero_point": [0, 0, 0], "qdim": 0},
            {"name": "conv/bias", "shape": [3], "type": TT.INT32, "buffer": 2,
             "scale": [0.0005, 0.001, 0.00075], "zero_point": [0, 0, 0]},
            {"name": "conv/out", "shape": [1, 4, 4, 3], "type": TT.INT8, "scale": [0.03], "zero_point": [-128]},
            {"name": "scores", "shape": [1, 2, 2, 3], "type": TT.INT8, "scale": [0.03], "zero_point": [-128]},
        ],
        "opcodes": [OP.CONV_2D, OP.MAX_POOL_2D],
        "operators": [
            {"opcode": 0, "inputs": [0, 1, 2], "outputs": [3], "options_type": BO.Conv2DOptions,
             "options": conv_options()},
            {"opcode": 1, "inputs": [3], "outputs": [4], "options_type": BO.Pool2DOptions, "options": pool_options},
        ],
        "inputs": [0],
        "outputs": [4],
    }


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    good = tiny_int8_conv()
    valid = build(good)
    write(os.path.join(HERE, "models", "tiny_int8_conv.tflite"), valid)

    cases = {}  # name -> (bytes, expected error fragment)

    def variant(name, expect, edit):
        m = copy.deepcopy(good)
        # deepcopy keeps the option builders (functions) shared, which is fine
        edit(m)
        cases[name] = (build(m), expect)

    cases["truncated"] = (valid[: len(valid) // 2], "corrupt or truncated")
    cases["truncated_after_identifier"] = (valid[:12], "corrupt or truncated")
    bad_root = bytearray(valid)
    bad_root[0:4] = struct.pack("<I", len(valid) + 1000)
    cases["root_offset_outside"] = (bytes(bad_root), "corrupt or truncated")
    garbage = bytearray(b"\x00\x00\x00\x00TFL3" + bytes((i * 89 + 7) % 256 for i in range(300)))
    garbage[0:4] = struct.pack("<I", 16)
    cases["garbage_with_identifier"] = (bytes(garbage), "corrupt or truncated")
    vt = bytearray(valid)
    root = struct.unpack("<I", vt[0:4])[0]
    vt[root:root + 4] = struct.pack("<i", -0x7FFFFFF0)  # the root table's vtable offset
    cases["vtable_offset_outside"] = (bytes(vt), "corrupt or truncated")

    variant("buffer_index_out_of_range", "refers to buffer 99 but the model has 3",
            lambda m: m["tensors"][1].update(buffer=99))
    variant("negative_dim", "negative dimension -4", lambda m: m["tensors"][0].update(shape=[1, -4, 4, 2]))
    variant("huge_dims", "more than 2^31-1 elements",
            lambda m: m["tensors"][3].update(shape=[1, 65536, 65536, 3]))
    variant("buffer_too_short", "needs 54", lambda m: m["buffers"].__setitem__(1, m["buffers"][1][:50]))
    variant("missing_options", "missing or wrong builtin options (expected Conv2DOptions)",
            lambda m: m["operators"][0].update(options=None))
    variant("wrong_options_type", "missing or wrong builtin options (expected Pool2DOptions)",
            lambda m: m["operators"][1].update(options_type=BO.Conv2DOptions, options=conv_options()))
    variant("quant_scales_vs_channels", "has 2 quantization scales for axis 0 of size 3",
            lambda m: m["tensors"][1].update(scale=[0.01, 0.02], zero_point=[0, 0]))
    variant("quant_zero_points_vs_scales", "has 3 quantization scales but 1 zero points",
            lambda m: m["tensors"][1].update(zero_point=[0]))
    variant("quant_axis_out_of_range", "quantized along axis 7",
            lambda m: m["tensors"][1].update(qdim=7))
    variant("quant_scale_zero", "quantization scale 0", lambda m: m["tensors"][0].update(scale=[0.0]))
    variant("opcode_index_out_of_range", "refers to operator code 5",
            lambda m: m["operators"][1].update(opcode=5))
    variant("tensor_index_out_of_range", "refers to tensor 42",
            lambda m: m["operators"][0].update(inputs=[0, 42, 2]))
    variant("graph_output_out_of_range", "output list refers to tensor 9", lambda m: m.update(outputs=[9]))
    variant("too_few_inputs", "CONV_2D (operator 0): has 1 inputs, expected 2 to 3",
            lambda m: m["operators"][0].update(inputs=[0]))
    variant("unsupported_op", "GATHER (operator 1): this operator is not supported",
            lambda m: m.update(opcodes=[OP.CONV_2D, OP.GATHER]))
    variant("input_not_produced", "is neither a constant, a model input, nor the output of an earlier operator",
            lambda m: m["operators"].reverse())
    variant("zero_stride", "strides must be positive",
            lambda m: m["operators"][0].update(options=conv_options(stride=0)))
    variant("wrong_output_shape", "gives 4x4", lambda m: m["tensors"][3].update(shape=[1, 5, 4, 3]))
    variant("schema_version", "schema version 2", lambda m: m.update(version=2))
    variant("asymmetric_weights", "must be symmetric", lambda m: m["tensors"][1].update(zero_point=[0, 1, 0]))

    out = os.path.join(HERE, "malformed")
    for f in os.listdir(out):
        if f.endswith(".tflite"):
            os.remove(os.path.join(out, f))
    with open(os.path.join(out, "EXPECTED.txt"), "w") as listing:
        listing.write("# file<TAB>part of the one-line error `kiln compile` must print (tests/tflite/run_malformed.cmake)\n")
        for name, (data, expect) in sorted(cases.items()):
            write(os.path.join(out, name + ".tflite"), data)
            listing.write(f"{name}.tflite\t{expect}\n")
    print(f"wrote models/tiny_int8_conv.tflite and {len(cases)} malformed files")


if __name__ == "__main__":
    main()
