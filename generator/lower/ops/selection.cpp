// NonZero, Compress, Unique and NonMaxSuppression (crt/include/kiln/selection.h).
// Their output size depends on the input values, which static memory planning
// cannot follow; but when the model declares the output shape statically (as the
// ONNX backend tests do), that shape is the plan: the number of result rows comes
// from the declared output shape and the kernel checks the run-time result against
// it (KILN_ERR_BAD_ARGUMENT on a mismatch, nothing written), as Range does. An
// output without a static shape (a dim_param, or no shape at all) is rejected.
#include <algorithm>

#include "lower/lower_util.h"
#include "lower/ops/data_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// Output i is present in the model (an output name that is not "") and is used.
// An unused optional output is not computed (its shape may be unknown).
bool wanted_output(const Node& n, size_t i) {
  if (i >= n.outputs.size() || n.outputs[i] == nullptr || n.outputs[i]->dtype == DType::Undefined) return false;
  const Value* v = n.outputs[i];
  return v->shape_known || !v->users.empty() || v->is_graph_output;
}

// Output i must have a static shape: the model declares how many rows the result has.
const Value* static_output(const Node& n, size_t i) {
  const Value* v = n.outputs.at(i);
  if (!v->shape_known)
    throw CompileError(n.describe() + ": the shape of output " + std::to_string(i) + " (" + in_quotes(v->name) + ") of " +
                       n.op_type +
                       " depends on the input values, and the model does not declare it statically (it has a "
                       "dim_param or no shape); Kiln plans memory statically, so the model must declare the "
                       "output shape (the kernel checks it at run time)");
  check_fits_32bit(n, v->shape);
  return v;
}

void require_shape(const Node& n, const Value* v, const Shape& expected, const char* what) {
  if (v->shape != expected)
    throw CompileError(n.describe() + ": " + what + " has shape " + shape_str(v->shape) + ", expected " +
                       shape_str(expected));
}

// kiln_sel_type_t of a dtype (bool read as bytes).
std::string sel_type(const Node& n, DType t) {
  switch (t) {
    case DType::Float32: return "KILN_SEL_F32";
    case DType::Float64: return "KILN_SEL_F64";
    case DType::Int8: return "KILN_SEL_I8";
    case DType::Int16: return "KILN_SEL_I16";
    case DType::Int32: return "KILN_SEL_I32";
    case DType::Int64: return "KILN_SEL_I64";
    case DType::UInt8:
    case DType::Bool: return "KILN_SEL_U8";
    case DType::UInt16: return "KILN_SEL_U16";
    case DType::UInt32: return "KILN_SEL_U32";
    case DType::UInt64: return "KILN_SEL_U64";
    default: break;
  }
  throw CompileError(n.describe() + ": dtype " + dtype_name(t) + " is not supported by " + n.op_type);
}

KernelCall nonzero(const Node& n) {
  const Value* x = n.input(0);
  if (!x) throw CompileError(n.describe() + ": input X is required");
  const Value* y = static_output(n, 0);
  require_dtype(n, y, DType::Int64, "output");
  const int64_t r = int64_t(x->shape.size());
  if (r == 0) throw CompileError(n.describe() + ": a scalar input is not supported");
  if (r > 8) throw CompileError(n.describe() + ": inputs of more than 8 dimensions are not supported");
  if (y->shape.size() != 2 || y->shape[0] != r)
    throw CompileError(n.describe() + ": output has shape " + shape_str(y->shape) + ", expected [" +
                       std::to_string(r) + ", count]");
  check_fits_32bit(n, x->shape);
  KernelCall k;
  k.params_type = "kiln_nonzero_params_t";
  k.params_init = ParamsInit()
                      .u("ndim", r)
                      .ints("shape", x->shape)
                      .raw("elem_type", sel_type(n, x->dtype))
                      .u("count", y->shape[1])
                      .str();
  k.call = "kiln_nonzero(&$params, $in0, $out0)";
  return k;
}

// Compress and Unique select whole slices along `axis` (or elements of the
// flattened input without one): x seen as [outer, axis, inner]; *count is the
// number of selected slices the declared output `y` holds.
data::AxisSplit selected_slices(const Node& n, const Value* x, const Value* y, const char* what, int64_t* count) {
  data::AxisSplit g;
  if (n.has_attr("axis")) {
    const int64_t r = int64_t(x->shape.size());
    if (r == 0) throw CompileError(n.describe() + ": axis given for a scalar input");
    const int64_t axis = normalize_axis(n, n.attr_int("axis", 0), r);
    g = data::split_at(x->shape, axis);
    Shape expected = x->shape;
    *count = y->shape.size() == x->shape.size() ? y->shape[size_t(axis)] : -1;
    expected[size_t(axis)] = *count;
    require_shape(n, y, expected, what);
  } else {
    g.axis = x->num_elements();
    if (y->shape.size() != 1) throw CompileError(n.describe() + ": " + what + " must be 1-D (no axis)");
    *count = y->shape[0];
  }
  return g;
}

