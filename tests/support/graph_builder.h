// A small builder of IR graphs for unit tests of the passes that rewrite them
// (bufferize, sequences): float32 inputs and values, constants, outputs, nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::test_support {

struct GraphBuilder {
  Graph g;
  GraphBuilder() { g.opset = 13; }
  Value* input(const std::string& n, Shape s) {
    Value* v = g.add_value(n, DType::Float32, std::move(s));
    v->is_graph_input = true;
    g.inputs.push_back(v);
    return v;
  }
  Value* val(const std::string& n, Shape s, DType dt = DType::Float32) { return g.add_value(n, dt, std::move(s)); }
  // A float32 constant of ones.
  Value* cst(const std::string& n, Shape s) {
    Value* v = g.add_value(n, DType::Float32, s);
    v->constant = Constant::from_floats(s, std::vector<float>(size_t(shape_elements(s)), 1.f));
    return v;
  }
  // A 1-D int64 constant.
  Value* i64(const std::string& n, std::vector<int64_t> data) {
    Value* v = g.add_value(n, DType::Int64, {int64_t(data.size())});
    v->constant = Constant::from_int64s({int64_t(data.size())}, data);
    return v;
  }
  void output(Value* v) {
    v->is_graph_output = true;
    g.outputs.push_back(v);
  }
  Node* op(const std::string& type, const std::string& name, std::vector<Value*> ins, std::vector<Value*> outs) {
    return g.add_node(type, name, std::move(ins), std::move(outs));
  }
};

}  // namespace kiln::test_support
