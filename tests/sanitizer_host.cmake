# ctest helper: the library inside a host program that runs under a sanitizer (its runtime
# preloaded, as in an ASan build of an application). Their dlopen interceptor ends the process
# on RTLD_DEEPBIND, which the private cpuinfo (src/hw/cpuinfo_private.cpp) then does without;
# the detection must still find the CPU's vector ISA, as it does without the runtime.
#   cmake -DCLI=<adaptcore executable> -DRUNTIME=<libasan.so> -P sanitizer_host.cmake
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND ${CLI} hw --json RESULT_VARIABLE rc0 OUTPUT_VARIABLE plain ERROR_QUIET)
if(NOT rc0 EQUAL 0)
  message(FATAL_ERROR "adaptcore hw failed without the sanitizer runtime (${rc0})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${RUNTIME} ASAN_OPTIONS=detect_leaks=0
                        ${CLI} hw --json
  RESULT_VARIABLE rc OUTPUT_VARIABLE hosted ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "adaptcore hw under ${RUNTIME} exited with ${rc}:\n${err}")
endif()
foreach(flag avx2 avx512f avx512_bf16 avx512_vnni)
  string(JSON a GET "${plain}" profile ${flag})
  string(JSON b GET "${hosted}" profile ${flag})
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${flag}: ${a} detected alone, ${b} under the sanitizer runtime")
  endif()
endforeach()
