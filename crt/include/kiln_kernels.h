/*
 * Kiln kernel library: every kernel the generated operator files call.
 *
 * Conventions (CMSIS-NN style, flat C99):
 *  - A kernel is `kiln_status_t kiln_<op>_<dtype>(const kiln_<op>_params_t* p,
 *    inputs..., outputs..., scratch)`. Parameters are a plain struct the compiler
 *    fills at compile time (`static const` in operators.c); tensors are plain
 *    pointers in ONNX layout (row-major, NCHW). Memory is always the caller's: a
 *    kernel that needs scratch memory gets it as an argument, sized by the compiler.
 *  - Kernels check their arguments and return KILN_ERR_BAD_ARGUMENT /
 *    KILN_ERR_NULL_POINTER rather than crash. No malloc, no stdio.
 *  - Dtype suffixes: _f32 float, _f64 double, _i8/_u8/_i16/_u16/_i32/_u32/_i64/_u64, _b bool.
 *  - Each family header says which arguments may alias. Element-wise kernels
 *    allow `out == in` (the bufferizer runs them in place).
 */
#ifndef KILN_KERNELS_H
#define KILN_KERNELS_H

#include "kiln_crt.h"
#include "kiln/kernel_common.h"
#include "kiln/elementwise.h"
#include "kiln/logic.h"
#include "kiln/cast.h"
#include "kiln/conv.h"
#include "kiln/gemm.h"
#include "kiln/pool.h"
#include "kiln/resize.h"
#include "kiln/quant.h"
#include "kiln/layout.h"
#include "kiln/normalization.h"
#include "kiln/reduce.h"
#include "kiln/indexing.h"
#include "kiln/rnn.h"
#include "kiln/einsum.h"
#include "kiln/control_flow.h"
#include "kiln/sequence.h"
#include "kiln/misc.h"
#include "kiln/sample.h"
#include "kiln/signal.h"
#include "kiln/selection.h"
#include "kiln/loss.h"
#include "kiln/optimizer.h"
#include "kiln/text.h"
#include "kiln/nn_s8.h"
#include "kiln/nn_s8_pool.h"
#include "kiln/nn_s8_elementwise.h"
#include "kiln/nn_s8_softmax.h"
#include "kiln/nn_s8_quantize.h"
#include "kiln/nn_s8_reduce.h"
#include "kiln/nn_s8_resize.h"
#include "kiln/nn_s8_matmul.h"
#include "kiln/nn_s8_lstm.h"

#endif /* KILN_KERNELS_H */
