// Bufferization on hand-built graphs: views alias, outputs are written in the
// caller's memory, copies appear only where needed (with their reasons), scratch
// lives for exactly its op's step.
#include <gtest/gtest.h>

#include <set>

#include "../support/expect_contains.h"
#include "../support/graph_builder.h"
#include "bufferize/bufferize.h"
#include "util/error.h"

namespace kiln {
namespace {

using G = test_support::GraphBuilder;

// Invariants every program must satisfy.
void expect_well_formed(const BufferizedProgram& p, const Graph& g) {
  const int64_t steps = int64_t(p.ops.size());
  std::set<int> ids;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    EXPECT_EQ(b.id, int(i));
    EXPECT_LE(b.first, b.last) << b.name;
    EXPECT_LE(b.last, std::max<int64_t>(steps, 1)) << b.name;
    EXPECT_GT(b.alignment, 0u);
    EXPECT_EQ(b.alignment & (b.alignment - 1), 0u) << "alignment of " << b.name << " is not a power of two";
  }
  std::set<int> out_idx, in_idx;
  for (const Buffer& b : p.buffers) {
    if (b.kind == BufferKind::Output) {
      EXPECT_TRUE(out_idx.insert(b.io_index).second) << "two buffers for output " << b.io_index;
      ASSERT_GE(b.io_index, 0);
      ASSERT_LT(size_t(b.io_index), g.outputs.size());
      EXPECT_EQ(b.size_bytes, g.outputs[size_t(b.io_index)]->size_bytes());
    }
    if (b.kind == BufferKind::Input) EXPECT_TRUE(in_idx.insert(b.io_index).second);
  }
  EXPECT_EQ(out_idx.size(), g.outputs.size()) << "every graph output has exactly one caller buffer";
  EXPECT_EQ(in_idx.size(), g.inputs.size());
  for (int64_t i = 0; i < steps; ++i) {
    const ScheduledOp& op = p.ops[size_t(i)];
    EXPECT_EQ(op.inputs.size(), op.input_dtypes.size()) << op.label;
    EXPECT_EQ(op.outputs.size(), op.output_dtypes.size()) << op.label;
    for (const auto* refs : {&op.inputs, &op.outputs, &op.scratch})
      for (const BufferRef& r : *refs) {
        if (r.buffer < 0) continue;
        const Buffer& b = p.buffers[size_t(r.buffer)];
        EXPECT_TRUE(b.first <= i && i < b.last) << op.label << " uses " << b.name << " outside its live interval";
      }
    for (const BufferRef& r : op.outputs) {
      if (r.buffer < 0) continue;
      const Buffer& b = p.buffers[size_t(r.buffer)];
      EXPECT_NE(b.kind, BufferKind::Input) << op.label << " writes a graph input";
      EXPECT_NE(b.kind, BufferKind::Constant) << op.label << " writes a constant";
    }
  }
}

const Buffer& buf(const BufferizedProgram& p, const BufferRef& r) { return p.buffers.at(size_t(r.buffer)); }

int count_kind(const BufferizedProgram& p, BufferKind k) {
  int n = 0;
  for (const auto& b : p.buffers) n += b.kind == k;
  return n;
}

TEST(Bufferize, ViewsShareTheirSourceBufferAndExtendItsLifetime) {
  // step 0: a = Relu(x); r = Reshape(a) (view); step 1: b = Relu(a);
  // step 2: c = Relu(r); step 3: y = Add(b, Reshape(c)).
  G t;
  Value* x = t.input("x", {2, 6});
  Value* a = t.val("a", {2, 6});
  Value* r = t.val("r", {3, 4});
  Value* b = t.val("b", {2, 6});
  Value* c = t.val("c", {3, 4});
  Value* c2 = t.val("c2", {2, 6});
  Value* y = t.val("y", {2, 6});
  t.op("Relu", "relu_a", {x}, {a});
  t.op("Reshape", "view_r", {a, t.i64("s34", {3, 4})}, {r});
  t.op("Relu", "relu_b", {a}, {b});
  t.op("Relu", "relu_c", {r}, {c});
  t.op("Reshape", "view_c2", {c, t.i64("s26", {2, 6})}, {c2});
  t.op("Add", "add", {b, c2}, {y});
  t.output(y);
  // In place, relu_c would take over a's buffer (it is its last user); this test
  // is about views alone (in place: InPlaceReusesTheLastUsersInput below).
  BufferizeOptions o;
  o.in_place = false;
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}), o);
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 4u) << "views make no op";
  EXPECT_TRUE(p.copies.empty());
  EXPECT_EQ(p.ops[0].label, "Relu 'relu_a'");
  EXPECT_EQ(p.ops[3].label, "Add 'add'");
  // r is a's bytes.
  const BufferRef a_ref = p.ops[0].outputs[0];
  EXPECT_EQ(p.ops[1].inputs[0].buffer, a_ref.buffer);
  EXPECT_EQ(p.ops[2].inputs[0].buffer, a_ref.buffer);
  EXPECT_EQ(p.ops[2].inputs[0].offset, 0u);
  // Live from its producer to the last use of any alias (step 2, through r).
  EXPECT_EQ(buf(p, a_ref).first, 0);
  EXPECT_EQ(buf(p, a_ref).last, 3);
  EXPECT_EQ(buf(p, a_ref).size_bytes, 48u);
  EXPECT_EQ(buf(p, a_ref).kind, BufferKind::Activation);
  // c and its view c2 share one buffer, live [2, 4).
  EXPECT_EQ(p.ops[3].inputs[1].buffer, p.ops[2].outputs[0].buffer);
  EXPECT_EQ(buf(p, p.ops[2].outputs[0]).first, 2);
  EXPECT_EQ(buf(p, p.ops[2].outputs[0]).last, 4);
  // Buffers: x, a, b, c, y (activations: a, b, c) and the two shape constants.
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 3);
  EXPECT_EQ(count_kind(p, BufferKind::Input), 1);
  EXPECT_EQ(count_kind(p, BufferKind::Output), 1);
}

