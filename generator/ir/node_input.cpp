#include "ir/node_input.h"

#include <algorithm>

namespace kiln {

void set_input(Node* n, size_t slot, Value* v) {
  if (slot < n->inputs.size() && n->inputs[slot]) {
    auto& us = n->inputs[slot]->users;
    auto it = std::find(us.begin(), us.end(), n);
    if (it != us.end()) us.erase(it);
  }
  if (slot >= n->inputs.size()) n->inputs.resize(slot + 1, nullptr);
  n->inputs[slot] = v;
  if (v) v->users.push_back(n);
}

}  // namespace kiln
