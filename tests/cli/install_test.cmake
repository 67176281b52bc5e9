# `make install` as a user runs it: install the build into a scratch prefix, then
# the installed kiln, run from an unrelated folder, must name its data folder
# (<prefix>/share/kiln, not the source tree) and compile the demo model.
#   cmake -DBUILD=<build dir> -DOUT=<scratch dir> -DMODEL=<model.onnx> -P install_test.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${OUT}/usr" RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
foreach(f usr/bin/kiln usr/share/kiln/templates/operators.c.mustache usr/share/kiln/crt/include/kiln_crt.h
          usr/share/kiln/crt/kernel_index.txt usr/share/kiln/boards/mps2-an386/board.json)
  if(NOT EXISTS "${OUT}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND "${OUT}/usr/bin/kiln" --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
message("${version}")
if(NOT rc EQUAL 0 OR NOT version MATCHES "^kiln [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit [0-9a-f]+(-dirty)?\\)\ndata: ${OUT}/usr/share/kiln")
  message(FATAL_ERROR "the installed kiln does not name its version, commit and ${OUT}/usr/share/kiln")
endif()
file(MAKE_DIRECTORY "${OUT}/elsewhere")
execute_process(COMMAND "${OUT}/usr/bin/kiln" compile "${MODEL}" -o out --module-name cnn
                WORKING_DIRECTORY "${OUT}/elsewhere" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed kiln failed to compile ${MODEL}:\n${out}${err}")
endif()
file(READ "${OUT}/elsewhere/out/module.mk" mk)
if(NOT mk MATCHES "KILN_CNN_CRT_FILES := [^\n]*src/kernels/conv\\.c")
  message(FATAL_ERROR "module.mk does not list the runtime files:\n${mk}")
endif()
