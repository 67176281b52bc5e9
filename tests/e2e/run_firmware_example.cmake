# ctest driver for examples/firmware-make and examples/firmware-cmake: builds the
# example the way its header says (make, or cmake configure + build) for BOARD
# (mps2-an386 when not given), runs the firmware on that board's QEMU machine and
# checks what it printed over UART0: the workspace pool at the address the linker
# script gives its section, each input of the reference data classified as
# PyTorch does in every round, and PASS.
#   cmake -DKIND=make|cmake -DEXAMPLE=<example folder> -DKILN=<kiln> -DOUT=<dir> [-DBOARD=<board>] -P run_firmware_example.cmake
foreach(v KIND EXAMPLE KILN OUT)
  if(NOT ${v})
    message(FATAL_ERROR "usage: cmake -DKIND=make|cmake -DEXAMPLE=<dir> -DKILN=<kiln> -DOUT=<dir> [-DBOARD=<board>] -P run_firmware_example.cmake")
  endif()
endforeach()
if(NOT BOARD)
  set(BOARD mps2-an386)
endif()
# The QEMU machine and where the linker script puts the workspace pool.
if(BOARD STREQUAL "mps2-an505")
  set(machine mps2-an505)
  set(arena 0x38300000)  # mps2_an505.ld
elseif(BOARD STREQUAL "mps2-an385-m0plus")
  set(machine mps2-an385)
  set(arena 0x20300000)  # mps2_an386.ld
else()
  set(machine mps2-an386)
  set(arena 0x20300000)  # mps2_an386.ld
endif()
file(REMOVE_RECURSE "${OUT}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

if(KIND STREQUAL "make")
  run("make" make -C "${EXAMPLE}" "KILN=${KILN}" "OUT=${OUT}" "BOARD=${BOARD}")
  set(elf "${OUT}/firmware.elf")
else()
  run("cmake configure" ${CMAKE_COMMAND} -S "${EXAMPLE}" -B "${OUT}" -G Ninja "-DKILN=${KILN}"
      "-DFIRMWARE_BOARD=${BOARD}")
  run("cmake build" ${CMAKE_COMMAND} --build "${OUT}")
  set(elf "${OUT}/firmware.elf")
endif()

execute_process(COMMAND qemu-system-arm -M ${machine} -nographic -monitor none -serial stdio
                        -semihosting-config enable=on,target=native -kernel "${elf}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE uart ERROR_VARIABLE err TIMEOUT 120)
string(REPLACE "\r" "" uart "${uart}")
message("${uart}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the firmware ended with ${rc}")
endif()
set(expected
    "workspace pool 'sram' [0-9]+ bytes at ${arena}\n"  # section .kiln_arena, placed by the linker script
    # examples/cnn/test_data_set_0 and _1: PyTorch's class is 6 for both.
    "round 0 input 0: class 6 p=0\\.[0-9]+ \\(matches PyTorch\\)\n"
    "round 0 input 1: class 6 p=0\\.[0-9]+ \\(matches PyTorch\\)\n"
    "round 0 input 2: class [0-9] p=0\\.[0-9]+\n"
    "round 1 input 0: class 6 p=0\\.[0-9]+ \\(matches PyTorch\\)\n"
    "round 1 input 1: class 6 p=0\\.[0-9]+ \\(matches PyTorch\\)\n"
    "firmware: PASS\n")
foreach(line ${expected})
  if(NOT uart MATCHES "${line}")
    message(FATAL_ERROR "the firmware did not print a line matching '${line}'")
  endif()
endforeach()
