# Builds MODEL for BOARD (an ARMv6-M board) with `kiln verify` (which must pass) and
# fails when the linked image holds an instruction an ARMv6-M core (Cortex-M0/M0+)
# does not have. The mps2-an385-m0plus board runs its images on QEMU's Cortex-M3,
# which would execute Thumb-2 code silently, so this checks what that run cannot:
# the only 32-bit encodings ARMv6-M has are BL, MRS, MSR, DMB, DSB and ISB.
#   cmake -DKILN=<kiln> -DMODEL=<model> -DDATA=<dir> -DBOARD=<board> -DWORK=<dir> -DCACHE=<dir> -P check_armv6m_image.cmake
include(${CMAKE_CURRENT_LIST_DIR}/verify_image.cmake)
set(elfs ${elf})
execute_process(COMMAND arm-none-eabi-objdump -d ${elfs} RESULT_VARIABLE rc OUTPUT_VARIABLE dis)
if(NOT rc EQUAL 0 OR dis STREQUAL "")
  message(FATAL_ERROR "arm-none-eabi-objdump failed on ${elfs}")
endif()
# objdump prints a 32-bit Thumb instruction as two halfwords ("f000 f802"), a 16-bit
# one as one, data in the code as one 8-digit word (.word): the two-halfword lines
# are the 32-bit instructions.
set(h "[0-9a-f][0-9a-f][0-9a-f][0-9a-f]")
string(REGEX MATCHALL "\n *[0-9a-f]+:\t${h} ${h} *\t[a-z.]+" wide "${dis}")
string(REGEX MATCHALL "\n *[0-9a-f]+:\t${h} *\t[a-z.]+" narrow "${dis}")
list(LENGTH wide n_wide)
list(LENGTH narrow n_narrow)
set(bad)
foreach(line ${wide})
  string(REGEX REPLACE ".*\t" "" mnemonic "${line}")
  if(NOT mnemonic MATCHES "^(bl|mrs|msr|dmb|dsb|isb)$")
    string(STRIP "${line}" line)
    list(APPEND bad "${line}")
  endif()
endforeach()
if(bad)
  list(LENGTH bad n_bad)
  list(SUBLIST bad 0 20 shown)
  string(REPLACE ";" "\n  " shown "${shown}")
  message(FATAL_ERROR "${n_bad} instructions ARMv6-M does not have in ${elfs}, e.g.:\n  ${shown}")
endif()
# Not vacuous: the image holds the int8 kernel, 16-bit code, and BLs (the 32-bit
# pattern matches something).
execute_process(COMMAND arm-none-eabi-nm ${elfs} OUTPUT_VARIABLE syms)
if(NOT syms MATCHES "kiln_fully_connected_s8" OR n_narrow LESS 1000 OR n_wide LESS 10)
  message(FATAL_ERROR "the check would be vacuous: ${n_narrow} 16-bit and ${n_wide} 32-bit instructions")
endif()
message(STATUS "${elfs}: ${n_narrow} 16-bit and ${n_wide} 32-bit instructions, every one ARMv6-M")
