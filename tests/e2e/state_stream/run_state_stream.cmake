# ctest driver of the streaming tests (tests/e2e/CMakeLists.txt): compiles MODEL
# with --module-name stream, builds state_stream.c against it for BOARD (host or
# mps2-an386) with this folder's Makefile, runs it and expects "stream: PASS":
# every frame of DATA/stream_data.h equal to the reference run frame by frame, the
# state carried from run to run, and kiln_stream_reset() giving frame 0's outputs back.
#   cmake -DKILN=<kiln> -DMODEL=<.tflite> -DDATA=<dir> -DBOARD=<board> -DOUT=<dir> -P run_state_stream.cmake
if(NOT KILN OR NOT MODEL OR NOT DATA OR NOT BOARD OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DKILN=<kiln> -DMODEL=<.tflite> -DDATA=<dir> -DBOARD=host|mps2-an386 -DOUT=<dir> "
                      "-P run_state_stream.cmake")
endif()
get_filename_component(here "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${KILN}" compile "${MODEL}" -o "${OUT}/module" --module-name stream -q
                RESULT_VARIABLE compiled OUTPUT_VARIABLE compile_log ERROR_VARIABLE compile_log TIMEOUT 600)
if(NOT compiled EQUAL 0)
  message(FATAL_ERROR "kiln compile ended with ${compiled}:\n${compile_log}")
endif()
# The Makefile builds the program and runs it (natively, or on QEMU).
execute_process(COMMAND make -s -f "${here}/Makefile" "MODULE=${OUT}/module" "DATA=${DATA}" "BOARD=${BOARD}"
                        "OUT=${OUT}/build" run
                RESULT_VARIABLE ran OUTPUT_VARIABLE log ERROR_VARIABLE log TIMEOUT 600)
message("${log}")
if(NOT ran EQUAL 0 OR NOT log MATCHES "stream: PASS\n")
  message(FATAL_ERROR "the streaming test ended with ${ran} and did not print 'stream: PASS'")
endif()