TEST(Bufferize, WithoutAliasingEveryViewIsACopy) {
  G t;
  Value* x = t.input("x", {2, 6});
  Value* a = t.val("a", {2, 6});
  Value* r = t.val("r", {12});
  Value* y = t.val("y", {12});
  t.op("Relu", "relu", {x}, {a});
  t.op("Flatten", "flat", {a}, {r});
  t.op("Relu", "relu2", {r}, {y});
  t.output(y);
  BufferizeOptions o;
  o.alias_views = false;
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}), o);
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_CONTAINS(p.ops[1].call.call, "kiln_copy_bytes($out0, $in0, 48u)");
  EXPECT_NE(p.ops[1].outputs[0].buffer, p.ops[1].inputs[0].buffer);
  EXPECT_EQ(p.ops[2].inputs[0].buffer, p.ops[1].outputs[0].buffer);
}

TEST(Bufferize, OutputProducerWritesIntoTheCallersBuffer) {
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  Value* y = t.val("y", {4});
  Value* z = t.val("z", {4});
  t.op("Relu", "r1", {x}, {a});
  t.op("Sigmoid", "s", {a}, {y});
  t.op("Tanh", "t", {y}, {z});  // an output that is also read by a later op
  t.output(z);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_TRUE(p.copies.empty());
  const Buffer& yb = buf(p, p.ops[1].outputs[0]);
  EXPECT_EQ(yb.kind, BufferKind::Output);
  EXPECT_EQ(yb.io_index, 1);
  EXPECT_EQ(p.ops[2].inputs[0].buffer, yb.id);  // read back from the caller's buffer
  const Buffer& zb = buf(p, p.ops[2].outputs[0]);
  EXPECT_EQ(zb.kind, BufferKind::Output);
  EXPECT_EQ(zb.io_index, 0);
  // The input buffer is the caller's, never written.
  EXPECT_EQ(buf(p, p.ops[0].inputs[0]).kind, BufferKind::Input);
  EXPECT_EQ(buf(p, p.ops[0].inputs[0]).io_index, 0);
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 1);  // only a
}

