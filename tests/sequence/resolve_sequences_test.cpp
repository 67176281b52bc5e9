// The compile-time sequence pass (sequence/resolve_sequences.h) on hand-built
// graphs: every sequence op becomes a list edit, a view or plain tensor ops, and
// what cannot be resolved fails naming the node. Each test asserts the rewritten
// graph. The last tests import ONNX backend node models whose Loop / If carry
// sequences (controlflow/control_flow.h) and check the flattened, resolved graph.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <functional>
#include <map>

#include "../support/expect_contains.h"
#include "../support/graph_builder.h"
#include "controlflow/control_flow.h"
#include "onnx/node_shape_inference.h"
#include "onnx/onnx_importer.h"
#include "sequence/resolve_sequences.h"
#include "util/error.h"

namespace kiln {
namespace {

struct G : test_support::GraphBuilder {
  Value* seq(const std::string& n) {
    Value* v = g.add_value(n, DType::Float32, {});
    v->is_sequence = true;
    v->shape_known = false;
    return v;
  }
  Value* pos(const std::string& n, int64_t p) {
    Value* v = g.add_value(n, DType::Int64, {});
    v->constant = Constant::from_int64s({}, {p});
    return v;
  }
  // A sequence graph output `s`, resolved: the values its elements view.
  std::vector<Value*> elements_of_output(const std::string& s) const {
    std::vector<Value*> r;
    for (const auto& si : g.sequence_io) {
      if (si.is_input || si.name != s) continue;
      for (size_t i = 0; i < si.count; ++i) {
        const Value* o = g.outputs[si.first + i];
        EXPECT_EQ(o->name, s + "_" + std::to_string(i));
        EXPECT_TRUE(o->producer && o->producer->op_type == "Identity") << o->name;
        r.push_back(o->producer ? o->producer->input(0) : nullptr);
      }
      return r;
    }
    ADD_FAILURE() << "no sequence output '" << s << "'";
    return r;
  }
  const Node* node(const std::string& name) const {
    for (const auto& n : g.nodes)
      if (n->name == name) return n.get();
    return nullptr;
  }
  int count(const std::string& op_type) const {
    int k = 0;
    for (const auto& n : g.nodes) k += n->op_type == op_type;
    return k;
  }
  bool any_sequence_left() const {
    for (const auto& n : g.nodes) {
      for (const Value* v : n->inputs) if (v && v->is_sequence) return true;
      for (const Value* v : n->outputs) if (v->is_sequence) return true;
    }
    return false;
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "expected a CompileError";
  return "";
}

TEST(ResolveSequences, ConstructAndEmptyBecomeTensorOutputs) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {3});
  Value* s = t.seq("s");
  Value* e = t.seq("e");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  t.op("SequenceEmpty", "empty", {}, {e});
  Value* len = t.val("len", {}, DType::Int64);
  t.op("SequenceLength", "len_of_empty", {e}, {len});
  t.output(s);
  t.output(len);
  EXPECT_GT(resolve_sequences(t.g), 0u);
  EXPECT_EQ(t.elements_of_output("s"), (std::vector<Value*>{a, b}));
  ASSERT_EQ(t.g.outputs.size(), 3u);  // s_0, s_1, len
  EXPECT_EQ(t.g.outputs[0]->shape, Shape({2}));
  EXPECT_EQ(t.g.outputs[1]->shape, Shape({3}));
  ASSERT_EQ(t.g.sequence_io.size(), 1u);
  EXPECT_EQ(t.g.sequence_io[0].first, 0u);
  EXPECT_EQ(t.g.sequence_io[0].count, 2u);
  EXPECT_EQ(t.g.sequence_io[0].position, 0u);
  const Node* l = t.node("len_of_empty");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->op_type, "Identity");
  ASSERT_TRUE(l->input(0)->is_constant());
  EXPECT_EQ(l->input(0)->constant->as_int64(0), 0);
  // The list producers are dead once nothing reads a sequence.
  EXPECT_EQ(t.count("SequenceConstruct"), 0);
  EXPECT_EQ(t.count("SequenceEmpty"), 0);
  EXPECT_FALSE(t.any_sequence_left());
  EXPECT_NO_THROW(require_sequences_resolved(t.g));
}

