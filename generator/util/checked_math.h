// Checked arithmetic for every element count, byte size and offset the compiler
// computes from a model, and the limits on what one model may ask for.
//
// A model file is untrusted input and the sizes computed here end up in firmware:
// an element count that wrapped around in the compiler is a buffer overrun on the
// device. So every product of dimensions, every byte size and every offset that a
// model controls goes through these helpers, which throw a CompileError naming
// the value instead of wrapping. The limits are far above what a Cortex-M can hold
// (its whole address space is 4 GiB) and keep the compiler's own memory bounded:
// a request for 4 GB is refused before it is made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

// The largest single tensor (elements and bytes) a model may declare or compute.
constexpr int64_t kMaxTensorElements = int64_t(1) << 30;
constexpr int64_t kMaxTensorBytes = int64_t(1) << 30;
// All constant bytes of one model together (initializers, folded results, emitted
// parameters).
constexpr int64_t kMaxModelConstantBytes = int64_t(1) << 31;
// Operator nodes in the graph at any time, after Loop / Scan / SequenceMap bodies
// are unrolled into it (Graph::add_node refuses the one past it). Each node is a
// kernel call in the generated C, so 10,000 is some 300 KB of Cortex-M code before
// any kernel; and parts of folding and planning grow faster than linearly with the
// node count (an unrolled 6-node Loop body: 6,000 nodes 3.5 s, 12,000 nodes 21 s
// and 600 MB, 24,000 nodes 7 minutes and 2.2 GB), so a trip count of INT64_MAX or
// nested Loops cannot turn into an unbounded compile.
constexpr int64_t kMaxGraphNodes = 10000;
// The rank of any tensor (ONNX has no limit; shape rules index with axis + rank).
constexpr int64_t kMaxRank = 64;

// a * b, a + b, a - b; on overflow a CompileError "<what>: ... overflows".
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);
int64_t checked_add(int64_t a, int64_t b, const std::string& what);
int64_t checked_sub(int64_t a, int64_t b, const std::string& what);
uint64_t checked_mul_u(uint64_t a, uint64_t b, const std::string& what);
uint64_t checked_add_u(uint64_t a, uint64_t b, const std::string& what);

// The product of `dims` (1 for a scalar). A negative dimension, a product past
// kMaxTensorElements or an intermediate overflow is a CompileError naming `what`
// and the shape.
int64_t checked_elements(const std::vector<int64_t>& dims, const std::string& what);
// checked_elements(dims) * element_size, at most kMaxTensorBytes.
int64_t checked_tensor_bytes(const std::vector<int64_t>& dims, size_t element_size, const std::string& what);

}  // namespace kiln
