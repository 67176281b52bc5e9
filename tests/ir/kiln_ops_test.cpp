// Kiln's operator table (ir/kiln_ops.h) and the graph verifier (ir/verify_graph.h):
// the typed attributes round-trip, each kind of broken contract is caught and named.
#include <gtest/gtest.h>

#include "ir/kiln_ops.h"
#include "ir/verify_graph.h"

namespace kiln {
namespace {

ConstantPtr int8s(const Shape& s) {
  return Constant::from_doubles(DType::Int8, s, std::vector<double>(size_t(shape_elements(s)), 1.0));
}

Value* constant_value(Graph& g, const std::string& name, ConstantPtr c) {
  Value* v = g.add_value(name, c->dtype(), c->shape());
  v->constant = std::move(c);
  return v;
}

// x [1,4,4,2] -> KilnQConv2D (3 filters of 3x3x2) -> y [1,2,2,3], valid by construction.
struct ConvGraph {
  Graph g;
  Node* conv = nullptr;
  ConvGraph() {
    Value* x = g.add_value("x", DType::Int8, {1, 4, 4, 2});
    x->is_graph_input = true;
    g.inputs.push_back(x);
    Value* w = constant_value(g, "w", int8s({3, 3, 3, 2}));
    Value* y = g.add_value("y", DType::Int8, {1, 2, 2, 3});
    y->is_graph_output = true;
    g.outputs.push_back(y);
    conv = g.add_node("KilnQConv2D", "conv", {x, w}, {y});
    ops::QConv2D a;
    a.quant.x_zero_point = -3;
    a.quant.requant_scale = {0.5, 0.25, 0.125};
    ops::set_attrs(*conv, a);
  }
};

TEST(KilnOps, TypedAttributesRoundTrip) {
  ConvGraph c;
  const auto a = ops::get_attrs<ops::QConv2D>(*c.conv);
  EXPECT_EQ(a.quant.x_zero_point, -3);
  EXPECT_EQ(a.quant.requant_scale, (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_EQ(a.window.pads, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(a.group, 1);
  // Every member is written, so the node carries exactly the definition's list.
  const ops::OpDef* d = ops::find_op_def("KilnQConv2D");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(c.conv->attrs.size(), d->attrs.size());
  EXPECT_EQ(ops::verify_node(*c.conv), std::nullopt);
  EXPECT_EQ(graph_problem(c.g), std::nullopt);
}

TEST(KilnOps, ReadingAnAttributeOfTheWrongTypeIsAnInternalError) {
  ConvGraph c;
  c.conv->attrs["group"] = 1.0;
  EXPECT_THROW(ops::get_attrs<ops::QConv2D>(*c.conv), std::logic_error);
  EXPECT_NE(ops::verify_node(*c.conv)->find("attribute 'group' is float, expected int"), std::string::npos);
}

TEST(KilnOps, EachBrokenRuleIsNamed) {
  auto problem = [](auto&& mutate) {
    ConvGraph c;
    mutate(c);
    auto p = ops::verify_node(*c.conv);
    return p ? *p : std::string("(none)");
  };
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs.erase("requant_scale"); }).find("attribute 'requant_scale' is required"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["depth_multiplier"] = int64_t(2); })
                .find("attribute 'depth_multiplier' is not defined for KilnQConv2D"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["x_zero_point"] = int64_t(128); }).find("x_zero_point = 128"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["act_min"] = int64_t(10); c.conv->attrs["act_max"] = int64_t(5); })
                .find("act_min 10 is above act_max 5"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["requant_scale"] = std::vector<double>{1.0, 2.0}; })
                .find("requant_scale has 2 values, expected 1 or 3"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["strides"] = std::vector<int64_t>{0, 1}; })
                .find("strides [0,1] must be positive"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->attrs["group"] = int64_t(2); }).find("do not fit input"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->inputs[0]->dtype = DType::Float32; })
                .find("input 0 'x' is float32, expected int8"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->inputs[1]->constant = nullptr; })
                .find("input 1 'weights' must be a constant"),
            std::string::npos);
  EXPECT_NE(problem([](ConvGraph& c) { c.conv->inputs.resize(1); }).find("has 1 inputs, expected 2 to 3"),
            std::string::npos);
}

