/* Signal processing ops (opset 17): the Hann / Hamming / Blackman windows, DFT,
 * STFT and MelWeightMatrix. float32 in and out; sums are accumulated in double.
 * Scalar inputs the ops take at run time (window size, frame step, ...) must give
 * the output shape the compiler planned; otherwise the kernel returns
 * KILN_ERR_BAD_ARGUMENT. Outputs must not alias inputs. */
#ifndef KILN_SIGNAL_H
#define KILN_SIGNAL_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KILN_WINDOW_HANN = 0, KILN_WINDOW_HAMMING = 1, KILN_WINDOW_BLACKMAN = 2 } kiln_window_kind_t;

/* out[i] for i < count; `size` is the runtime scalar (int32 or int64 per size_bytes)
 * and must equal count. periodic: the window of count + 1 points without its last. */
typedef struct {
  uint32_t count, kind, periodic;
  uint32_t size_bytes; /* 4 or 8 */
} kiln_window_params_t;
kiln_status_t kiln_window_f32(const kiln_window_params_t* p, const void* size, float* out);

/* DFT along one axis: in [outer, n_in, inner, in_comps] (in_comps 1 real, 2 complex)
 * -> out [outer, n_out, inner, 2]. Frequency k of an n_fft-point transform, the
 * signal zero-padded or cut to n_fft; n_out is n_fft, or n_fft / 2 + 1 (onesided).
 * inverse: e^{+i...} and a 1 / n_fft scale. */
typedef struct {
  uint32_t outer, n_in, inner, in_comps;
  uint32_t n_fft, n_out, inverse;
} kiln_dft_params_t;
kiln_status_t kiln_dft_f32(const kiln_dft_params_t* p, const float* in, float* out);

/* STFT: signal [batch, length, in_comps] -> out [batch, frames, bins, 2].
 * frame_step and frame_length are runtime int64 scalars (frame_length may be NULL
 * when a window of `window_len` points is given; window may be NULL: rectangular).
 * bins = onesided ? frame_length / 2 + 1 : frame_length; frames =
 * (length - frame_length) / frame_step + 1; both must match the planned values. */
typedef struct {
  uint32_t batch, length, in_comps;
  uint32_t frames, bins, onesided;
  uint32_t window_len; /* 0: no window input */
} kiln_stft_params_t;
kiln_status_t kiln_stft_f32(const kiln_stft_params_t* p, const float* signal, const int64_t* frame_step,
                            const float* window, const int64_t* frame_length, float* out);

/* MelWeightMatrix: out [dft_length / 2 + 1, num_mel_bins] of triangular filters
 * between lower and upper edge (Hz) on the mel scale. The integer scalars are
 * int32 or int64 (int_bytes); num_mel_bins and dft_length must match the plan. */
typedef struct {
  uint32_t num_mel_bins, num_spectrogram_bins;
  uint32_t int_bytes; /* 4 or 8 */
} kiln_mel_weight_matrix_params_t;
kiln_status_t kiln_mel_weight_matrix_f32(const kiln_mel_weight_matrix_params_t* p, const void* num_mel_bins,
                                         const void* dft_length, const void* sample_rate,
                                         const float* lower_edge_hertz, const float* upper_edge_hertz,
                                         float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_SIGNAL_H */
