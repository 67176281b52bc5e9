// node_order / set_node_order (schedule/graph_schedule.h): the memory tuning of
// the driver puts a graph back into an order it took earlier.
#include <gtest/gtest.h>

#include <stdexcept>

#include "ir/graph.h"
#include "schedule/graph_schedule.h"

namespace kiln {
namespace {

// x -> a (Relu) -> b (Relu); x -> c (Neg): a and c are independent.
struct ThreeNodes {
  Graph g;
  Node *a, *b, *c;
  ThreeNodes() {
    Value* x = g.add_value("x", DType::Float32, {4});
    x->is_graph_input = true;
    g.inputs.push_back(x);
    Value* va = g.add_value("va", DType::Float32, {4});
    Value* vb = g.add_value("vb", DType::Float32, {4});
    Value* vc = g.add_value("vc", DType::Float32, {4});
    a = g.add_node("Relu", "a", {x}, {va});
    b = g.add_node("Relu", "b", {va}, {vb});
    c = g.add_node("Neg", "c", {x}, {vc});
  }
};

TEST(GraphSchedule, NodeOrderIsTheScheduleAndSetNodeOrderPutsItBack) {
  ThreeNodes t;
  const std::vector<const Node*> program = node_order(t.g);
  EXPECT_EQ(program, (std::vector<const Node*>{t.a, t.b, t.c}));
  set_node_order(t.g, {t.c, t.a, t.b});
  EXPECT_EQ(node_order(t.g), (std::vector<const Node*>{t.c, t.a, t.b}));
  set_node_order(t.g, program);
  EXPECT_EQ(node_order(t.g), program);
  EXPECT_EQ(t.g.nodes.size(), 3u);
}

TEST(GraphSchedule, SetNodeOrderTakesOnlyAnOrderOfTheGraphsNodes) {
  ThreeNodes t, other;
  EXPECT_THROW(set_node_order(t.g, {t.a, t.b}), std::logic_error);              // one missing
  EXPECT_THROW(set_node_order(t.g, {t.a, t.b, t.b}), std::logic_error);         // one twice
  EXPECT_THROW(set_node_order(t.g, {t.a, t.b, other.c}), std::logic_error);     // another graph's
  EXPECT_THROW(set_node_order(t.g, {t.a, t.b, t.c, t.c}), std::logic_error);    // too many
  EXPECT_EQ(node_order(t.g), (std::vector<const Node*>{t.a, t.b, t.c}));        // left as it was
}

}  // namespace
}  // namespace kiln