TEST(KilnOps, DepthwiseWeightsMustGiveTheMultiplier) {
  Graph g;
  Value* x = g.add_value("x", DType::Int8, {1, 5, 5, 1});
  Value* w = constant_value(g, "w", int8s({3, 3, 8}));
  Value* y = g.add_value("y", DType::Int8, {1, 3, 3, 8});
  Node* n = g.add_node("KilnQDepthwiseConv2D", "dw", {x, w}, {y});
  ops::QDepthwiseConv2D a;
  a.depth_multiplier = 8;
  a.quant.requant_scale = {0.5};
  ops::set_attrs(*n, a);
  EXPECT_EQ(ops::verify_node(*n), std::nullopt);
  n->attrs["depth_multiplier"] = int64_t(4);
  EXPECT_NE(ops::verify_node(*n)->find("multiplier 4"), std::string::npos);
}

TEST(KilnOps, AnUnknownKilnOperatorBreaksTheTable) {
  Graph g;
  Value* x = g.add_value("x", DType::Int8, {4});
  Value* y = g.add_value("y", DType::Int8, {4});
  g.add_node("KilnQFrobnicate", "f", {x}, {y});
  auto p = graph_problem(g);
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("'KilnQFrobnicate' is not in Kiln's operator table"), std::string::npos);
}

TEST(KilnOps, TheTableIsSortedAndEachOperandListIsWellFormed) {
  const auto& t = ops::kiln_op_defs();
  ASSERT_FALSE(t.empty());
  for (size_t i = 0; i < t.size(); ++i) {
    if (i) EXPECT_LT(t[i - 1].name, t[i].name);
    EXPECT_TRUE(ops::is_kiln_op(t[i].name)) << t[i].name;
    EXPECT_FALSE(t[i].summary.empty()) << t[i].name;
    for (const auto* list : {&t[i].inputs, &t[i].outputs})
      for (size_t k = 0; k + 1 < list->size(); ++k) EXPECT_FALSE((*list)[k].variadic) << t[i].name << ": variadic not last";
    EXPECT_EQ(ops::find_op_def(t[i].name), &t[i]);
  }
}

TEST(VerifyGraph, CatchesBrokenLinksOrderAndNames) {
  {
    ConvGraph c;
    c.conv->inputs[0]->users.clear();
    EXPECT_NE(graph_problem(c.g)->find("does not list the node among its users"), std::string::npos);
  }
  {
    ConvGraph c;
    Value* z = c.g.add_value("z", DType::Int8, {1, 2, 2, 3});
    Node* relu = c.g.add_node("Relu", "relu", {z}, {c.g.add_value("r", DType::Int8, {1, 2, 2, 3})});
    // `z` is produced by a node placed after its user.
    Node* late = c.g.add_node("Identity", "late", {c.g.outputs[0]}, {z});
    (void)relu;
    (void)late;
    EXPECT_NE(graph_problem(c.g)->find("is produced later"), std::string::npos);
  }
  {
    ConvGraph c;
    c.g.add_node("Identity", "conv", {c.g.outputs[0]}, {c.g.add_value("i", DType::Int8, {1, 2, 2, 3})});
    EXPECT_NE(graph_problem(c.g)->find("two nodes are named 'conv'"), std::string::npos);
  }
  {
    ConvGraph c;
    c.conv->attrs.erase("requant_scale");
    try {
      verify_graph(c.g, "the 'quantize' pass");
      FAIL() << "no throw";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("after the 'quantize' pass"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("KilnQConv2D 'conv'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln
