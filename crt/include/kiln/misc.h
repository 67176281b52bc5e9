/* Small standalone ops: Shrink, EyeLike, ReverseSequence and Dropout with its mask.
 *
 * Shrink and Dropout are element-wise (out == in is allowed). EyeLike and
 * ReverseSequence move raw elements of `elem_size` bytes, so one kernel serves
 * every dtype; ReverseSequence's output must not alias its input. */
#ifndef KILN_MISC_H
#define KILN_MISC_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shrink: out = x < -lambd ? x + bias : x > lambd ? x - bias : 0. */
typedef struct {
  uint32_t n;
  float lambd, bias;
} kiln_shrink_params_t;
kiln_status_t kiln_shrink_f32(const kiln_shrink_params_t* p, const float* in, float* out);
kiln_status_t kiln_shrink_f64(const kiln_shrink_params_t* p, const double* in, double* out);

/* EyeLike: a [rows, cols] matrix of zeros with `one` (the dtype's 1, raw bytes) at
 * every (i, i + k). */
typedef struct {
  uint32_t rows, cols, elem_size;
  int32_t k;
  uint8_t one[8];
} kiln_eyelike_params_t;
kiln_status_t kiln_eyelike(const kiln_eyelike_params_t* p, void* out);

/* ReverseSequence over x viewed as [outer = dim 0, dim 1, inner bytes]: the batch
 * axis is dim 0 or dim 1 (`batch_axis`), the time axis the other one. For batch b
 * the first seq_lens[b] time steps are reversed and the rest copied. A length
 * outside [0, time_len] returns KILN_ERR_BAD_ARGUMENT. */
typedef struct {
  uint32_t dim0, dim1, batch_axis; /* batch_axis: 0 or 1 */
  uint32_t inner_bytes;            /* bytes of one (batch, time) slice */
} kiln_reverse_sequence_params_t;
kiln_status_t kiln_reverse_sequence(const kiln_reverse_sequence_params_t* p, const void* in,
                                    const int64_t* seq_lens, void* out);

/* Dropout with runtime ratio / training_mode (either may be NULL: ratio defaults to
 * 0.5, training_mode to false). Without training, or with ratio 0, the result is
 * deterministic: out = in, mask all true. Training with a ratio > 0 needs random
 * numbers whose stream no test can reproduce: KILN_ERR_BAD_ARGUMENT. `mask` may be NULL. */
typedef struct {
  uint32_t n;
} kiln_dropout_params_t;
kiln_status_t kiln_dropout_f32(const kiln_dropout_params_t* p, const float* in, const float* ratio,
                               const uint8_t* training_mode, float* out, uint8_t* mask);
kiln_status_t kiln_dropout_f64(const kiln_dropout_params_t* p, const double* in, const float* ratio,
                               const uint8_t* training_mode, double* out, uint8_t* mask);

#ifdef __cplusplus
}
#endif

#endif /* KILN_MISC_H */
