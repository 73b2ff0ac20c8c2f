# ctest helper: ScaLAPACK's PSGEMM over `mpirun -np 2` with libadaptcore_blas.so preloaded as the
# node BLAS (bench/scaleout/psgemm_check.c): every block-cyclic case must be correct, and the
# ranks' local sgemm_ calls must reach adaptcore (ADAPTCORE_VERBOSE logs each one).
# Inputs: MPIRUN, PROGRAM, BLAS.
execute_process(
  COMMAND ${MPIRUN} --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD=${BLAS}
          -x ADAPTCORE_VERBOSE=1 -x ADAPTCORE_NUM_THREADS=1 ${PROGRAM}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "psgemm_check failed (${rc}):\n${out}\n${err}")
endif()
string(REGEX MATCHALL "\"correct\": true" good "${out}")
string(REGEX MATCHALL "\"correct\": false" bad "${out}")
list(LENGTH good n_good)
if(bad OR NOT n_good EQUAL 12)
  message(FATAL_ERROR "PSGEMM results wrong (${n_good} of 12 correct):\n${out}")
endif()
string(REGEX MATCHALL "adaptcore: f32[^\n]*" calls "${err}")
list(LENGTH calls n_calls)
if(n_calls EQUAL 0)
  message(FATAL_ERROR "no sgemm_ call reached libadaptcore_blas.so:\n${err}")
endif()
message(STATUS "${n_calls} local sgemm_ calls ran in adaptcore")