TEST(Bufferize, OutputThatIsAViewMakesItsSourceTheCallersBuffer) {
  G t;
  Value* x = t.input("x", {2, 3});
  Value* a = t.val("a", {2, 3});
  Value* y = t.val("y", {6});
  t.op("Relu", "relu", {x}, {a});
  t.op("Reshape", "flat", {a, t.i64("s", {6})}, {y});
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_TRUE(p.copies.empty());
  const Buffer& b = buf(p, p.ops[0].outputs[0]);
  EXPECT_EQ(b.kind, BufferKind::Output);
  EXPECT_EQ(b.io_index, 0);
  EXPECT_EQ(b.name, "y");
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 0);
}

TEST(Bufferize, OutputThatIsAGraphInputIsCopied) {
  G t;
  Value* x = t.input("x", {4});
  Value* y = t.val("y", {4});
  t.op("Relu", "relu", {x}, {y});
  t.output(y);
  t.output(x);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.copies.size(), 1u);
  EXPECT_CONTAINS(p.copies[0], "'x'");
  EXPECT_CONTAINS(p.copies[0], "graph input");
  ASSERT_EQ(p.ops.size(), 2u);
  const ScheduledOp& copy = p.ops[1];
  EXPECT_EQ(copy.node, nullptr);
  EXPECT_EQ(copy.call.call, "kiln_copy_bytes($out0, $in0, 16u)");
  EXPECT_EQ(buf(p, copy.inputs[0]).kind, BufferKind::Input);
  EXPECT_EQ(buf(p, copy.outputs[0]).kind, BufferKind::Output);
  EXPECT_EQ(buf(p, copy.outputs[0]).io_index, 1);
}

TEST(Bufferize, OutputThatIsAViewOfAGraphInputIsCopied) {
  G t;
  Value* x = t.input("x", {2, 2});
  Value* y = t.val("y", {4});
  t.op("Flatten", "flat", {x}, {y});
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.copies.size(), 1u);
  EXPECT_CONTAINS(p.copies[0], "graph input 'x'");
  ASSERT_EQ(p.ops.size(), 1u);
}

TEST(Bufferize, SameValueReturnedTwiceIsCopiedOnce) {
  G t;
  Value* x = t.input("x", {4});
  Value* y = t.val("y", {4});
  t.op("Relu", "relu", {x}, {y});
  t.output(y);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.copies.size(), 1u);
  EXPECT_CONTAINS(p.copies[0], "same value");
  ASSERT_EQ(p.ops.size(), 2u);
  // Relu writes output 0; the copy fills output 1 from it.
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).io_index, 0);
  EXPECT_EQ(p.ops[1].inputs[0].buffer, p.ops[0].outputs[0].buffer);
  EXPECT_EQ(buf(p, p.ops[1].outputs[0]).io_index, 1);
}

TEST(Bufferize, ConstantOutputIsCopiedFromTheParameterPool) {
  G t;
  Value* x = t.input("x", {4});
  Value* y = t.val("y", {4});
  Value* k = t.cst("k", {3});
  t.op("Relu", "relu", {x}, {y});
  t.output(y);
  t.output(k);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.copies.size(), 1u);
  EXPECT_CONTAINS(p.copies[0], "constant");
  const Buffer& src = buf(p, p.ops.back().inputs[0]);
  EXPECT_EQ(src.kind, BufferKind::Constant);
  EXPECT_EQ(src.constant, k->constant);
  EXPECT_EQ(src.size_bytes, 12u);
}

TEST(Bufferize, ConstantsGetOneBufferEachAndLiveForTheWholeRun) {
  G t;
  Value* x = t.input("x", {3});
  Value* k = t.cst("k", {3});
  Value* a = t.val("a", {3});
  Value* y = t.val("y", {3});
  t.op("Add", "add1", {x, k}, {a});
  t.op("Mul", "mul", {a, k}, {y});
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  EXPECT_EQ(count_kind(p, BufferKind::Constant), 1);
  EXPECT_EQ(p.ops[0].inputs[1].buffer, p.ops[1].inputs[1].buffer);
  const Buffer& kb = buf(p, p.ops[0].inputs[1]);
  EXPECT_EQ(kb.first, 0);
  EXPECT_EQ(kb.last, 2);
}

