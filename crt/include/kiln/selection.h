/* Selection ops whose output size depends on the input values: NonZero, Compress,
 * Unique and NonMaxSuppression. Kiln plans memory statically, so the number of
 * result rows (`count`) is the one the model declared for the output; the kernel
 * computes the result, and writes its outputs only when the run-time number of
 * rows equals `count`. Otherwise it returns KILN_ERR_BAD_ARGUMENT without writing
 * anything. Outputs must not alias inputs. Scratch buffers are the caller's (sizes
 * below). */
#ifndef KILN_SELECTION_H
#define KILN_SELECTION_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types the value-reading kernels (NonZero, Unique) understand; bool is
 * read as KILN_SEL_U8. */
typedef enum {
  KILN_SEL_F32 = 0,
  KILN_SEL_F64 = 1,
  KILN_SEL_I8 = 2,
  KILN_SEL_I16 = 3,
  KILN_SEL_I32 = 4,
  KILN_SEL_I64 = 5,
  KILN_SEL_U8 = 6,
  KILN_SEL_U16 = 7,
  KILN_SEL_U32 = 8,
  KILN_SEL_U64 = 9
} kiln_sel_type_t;

/* NonZero: x of `shape` (ndim dims, 0..KILN_MAX_DIMS; ndim 0 is a scalar) ->
 * out int64 [ndim, count]: column j holds the coordinates of the j-th element
 * (row-major order) that is not zero (NaN counts as not zero, -0.0 as zero). */
typedef struct {
  uint32_t ndim;
  uint32_t shape[KILN_MAX_DIMS];
  uint32_t elem_type; /* kiln_sel_type_t */
  uint32_t count;     /* planned number of non-zero elements */
} kiln_nonzero_params_t;
kiln_status_t kiln_nonzero(const kiln_nonzero_params_t* p, const void* x, int64_t* out);

/* Compress: x viewed as [outer, axis, inner] (no axis attribute: outer = inner = 1
 * over the flattened input) -> out [outer, count, inner], the slices j along the
 * axis whose condition[j] (bool, cond_len entries) is true. cond_len may be less
 * than `axis` (the missing entries are false); a true entry at j >= axis is
 * KILN_ERR_BAD_ARGUMENT. */
typedef struct {
  uint32_t outer, axis, inner;
  uint32_t cond_len;
  uint32_t elem_size; /* bytes per element */
  uint32_t count;     /* planned number of selected slices */
} kiln_compress_params_t;
kiln_status_t kiln_compress(const kiln_compress_params_t* p, const void* x, const uint8_t* condition, void* out);

/* Unique: x viewed as [outer, n, inner]; the n slices along the axis (without an
 * axis attribute: the flattened elements, outer = inner = 1) are compared
 * lexicographically (element order: outer index major, inner index minor; NaN
 * sorts after every number and equals NaN). `count` unique slices:
 *  y       [outer, count, inner] the unique slices, in ascending order (sorted) or
 *          in the order of their first occurrence (sorted = 0);
 *  indices int64 [count]  first occurrence of each unique slice;
 *  inverse int64 [n]      position in y of every input slice;
 *  counts  int64 [count]  occurrences of each unique slice.
 * indices, inverse and counts may be NULL (not wanted). scratch: 3 * n uint32_t
 * (KILN_UNIQUE_SCRATCH_BYTES), 4-byte aligned. */
typedef struct {
  uint32_t outer, n, inner;
  uint32_t elem_type; /* kiln_sel_type_t */
  uint32_t sorted;
  uint32_t count; /* planned number of unique slices */
} kiln_unique_params_t;
#define KILN_UNIQUE_SCRATCH_BYTES(n) ((n) * 3u * 4u)
kiln_status_t kiln_unique(const kiln_unique_params_t* p, const void* x, void* y, int64_t* indices, int64_t* inverse,
                          int64_t* counts, void* scratch);

/* NonMaxSuppression (opset 10/11): boxes [batches, boxes, 4] (center_point_box 0:
 * [y1, x1, y2, x2] of any two opposite corners; 1: [x_center, y_center, width,
 * height]), scores [batches, classes, boxes] -> out int64 [count, 3] of
 * (batch, class, box), per batch, per class, in selection order: candidates by
 * descending score (equal scores: lower box index first), a candidate is kept
 * unless its IoU with a box already kept for that class is > iou_threshold, at most
 * max_output_boxes_per_class per class. The three scalars are optional (NULL): max
 * output 0 (no boxes), IoU threshold 0, no score threshold (with one, only scores
 * > score_threshold are candidates). Arithmetic in float, as the ONNX reference.
 * scratch: 2 * boxes uint32_t (KILN_NMS_SCRATCH_BYTES), 4-byte aligned. */
typedef struct {
  uint32_t batches, classes, boxes;
  uint32_t center_point_box;
  uint32_t count; /* planned number of selected boxes (all batches and classes) */
} kiln_nms_params_t;
#define KILN_NMS_SCRATCH_BYTES(boxes) ((boxes) * 2u * 4u)
kiln_status_t kiln_non_max_suppression(const kiln_nms_params_t* p, const float* boxes, const float* scores,
                                       const int64_t* max_output_boxes_per_class, const float* iou_threshold,
                                       const float* score_threshold, int64_t* out, void* scratch);

#ifdef __cplusplus
}
#endif

#endif /* KILN_SELECTION_H */
