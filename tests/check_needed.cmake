# ctest helper: the shared libraries a library names as dependencies (DT_NEEDED) are the C and
# C++ runtimes only. A library loaded into the global scope (the BLAS drop-in) brings its
# dependencies there, where the host's own copies of them lose to ours: cpuinfo linked this way
# made PyTorch see a CPU without vector units (src/hw/cpuinfo_private.hpp).
#   cmake -DLIB=<path to the library> -DOBJDUMP=<objdump> [-DSANITIZED=ON]
#         -P check_needed.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT LIB OR NOT EXISTS "${LIB}")
  message(FATAL_ERROR "library not given or missing: '${LIB}'")
endif()
if(NOT OBJDUMP)
  set(OBJDUMP objdump)
endif()
execute_process(COMMAND ${OBJDUMP} -p "${LIB}" OUTPUT_VARIABLE text RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} -p failed (${rc})")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" lines "${text}")
set(errors "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "NEEDED +" "" name "${line}")
  string(STRIP "${name}" name)
  message(STATUS "needed: ${name}")
  if(SANITIZED AND name MATCHES "^lib(asan|ubsan|tsan)\\.so")
    continue()
  endif()
  if(NOT name MATCHES "^(libc|libm|libstdc\\+\\+|libgcc_s|libpthread|libdl|ld-linux-x86-64|ld-linux-aarch64)\\.so")
    string(APPEND errors "  unexpected dependency: ${name}\n")
  endif()
endforeach()
if(errors)
  message(FATAL_ERROR "${LIB} depends on more than the C/C++ runtimes:\n${errors}")
endif()