TEST(Bufferize, ScratchLivesForExactlyItsStep) {
  G t;
  Value* x = t.input("x", {1, 3, 8, 8});
  Value* a = t.val("a", {1, 3, 8, 8});
  Value* c = t.val("c", {1, 4, 6, 6});
  Value* y = t.val("y", {1, 4, 6, 6});
  t.op("Relu", "pre", {x}, {a});
  t.op("Conv", "conv1", {a, t.cst("w", {4, 3, 3, 3})}, {c});
  t.op("Relu", "post", {c}, {y});
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 3u);
  ASSERT_EQ(p.ops[1].scratch.size(), 1u);
  EXPECT_TRUE(p.ops[0].scratch.empty());
  const Buffer& s = buf(p, p.ops[1].scratch[0]);
  EXPECT_EQ(s.kind, BufferKind::Scratch);
  EXPECT_EQ(s.first, 1);
  EXPECT_EQ(s.last, 2);
  EXPECT_EQ(s.size_bytes, p.ops[1].call.scratch[0].size_bytes);
  EXPECT_GE(s.alignment, p.ops[1].call.scratch[0].alignment);
  EXPECT_CONTAINS(s.name, "conv1");
  EXPECT_CONTAINS(s.name, "im2col");
  EXPECT_EQ(s.origin, "Conv 'conv1'");
  EXPECT_EQ(count_kind(p, BufferKind::Scratch), 1);
}

TEST(Bufferize, ActivationAlignmentFollowsTheOption) {
  G t;
  Value* x = t.input("x", {3});
  Value* a = t.val("a", {3});
  Value* y = t.val("y", {3});
  t.op("Relu", "r1", {x}, {a});
  t.op("Relu", "r2", {a}, {y});
  t.output(y);
  BufferizeOptions o;
  o.activation_alignment = 64;
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}), o);
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).alignment, 64u);
}

TEST(Bufferize, OmittedOptionalInputsAndOutputs) {
  G t;
  Value* x = t.input("x", {1, 1, 4, 4});
  Value* y = t.val("y", {1, 1, 2, 2});
  Value* idx = t.g.add_value("idx_unused", DType::Undefined, {});
  Node* n = t.op("MaxPool", "pool", {x}, {y, idx});
  n->attrs["kernel_shape"] = std::vector<int64_t>{2, 2};
  n->attrs["strides"] = std::vector<int64_t>{2, 2};
  Value* z = t.val("z", {4});
  Value* lo = t.cst("lo", {});
  t.op("Clip", "clip", {t.g.add_value("v", DType::Float32, {4}), lo}, {z});
  // v is neither an input nor computed: the error names the node.
  t.output(y);
  t.output(z);
  try {
    bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
    FAIL() << "an input that is never computed must be an error";
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(e.what(), "Clip 'clip'");
    EXPECT_CONTAINS(e.what(), "'v'");
  }
  // Without the broken Clip: MaxPool's omitted Indices output has no buffer.
  t.g.outputs.pop_back();
  z->is_graph_output = false;
  t.g.nodes.pop_back();
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  ASSERT_EQ(p.ops.size(), 1u);
  ASSERT_EQ(p.ops[0].outputs.size(), 2u);
  EXPECT_EQ(p.ops[0].outputs[1].buffer, -1);
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).kind, BufferKind::Output);
}

TEST(Bufferize, NoInPlaceMeansNoOpWritesOverItsInput) {
  // a = Relu(x); b = Sigmoid(a); c = Add(b, b); y = Tanh(c): with in_place off,
  // no element-wise op may overwrite an input, even as its last user.
  G t;
  Value* x = t.input("x", {8});
  Value* a = t.val("a", {8});
  Value* b = t.val("b", {8});
  Value* c = t.val("c", {8});
  Value* y = t.val("y", {8});
  t.op("Relu", "r", {x}, {a});
  t.op("Sigmoid", "s", {a}, {b});
  t.op("Add", "add", {b, b}, {c});
  t.op("Tanh", "th", {c}, {y});
  t.output(y);
  BufferizeOptions o;
  o.in_place = false;
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}), o);
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 4u);
  for (const auto& op : p.ops)
    for (const auto& in : op.inputs)
      for (const auto& out : op.outputs) EXPECT_NE(in.buffer, out.buffer) << op.label;
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 3);
}

