# kiln_same_outputs_test(NAME BOARD MODEL DATA WORK CACHE BASE <flags...> EXTRA <flags...>
#                        [TIMEOUT s] [FIXTURES_REQUIRED f])
# A ctest that runs tests/e2e/same_outputs.sh: the model compiled with the BASE
# flags and with BASE + EXTRA must give the same outputs on the board. On the host
# both builds also poison dead buffers (--poison-dead), so a value read after its
# memory was reused shows up as a difference.
include_guard(GLOBAL)

function(kiln_same_outputs_test name board model data work cache)
  cmake_parse_arguments(S "" "TIMEOUT;FIXTURES_REQUIRED" "BASE;EXTRA" ${ARGN})
  set(poison)
  if(board STREQUAL "host")
    set(poison --poison-dead)
  endif()
  if(NOT S_TIMEOUT)
    set(S_TIMEOUT 600)
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e/same_outputs.sh $<TARGET_FILE:kiln> ${work} ${cache} ${model} ${data}
                   ${board} -- ${S_BASE} ${poison} -- ${S_EXTRA} ${poison})
  set_tests_properties(${name} PROPERTIES LABELS e2e TIMEOUT ${S_TIMEOUT})
  if(S_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${S_FIXTURES_REQUIRED})
  endif()
endfunction()
