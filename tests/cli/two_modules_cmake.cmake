# Two modules in one CMake project share one kiln_crt: each generated
# CMakeLists.txt adds the runtime files it needs that the other did not, so the
# program links (no missing kernel, no kernel twice) and runs both entry points.
#   cmake -DKILN=<kiln> -DOUT=<dir> -DMODELS=<examples/shared_arena> -P two_modules_cmake.cmake
file(REMOVE_RECURSE "${OUT}")
foreach(m model_a model_b)
  execute_process(COMMAND "${KILN}" compile "${MODELS}/${m}.onnx" -o "${OUT}/${m}" --module-name ${m} -q
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kiln compile ${m} failed")
  endif()
endforeach()
file(WRITE "${OUT}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(two_modules C)
add_subdirectory(model_a kiln_model_a)
add_subdirectory(model_b kiln_model_b)
add_executable(app main.c)
target_link_libraries(app PRIVATE kiln_model_a kiln_model_b)
]=])
# Both metadata.h are called metadata.h: main.c declares the two entry points it
# calls (NULL pointers: each must answer KILN_ERR_NULL_POINTER, reaching its kernels'
# object files through the link).
file(WRITE "${OUT}/main.c" [=[
#include "kiln_crt.h"
int32_t kiln_model_a_run(const void*, const void*, const void*, const void*);
int32_t kiln_model_b_run(const void*, const void*, const void*, const void*);
int main(void) {
  return kiln_model_a_run(0, 0, 0, 0) == KILN_ERR_NULL_POINTER && kiln_model_b_run(0, 0, 0, 0) == KILN_ERR_NULL_POINTER ? 0 : 1;
}
]=])
execute_process(COMMAND ${CMAKE_COMMAND} -S "${OUT}" -B "${OUT}/build" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${OUT}/build" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build failed:\n${out}${err}")
endif()
execute_process(COMMAND "${OUT}/build/app" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program failed (${rc})")
endif()
# model_b's Add kernel came in through the second module.
file(READ "${OUT}/model_b/CMakeLists.txt" b)
if(NOT b MATCHES "src/kernels/add\\.c")
  message(FATAL_ERROR "model_b does not list add.c:\n${b}")
endif()