// ---- in place ---------------------------------------------------------------

bool same_ref(const BufferRef& a, const BufferRef& b) { return a.buffer == b.buffer && a.offset == b.offset; }

TEST(Bufferize, InPlaceReusesTheLastUsersInput) {
  // a = Relu(x); b = Sigmoid(a); c = Add(b, b); y = Tanh(c): b and c overwrite
  // a's buffer (each op is the last user of its input); y is the caller's.
  G t;
  Value* x = t.input("x", {8});
  Value* a = t.val("a", {8});
  Value* b = t.val("b", {8});
  Value* c = t.val("c", {8});
  Value* y = t.val("y", {8});
  t.op("Relu", "r", {x}, {a});
  t.op("Sigmoid", "s", {a}, {b});
  t.op("Add", "add", {b, b}, {c});
  t.op("Tanh", "th", {c}, {y});
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 4u);
  EXPECT_NE(p.ops[0].outputs[0].buffer, p.ops[0].inputs[0].buffer) << "a graph input is never written";
  EXPECT_TRUE(same_ref(p.ops[1].outputs[0], p.ops[1].inputs[0]));
  EXPECT_TRUE(same_ref(p.ops[2].outputs[0], p.ops[2].inputs[0]));
  EXPECT_EQ(buf(p, p.ops[3].outputs[0]).kind, BufferKind::Output);
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 1);
  // The one buffer lives from a's producer to c's last use.
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).first, 0);
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).last, 4);
}

TEST(Bufferize, InPlaceOnlyWhenNoOtherHolderIsUsedLater) {
  // a = Relu(x); r = Reshape(a); b = Sigmoid(a); c = Add(r', b) where r' = Reshape(r):
  // b may not take a's buffer (r, a view of it, is read later); Add may take it.
  G t;
  Value* x = t.input("x", {2, 4});
  Value* a = t.val("a", {2, 4});
  Value* r = t.val("r", {8});
  Value* b = t.val("b", {2, 4});
  Value* r2 = t.val("r2", {2, 4});
  Value* y = t.val("y", {2, 4});
  Value* z = t.val("z", {2, 4});
  t.op("Relu", "r", {x}, {a});
  t.op("Reshape", "view", {a, t.i64("s8", {8})}, {r});
  t.op("Sigmoid", "s", {a}, {b});
  t.op("Reshape", "view2", {r, t.i64("s24", {2, 4})}, {r2});
  t.op("Add", "add", {r2, b}, {y});
  t.op("Neg", "neg", {y}, {z});
  t.output(z);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 4u);
  EXPECT_NE(p.ops[1].outputs[0].buffer, p.ops[1].inputs[0].buffer);
  EXPECT_EQ(p.ops[2].outputs[0].buffer, p.ops[0].outputs[0].buffer) << "Add is the last user of a and its views";
}

TEST(Bufferize, InPlaceNeverOverConstantsOrAnotherDtypeOrSize) {
  // a = Relu(x); b = Add(a, k) with k a same-sized constant: takes a, never k.
  // e = Expand-like broadcast: c = Add(b1, b) where b1 [1] broadcasts: takes b only.
  // n = IsNaN(c) (bool output): never in place.
  G t;
  Value* x = t.input("x", {4});
  Value* a = t.val("a", {4});
  Value* b = t.val("b", {4});
  Value* one = t.val("one", {1});
  Value* c = t.val("c", {4});
  Value* nn = t.g.add_value("n", DType::Bool, {4});
  t.op("Relu", "r", {x}, {a});
  t.op("Add", "addk", {t.cst("k", {4}), a}, {b});
  t.op("Relu", "r1", {t.cst("k1", {1})}, {one});
  t.op("Add", "addb", {one, b}, {c});
  t.op("IsNaN", "isnan", {c}, {nn});
  t.output(nn);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 5u);
  EXPECT_TRUE(same_ref(p.ops[1].outputs[0], p.ops[1].inputs[1])) << "takes a, not the constant";
  EXPECT_TRUE(same_ref(p.ops[3].outputs[0], p.ops[3].inputs[1])) << "takes b, not the broadcast input";
  EXPECT_NE(p.ops[3].outputs[0].buffer, p.ops[3].inputs[0].buffer);
  EXPECT_EQ(buf(p, p.ops[4].outputs[0]).kind, BufferKind::Output);
}

