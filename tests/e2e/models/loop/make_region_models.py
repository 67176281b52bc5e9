#!/usr/bin/python3
"""Writes Loops that Kiln compiles to a C loop (a loop region, body planned once),
and their test data (numpy references of the ONNX Loop semantics):
<name>.onnx + <name>_data*/.

region_state_4, region_state_16
               The same body run M = 4 / 16 times: a 64-float state s carried from
               iteration to iteration through a 1 KB hidden layer,
               h = Relu(s W1 + 0.01 i), s' = 0.5 s + (h W2) * 0.05 + x. The workspace
               must not grow with M (the body is planned once) while the
               instructions do.
region_scan    Carried state and scan outputs: s' = 0.5 s + x[i] (x [6, 8], row i by
               Gather on the iteration number), rows y[i] = Relu(s') and z[i] = s (the
               state as the body received it: a scan row that is a view of the loop
               state); M = 6.
region_swap    Two carried values that swap every iteration (a' = b, b' = a + 1) and a
               counter that passes through unchanged: the End's copies must not read
               what they have just written. M = 5.
region_runtime_trip
               M is a graph input (int64 scalar): s' = s * 0.5 + x, n' = n + 1; data
               sets with M = 3, 0 and 7.
region_early_exit
               M = 10 and the body stops once the state's maximum reaches a limit
               (cond_out = ReduceMax(s') < limit, run-time data); scan rows of the
               declared length 4 (the run checks that exactly 4 iterations ran): a data
               set that stops after 4 iterations, plus a carried-state-only twin
               region_early_exit_state with data sets stopping after 1, 3 and 10.
region_nested  Control flow inside a loop region: each of M = 6 iterations takes one
               branch of an If on run-time data (ReduceSum(s) < 2: 0.5 s + 1, else
               -0.25 s) and runs an inner Loop (M = 3, u' = 0.9 u + j from u = s);
               s' = branch + 0.1 u. Two data sets.
region_long_trip, region_long_nested, region_long_early_exit
               Trip counts that unrolling refused (they were tests/malformed entries
               before Loops became C loops): v' = v + 1 run M = 5001 times; the same
               body as an inner Loop of 1000 inside an outer Loop of 1000 (10^6
               iterations); region_early_exit_state's body with M = 8198 (the
               fuzzer's mutation of early_exit.onnx), data sets that stop after 5000
               iterations and that run all 8198.
Run: /usr/bin/python3 make_region_models.py"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from test_model_files import f32, i64, save_graph, write_data  # noqa: E402
rng = np.random.default_rng(1515)


def save(graph, name):
    save_graph(graph, os.path.join(HERE, name + ".onnx"))


T = lambda name, t, shape: helper.make_tensor_value_info(name, t, shape)
F, I, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

# ---- region_state_4 / region_state_16 ------------------------------------------------
W1 = (rng.standard_normal((64, 256)) * 0.1).astype(np.float32)
W2 = (rng.standard_normal((256, 64)) * 0.1).astype(np.float32)
state_body = helper.make_graph(
    [
        helper.make_node("Cast", ["i"], ["i_f"], to=F),
        helper.make_node("Mul", ["i_f", "c001"], ["bias"]),
        helper.make_node("MatMul", ["s_in", "W1"], ["h0"]),
        helper.make_node("Add", ["h0", "bias"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["h"]),
        helper.make_node("MatMul", ["h", "W2"], ["g0"]),
        helper.make_node("Mul", ["g0", "c005"], ["g"]),
        helper.make_node("Mul", ["s_in", "half"], ["d"]),
        helper.make_node("Add", ["d", "g"], ["e"]),
        helper.make_node("Add", ["e", "x"], ["s_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body", [T("i", I, []), T("cond_in", B, []), T("s_in", F, [1, 64])],
    [T("cond_out", B, []), T("s_out", F, [1, 64])],
    [f32("c001", 0.01), f32("c005", 0.05), f32("half", 0.5)],
)


def state_ref(x, m):
    s = np.zeros((1, 64), np.float32)
    for i in range(m):
        h = np.maximum(s @ W1 + np.float32(0.01) * np.float32(i), 0).astype(np.float32)
        s = (s * np.float32(0.5) + (h @ W2) * np.float32(0.05) + x).astype(np.float32)
    return s


for m in (4, 16):
    g = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "s0"], ["s"], body=state_body)],
        "region_state_%d" % m, [T("x", F, [1, 64])], [T("s", F, [1, 64])],
        [i64("M", m), f32("s0", np.zeros((1, 64))), numpy_helper.from_array(W1, "W1"),
         numpy_helper.from_array(W2, "W2")],
    )
    save(g, "region_state_%d" % m)
    x = rng.standard_normal((1, 64)).astype(np.float32)
    write_data(os.path.join(HERE, "region_state_%d_data" % m), [x], [state_ref(x, m)])

# ---- region_scan ---------------------------------------------------------------------
scan_body = helper.make_graph(
    [
        helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
        helper.make_node("Mul", ["s_in", "half"], ["d"]),
        helper.make_node("Add", ["d", "row"], ["s_out"]),
        helper.make_node("Relu", ["s_out"], ["y"]),
        helper.make_node("Identity", ["s_in"], ["z"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body", [T("i", I, []), T("cond_in", B, []), T("s_in", F, [8])],
    [T("cond_out", B, []), T("s_out", F, [8]), T("y", F, [8]), T("z", F, [8])],
    [f32("half", 0.5)],
)
g = helper.make_graph(
    [helper.make_node("Loop", ["M", "", "s0"], ["s", "ys", "zs"], body=scan_body)],
    "region_scan", [T("x", F, [6, 8]), T("s0", F, [8])],
    [T("s", F, [8]), T("ys", F, [6, 8]), T("zs", F, [6, 8])], [i64("M", 6)],
)
save(g, "region_scan")
x = rng.standard_normal((6, 8)).astype(np.float32)
s0 = rng.standard_normal(8).astype(np.float32)
s, ys, zs = s0.copy(), [], []
for i in range(6):
    zs.append(s.copy())
    s = (s * np.float32(0.5) + x[i]).astype(np.float32)
    ys.append(np.maximum(s, 0))
write_data(os.path.join(HERE, "region_scan_data"), [x, s0], [s, np.stack(ys), np.stack(zs)])

# ---- region_swap ---------------------------------------------------------------------
swap_body = helper.make_graph(
    [
        helper.make_node("Identity", ["b_in"], ["a_out"]),
        helper.make_node("Add", ["a_in", "one"], ["b_out"]),
        helper.make_node("Identity", ["a_in"], ["c_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body", [T("i", I, []), T("cond_in", B, []), T("a_in", F, [4]), T("b_in", F, [4]), T("c_in", F, [4])],
    [T("cond_out", B, []), T("a_out", F, [4]), T("b_out", F, [4]), T("c_out", F, [4])],
    [f32("one", 1.0)],
)
g = helper.make_graph(
    [helper.make_node("Loop", ["M", "", "a0", "b0", "c0"], ["a", "b", "c"], body=swap_body)],
    "region_swap", [T("a0", F, [4]), T("b0", F, [4]), T("c0", F, [4])],
    [T("a", F, [4]), T("b", F, [4]), T("c", F, [4])], [i64("M", 5)],
)
save(g, "region_swap")
a0, b0, c0 = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
a, b, c = a0.copy(), b0.copy(), c0.copy()
for _ in range(5):
    a, b, c = b, (a + np.float32(1)).astype(np.float32), a
write_data(os.path.join(HERE, "region_swap_data"), [a0, b0, c0], [a, b, c])

# ---- region_runtime_trip -------------------------------------------------------------
rt_body = helper.make_graph(
    [
        helper.make_node("Mul", ["s_in", "half"], ["d"]),
        helper.make_node("Add", ["d", "x"], ["s_out"]),
        helper.make_node("Add", ["n_in", "one"], ["n_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body", [T("i", I, []), T("cond_in", B, []), T("s_in", F, [16]), T("n_in", I, [])],
    [T("cond_out", B, []), T("s_out", F, [16]), T("n_out", I, [])],
    [f32("half", 0.5), i64("one", 1)],
)
g = helper.make_graph(
    [helper.make_node("Loop", ["M", "", "s0", "n0"], ["s", "n"], body=rt_body)],
    "region_runtime_trip", [T("M", I, []), T("x", F, [16])], [T("s", F, [16]), T("n", I, [])],
    [f32("s0", np.ones(16)), i64("n0", 0)],
)
save(g, "region_runtime_trip")
for k, m in enumerate((3, 0, 7)):
    x = rng.standard_normal(16).astype(np.float32)
    s = np.ones(16, np.float32)
    for _ in range(m):
        s = (s * np.float32(0.5) + x).astype(np.float32)
    write_data(os.path.join(HERE, "region_runtime_trip_data_%d" % k), [np.array(m, np.int64), x],
               [s, np.array(m, np.int64)])

# ---- region_early_exit / region_early_exit_state -------------------------------------
def early_body(scan):
    nodes = [
        helper.make_node("Mul", ["s_in", "w"], ["sw"]),
        helper.make_node("Add", ["sw", "step"], ["s_out"]),
        helper.make_node("ReduceMax", ["s_out"], ["mx"], keepdims=0),
        helper.make_node("Less", ["mx", "limit"], ["cond_out"]),
    ]
    outs = [T("cond_out", B, []), T("s_out", F, [4])]
    if scan:
        nodes.append(helper.make_node("Neg", ["s_out"], ["row"]))
        outs.append(T("row", F, [4]))
    return helper.make_graph(nodes, "body", [T("i", I, []), T("cond_in", B, []), T("s_in", F, [4])], outs,
                             [f32("w", [1.0, 0.5, 1.0, 0.25])])


def early_ref(s0, step, limit, scan):
    s, rows, n = s0.copy(), [], 0
    for _ in range(10):
        s = (s * np.array([1.0, 0.5, 1.0, 0.25], np.float32) + step).astype(np.float32)
        rows.append(-s)
        n += 1
        if not s.max() < limit:
            break
    return s, rows, n


for scan in (True, False):
    name = "region_early_exit" if scan else "region_early_exit_state"
    outs = [T("s", F, [4])] + ([T("rows", F, [4, 4])] if scan else [])
    g = helper.make_graph(
        [helper.make_node("Loop", ["M", "cond", "s0"], ["s"] + (["rows"] if scan else []), body=early_body(scan))],
        name, [T("s0", F, [4]), T("step", F, [4]), T("limit", F, []), T("cond", B, [])], outs, [i64("M", 10)],
    )
    save(g, name)
    runs = [4] if scan else [1, 3, 10]
    for k, want in enumerate(runs):
        s0 = np.zeros(4, np.float32)
        step = np.array([1.0, 0.25, 0.5, 0.125], np.float32)
        s = s0.copy()
        for _ in range(want):
            s = (s * np.array([1.0, 0.5, 1.0, 0.25], np.float32) + step).astype(np.float32)
        limit = np.float32(s.max() - 0.5 if want < 10 else 1e9)  # reached after `want` iterations
        s_ref, rows, n = early_ref(s0, step, limit, scan)
        assert n == want, (name, n, want)
        ins = [s0, step, np.array(limit, np.float32), np.array(True)]
        write_data(os.path.join(HERE, "%s_data_%d" % (name, k)), ins, [s_ref] + ([np.stack(rows)] if scan else []))

# ---- region_nested -------------------------------------------------------------------
then_g = helper.make_graph(
    [helper.make_node("Mul", ["s_in", "half"], ["t0"]), helper.make_node("Add", ["t0", "one"], ["t"])],
    "then", [], [T("t", F, [4])])
else_g = helper.make_graph([helper.make_node("Mul", ["s_in", "mq"], ["e"])], "else", [], [T("e", F, [4])])
inner_body = helper.make_graph(
    [
        helper.make_node("Cast", ["j"], ["j_f"], to=F),
        helper.make_node("Mul", ["u_in", "p9"], ["u0"]),
        helper.make_node("Add", ["u0", "j_f"], ["u_out"]),
        helper.make_node("Identity", ["c2_in"], ["c2_out"]),
    ],
    "inner", [T("j", I, []), T("c2_in", B, []), T("u_in", F, [4])], [T("c2_out", B, []), T("u_out", F, [4])])
nested_body = helper.make_graph(
    [
        helper.make_node("ReduceSum", ["s_in"], ["sum"], keepdims=0),
        helper.make_node("Less", ["sum", "thr"], ["c"]),
        helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["M2", "", "s_in"], ["u"], body=inner_body),
        helper.make_node("Mul", ["u", "p1"], ["u1"]),
        helper.make_node("Add", ["r", "u1"], ["s_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ],
    "body", [T("i", I, []), T("cond_in", B, []), T("s_in", F, [4])], [T("cond_out", B, []), T("s_out", F, [4])])
g = helper.make_graph(
    [helper.make_node("Loop", ["M", "", "s0"], ["s"], body=nested_body)],
    "region_nested", [T("s0", F, [4])], [T("s", F, [4])],
    [i64("M", 6), i64("M2", 3), f32("thr", 2.0), f32("half", 0.5), f32("one", 1.0), f32("mq", -0.25),
     f32("p9", 0.9), f32("p1", 0.1)],
)
save(g, "region_nested")
for k, s0 in enumerate((np.array([0.5, -1.0, 2.0, 0.25], np.float32), np.array([3.0, 1.0, -0.5, 2.0], np.float32))):
    s = s0.copy()
    for _ in range(6):
        r = (s * np.float32(0.5) + np.float32(1)) if s.sum(dtype=np.float32) < np.float32(2) else s * np.float32(-0.25)
        u = s.copy()
        for j in range(3):
            u = (u * np.float32(0.9) + np.float32(j)).astype(np.float32)
        s = (r + u * np.float32(0.1)).astype(np.float32)
    write_data(os.path.join(HERE, "region_nested_data_%d" % k), [s0], [s])

# ---- region_long_trip / region_long_nested / region_long_early_exit -------------------
def inc_body(name, inner=None):
    p = name + "_"  # names unique across the nested graphs (the checker wants SSA)
    nodes = [helper.make_node("Identity", [p + "c_in"], [p + "c_out"])]
    if inner is None:
        nodes.append(helper.make_node("Add", [p + "v_in", "one"], [p + "v_out"]))
    else:
        nodes.append(helper.make_node("Loop", ["M2", "", p + "v_in"], [p + "v_out"], body=inner))
    return helper.make_graph(nodes, name, [T(p + "it", I, []), T(p + "c_in", B, []), T(p + "v_in", F, [1])],
                             [T(p + "c_out", B, []), T(p + "v_out", F, [1])])


for name, body, trips in (("region_long_trip", inc_body("body"), 5001),
                          ("region_long_nested", inc_body("outer", inc_body("inner")), 1000 * 1000)):
    g = helper.make_graph([helper.make_node("Loop", ["M", "", "v0"], ["v"], body=body)], name,
                          [T("v0", F, [1])], [T("v", F, [1])],
                          [i64("M", 5001 if trips == 5001 else 1000), i64("M2", 1000), f32("one", [1.0])])
    save(g, name)
    v0 = np.array([0.25], np.float32)  # v0 + trips is exact in float32 (below 2^23)
    write_data(os.path.join(HERE, name + "_data"), [v0], [v0 + np.float32(trips)])

g = helper.make_graph(
    [helper.make_node("Loop", ["M", "cond", "s0"], ["s"], body=early_body(False))],
    "region_long_early_exit", [T("s0", F, [4]), T("step", F, [4]), T("limit", F, []), T("cond", B, [])],
    [T("s", F, [4])], [i64("M", 8198)])
save(g, "region_long_early_exit")
for k, (limit, want) in enumerate(((4999.5, 5000), (1e9, 8198))):
    s0 = np.zeros(4, np.float32)
    step = np.array([1.0, 0.25, 0.5, 0.125], np.float32)
    s, n = s0.copy(), 0
    for _ in range(8198):
        s = (s * np.array([1.0, 0.5, 1.0, 0.25], np.float32) + step).astype(np.float32)
        n += 1
        if not s.max() < np.float32(limit):
            break
    assert n == want, (n, want)
    write_data(os.path.join(HERE, "region_long_early_exit_data_%d" % k),
               [s0, step, np.array(limit, np.float32), np.array(True)], [s])
