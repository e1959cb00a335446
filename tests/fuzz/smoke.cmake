# SPDX-License-Identifier: GPL-3.0-or-later
# One short, repeatable fuzz run (ctest, label fuzz): FUZZER runs RUNS inputs from seed 1,
# starting from the checked-in corpus SEEDS. New inputs go to a fresh working corpus WORK (never
# into the source tree); a crash leaves its input in WORK/crash-* and fails the test.
foreach(var FUZZER SEEDS WORK RUNS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "smoke.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus")
execute_process(
  COMMAND "${FUZZER}" -seed=1 -runs=${RUNS} ${EXTRA} -print_final_stats=1
          -artifact_prefix=${WORK}/ "${WORK}/corpus" "${SEEDS}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found "${WORK}/crash-*" "${WORK}/leak-*" "${WORK}/timeout-*" "${WORK}/oom-*")
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); inputs: ${found}")
endif()
