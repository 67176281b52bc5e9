/* The generic entry point and descriptor helpers declared in kiln_crt.h. */
#include "kiln_crt.h"

#include <string.h>

uint32_t kiln_model_num_user_workspaces(const kiln_model_t* model) {
  uint32_t n = 0;
  for (uint32_t i = 0; model != NULL && i < model->num_workspace_pools; ++i) n += model->workspace_pools[i].is_user_pool;
  return n;
}

uint32_t kiln_model_num_user_parameters(const kiln_model_t* model) {
  uint32_t n = 0;
  for (uint32_t i = 0; model != NULL && i < model->num_parameter_pools; ++i) n += model->parameter_pools[i].is_user_pool;
  return n;
}

kiln_status_t kiln_execute(const kiln_model_t* model, const void* const* inputs, void* const* outputs,
                           void* const* workspaces, const void* const* parameters) {
  if (model == NULL || model->entry == NULL) return KILN_ERR_NULL_POINTER;
  if (model->num_inputs > 0 && inputs == NULL) return KILN_ERR_NULL_POINTER;
  if (model->num_outputs > 0 && outputs == NULL) return KILN_ERR_NULL_POINTER;
  if (kiln_model_num_user_workspaces(model) > 0 && workspaces == NULL) return KILN_ERR_NULL_POINTER;
  return model->entry(inputs, outputs, workspaces, parameters);
}

const char* kiln_status_str(kiln_status_t status) {
  switch (status) {
    case KILN_OK: return "ok";
    case KILN_ERR_NULL_POINTER: return "null pointer";
    case KILN_ERR_MISALIGNED: return "misaligned pointer";
    case KILN_ERR_BAD_ARGUMENT: return "bad argument";
    case KILN_ERR_BAD_MODEL: return "bad model";
    default: return "unknown status";
  }
}

kiln_status_t kiln_copy_bytes(void* dst, const void* src, uint32_t n) {
  if (n == 0u) return KILN_OK;
  if (dst == NULL || src == NULL) return KILN_ERR_NULL_POINTER;
  memcpy(dst, src, n);
  return KILN_OK;
}

void kiln_poison_bytes(void* dst, uint32_t n) {
  if (n > 0u) memset(dst, 0xA5, n);
}