TEST(ResolveSequences, InsertAppendsByDefault) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a}, {s});
  t.op("SequenceInsert", "insert", {s, b}, {s2});
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{a, b}));
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, InsertAtPositivePosition) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* c = t.input("c", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, c}, {s});
  t.op("SequenceInsert", "insert", {s, b, t.pos("p", 1)}, {s2});
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{a, b, c}));
}

TEST(ResolveSequences, InsertAtNegativePositionCountsFromTheBack) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* c = t.input("c", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  t.op("SequenceInsert", "insert", {s, c, t.pos("p", -2)}, {s2});  // before a
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{c, a, b}));
}

TEST(ResolveSequences, EraseRemovesTheLastByDefault) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  t.op("SequenceErase", "erase", {s}, {s2});
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{a}));
}

TEST(ResolveSequences, EraseAtNegativePosition) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* c = t.input("c", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, b, c}, {s});
  t.op("SequenceErase", "erase", {s, t.pos("p", -3)}, {s2});
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{b, c}));
}

TEST(ResolveSequences, SequenceAtBecomesAViewOfTheElement) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {3});
  Value* s = t.seq("s");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  Value* first = t.val("first", {2});
  Value* last = t.val("last", {3});
  t.op("SequenceAt", "at0", {s, t.pos("p0", 0)}, {first});
  t.op("SequenceAt", "at_last", {s, t.pos("p1", -1)}, {last});
  t.output(first);
  t.output(last);
  EXPECT_EQ(resolve_sequences(t.g), 2u);
  const Node* n0 = t.node("at0");
  const Node* n1 = t.node("at_last");
  ASSERT_TRUE(n0 && n1);
  EXPECT_EQ(n0->op_type, "Identity");
  EXPECT_EQ(n0->inputs, (std::vector<Value*>{a}));
  EXPECT_EQ(n1->op_type, "Identity");
  EXPECT_EQ(n1->inputs, (std::vector<Value*>{b}));
  EXPECT_EQ(t.count("SequenceConstruct"), 0);
}

TEST(ResolveSequences, SequenceLengthBecomesAConstant) {
  G t;
  Value* a = t.input("a", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, a}, {s});
  t.op("SequenceInsert", "insert", {s, a}, {s2});
  Value* len = t.val("len", {}, DType::Int64);
  t.op("SequenceLength", "length", {s2}, {len});
  t.output(len);
  resolve_sequences(t.g);
  const Node* n = t.node("length");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->op_type, "Identity");
  ASSERT_TRUE(n->input(0) && n->input(0)->is_constant());
  EXPECT_EQ(n->input(0)->constant->dtype(), DType::Int64);
  EXPECT_EQ(n->input(0)->constant->as_int64(0), 3);
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, ConcatFromSequenceOnAnAxis) {
  G t;
  Value* a = t.input("a", {2, 1});
  Value* b = t.input("b", {2, 3});
  Value* s = t.seq("s");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  Value* y = t.val("y", {2, 4});
  t.op("ConcatFromSequence", "cat", {s}, {y})->attrs["axis"] = int64_t(-1);
  t.output(y);
  resolve_sequences(t.g);
  const Node* n = t.node("cat");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->op_type, "Concat");
  EXPECT_EQ(n->inputs, (std::vector<Value*>{a, b}));
  EXPECT_EQ(n->attr_int("axis", -9), 1);  // normalized
  EXPECT_FALSE(n->has_attr("new_axis"));
}

