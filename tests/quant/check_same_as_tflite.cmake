# Runs the ONNX QDQ version of a model and its .tflite original on BOARD and checks
# that both cost the same instructions per inference and the same workspace bytes:
# the QDQ rewrite must produce the integer ops the TFLite importer produces.
# cmake -DKILN=... -DONNX=... -DTFLITE=... -DDATA=... -DBOARD=... -DWORK=... -DCACHE=... -P check_same_as_tflite.cmake
file(REMOVE_RECURSE ${WORK})
foreach(kind ONNX TFLITE)
  execute_process(COMMAND ${KILN} verify ${${kind}} --data ${DATA} --board ${BOARD} --crt-cache ${CACHE}
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
if(instr_ONNX STREQUAL "" OR NOT instr_ONNX STREQUAL instr_TFLITE OR NOT ws_ONNX STREQUAL ws_TFLITE)
  message(FATAL_ERROR "QDQ ONNX ${instr_ONNX} instructions / ${ws_ONNX} B, TFLite ${instr_TFLITE} / ${ws_TFLITE} B")
endif()
