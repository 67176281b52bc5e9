/* Kernels the compiler uses when it flattens ONNX control flow (If, Scan, Loop) into
 * the static schedule: a run-time choice between two computed tensors, taking one
 * slice of a tensor along an axis, and a copy guarded by a run-time check. All are
 * dtype-agnostic byte copies. */
#ifndef KILN_CONTROL_FLOW_H
#define KILN_CONTROL_FLOW_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* If: out = *cond ? then_value : else_value (bool stored as one byte, nonzero = true), `bytes` bytes. out may alias either. */
kiln_status_t kiln_select_bytes(const uint8_t* cond, const void* then_value, const void* else_value, void* out,
                                uint32_t bytes);

/* Loop: out = in when *ok (nonzero), else KILN_ERR_BAD_ARGUMENT (the loop would have
 * run another number of iterations than the static shape of its outputs allows).
 * out may alias in. */
kiln_status_t kiln_guard_bytes(const uint8_t* ok, const void* in, void* out, uint32_t bytes);

/* Slice `index` of a tensor seen as [outer, axis, inner] (inner in bytes): out is
 * [outer, inner_bytes]. Scan uses it to feed one step of each scanned input. */
typedef struct {
  uint32_t outer, axis, inner_bytes, index;
} kiln_take_slice_params_t;
kiln_status_t kiln_take_slice(const kiln_take_slice_params_t* p, const void* in, void* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_CONTROL_FLOW_H */