TEST(ResolveSequences, ConcatFromSequenceWithNewAxisReshapesEachElement) {
  G t;
  Value* a = t.input("a", {2, 3});
  Value* b = t.input("b", {2, 3});
  Value* s = t.seq("s");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  Value* y = t.val("y", {2, 2, 3});
  Node* c = t.op("ConcatFromSequence", "stack", {s}, {y});
  c->attrs["axis"] = int64_t(1);
  c->attrs["new_axis"] = int64_t(1);
  t.output(y);
  resolve_sequences(t.g);
  const Node* n = t.node("stack");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->op_type, "Concat");
  EXPECT_EQ(n->attr_int("axis", -9), 1);
  ASSERT_EQ(n->inputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Value* in = n->inputs[i];
    EXPECT_EQ(in->shape, Shape({2, 1, 3}));
    ASSERT_TRUE(in->producer);
    EXPECT_EQ(in->producer->op_type, "Reshape");
    EXPECT_EQ(in->producer->input(0), i == 0 ? a : b);
    ASSERT_TRUE(in->producer->input(1)->is_constant());
    EXPECT_EQ(in->producer->input(1)->constant->to_int64s(), (std::vector<int64_t>{2, 1, 3}));
  }
  EXPECT_EQ(t.count("Reshape"), 2);
}

TEST(ResolveSequences, SplitToSequenceWithSplitSizes) {
  G t;
  Value* x = t.input("x", {4, 3});
  Value* s = t.seq("s");
  t.op("SplitToSequence", "split", {x, t.i64("sizes", {1, 3})}, {s});
  Value* len = t.val("len", {}, DType::Int64);
  t.op("SequenceLength", "length", {s}, {len});
  Value* second = t.val("second", {3, 3});
  t.op("SequenceAt", "at", {s, t.pos("p", 1)}, {second});
  t.output(len);
  t.output(second);
  resolve_sequences(t.g);
  EXPECT_EQ(t.node("length")->input(0)->constant->as_int64(0), 2);
  const Node* at = t.node("at");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->op_type, "Identity");
  const Value* part = at->input(0);
  EXPECT_EQ(part->shape, Shape({3, 3}));
  ASSERT_TRUE(part->producer);
  const Node* sp = part->producer;
  EXPECT_EQ(sp->op_type, "Split");
  EXPECT_EQ(sp->input(0), x);
  EXPECT_EQ(sp->attr_int("axis", -9), 0);
  ASSERT_TRUE(sp->input(1) && sp->input(1)->is_constant());  // opset 13: sizes as an input
  EXPECT_EQ(sp->input(1)->constant->to_int64s(), (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(sp->outputs.size(), 2u);
  EXPECT_EQ(sp->outputs[0]->shape, Shape({1, 3}));
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, SplitToSequenceWithoutKeepdimsSqueezesEachPiece) {
  G t;
  Value* x = t.input("x", {2, 3});
  Value* s = t.seq("s");
  Node* n = t.op("SplitToSequence", "split", {x}, {s});
  n->attrs["axis"] = int64_t(-1);
  n->attrs["keepdims"] = int64_t(0);
  t.output(s);
  resolve_sequences(t.g);
  std::vector<Value*> elems = t.elements_of_output("s");
  ASSERT_EQ(elems.size(), 3u);
  const Node* split = nullptr;
  for (const Value* e : elems) {
    EXPECT_EQ(e->shape, Shape({2}));
    ASSERT_TRUE(e->producer);
    EXPECT_EQ(e->producer->op_type, "Reshape");
    const Value* piece = e->producer->input(0);
    EXPECT_EQ(piece->shape, Shape({2, 1}));
    ASSERT_TRUE(piece->producer);
    if (!split) split = piece->producer;
    EXPECT_EQ(piece->producer, split) << "one Split makes every piece";
  }
  EXPECT_EQ(split->op_type, "Split");
  EXPECT_EQ(split->attr_int("axis", -9), 1);
  EXPECT_EQ(t.count("Split"), 1);
}

// A body reads a value of the enclosing graph through a capture: the node takes
// the outer value as its last input (named by "captured"), so a pass that replaces
// that value (here: another value takes its uses) is seen by every instance.
TEST(ResolveSequences, SequenceMapBodyReadsItsCapturesThroughTheNode) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* bias = t.input("bias", {2});
  Value* other = t.input("other_bias", {2});
  Value* s = t.seq("s");
  Value* mapped = t.seq("mapped");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  auto body = std::make_shared<Graph>();
  Value* e = body->add_value("e", DType::Float32, {});
  e->shape_known = false;
  e->is_graph_input = true;
  body->inputs.push_back(e);
  Value* c = body->add_value("bias", DType::Undefined, {});  // the stand-in for the outer 'bias'
  c->shape_known = false;
  body->captures.push_back(c);
  Value* o = body->add_value("o", DType::Float32, {});
  o->shape_known = false;
  body->add_node("Add", "Add_0", {e, c}, {o});
  body->outputs.push_back(o);
  Node* map = t.op("SequenceMap", "map", {s, bias}, {mapped});
  map->attrs["body"] = GraphPtr(body);
  map->attrs["captured"] = std::vector<std::string>{"bias"};
  EXPECT_EQ(map->own_input_count(), 1u);
  t.g.replace_all_uses(bias, other);
  Value* first = t.val("first", {2});
  t.op("SequenceAt", "at", {mapped, t.pos("p", 0)}, {first});
  t.output(first);
  resolve_sequences(t.g);
  EXPECT_EQ(t.count("SequenceMap"), 0);
  const Node* add = t.node("at")->input(0)->producer;
  ASSERT_TRUE(add);
  EXPECT_EQ(add->op_type, "Add");
  EXPECT_EQ(add->input(0), a);
  EXPECT_EQ(add->input(1), other);
}