TEST(Bufferize, InPlaceKeepsAGraphOutputViewInTheCallersBuffer) {
  // c = Concat(a, b) (a, b placed); d = Relu(a) after c's last use could take a's
  // slice, but y = Reshape(d) is a graph output: d gets a buffer of its own size,
  // which becomes the caller's, so no copy is needed.
  G t;
  Value* x = t.input("x", {1, 2, 2});
  Value* a = t.val("a", {1, 2, 2});
  Value* b = t.val("b", {1, 2, 2});
  Value* c = t.val("c", {1, 4, 2});
  Value* c2 = t.val("c2", {1, 4, 2});
  Value* d = t.val("d", {1, 2, 2});
  Value* y = t.val("y", {4});
  t.op("Relu", "ra", {x}, {a});
  t.op("Neg", "nb", {x}, {b});
  t.g.add_node("Concat", "cat", {a, b}, {c})->attrs["axis"] = int64_t(1);
  t.op("Relu", "rc", {c}, {c2});
  t.op("Relu", "rd", {a}, {d});
  t.op("Reshape", "flat", {d, t.i64("s4", {4})}, {y});
  t.output(c2);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  EXPECT_TRUE(p.copies.empty()) << p.copies.front();
}

// ---- Concat by placement -------------------------------------------------------

TEST(Bufferize, ConcatByPlacementProducersWriteTheirSlice) {
  // y = Concat(Relu(x), Neg(x), axis 1) with batch 1: both producers write into the
  // caller's y at byte 0 and 24; the Concat op disappears.
  G t;
  Value* x = t.input("x", {1, 2, 3});
  Value* a = t.val("a", {1, 2, 3});
  Value* b = t.val("b", {1, 2, 3});
  Value* y = t.val("y", {1, 4, 3});
  t.op("Relu", "ra", {x}, {a});
  t.op("Neg", "nb", {x}, {b});
  t.g.add_node("Concat", "cat", {a, b}, {y})->attrs["axis"] = int64_t(1);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_TRUE(p.copies.empty());
  EXPECT_EQ(p.ops[0].outputs[0].buffer, p.ops[1].outputs[0].buffer);
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).kind, BufferKind::Output);
  EXPECT_EQ(p.ops[0].outputs[0].offset, 0u);
  EXPECT_EQ(p.ops[1].outputs[0].offset, 24u);
  EXPECT_EQ(count_kind(p, BufferKind::Activation), 0);
}

TEST(Bufferize, NestedConcatAndUnplaceableInputs) {
  // inner = Concat(Relu(x), x) ; y = Concat(inner, Sigmoid(x)) (axis 0).
  // Relu writes into inner's slice, which is itself y's first slice; x is a graph
  // input and is copied into its slice (listed with its reason).
  G t;
  Value* x = t.input("x", {2, 3});
  Value* a = t.val("a", {2, 3});
  Value* inner = t.val("inner", {4, 3});
  Value* s = t.val("s", {2, 3});
  Value* y = t.val("y", {6, 3});
  t.op("Relu", "ra", {x}, {a});
  t.g.add_node("Concat", "inner_cat", {a, x}, {inner})->attrs["axis"] = int64_t(0);
  t.op("Sigmoid", "sg", {x}, {s});
  t.g.add_node("Concat", "cat", {inner, s}, {y})->attrs["axis"] = int64_t(0);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 3u) << "Relu, the copy of x, Sigmoid";
  ASSERT_EQ(p.copies.size(), 1u);
  EXPECT_CONTAINS(p.copies[0], "'x'");
  EXPECT_CONTAINS(p.copies[0], "graph input");
  const int out = p.ops[0].outputs[0].buffer;
  EXPECT_EQ(buf(p, p.ops[0].outputs[0]).kind, BufferKind::Output);
  EXPECT_TRUE(same_ref(p.ops[1].outputs[0], {out, 24}));
  EXPECT_TRUE(same_ref(p.ops[2].outputs[0], {out, 48}));
}

