# Builds f32_qemu_check.c with the float32 kernels for BOARD (its board.json compiler
# flags, startup and semihosting files) and runs it on QEMU; fails unless it prints
# F32-QEMU-OK.  cmake -DSRC_DIR=<repo> -DBOARD=<name> -DWORK=<dir> -P run_f32_qemu_check.cmake
set(bdir ${SRC_DIR}/boards/${BOARD})
file(READ ${bdir}/board.json j)
function(json_list key out)
  string(JSON n LENGTH "${j}" ${key})
  set(r)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON v GET "${j}" ${key} ${i})
      string(REPLACE "{board_dir}" "${bdir}" v "${v}")
      list(APPEND r "${v}")
    endforeach()
  endif()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()
string(JSON cc GET "${j}" cc)
json_list(cflags cflags)
json_list(ldflags ldflags)
json_list(libs libs)
json_list(sources sources)
json_list(run run)
list(FILTER sources EXCLUDE REGEX "runner\\.c$")
file(GLOB kernels ${SRC_DIR}/crt/src/kernels/conv.c ${SRC_DIR}/crt/src/kernels/gemm.c
     ${SRC_DIR}/crt/src/kernels/gemm_tiles_f32.c ${SRC_DIR}/crt/src/kernels/depthwise3x3_f32.c
     ${SRC_DIR}/crt/src/kernels/relu.c ${SRC_DIR}/crt/src/kernels/global_pool.c
     ${SRC_DIR}/crt/src/kernels/maxpool.c ${SRC_DIR}/crt/src/kernels/add.c
     ${SRC_DIR}/crt/src/kernels/clip.c)
file(GLOB runtime ${SRC_DIR}/crt/src/runtime/*.c)
file(MAKE_DIRECTORY ${WORK})
set(elf ${WORK}/f32_qemu_check_${BOARD}.elf)
execute_process(COMMAND ${cc} ${cflags} -std=c99 -Wall -Wextra -Werror -I${SRC_DIR}/crt/include -I${SRC_DIR}/boards/common
                        ${SRC_DIR}/tests/crt/f32_qemu/f32_qemu_check.c ${sources} ${kernels} ${runtime} ${ldflags} ${libs}
                        -o ${elf}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the check for ${BOARD} failed:\n${out}")
endif()
list(TRANSFORM run REPLACE "{elf}" "${elf}")
execute_process(COMMAND ${run} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 240)
message(STATUS "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "F32-QEMU-OK")
  message(FATAL_ERROR "f32 kernel check on ${BOARD} failed (exit ${rc})")
endif()