TEST(ResolveSequences, SequenceMapIsUnrolledOncePerElement) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* w = t.input("w", {2});
  Value* s = t.seq("s");
  Value* mapped = t.seq("mapped");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  // The body is an IR subgraph (as onnx/graph_conversion.h makes it): o = e + k.
  auto body = std::make_shared<Graph>();
  body->name = "body";
  for (const char* nm : {"e", "k"}) {
    Value* in = body->add_value(nm, DType::Float32, {});
    in->shape_known = false;
    in->is_graph_input = true;
    body->inputs.push_back(in);
  }
  Value* o = body->add_value("o", DType::Float32, {});
  o->shape_known = false;
  body->add_node("Add", "Add_0", {body->inputs[0], body->inputs[1]}, {o});
  body->outputs.push_back(o);
  t.op("SequenceMap", "map", {s, w}, {mapped})->attrs["body"] = GraphPtr(body);
  Value* second = t.val("second", {2});
  t.op("SequenceAt", "at", {mapped, t.pos("p", 1)}, {second});
  Value* len = t.val("len", {}, DType::Int64);
  t.op("SequenceLength", "length", {mapped}, {len});
  t.output(second);
  t.output(len);
  resolve_sequences(t.g);
  EXPECT_FALSE(t.node("map"));
  EXPECT_EQ(t.count("SequenceMap"), 0);
  EXPECT_EQ(t.count("Add"), 1) << "the instance for element 0 is dead: only element 1 is read";
  EXPECT_EQ(t.node("length")->input(0)->constant->as_int64(0), 2);
  const Node* at = t.node("at");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->op_type, "Identity");
  const Node* body1 = at->input(0)->producer;
  ASSERT_TRUE(body1);
  EXPECT_EQ(body1->op_type, "Add");
  EXPECT_EQ(body1->inputs, (std::vector<Value*>{b, w})) << "element 1 bound to e, the tensor w to k";
  EXPECT_EQ(body1->name.rfind("map.elem1.", 0), 0u) << body1->name;
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, IdentityOfASequenceIsTheSameList) {
  G t;
  Value* a = t.input("a", {2});
  Value* b = t.input("b", {2});
  Value* s = t.seq("s");
  Value* s2 = t.seq("s2");
  t.op("SequenceConstruct", "construct", {a, b}, {s});
  t.op("Identity", "copy", {s}, {s2});
  t.output(s2);
  resolve_sequences(t.g);
  EXPECT_EQ(t.elements_of_output("s2"), (std::vector<Value*>{a, b}));
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, KilnSelectOfTwoSequencesSelectsElementWise) {
  G t;
  Value* c = t.g.add_value("c", DType::Bool, {});
  c->is_graph_input = true;
  t.g.inputs.push_back(c);
  Value* a0 = t.input("a0", {2});
  Value* a1 = t.input("a1", {3});
  Value* b0 = t.input("b0", {2});
  Value* b1 = t.input("b1", {3});
  Value* sa = t.seq("sa");
  Value* sb = t.seq("sb");
  Value* y = t.seq("y");
  t.op("SequenceConstruct", "then", {a0, a1}, {sa});
  t.op("SequenceConstruct", "else", {b0, b1}, {sb});
  t.op("KilnSelect", "if.select", {c, sa, sb}, {y});
  t.output(y);
  resolve_sequences(t.g);
  std::vector<Value*> elems = t.elements_of_output("y");
  ASSERT_EQ(elems.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(elems[i]->producer);
    EXPECT_EQ(elems[i]->producer->op_type, "KilnSelect");
    EXPECT_EQ(elems[i]->producer->inputs, (std::vector<Value*>{c, i ? a1 : a0, i ? b1 : b0}));
    EXPECT_EQ(elems[i]->shape, Shape({i ? int64_t(3) : int64_t(2)}));
  }
  EXPECT_FALSE(t.any_sequence_left());
}