TEST(Bufferize, ConcatNotAlongTheOuterAxisIsAKernelCall) {
  G t;
  Value* x = t.input("x", {2, 3});
  Value* a = t.val("a", {2, 3});
  Value* y = t.val("y", {2, 6});
  t.op("Relu", "ra", {x}, {a});
  t.g.add_node("Concat", "cat", {a, a}, {y})->attrs["axis"] = int64_t(1);
  t.output(y);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_CONTAINS(p.ops[1].call.call, "kiln_concat");
}

TEST(Bufferize, WithoutAliasingConcatIsNotPlaced) {
  G t;
  Value* x = t.input("x", {1, 2, 3});
  Value* a = t.val("a", {1, 2, 3});
  Value* b = t.val("b", {1, 2, 3});
  Value* y = t.val("y", {1, 4, 3});
  t.op("Relu", "ra", {x}, {a});
  t.op("Neg", "nb", {x}, {b});
  t.g.add_node("Concat", "cat", {a, b}, {y})->attrs["axis"] = int64_t(1);
  t.output(y);
  BufferizeOptions o;
  o.alias_views = false;
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}), o);
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_CONTAINS(p.ops[2].call.call, "kiln_concat");
}

// ---- Slice / Split views ---------------------------------------------------------

TEST(Bufferize, ContiguousSliceAndSplitAreViewsAtAnOffset) {
  // a = Relu(x) [4,3]; s = a[1:3] (rows: contiguous, offset 12 bytes);
  // (p0, p1) = Split(a, [1, 3], axis 0) (offsets 0 and 12); u = a[:, 1:2] (strided).
  G t;
  Value* x = t.input("x", {4, 3});
  Value* a = t.val("a", {4, 3});
  Value* s = t.val("s", {2, 3});
  Value* p0 = t.val("p0", {1, 3});
  Value* p1 = t.val("p1", {3, 3});
  Value* u = t.val("u", {4, 1});
  Value* y0 = t.val("y0", {2, 3});
  Value* y1 = t.val("y1", {3, 3});
  Value* y2 = t.val("y2", {4, 1});
  Value* y3 = t.val("y3", {1, 3});
  t.op("Relu", "ra", {x}, {a});
  t.op("Slice", "rows", {a, t.i64("st", {1}), t.i64("en", {3}), t.i64("ax", {0})}, {s});
  t.op("Split", "sp", {a, t.i64("sizes", {1, 3})}, {p0, p1});
  t.op("Slice", "col", {a, t.i64("st1", {1}), t.i64("en1", {2}), t.i64("ax1", {1})}, {u});
  t.op("Neg", "n0", {s}, {y0});
  t.op("Neg", "n1", {p1}, {y1});
  t.op("Neg", "n2", {u}, {y2});
  t.op("Neg", "n3", {p0}, {y3});
  for (Value* v : {y0, y1, y2, y3}) t.output(v);
  BufferizedProgram p = bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
  expect_well_formed(p, t.g);
  ASSERT_EQ(p.ops.size(), 6u) << "Relu, the strided Slice, four Negs";
  const int ab = p.ops[0].outputs[0].buffer;
  EXPECT_CONTAINS(p.ops[1].label, "col");
  EXPECT_TRUE(same_ref(p.ops[2].inputs[0], {ab, 12}));
  EXPECT_TRUE(same_ref(p.ops[3].inputs[0], {ab, 12}));
  EXPECT_TRUE(same_ref(p.ops[5].inputs[0], {ab, 0}));
  // a lives until the last view is read.
  EXPECT_EQ(p.buffers[size_t(ab)].last, 6);
}

TEST(Bufferize, LoweringErrorsPropagate) {
  G t;
  Value* x = t.input("x", {4});
  Value* y = t.val("y", {4});
  t.op("NoSuchOp", "weird", {x}, {y});
  t.output(y);
  try {
    bufferize(t.g, lower_graph(t.g, LoweringTarget{}));
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(e.what(), "NoSuchOp 'weird'");
  }
}

}  // namespace
}  // namespace kiln
