# Writes crt/kernel_index.txt: for every object of the host-built runtime, which
# global symbols it defines and which it uses. The emitter reads it to list only
# the runtime files a generated module needs (generator/emit/kernel_index.h).
# Derived from the objects, not from the sources, so kernels whose names are made
# by macros (KILN_DEFINE_UNARY_KERNEL(kiln_abs_##SFX, ...)) are indexed as well.
#   cmake -DNM=nm -DOBJECTS_FILE=<file listing objects> -DOUT=<index> -P kernel_index.cmake
file(STRINGS "${OBJECTS_FILE}" objects)
set(text "# kiln kernel index: <file relative to crt/>\\t<defined symbols>\\t<used symbols>\n")
list(SORT objects)
foreach(obj ${objects})
  # .../kiln_crt.dir/src/kernels/abs.c.o -> src/kernels/abs.c
  string(REGEX REPLACE "^.*/kiln_crt\\.dir/(\\./)?" "" rel "${obj}")
  string(REGEX REPLACE "\\.(o|obj)$" "" rel "${rel}")
  execute_process(COMMAND "${NM}" -g "${obj}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kernel_index: ${NM} failed on ${obj}")
  endif()
  string(REGEX MATCHALL "[0-9a-fA-F ]+ [A-TV-Z] [A-Za-z_][A-Za-z0-9_]*" defs "${out}")
  string(REGEX MATCHALL " U [A-Za-z_][A-Za-z0-9_]*" uses "${out}")
  set(d "")
  foreach(x ${defs})
    string(REGEX REPLACE "^.* [A-TV-Z] " "" x "${x}")
    string(APPEND d " ${x}")
  endforeach()
  set(u "")
  foreach(x ${uses})
    string(REGEX REPLACE "^ U " "" x "${x}")
    string(APPEND u " ${x}")
  endforeach()
  string(STRIP "${d}" d)
  string(STRIP "${u}" u)
  string(APPEND text "${rel}\t${d}\t${u}\n")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
