# ctest driver for the shared-arena example: builds it with the example's Makefile
# (the recipe a user follows) and runs it under QEMU; passes only when make and the
# firmware exit 0 and the firmware reported that every output matched.
#   cmake -DKILN=path/to/kiln -DOUT=work/dir -P run_example.cmake
if(NOT KILN OR NOT OUT)
  message(FATAL_ERROR "usage: cmake -DKILN=<kiln> -DOUT=<dir> -P run_example.cmake")
endif()
get_filename_component(here "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
execute_process(COMMAND make -s -C "${here}" clean run "KILN=${KILN}" "OUT=${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 900)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shared_arena: make run failed (${rc})")
endif()
if(NOT "${out}${err}" MATCHES "SHARED-ARENA PASS")
  message(FATAL_ERROR "shared_arena: the firmware did not report SHARED-ARENA PASS")
endif()
