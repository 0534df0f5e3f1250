# One `cddlgen diff` run, checked (cmake -P). Variables:
#   CDDLGEN       the cddlgen binary
#   WORKDIR       where it runs: the file names in the report are relative to it
#   ARGS          its arguments after `diff`, separated by '|'
#   EXPECTED      file holding the exact standard output
#   EXPECTED_ERR  (optional) file holding the exact standard error
#   BACK, FWD     1 when the pair breaks backward / forward compatibility, else 0:
#                 the exit status must be 1 exactly when either is, and with
#                 --direction backward (forward) exactly when BACK (FWD) is
#   RC            instead of BACK and FWD: the exit status (usage and schema errors)
#   MISSING       set: the pair has no written verdict yet, which is a failure
if(MISSING)
  message(FATAL_ERROR "no verdict for ${MISSING}: read the text diff of the two files, write the verdict "
                      "into tests/tooling/diff/UPSTREAM_VERDICTS.md and the table in tests/tooling/diff/CMakeLists.txt, "
                      "then pin the output in tests/tooling/diff/expected/")
endif()
string(REPLACE "|" ";" args "${ARGS}")

function(run_diff want_rc)
  execute_process(COMMAND ${CDDLGEN} diff ${args} ${ARGN} WORKING_DIRECTORY ${WORKDIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL want_rc)
    message(FATAL_ERROR "cddlgen diff ${args} ${ARGN}: exit ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  file(READ ${EXPECTED} want)
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "cddlgen diff ${args} ${ARGN}: output differs\n--- expected\n${want}--- got\n${out}${err}")
  endif()
  if(DEFINED EXPECTED_ERR)
    file(READ ${EXPECTED_ERR} want_err)
    if(NOT err STREQUAL want_err)
      message(FATAL_ERROR "cddlgen diff ${args} ${ARGN}: diagnostics differ\n--- expected\n${want_err}--- got\n${err}")
    endif()
  elseif(NOT err STREQUAL "")
    message(FATAL_ERROR "cddlgen diff ${args} ${ARGN}: unexpected diagnostics\n${err}")
  endif()
endfunction()

if(DEFINED RC)
  run_diff(${RC})
else()
  if(BACK OR FWD)
    run_diff(1)
  else()
    run_diff(0)
  endif()
  run_diff(${BACK} --direction backward)
  run_diff(${FWD} --direction=forward)
endif()
