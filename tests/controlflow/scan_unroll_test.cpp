// Scan lowering (controlflow/scan_unroll.cpp) on hand-built IR graphs: one body
// instance per step of the scanned axis, fed by KilnTakeSlice in the input's
// direction, the scan output stacked by Concat in the output's direction, the final
// state passed out by Identity.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../support/expect_contains.h"
#include "controlflow/control_flow.h"
#include "util/error.h"

namespace kiln {
namespace {

// (s, ys) = Scan(s0, x) over x[3,2]: s_out = s_in + x_t, y_t = s_out.
struct ScanGraph {
  Graph g;
  Value* x = nullptr;
  Value* s = nullptr;
  Value* ys = nullptr;
  Node* scan = nullptr;

  ScanGraph() {
    g.opset = 11;
    Value* s0 = g.add_value("s0", DType::Float32, {2});
    x = g.add_value("x", DType::Float32, {3, 2});
    s0->is_graph_input = x->is_graph_input = true;
    g.inputs = {s0, x};
    s = g.add_value("s", DType::Float32, {2});
    ys = g.add_value("ys", DType::Float32, {3, 2});
    s->is_graph_output = ys->is_graph_output = true;
    g.outputs = {s, ys};

    auto body = std::make_shared<Graph>();
    body->name = "body";
    body->opset = 11;
    Value* s_in = body->add_value("s_in", DType::Float32, {2});
    Value* x_t = body->add_value("x_t", DType::Float32, {2});
    body->inputs = {s_in, x_t};
    Value* s_out = body->add_value("s_out", DType::Float32, {2});
    body->add_node("Add", "add", {s_in, x_t}, {s_out});
    Value* y_t = body->add_value("y_t", DType::Float32, {2});
    body->add_node("Identity", "row", {s_out}, {y_t});
    body->outputs = {s_out, y_t};

    scan = g.add_node("Scan", "scan", {s0, x}, {s, ys});
    scan->opset = 11;
    scan->attrs["body"] = GraphPtr(body);
    scan->attrs["num_scan_inputs"] = int64_t(1);
  }

  std::vector<int64_t> slice_indices() const {
    std::vector<int64_t> r;
    for (const auto& n : g.nodes)
      if (n->op_type == "KilnTakeSlice") r.push_back(n->attr_int("index", -1));
    return r;
  }
};

TEST(ScanUnroll, OneBodyInstancePerStepStackedByConcat) {
  ScanGraph t;
  EXPECT_EQ(lower_control_flow(t.g, false, {}), 1u);
  int adds = 0;
  for (const auto& n : t.g.nodes) {
    adds += n->op_type == "Add";
    EXPECT_NE(n->op_type, "Scan");
    if (n->op_type == "KilnTakeSlice") {
      EXPECT_EQ(n->input(0), t.x);
      EXPECT_EQ(n->attr_int("outer", 0), 1);
      EXPECT_EQ(n->attr_int("axis_len", 0), 3);
      EXPECT_EQ(n->attr_int("inner", 0), 2);
    }
  }
  EXPECT_EQ(adds, 3);
  EXPECT_EQ(t.slice_indices(), (std::vector<int64_t>{0, 1, 2}));
  ASSERT_NE(t.ys->producer, nullptr);
  EXPECT_EQ(t.ys->producer->op_type, "Concat");
  EXPECT_EQ(t.ys->producer->attr_int("axis", -1), 0);
  EXPECT_EQ(t.ys->producer->inputs.size(), 3u);
  ASSERT_NE(t.s->producer, nullptr);
  EXPECT_EQ(t.s->producer->op_type, "Identity");
  // The final state is the last step's Add, whose state input is the step before's.
  const Node* last = t.s->producer->input(0)->producer;
  ASSERT_EQ(last->op_type, "Add");
  EXPECT_EQ(last->input(0)->producer->op_type, "Add");
}

TEST(ScanUnroll, ReverseDirectionsTakeAndStackFromTheEnd) {
  ScanGraph t;
  t.scan->attrs["scan_input_directions"] = std::vector<int64_t>{1};
  t.scan->attrs["scan_output_directions"] = std::vector<int64_t>{1};
  lower_control_flow(t.g, false, {});
  EXPECT_EQ(t.slice_indices(), (std::vector<int64_t>{2, 1, 0}));
  // Reversed output: the first Concat input is the last step's row.
  const Node* cat = t.ys->producer;
  ASSERT_EQ(cat->op_type, "Concat");
  const Value* first_row = cat->input(0);
  while (first_row->producer && first_row->producer->op_type != "Add") first_row = first_row->producer->input(0);
  ASSERT_NE(first_row->producer, nullptr);
  EXPECT_EQ(first_row->producer, t.s->producer->input(0)->producer) << "the last step's sum";
}

TEST(ScanUnroll, MalformedScanIsRefusedNamingTheNode) {
  ScanGraph t;
  t.scan->attrs.erase("num_scan_inputs");
  try {
    lower_control_flow(t.g, false, {});
    ADD_FAILURE() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "Scan 'scan': malformed Scan");
  }
}

}  // namespace
}  // namespace kiln