TEST(ResolveSequences, KilnSelectOfSequencesOfDifferentLengthsNamesTheNode) {
  G t;
  Value* c = t.g.add_value("c", DType::Bool, {});
  c->is_graph_input = true;
  t.g.inputs.push_back(c);
  Value* a = t.input("a", {2});
  Value* sa = t.seq("sa");
  Value* sb = t.seq("sb");
  Value* y = t.seq("y");
  t.op("SequenceConstruct", "then", {a, a}, {sa});
  t.op("SequenceConstruct", "else", {a}, {sb});
  t.op("KilnSelect", "if.select", {c, sa, sb}, {y});
  t.output(y);
  const std::string m = error_of([&] { resolve_sequences(t.g); });
  EXPECT_CONTAINS(m, "KilnSelect 'if.select'");
  EXPECT_CONTAINS(m, "2 and 1 elements");
}

TEST(ResolveSequences, OutOfRangePositionNamesTheNode) {
  G t;
  Value* a = t.input("a", {2});
  Value* s = t.seq("s");
  t.op("SequenceConstruct", "construct", {a, a}, {s});
  Value* y = t.val("y", {2});
  t.op("SequenceAt", "at", {s, t.pos("p", 2)}, {y});
  t.output(y);
  const std::string m = error_of([&] { resolve_sequences(t.g); });
  EXPECT_CONTAINS(m, "SequenceAt 'at'");
  EXPECT_CONTAINS(m, "position 2 is out of range for a sequence of 2 elements");

  G u;
  Value* b = u.input("b", {2});
  Value* e = u.seq("e");
  Value* e2 = u.seq("e2");
  u.op("SequenceConstruct", "construct", {b}, {e});
  u.op("SequenceInsert", "insert", {e, b, u.pos("p", -3)}, {e2});
  u.output(e2);
  const std::string m2 = error_of([&] { resolve_sequences(u.g); });
  EXPECT_CONTAINS(m2, "SequenceInsert 'insert'");
  EXPECT_CONTAINS(m2, "position -3 is out of range for a sequence of 1 element");
}

TEST(ResolveSequences, RequireResolvedNamesTheLeftoverNode) {
  G t;
  Value* a = t.input("a", {2});
  Value* p = t.g.add_value("p", DType::Int64, {});  // a run-time position
  p->is_graph_input = true;
  t.g.inputs.push_back(p);
  Value* s = t.seq("s");
  t.op("SequenceConstruct", "construct", {a, a}, {s});
  Value* y = t.val("y", {2});
  t.op("SequenceAt", "pick", {s, p}, {y});
  t.output(y);
  resolve_sequences(t.g);
  const Node* n = t.node("pick");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->op_type, "SequenceAt") << "a run-time position is left alone";
  const std::string m = error_of([&] { require_sequences_resolved(t.g); });
  EXPECT_CONTAINS(m, "SequenceAt 'pick'");  // the stuck op, not its list producer
  EXPECT_CONTAINS(m, "position is only known at run time");
}

