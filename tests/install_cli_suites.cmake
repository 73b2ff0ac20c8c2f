# ctest helper: the installed `adaptcore` finds the benchmark suites in its own prefix. Installs
# the command line (component cli) into a scratch prefix, moves the prefix (so neither the
# configured prefix nor the build tree can be what it finds), then resolves suites by name with
# `bench --list` from another working directory with ADAPTCORE_SUITES_DIR unset.
#   cmake -DBUILD=<build dir> -DBINDIR=<bin dir in the prefix> -DSUITES=<source bench/suites>
#         -DWORK=<scratch dir> -P install_cli_suites.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${WORK}/staged"
                        --component cli
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed (${rc})\n${out}\n${err}")
endif()
file(RENAME "${WORK}/staged" "${WORK}/moved")
set(prefix "${WORK}/moved")
set(cli "${prefix}/${BINDIR}/adaptcore")
if(NOT EXISTS "${cli}")
  message(FATAL_ERROR "${cli} was not installed")
endif()

# Every suite file of the source tree is installed.
file(GLOB sources RELATIVE "${SUITES}" "${SUITES}/*.txt")
file(GLOB_RECURSE installed "${prefix}/*.txt")
foreach(f IN LISTS sources)
  if(NOT installed MATCHES "/adaptcore/suites/${f}(;|$)")
    message(FATAL_ERROR "suite ${f} not installed (found: ${installed})")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK}/elsewhere")
# `bench --list`: a header naming the file read and the shape count, then one shape a line.
foreach(suite_count tiny:8 llm:182)
  string(REPLACE ":" ";" pair "${suite_count}")
  list(GET pair 0 suite)
  list(GET pair 1 count)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=ADAPTCORE_SUITES_DIR
                          "${cli}" bench --suite ${suite} --list
                  WORKING_DIRECTORY "${WORK}/elsewhere"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "adaptcore bench --suite ${suite} --list exited with ${rc}\n${out}\n${err}")
  endif()
  string(REGEX MATCH "^# suite ${suite}: ([^\n]*), ([0-9]+) shapes\n" header "${out}")
  if(NOT header)
    message(FATAL_ERROR "no header line in:\n${out}")
  endif()
  set(file "${CMAKE_MATCH_1}")
  if(NOT CMAKE_MATCH_2 EQUAL count)
    message(FATAL_ERROR "${suite}: ${CMAKE_MATCH_2} shapes listed, expected ${count}\n${out}")
  endif()
  cmake_path(IS_PREFIX prefix "${file}" NORMALIZE inside)
  if(NOT inside)
    message(FATAL_ERROR "${suite} was read from ${file}, not from the installed prefix ${prefix}")
  endif()
  string(REGEX MATCHALL "\n[0-9]+ [0-9]+ [0-9]+" lines "${out}")
  list(LENGTH lines listed)
  if(NOT listed EQUAL count)
    message(FATAL_ERROR "${suite}: ${listed} shape lines, expected ${count}\n${out}")
  endif()
  message(STATUS "${suite}: ${count} shapes from ${file}")
endforeach()
