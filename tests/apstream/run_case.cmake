# run_case.cmake - one end-to-end case of apstream, run by ctest with -P:
#
#   -DTOOL=<apstream> -DARGS=<a|b|c> -DRC=<exit status> -DNAME=<case>
#   [-DOUT=<file>] [-DERR=<file>] [-DERR_REGEX=<regex>] [-DSTDIN=<file>]
#   [-DJSONL_EQUAL=<tool> -DSAME_AS=<file> -DSCRATCH=<build folder>]
#
# Checks the exit status; stdout against OUT exactly, or, with SAME_AS,
# line by line for JSON equality with SAME_AS (stdout goes to a scratch file
# the JSONL_EQUAL tool reads); stderr against ERR exactly, or against
# ERR_REGEX. ARGS are separated by '|'.
#
# With the environment variable CDDLGEN_UPDATE_EXPECTED set, OUT and ERR are
# written from what the tool printed instead (review the diff before
# committing it).
string(REPLACE "|" ";" args "${ARGS}")
set(input_opt "")
if(STDIN)
  set(input_opt INPUT_FILE ${STDIN})
endif()
execute_process(COMMAND ${TOOL} ${args} ${input_opt}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(DEFINED ENV{CDDLGEN_UPDATE_EXPECTED})
  if(OUT)
    file(WRITE ${OUT} "${out}")
  endif()
  if(ERR)
    file(WRITE ${ERR} "${err}")
  endif()
endif()
set(failed "")
if(NOT "${rc}" STREQUAL "${RC}")
  string(APPEND failed "exit status ${rc}, expected ${RC}\n")
endif()
if(SAME_AS)
  set(scratch ${SCRATCH}/apstream-${NAME}.jsonl)
  file(WRITE ${scratch} "${out}")
  execute_process(COMMAND ${JSONL_EQUAL} ${scratch} ${SAME_AS}
                  OUTPUT_VARIABLE eq_out ERROR_VARIABLE eq_err RESULT_VARIABLE eq_rc)
  if(NOT eq_rc EQUAL 0)
    string(APPEND failed "stdout is not JSON-equal to ${SAME_AS}:\n${eq_out}${eq_err}")
  endif()
endif()
if(OUT)
  file(READ ${OUT} want)
  if(NOT out STREQUAL want)
    string(APPEND failed "stdout differs from ${OUT}\n--- got:\n${out}--- expected:\n${want}")
  endif()
endif()
if(ERR)
  file(READ ${ERR} want_err)
  if(NOT err STREQUAL want_err)
    string(APPEND failed "stderr differs from ${ERR}\n--- got:\n${err}--- expected:\n${want_err}")
  endif()
endif()
if(DEFINED ERR_REGEX AND NOT err MATCHES "${ERR_REGEX}")
  string(APPEND failed "stderr does not match '${ERR_REGEX}':\n${err}")
endif()
if(failed)
  message(FATAL_ERROR "apstream ${args}\n${failed}")
endif()