// ---- Sequences through flattened Loop and If (ONNX backend node models) ----------

const std::filesystem::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

std::unique_ptr<Graph> import_node_test(const std::string& test, std::map<std::string, std::vector<Shape>> seqs) {
  ImportOptions o;
  o.sequence_inputs = std::move(seqs);
  auto g = import_onnx(kNodeTests / test / "model.onnx", o);
  // Loop and If are lowered by their own pass (controlflow/control_flow.h).
  ControlFlowOptions cf;
  cf.infer_shapes = infer_node_shapes;
  lower_control_flow(*g, false, cf);
  return g;
}

// Resolves like the driver does (alternating with shape inference), minus folding.
void resolve_all(Graph& g) {
  for (int round = 0; round < 16; ++round) {
    const size_t sequences = resolve_sequences(g);
    if (infer_unknown_shapes(g) == 0 && sequences == 0) break;
  }
}

TEST(SequencesInControlFlow, LoopOverSequenceLengthIsUnrolledAndResolved) {
  const std::string test = "test_sequence_map_add_2_sequences_expanded";
  if (!std::filesystem::exists(kNodeTests / test)) GTEST_SKIP() << "ONNX test data not installed";
  auto g = import_node_test(test, {{"x0", {{4}, {4}, {4}}}, {"x1", {{4}, {4}, {4}}}});
  resolve_all(*g);
  EXPECT_NO_THROW(require_sequences_resolved(*g));
  ASSERT_EQ(g->outputs.size(), 3u);  // y0_0 .. y0_2
  int adds = 0;
  for (const auto& n : g->nodes) adds += n->op_type == "Add";
  EXPECT_EQ(adds, 3) << "one Add per unrolled step";
  for (const auto& n : g->nodes) EXPECT_NE(n->op_type, "KilnSelect") << "the loop never stops early";
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g->outputs[i]->name, "y0_" + std::to_string(i));
    const Value* e = g->outputs[i]->producer->input(0);
    // Through Identity views, element i is the Add of x0_i and x1_i.
    while (e->producer && e->producer->op_type == "Identity") e = e->producer->input(0);
    ASSERT_TRUE(e->producer);
    ASSERT_EQ(e->producer->op_type, "Add");
    auto root = [](const Value* v) {
      while (v->producer && v->producer->op_type == "Identity") v = v->producer->input(0);
      return v->name;
    };
    EXPECT_EQ(root(e->producer->input(0)), "x0_" + std::to_string(i));
    EXPECT_EQ(root(e->producer->input(1)), "x1_" + std::to_string(i));
  }
}

TEST(SequencesInControlFlow, IfOverSequencesSelectsEachElement) {
  const std::string test = "test_if_seq";
  if (!std::filesystem::exists(kNodeTests / test)) GTEST_SKIP() << "ONNX test data not installed";
  auto g = import_node_test(test, {});
  resolve_all(*g);
  EXPECT_NO_THROW(require_sequences_resolved(*g));
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->outputs[0]->name, "res_0");
  const Value* e = g->outputs[0]->producer->input(0);
  ASSERT_TRUE(e->producer);
  EXPECT_EQ(e->producer->op_type, "KilnSelect");
  EXPECT_EQ(e->producer->input(0)->name, "cond");
  EXPECT_TRUE(e->producer->input(1)->is_constant());
  EXPECT_TRUE(e->producer->input(2)->is_constant());
}

TEST(SequencesInControlFlow, LoopWithRunTimeTripCountOverASequenceNamesTheNode) {
  const std::string test = "test_loop13_seq";
  if (!std::filesystem::exists(kNodeTests / test)) GTEST_SKIP() << "ONNX test data not installed";
  const std::string m = error_of([&] { import_node_test(test, {{"seq_empty", {}}}); });
  EXPECT_CONTAINS(m, "Loop 'Loop_0'");
  EXPECT_CONTAINS(m, "('seq_empty') is a sequence");
  EXPECT_CONTAINS(m, "trip count M ('trip_count') is not a compile-time constant");
}

}  // namespace
}  // namespace kiln
