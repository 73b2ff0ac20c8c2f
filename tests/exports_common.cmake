# Shared by the export checks of the shared libraries (check_exports.cmake for
# libadaptcore_blas.so, check_core_exports.cmake for libadaptcore.so).
cmake_minimum_required(VERSION 3.20)

# Sets <out> to the names of the symbols `lib` defines in its dynamic symbol table, without
# version suffixes; DEMANGLE gives C++ names demangled (one list element per symbol: the names
# hold spaces, never ';').
function(defined_dynamic_symbols out nm lib)
  cmake_parse_arguments(D "DEMANGLE" "" "" ${ARGN})
  if(NOT lib OR NOT EXISTS "${lib}")
    message(FATAL_ERROR "library not given or missing: '${lib}'")
  endif()
  if(NOT nm)
    set(nm nm)
  endif()
  set(flags -D --defined-only)
  if(D_DEMANGLE)
    list(APPEND flags --demangle)
  endif()
  execute_process(COMMAND ${nm} ${flags} "${lib}"
    OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${nm} failed (${rc}): ${err}")
  endif()
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    # "<address> <type> <name>[@version]"
    if(line MATCHES "^[0-9a-fA-F]+ +[A-Za-z] +(.+)$")
      string(REGEX REPLACE "@+[A-Za-z0-9_.]+$" "" name "${CMAKE_MATCH_1}")
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()
