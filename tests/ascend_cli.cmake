# The modeled NPU target on the command line, on a tiny shape list: `plan-export` writes the
# documented schema, `ascend-eval` checks every plan (legality, data mode) and writes its
# summary, `explain --target` prints modeled and simulated times, and bad input is refused.
#   cmake -DCLI=<adaptcore executable> -DDIR=<scratch directory> -DPROFILE=<ascend910b.json>
#         -P ascend_cli.cmake
file(MAKE_DIRECTORY ${DIR})
set(shapes ${DIR}/ascend_shapes.txt)
file(WRITE ${shapes} "# tiny\n1 4096 512\n100 77 45 T N\n256 256 256\n33 130 300 N T 0 400 0\n")

function(run_ok)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "adaptcore ${ARGN} exited with ${rc}\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

# plan-export: header, one entry per shape, the TCubeTiling fields.
set(plans ${DIR}/ascend_plans.json)
file(REMOVE ${plans})
run_ok(plan-export --target ascend910b --npu-profile ${PROFILE} --shapes ${shapes} --out ${plans})
file(READ ${plans} j)
string(JSON format GET "${j}" format)
string(JSON modeled GET "${j}" modeled)
string(JSON count LENGTH "${j}" plans)
if(NOT format STREQUAL "adaptcore-ascend-plans" OR NOT modeled STREQUAL "ON" OR NOT count EQUAL 4)
  message(FATAL_ERROR "plan-export: format '${format}' modeled '${modeled}' plans ${count}")
endif()
foreach(key usedCoreNum M N Ka Kb singleCoreM singleCoreN singleCoreK baseM baseN baseK depthA1
            depthB1 stepM stepN stepKa stepKb dbL0A dbL0B dbL0C iterateOrder)
  string(JSON v GET "${j}" plans 3 tiling ${key})
  if(NOT v MATCHES "^[0-9]+$")
    message(FATAL_ERROR "plan-export: tiling.${key} is '${v}'")
  endif()
endforeach()
string(JSON m GET "${j}" plans 0 tiling M)
if(NOT m EQUAL 1)
  message(FATAL_ERROR "plan-export: first shape's M is ${m}")
endif()

# ascend-eval: every plan legal, the data-mode sample correct, the summary's statistics present.
set(summary ${DIR}/ascend_eval.json)
run_ok(ascend-eval --target ascend910b --suite ${shapes} --threads 2 --data-sample 3 --out ${summary})
file(READ ${summary} s)
string(JSON legal GET "${s}" legal)
string(JSON passed GET "${s}" data_check passed)
string(JSON rho GET "${s}" model_vs_simulator spearman)
string(JSON gm GET "${s}" speedup_vs_fixed_baseline geomean)
if(NOT legal EQUAL 4 OR NOT passed EQUAL 3 OR NOT rho MATCHES "^[0-9.eE+-]+$" OR NOT gm MATCHES "^[0-9.eE+-]+$")
  message(FATAL_ERROR "ascend-eval: legal ${legal} passed ${passed} spearman ${rho} geomean ${gm}")
endif()

# explain --target: the class, the chosen plan, modeled and simulated time.
run_ok(explain --target ascend910b -m 100 -n 77 -k 45 --dtype fp16 --top 5)
foreach(word "class" "chosen plan" "modeled" "simulated")
  string(FIND "${last_out}" "${word}" at)
  if(at LESS 0)
    message(FATAL_ERROR "explain --target: no '${word}' in\n${last_out}")
  endif()
endforeach()

# Refused: an unknown target, a bad profile, an invalid shape.
file(WRITE ${DIR}/bad_profile.json "{\"ai_cores\": 0}")
foreach(args "explain;--target;tpu9;-m;8;-n;8;-k;8"
             "explain;--target;ascend910b;--npu-profile;${DIR}/bad_profile.json;-m;8;-n;8;-k;8"
             "explain;--target;ascend910b;-m;0;-n;8;-k;8")
  execute_process(COMMAND ${CLI} ${args} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "error:")
    message(FATAL_ERROR "adaptcore ${args} was accepted (rc ${rc}): ${err}")
  endif()
endforeach()
