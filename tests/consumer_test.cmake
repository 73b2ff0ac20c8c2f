# ctest helper: installs the build into a fresh prefix, then builds and runs a consumer project
# through find_package (tests/consumer) and a C program through pkg-config.
#   cmake -DBUILD=<build dir> -DSRC=<tests/consumer> -DWORK=<scratch dir> -DCC=<c compiler>
#         -DGENERATOR=<cmake generator> -P consumer_test.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}")
# find_package(adaptcore CONFIG)
run(${CMAKE_COMMAND} -S "${SRC}" -B "${WORK}/build" -G "${GENERATOR}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${WORK}/build")
run("${WORK}/build/consumer_cpp")
run("${WORK}/build/consumer_blas")
# pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB_RECURSE pcs "${prefix}/*/adaptcore.pc")
list(GET pcs 0 pc)
get_filename_component(pcdir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs adaptcore OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${PKG_CONFIG} --libs adaptcore_blas OUTPUT_VARIABLE blas_flags
                RESULT_VARIABLE rc2 OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "pkg-config cannot find adaptcore / adaptcore_blas in ${pcdir}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
separate_arguments(blas_flags UNIX_COMMAND "${blas_flags}")
file(WRITE "${WORK}/pc.c" "#include <adaptcore/adaptcore.h>\n#include <stdio.h>\nint main(void) {\n  float a = 2, b = 3, c = 0;\n  if (ac_sgemm(AC_ROW_MAJOR, AC_NO_TRANS, AC_NO_TRANS, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1) != AC_STATUS_OK || c != 6) return 1;\n  printf(\"pkg-config: ok\\n\");\n  return 0;\n}\n")
run(${CC} "${WORK}/pc.c" -o "${WORK}/pc" ${flags})
run(${CC} "${SRC}/consumer_blas.c" -o "${WORK}/pc_blas" ${blas_flags})
get_filename_component(libdir "${pcdir}" DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
run("${WORK}/pc")
run("${WORK}/pc_blas")
