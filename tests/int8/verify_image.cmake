# Shared by the firmware image checks of this folder (include()d by
# check_no_soft_float.cmake, check_armv6m_image.cmake): builds MODEL for BOARD with
# `kiln verify` (which must pass) in WORK and sets `elf` to the one firmware image.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${KILN} verify ${MODEL} --data ${DATA} --board ${BOARD} --work-dir ${WORK}
                        --crt-cache ${CACHE} --timeout 120
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kiln verify failed:\n${out}")
endif()
file(GLOB_RECURSE elf ${WORK}/*.elf)
list(LENGTH elf n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one firmware image under ${WORK}, found: ${elf}")
endif()
