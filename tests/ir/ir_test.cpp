// The graph IR: the rewrite API keeps producer/user links consistent, the schedule
// stays topological, names stay unique; Constant builders and element access.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "ir/graph.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace kiln {
namespace {

size_t count_user(const Value* v, const Node* n) { return size_t(std::count(v->users.begin(), v->users.end(), n)); }

// Every link in the graph agrees with its reverse: each use of a value by a node
// is listed once in the value's users, each output's producer is that node, and
// the schedule is topological (a node's inputs are produced earlier or are not
// produced by any node).
void expect_consistent(const Graph& g) {
  std::set<const Node*> scheduled, seen;
  for (const auto& n : g.nodes) scheduled.insert(n.get());
  for (const auto& n : g.nodes) {
    for (const Value* in : n->inputs) {
      if (!in) continue;
      EXPECT_EQ(count_user(in, n.get()), size_t(std::count(n->inputs.begin(), n->inputs.end(), in)))
          << n->describe() << " input " << in->name;
      if (in->producer) EXPECT_TRUE(seen.count(in->producer)) << n->describe() << " runs before the producer of " << in->name;
    }
    for (const Value* o : n->outputs) EXPECT_EQ(o->producer, n.get()) << o->name;
    seen.insert(n.get());
  }
  for (const auto& v : g.values()) {
    for (const Node* u : v->users) {
      EXPECT_TRUE(scheduled.count(u)) << v->name << " lists a user that is not in the graph";
      if (scheduled.count(u)) EXPECT_NE(std::find(u->inputs.begin(), u->inputs.end(), v.get()), u->inputs.end());
    }
    if (v->producer) EXPECT_TRUE(scheduled.count(v->producer)) << v->name << " has a producer outside the graph";
  }
  for (const Value* o : g.outputs) EXPECT_TRUE(o->is_graph_output) << o->name;
}

// x -> Relu(a) -> Sigmoid(b) -> y, and x, a -> Add(c) (c unused).
struct Chain {
  Graph g;
  Value *x, *a, *b, *c;
  Node *relu, *sig, *add;
  Chain() {
    g.opset = 13;
    x = g.add_value("x", DType::Float32, {2, 3});
    x->is_graph_input = true;
    g.inputs.push_back(x);
    a = g.add_value("a", DType::Float32, {2, 3});
    b = g.add_value("b", DType::Float32, {2, 3});
    c = g.add_value("c", DType::Float32, {2, 3});
    relu = g.add_node("Relu", "relu", {x}, {a});
    sig = g.add_node("Sigmoid", "sig", {a}, {b});
    add = g.add_node("Add", "add", {x, a}, {c});
    b->is_graph_output = true;
    g.outputs.push_back(b);
  }
};

TEST(Graph, AddNodeLinksProducerAndUsers) {
  Chain t;
  EXPECT_EQ(t.a->producer, t.relu);
  EXPECT_EQ(t.x->producer, nullptr);
  EXPECT_EQ(t.x->users, (std::vector<Node*>{t.relu, t.add}));
  EXPECT_EQ(t.a->users, (std::vector<Node*>{t.sig, t.add}));
  EXPECT_EQ(t.relu->opset, 13);
  EXPECT_EQ(t.g.find_value("b"), t.b);
  EXPECT_EQ(t.g.find_value("nope"), nullptr);
  EXPECT_EQ(t.relu->describe(), "Relu 'relu'");
  expect_consistent(t.g);
}

TEST(Graph, NodeUsingAValueTwiceIsListedTwice) {
  Chain t;
  Value* d = t.g.add_value("d", DType::Float32, {2, 3});
  Node* sq = t.g.add_node("Mul", "sq", {t.b, t.b}, {d});
  EXPECT_EQ(count_user(t.b, sq), 2u);
  d->is_graph_output = false;
  t.g.erase_node(sq);
  EXPECT_EQ(count_user(t.b, sq), 0u);
  EXPECT_TRUE(t.b->users.empty());
  EXPECT_EQ(d->producer, nullptr);
  expect_consistent(t.g);
}

TEST(Graph, OmittedOptionalInputIsNotAUse) {
  Graph g;
  Value* x = g.add_value("x", DType::Float32, {1});
  Value* y = g.add_value("y", DType::Float32, {1});
  Node* n = g.add_node("Clip", "clip", {x, nullptr, nullptr}, {y});
  EXPECT_EQ(n->input(1), nullptr);
  EXPECT_EQ(n->input(7), nullptr);
  EXPECT_EQ(n->input(0), x);
  EXPECT_EQ(x->users.size(), 1u);
  g.erase_node(n);  // must skip the null inputs
  EXPECT_TRUE(x->users.empty());
  EXPECT_TRUE(g.nodes.empty());
}

TEST(Graph, ReplaceAllUsesMovesEveryUseAndGraphOutputs) {
  Chain t;
  // Replace `a` by `x`: Sigmoid and Add now read x (Add reads it twice).
  t.g.replace_all_uses(t.a, t.x);
  EXPECT_TRUE(t.a->users.empty());
  EXPECT_EQ(t.sig->inputs[0], t.x);
  EXPECT_EQ(t.add->inputs, (std::vector<Value*>{t.x, t.x}));
  EXPECT_EQ(count_user(t.x, t.add), 2u);
  EXPECT_EQ(count_user(t.x, t.sig), 1u);
  EXPECT_EQ(t.a->producer, t.relu);  // the producer is untouched
  expect_consistent(t.g);

  // Replacing a graph output moves the output flag and the entry in g.outputs.
  t.g.replace_all_uses(t.b, t.c);
  EXPECT_EQ(t.g.outputs, (std::vector<Value*>{t.c}));
  EXPECT_TRUE(t.c->is_graph_output);
  EXPECT_FALSE(t.b->is_graph_output);
  expect_consistent(t.g);
}

TEST(Graph, ReplacingAValueByItselfChangesNothing) {
  Chain t;
  t.g.replace_all_uses(t.a, t.a);
  EXPECT_EQ(t.a->users, (std::vector<Node*>{t.sig, t.add}));
  t.g.replace_all_uses(t.b, t.b);
  EXPECT_TRUE(t.b->is_graph_output);
  EXPECT_EQ(t.g.outputs, (std::vector<Value*>{t.b}));
  expect_consistent(t.g);
}

TEST(Graph, ReplaceAllUsesOfAnOutputReturnedTwice) {
  Chain t;
  t.g.outputs.push_back(t.b);
  t.g.replace_all_uses(t.b, t.a);
  EXPECT_EQ(t.g.outputs, (std::vector<Value*>{t.a, t.a}));
  EXPECT_TRUE(t.a->is_graph_output);
  EXPECT_FALSE(t.b->is_graph_output);
  expect_consistent(t.g);
}

TEST(Graph, EraseNodeRefusesUsedOutputs) {
  Chain t;
  EXPECT_THROW(t.g.erase_node(t.relu), std::logic_error);  // a is used
  EXPECT_THROW(t.g.erase_node(t.sig), std::logic_error);   // b is a graph output
  EXPECT_EQ(t.g.nodes.size(), 3u);
  expect_consistent(t.g);
  t.g.erase_node(t.add);  // c has no users
  EXPECT_EQ(t.g.nodes.size(), 2u);
  EXPECT_EQ(t.x->users, (std::vector<Node*>{t.relu}));
  EXPECT_EQ(t.a->users, (std::vector<Node*>{t.sig}));
  EXPECT_EQ(t.c->producer, nullptr);
  expect_consistent(t.g);
}

TEST(Graph, RemoveDeadNodesRemovesChainsOfDeadNodes) {
  Chain t;
  // Make the Relu -> Sigmoid chain dead by making x itself the output.
  t.g.replace_all_uses(t.b, t.x);
  // Dead now: add (c unused), then sig (b unused), then relu (a unused once add and sig are gone).
  EXPECT_EQ(t.g.remove_dead_nodes(), 3u);
  EXPECT_TRUE(t.g.nodes.empty());
  EXPECT_TRUE(t.x->users.empty());
  EXPECT_TRUE(t.a->users.empty());
  expect_consistent(t.g);
  // Dead values go too, but graph inputs/outputs stay.
  t.g.remove_dead_values();
  EXPECT_EQ(t.g.values().size(), 1u);
  EXPECT_EQ(t.g.find_value("x"), t.x);
  EXPECT_EQ(t.g.find_value("a"), nullptr);
  EXPECT_EQ(t.g.find_value("c"), nullptr);
}

TEST(Graph, RemoveDeadNodesKeepsLiveNodesInOrder) {
  Chain t;
  EXPECT_EQ(t.g.remove_dead_nodes(), 1u);  // only Add
  ASSERT_EQ(t.g.nodes.size(), 2u);
  EXPECT_EQ(t.g.nodes.front().get(), t.relu);
  EXPECT_EQ(t.g.nodes.back().get(), t.sig);
  EXPECT_EQ(t.g.remove_dead_nodes(), 0u);
  expect_consistent(t.g);
  t.g.remove_dead_values();  // c goes; x, a, b stay
  EXPECT_EQ(t.g.values().size(), 3u);
  EXPECT_EQ(t.g.find_value("c"), nullptr);
}

TEST(Graph, RemoveDeadValuesKeepsUsedConstants) {
  Graph g;
  Value* x = g.add_value("x", DType::Float32, {1});
  x->is_graph_input = true;
  g.inputs.push_back(x);
  Value* k = g.add_value("k", DType::Float32, {1});
  k->constant = Constant::from_floats({1}, {2.f});
  Value* unused = g.add_value("unused", DType::Float32, {1});
  unused->constant = Constant::from_floats({1}, {3.f});
  Value* y = g.add_value("y", DType::Float32, {1});
  y->is_graph_output = true;
  g.outputs.push_back(y);
  g.add_node("Mul", "mul", {x, k}, {y});
  g.remove_dead_values();
  EXPECT_EQ(g.find_value("k"), k);
  EXPECT_EQ(g.find_value("unused"), nullptr);
  EXPECT_EQ(g.values().size(), 3u);
}

// Two values of one name come from the model (an ONNX graph may say so): a user
// error naming the value, not an internal one.
TEST(Graph, DuplicateValueNameIsACompileError) {
  Graph g;
  g.add_value("x", DType::Float32, {1});
  try {
    g.add_value("x", DType::Float32, {1});
    FAIL() << "a second value named x was accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

// Unrolled loops cannot grow the graph past kMaxGraphNodes.
TEST(Graph, AddNodePastTheNodeLimitIsACompileError) {
  Graph g;
  Value* v = g.add_value("v", DType::Float32, {1});
  for (int64_t i = 0; i < kMaxGraphNodes; ++i) g.add_node("Relu", "r" + std::to_string(i), {v}, {});
  EXPECT_THROW(g.add_node("Relu", "one_more", {v}, {}), CompileError);
  EXPECT_EQ(int64_t(g.nodes.size()), kMaxGraphNodes);
}

// Removing dead nodes reaches the whole dead chain (producers before users).
TEST(Graph, RemoveDeadNodesRemovesChains) {
  Graph g;
  Value* x = g.add_value("x", DType::Float32, {1});
  x->is_graph_input = true;
  Value* prev = x;
  for (int i = 0; i < 50; ++i) {
    Value* next = g.add_value("c" + std::to_string(i), DType::Float32, {1});
    g.add_node("Relu", "dead" + std::to_string(i), {prev}, {next});
    prev = next;
  }
  Value* y = g.add_value("y", DType::Float32, {1});
  y->is_graph_output = true;
  g.add_node("Neg", "live", {x}, {y});
  EXPECT_EQ(g.remove_dead_nodes(), 50u);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes.front()->name, "live");
  EXPECT_EQ(x->users.size(), 1u);
}

TEST(Graph, UniqueNameAvoidsExistingNamesAndRepeats) {
  Graph g;
  g.add_value("t_0", DType::Float32, {1});
  g.add_value("t_1", DType::Float32, {1});
  std::set<std::string> names;
  for (int i = 0; i < 50; ++i) {
    std::string n = g.unique_name("t");
    EXPECT_EQ(g.find_value(n), nullptr) << n;
    EXPECT_EQ(n.rfind("t_", 0), 0u) << n;
    EXPECT_TRUE(names.insert(n).second) << n << " returned twice";
    if (i % 2 == 0) g.add_value(n, DType::Float32, {1});
  }
  EXPECT_FALSE(names.count("t_0"));
  EXPECT_FALSE(names.count("t_1"));
}

TEST(Graph, ShapeHelpersAndValueSizes) {
  EXPECT_EQ(shape_elements({}), 1);
  EXPECT_EQ(shape_elements({2, 3, 4}), 24);
  EXPECT_EQ(shape_elements({2, 0, 4}), 0);
  EXPECT_EQ(shape_str({1, 3, 32, 32}), "[1,3,32,32]");
  EXPECT_EQ(shape_str({}), "[]");
  Graph g;
  EXPECT_EQ(g.add_value("f", DType::Float32, {2, 3})->size_bytes(), 24u);
  EXPECT_EQ(g.add_value("h", DType::Float16, {5})->size_bytes(), 10u);
  EXPECT_EQ(g.add_value("b", DType::Bool, {7})->size_bytes(), 7u);
  EXPECT_EQ(g.add_value("s", DType::Int64, {})->size_bytes(), 8u);
}

TEST(Node, AttributeAccessorsCheckTypes) {
  Node n;
  n.op_type = "Conv";
  n.name = "c1";
  n.attrs["group"] = int64_t(2);
  n.attrs["alpha"] = 0.5;
  n.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  n.attrs["mode"] = std::string("constant");
  n.attrs["scales"] = std::vector<double>{1.0, 2.0};
  EXPECT_EQ(n.attr_int("group", 1), 2);
  EXPECT_EQ(n.attr_int("missing", 7), 7);
  EXPECT_DOUBLE_EQ(n.attr_float("alpha", 0), 0.5);
  EXPECT_DOUBLE_EQ(n.attr_float("group", 0), 2.0);  // an int attribute read as float
  EXPECT_EQ(n.attr_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(n.attr_ints("strides", {1, 1}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(n.attr_string("mode", ""), "constant");
  EXPECT_EQ(n.attr_floats("scales"), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(n.attr_tensor("value"), nullptr);
  try {
    n.attr_int("alpha", 0);
    FAIL() << "reading a float attribute as int must throw";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("Conv 'c1'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("alpha"), std::string::npos) << e.what();
  }
  EXPECT_THROW(n.attr_float("mode", 0), CompileError);
  EXPECT_THROW(n.attr_ints("group"), CompileError);
}

TEST(Constant, FromFloatsKeepsShapeBytesAndValues) {
  std::vector<float> v = {1.5f, -2.25f, 0.f, -0.f, std::numeric_limits<float>::infinity(), 1e-45f};
  auto c = Constant::from_floats({2, 3}, v);
  EXPECT_EQ(c->dtype(), DType::Float32);
  EXPECT_EQ(c->shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(c->num_elements(), 6);
  EXPECT_EQ(c->size_bytes(), 24u);
  EXPECT_EQ(std::memcmp(c->data(), v.data(), 24), 0);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(c->as_double(i), double(v[size_t(i)])) << i;
  EXPECT_TRUE(std::signbit(c->as_double(3)));
  EXPECT_FALSE(c->is_splat());
}

TEST(Constant, FromFloatsNaNSurvives) {
  auto c = Constant::from_floats({1}, {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(c->as_double(0)));
}

TEST(Constant, ScalarAndEmptyShapes) {
  auto s = Constant::from_int64s({}, {-42});
  EXPECT_TRUE(s->shape().empty());
  EXPECT_EQ(s->num_elements(), 1);
  EXPECT_EQ(s->as_int64(0), -42);
  EXPECT_EQ(s->as_double(0), -42.0);
  auto e = Constant::from_floats({0, 3}, {});
  EXPECT_EQ(e->num_elements(), 0);
  EXPECT_EQ(e->size_bytes(), 0u);
}

TEST(Constant, FromInt64sIsExactAtTheExtremes) {
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  auto c = Constant::from_int64s({3}, {lo, hi, 9007199254740993});  // 2^53 + 1 is not a double
  EXPECT_EQ(c->dtype(), DType::Int64);
  EXPECT_EQ(c->size_bytes(), 24u);
  EXPECT_EQ(c->to_int64s(), (std::vector<int64_t>{lo, hi, 9007199254740993}));
  int64_t raw[3];
  std::memcpy(raw, c->data(), 24);
  EXPECT_EQ(raw[0], lo);
  EXPECT_EQ(raw[2], 9007199254740993);
}

TEST(Constant, ByteSizeMustMatchShape) {
  EXPECT_THROW(Constant::from_floats({2, 2}, {1.f, 2.f, 3.f}), std::logic_error);
  EXPECT_THROW(Constant::from_bytes(DType::Int32, {2}, std::vector<uint8_t>(7)), std::logic_error);
}

TEST(Constant, FromBytesOfNarrowTypes) {
  auto i8 = Constant::from_bytes(DType::Int8, {3}, {0x80, 0x7f, 0xff});
  EXPECT_EQ(i8->to_int64s(), (std::vector<int64_t>{-128, 127, -1}));
  auto u8 = Constant::from_bytes(DType::UInt8, {2}, {0xff, 0x01});
  EXPECT_EQ(u8->as_int64(0), 255);
  auto h = Constant::from_bytes(DType::Float16, {2}, {0x00, 0x3c, 0x00, 0xc0});  // 1.0, -2.0
  EXPECT_EQ(h->as_double(0), 1.0);
  EXPECT_EQ(h->as_double(1), -2.0);
  auto b = Constant::from_bytes(DType::Bool, {2}, {0, 1});
  EXPECT_EQ(b->to_int64s(), (std::vector<int64_t>{0, 1}));
}

TEST(Constant, CopyingThePointerSharesStorage) {
  auto c = Constant::from_floats({4}, {1, 2, 3, 4});
  ConstantPtr d = c;
  EXPECT_EQ(c->data(), d->data());
  auto r = c->reshaped({2, 2});
  EXPECT_EQ(r->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r->data(), c->data());  // a reshape of a dense constant is a view
  EXPECT_EQ(r->as_double(3), 4.0);
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtype_size(DType::Float32), 4u);
  EXPECT_EQ(dtype_size(DType::Float64), 8u);
  EXPECT_EQ(dtype_size(DType::Float16), 2u);
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_EQ(dtype_size(DType::String), 0u);
  EXPECT_EQ(dtype_c_type(DType::Float32), "float");
  EXPECT_EQ(dtype_c_enum(DType::Float32), "KILN_DTYPE_FLOAT32");
  EXPECT_TRUE(dtype_is_float(DType::BFloat16));
  EXPECT_FALSE(dtype_is_integer(DType::Bool));
  EXPECT_TRUE(dtype_is_integer(DType::UInt64));
  EXPECT_TRUE(dtype_is_known(1));
  EXPECT_FALSE(dtype_is_known(8));   // string: Kiln cannot store it
  EXPECT_FALSE(dtype_is_known(99));
}

}  // namespace
}  // namespace kiln
