/* ONNX MelWeightMatrix (opset 17): triangular mel filters over the DFT bins, with
 * the bin edges computed as in the ONNX reference (floored to whole bins). */
#include <math.h>

#include "kiln/signal.h"

static int read_int(const void* v, uint32_t bytes, int64_t* out) {
  if (bytes == 8u) *out = *(const int64_t*)v;
  else if (bytes == 4u) *out = *(const int32_t*)v;
  else return 0;
  return 1;
}

kiln_status_t kiln_mel_weight_matrix_f32(const kiln_mel_weight_matrix_params_t* p, const void* num_mel_bins,
                                         const void* dft_length, const void* sample_rate,
                                         const float* lower_edge_hertz, const float* upper_edge_hertz,
                                         float* out) {
  int64_t mels, dft, rate;
  double lo_mel, hi_mel, step;
  uint32_t i, j;
  if (p == NULL || num_mel_bins == NULL || dft_length == NULL || sample_rate == NULL ||
      lower_edge_hertz == NULL || upper_edge_hertz == NULL)
    return KILN_ERR_NULL_POINTER;
  if (!read_int(num_mel_bins, p->int_bytes, &mels) || !read_int(dft_length, p->int_bytes, &dft) ||
      !read_int(sample_rate, p->int_bytes, &rate))
    return KILN_ERR_BAD_ARGUMENT;
  if (mels != (int64_t)p->num_mel_bins || dft < 0 || dft / 2 + 1 != (int64_t)p->num_spectrogram_bins || rate <= 0)
    return KILN_ERR_BAD_ARGUMENT;
  if ((size_t)p->num_mel_bins * p->num_spectrogram_bins == 0u) return KILN_OK;
  if (out == NULL) return KILN_ERR_NULL_POINTER;
  for (i = 0; i < p->num_mel_bins * p->num_spectrogram_bins; ++i) out[i] = 0.0f;
  lo_mel = 2595.0 * log10(1.0 + (double)*lower_edge_hertz / 700.0);
  hi_mel = 2595.0 * log10(1.0 + (double)*upper_edge_hertz / 700.0);
  step = (hi_mel - lo_mel) / (double)(p->num_mel_bins + 2u);
  for (i = 0; i < p->num_mel_bins; ++i) {
    int64_t bin[3];
    int e;
    for (e = 0; e < 3; ++e) {
      const double mel = (double)(i + (uint32_t)e) * step + lo_mel;
      const double hz = 700.0 * (pow(10.0, mel / 2595.0) - 1.0);
      const double b = floor((double)(dft + 1) * hz / (double)rate);
      if (!(b >= 0.0 && b < (double)p->num_spectrogram_bins)) return KILN_ERR_BAD_ARGUMENT;
      bin[e] = (int64_t)b;
    }
    if (bin[1] == bin[0]) {
      out[(size_t)bin[1] * p->num_mel_bins + i] = 1.0f;
    } else {
      for (j = (uint32_t)bin[0]; j <= (uint32_t)bin[1]; ++j)
        out[(size_t)j * p->num_mel_bins + i] = (float)((double)(j - (uint32_t)bin[0]) / (double)(bin[1] - bin[0]));
    }
    if (bin[2] > bin[1]) {
      for (j = (uint32_t)bin[1]; j < (uint32_t)bin[2]; ++j)
        out[(size_t)j * p->num_mel_bins + i] = (float)((double)((uint32_t)bin[2] - j) / (double)(bin[2] - bin[1]));
    }
  }
  return KILN_OK;
}
