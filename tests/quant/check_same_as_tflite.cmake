# Runs the ONNX QDQ version of a model and its .tflite original on BOARD and checks
# that both cost the same instructions per inference and the same workspace bytes:
# the QDQ rewrite must produce the integer ops the TFLite importer produces.
# With MAX_EXCESS_PERCENT (an NCHW form of the model, its data in ONNX_DATA) the
# ONNX model may cost that many percent more instructions, and no more workspace.
# cmake -DKILN=... -DONNX=... -DTFLITE=... -DDATA=... -DBOARD=... -DWORK=... -DCACHE=...
#       [-DONNX_DATA=... -DMAX_EXCESS_PERCENT=N] -P check_same_as_tflite.cmake
file(REMOVE_RECURSE ${WORK})
set(data_ONNX ${DATA})
if(DEFINED ONNX_DATA)
  set(data_ONNX ${ONNX_DATA})
endif()
set(data_TFLITE ${DATA})
foreach(kind ONNX TFLITE)
  execute_process(COMMAND ${KILN} verify ${${kind}} --data ${data_${kind}} --board ${BOARD} --crt-cache ${CACHE}
                          --work-dir ${WORK}/${kind} --timeout 300
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kiln verify ${${kind}} failed:\n${out}${err}")
  endif()
  string(REGEX MATCH "([0-9]+) instructions per inference" m "${out}")
  set(instr_${kind} ${CMAKE_MATCH_1})
  string(REGEX MATCH "workspace pool '[^']*' \\([a-z]+\\): ([0-9]+) bytes" m "${out}")
  set(ws_${kind} ${CMAKE_MATCH_1})
  message(STATUS "${kind}: ${instr_${kind}} instructions, workspace ${ws_${kind}} bytes")
endforeach()
if(DEFINED MAX_EXCESS_PERCENT AND NOT instr_ONNX STREQUAL "" AND NOT instr_TFLITE STREQUAL "")
  math(EXPR limit "${instr_TFLITE} + ${instr_TFLITE} * ${MAX_EXCESS_PERCENT} / 100")
  if(instr_ONNX GREATER limit OR ws_ONNX GREATER ws_TFLITE)
    message(FATAL_ERROR "QDQ ONNX ${instr_ONNX} instructions / ${ws_ONNX} B, TFLite ${instr_TFLITE} / ${ws_TFLITE} B "
                        "(at most ${limit} instructions, ${ws_TFLITE} B)")
  endif()
elseif(instr_ONNX STREQUAL "" OR NOT instr_ONNX STREQUAL instr_TFLITE OR NOT ws_ONNX STREQUAL ws_TFLITE)
  message(FATAL_ERROR "QDQ ONNX ${instr_ONNX} instructions / ${ws_ONNX} B, TFLite ${instr_TFLITE} / ${ws_TFLITE} B")
endif()