KernelCall compress(const Node& n) {
  const Value* x = n.input(0);
  const Value* cond = n.input(1);
  if (!x || !cond) throw CompileError(n.describe() + ": input and condition are required");
  const Value* y = static_output(n, 0);
  require_dtype(n, y, x->dtype, "output");
  require_dtype(n, cond, DType::Bool, "condition");
  if (cond->shape.size() != 1) throw CompileError(n.describe() + ": condition must be 1-D");
  check_fits_32bit(n, x->shape);
  check_fits_32bit(n, cond->shape);
  const int64_t es = data::elem_size(n, x->dtype);
  int64_t count = 0;
  const data::AxisSplit g = selected_slices(n, x, y, "output", &count);
  KernelCall k;
  k.params_type = "kiln_compress_params_t";
  k.params_init = ParamsInit()
                      .u("outer", g.outer)
                      .u("axis", g.axis)
                      .u("inner", g.inner)
                      .u("cond_len", cond->shape[0])
                      .u("elem_size", es)
                      .u("count", count)
                      .str();
  k.call = "kiln_compress(&$params, $in0, (const uint8_t*)$in1, $out0)";
  return k;
}

KernelCall unique(const Node& n) {
  const Value* x = n.input(0);
  if (!x) throw CompileError(n.describe() + ": input X is required");
  const Value* y = static_output(n, 0);
  require_dtype(n, y, x->dtype, "output Y");
  check_fits_32bit(n, x->shape);
  const int64_t sorted = n.attr_int("sorted", 1);
  if (sorted != 0 && sorted != 1) throw CompileError(n.describe() + ": sorted must be 0 or 1");
  int64_t count = 0;
  const data::AxisSplit g = selected_slices(n, x, y, "output Y", &count);
  const char* names[4] = {"Y", "indices", "inverse_indices", "counts"};
  std::string args[4] = {"$out0", "NULL", "NULL", "NULL"};
  for (size_t i = 1; i < 4; ++i) {
    if (!wanted_output(n, i)) continue;
    const Value* v = static_output(n, i);
    require_dtype(n, v, DType::Int64, names[i]);
    require_shape(n, v, Shape{i == 2 ? g.axis : count}, names[i]);
    args[i] = "$out" + std::to_string(i);
  }
  KernelCall k;
  k.params_type = "kiln_unique_params_t";
  k.params_init = ParamsInit()
                      .u("outer", g.outer)
                      .u("n", g.axis)
                      .u("inner", g.inner)
                      .raw("elem_type", sel_type(n, x->dtype))
                      .u("sorted", sorted)
                      .u("count", count)
                      .str();
  k.scratch.push_back({"unique_order", std::max<uint64_t>(uint64_t(g.axis) * 12u, 4u), 4});
  k.call = "kiln_unique(&$params, $in0, $out0, " + args[1] + ", " + args[2] + ", " + args[3] + ", $scratch0)";
  return k;
}

// Optional scalar input i of dtype t: "$in<i>", or "NULL" when omitted (or empty).
std::string optional_scalar(const Node& n, size_t i, DType t, const char* what) {
  const Value* v = n.input(i);
  if (v == nullptr || v->num_elements() == 0) return "NULL";
  require_dtype(n, v, t, what);
  if (v->num_elements() != 1) throw CompileError(n.describe() + ": " + what + " must be a scalar");
  return "$in" + std::to_string(i);
}

KernelCall non_max_suppression(const Node& n) {
  const Value* boxes = n.input(0);
  const Value* scores = n.input(1);
  if (!boxes || !scores) throw CompileError(n.describe() + ": boxes and scores are required");
  require_dtype(n, boxes, DType::Float32, "boxes");
  require_dtype(n, scores, DType::Float32, "scores");
  const Value* y = static_output(n, 0);
  require_dtype(n, y, DType::Int64, "selected_indices");
  if (boxes->shape.size() != 3 || boxes->shape[2] != 4)
    throw CompileError(n.describe() + ": boxes must be [num_batches, spatial_dimension, 4]");
  const int64_t batches = boxes->shape[0], nboxes = boxes->shape[1];
  if (scores->shape.size() != 3 || scores->shape[0] != batches || scores->shape[2] != nboxes)
    throw CompileError(n.describe() + ": scores must be [num_batches, num_classes, spatial_dimension]");
  if (y->shape.size() != 2 || y->shape[1] != 3)
    throw CompileError(n.describe() + ": selected_indices has shape " + shape_str(y->shape) +
                       ", expected [num_selected, 3]");
  const int64_t cpb = n.attr_int("center_point_box", 0);
  if (cpb != 0 && cpb != 1) throw CompileError(n.describe() + ": center_point_box must be 0 or 1");
  check_fits_32bit(n, boxes->shape);
  check_fits_32bit(n, scores->shape);
  const std::string max_out = optional_scalar(n, 2, DType::Int64, "max_output_boxes_per_class");
  const std::string iou = optional_scalar(n, 3, DType::Float32, "iou_threshold");
  const std::string score = optional_scalar(n, 4, DType::Float32, "score_threshold");
  KernelCall k;
  k.params_type = "kiln_nms_params_t";
  k.params_init = ParamsInit()
                      .u("batches", batches)
                      .u("classes", scores->shape[1])
                      .u("boxes", nboxes)
                      .u("center_point_box", cpb)
                      .u("count", y->shape[0])
                      .str();
  k.scratch.push_back({"nms_candidates", std::max<uint64_t>(uint64_t(nboxes) * 8u, 4u), 4});
  k.call = "kiln_non_max_suppression(&$params, $in0, $in1, " + max_out + ", " + iou + ", " + score +
           ", $out0, $scratch0)";
  return k;
}

}  // namespace

void register_selection_lowerings() {
  register_lowering("NonZero", nonzero);
  register_lowering("Compress", compress);
  register_lowering("Unique", unique);
  register_lowering("NonMaxSuppression", non_max_suppression);
}

}  // namespace kiln
