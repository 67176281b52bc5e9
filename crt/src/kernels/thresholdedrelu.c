/* ONNX ThresholdedRelu: out = x > alpha ? x : 0, float dtypes. */
#include "kiln/elementwise.h"
#include "unary_walk.h"

#define THRESHOLDEDRELU(SFX, T) KILN_DEFINE_FLOAT_ACTIVATION(thresholdedrelu, SFX, T, x > alpha ? x : (CT)0)

KILN_FLOAT_TYPES(THRESHOLDEDRELU)
