// Small graph edits the quantization passes share: nodes placed at a point of the
// schedule, an output handed over from one node to another, dead chains removed.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/node_input.h"  // set_input

namespace kiln::quant {

using NodeIt = std::list<std::unique_ptr<Node>>::iterator;

// A node of ONNX's default domain ("" or "ai.onnx").
bool is_default_domain(const Node* n);
// `n` is a default-domain node of type `op` (false for null).
bool is_op(const Node* n, const char* op);
// No output of `n` is used or is a graph output.
bool is_dead(const Node* n);

NodeIt position_of(Graph& g, const Node* n);
// Adds a node just before `anchor` in the schedule (a fresh name made from `name`).
Node* insert_before(Graph& g, const Node* anchor, const std::string& op, const std::string& name,
                    std::vector<Value*> ins, std::vector<Value*> outs);
// Adds a node just after `anchor` in the schedule.
Node* insert_after(Graph& g, const Node* anchor, const std::string& op, const std::string& name,
                   std::vector<Value*> ins, std::vector<Value*> outs);
// Output `i` of `n` leaves it (n gets an unused stand-in) so that a new node can
// produce it: the value keeps its name, users and graph-output role.
Value* detach_output(Graph& g, Node* n, size_t i);
// A constant value named from `hint`.
Value* constant_value(Graph& g, const std::string& hint, ConstantPtr c);
// Erases `n` if none of its outputs is used, then its producers that became dead.
void erase_if_dead(Graph& g, Node* n);

}  // namespace kiln::quant
