// Small graph edits and queries shared by the sequence passes
// (resolve_sequences.cpp, runtime_sequences.cpp).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::sequence_graph {

using NodeIt = std::list<std::unique_ptr<Node>>::iterator;

// SequenceConstruct / SequenceEmpty: the producers of a compile-time list.
bool is_list_producer(const Node* n);

// The compile-time element list of a sequence value, when its producer is resolved.
std::optional<std::vector<Value*>> list_of(const Value* s);

// The value of a one-element constant, as int64.
std::optional<int64_t> const_int(const Value* v);

// Points `n` at new inputs (trailing omitted inputs dropped), keeping the users
// lists right, and makes it `op_type` with no attributes.
void retarget(Node* n, const std::string& op_type, const std::vector<Value*>& inputs);

// Adds a node just before `pos` in the schedule.
Node* insert_before(Graph& g, NodeIt pos, const std::string& op, const std::string& name, std::vector<Value*> ins,
                    std::vector<Value*> outs);

}  // namespace kiln::sequence_graph
