/* Definitions shared by the kernel families. */
#ifndef KILN_KERNEL_COMMON_H
#define KILN_KERNEL_COMMON_H

#include <math.h> /* INFINITY / NAN in generated parameter structs */
#include <stdint.h>

#include "kiln_crt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most dimensions a kernel handles; the compiler rejects tensors with more. */
#define KILN_MAX_DIMS 8

/*
 * A multidirectional (numpy-style) broadcast of two inputs to one output, worked
 * out at compile time: the output shape, and per input the element stride of each
 * output dimension (0 where the input is broadcast). Dimensions are already
 * merged where possible, so the innermost loop is usually long and contiguous.
 */
typedef struct {
  uint32_t ndim;                     /* >= 1 */
  int32_t shape[KILN_MAX_DIMS];      /* output shape */
  int32_t stride_a[KILN_MAX_DIMS];   /* element strides of input A per output dim */
  int32_t stride_b[KILN_MAX_DIMS];   /* element strides of input B per output dim */
} kiln_broadcast_t;

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNEL_COMMON_H */
