# cli_case.cmake - one run of a tool, run by ctest with -P:
#
#   -DTOOL=<program> -DARGS=<a|b|c> -DRC=<exit status> [-DSTDIN=<file>]
#   [-DOUT_REGEX=<regex>] [-DERR_REGEX=<regex>] [-DNOT_OUT_REGEX=<regex>]
#   [-DAGREE=<file> -DAPSTREAM=<apstream>]
#
# Checks the exit status, stdout and stderr against the regexes. With AGREE:
# the lifecycle violations `apstream validate --strict FILE` reports (lines
# "LINE: error: text" without a JSON pointer) must be exactly those
# `apstream assemble --strict FILE` reports on stderr, and the warnings of
# `validate FILE` those of `assemble FILE`: the two commands agree.
string(REPLACE "|" ";" args "${ARGS}")
set(failed "")
if(AGREE)
  # --strict: the protocol's rules, errors in both
  execute_process(COMMAND ${APSTREAM} validate --strict ${AGREE} OUTPUT_VARIABLE vout ERROR_VARIABLE verr RESULT_VARIABLE vrc)
  execute_process(COMMAND ${APSTREAM} assemble --strict ${AGREE} OUTPUT_VARIABLE aout ERROR_VARIABLE aerr RESULT_VARIABLE arc)
  string(REGEX MATCHALL "[0-9]+: error: [^/(\n][^\n]*" vlines "${vout}")
  string(REGEX MATCHALL "[0-9]+: error: [^/(\n][^\n]*" alines "${aerr}")
  string(REGEX MATCHALL "error: [a-z ]+ \"[^\"]*\" is still open[^\n]*" vopen "${verr}")
  string(REGEX MATCHALL "error: [a-z ]+ \"[^\"]*\" is still open[^\n]*" aopen "${aerr}")
  if((NOT vlines AND NOT vopen) OR NOT "${vlines}" STREQUAL "${alines}" OR NOT "${vopen}" STREQUAL "${aopen}")
    string(APPEND failed "validate --strict and assemble --strict disagree:\nvalidate: ${vlines} ${vopen}\nassemble: ${alines} ${aopen}\n")
  endif()
  if(NOT vrc EQUAL 1 OR NOT arc EQUAL 1)
    string(APPEND failed "exit statuses ${vrc} (validate --strict) and ${arc} (assemble --strict), expected 1 and 1\n")
  endif()
  # by default: the reference client's rules, the same violations as warnings in both
  execute_process(COMMAND ${APSTREAM} validate ${AGREE} OUTPUT_VARIABLE vout ERROR_VARIABLE verr)
  execute_process(COMMAND ${APSTREAM} assemble ${AGREE} OUTPUT_VARIABLE aout ERROR_VARIABLE aerr)
  string(REGEX MATCHALL "[0-9]+: warning: [^/(\n][^\n]*" vlines "${vout}")
  string(REGEX MATCHALL "[0-9]+: warning: [^/(\n][^\n]*" alines "${aerr}")
  if(NOT "${vlines}" STREQUAL "${alines}")
    string(APPEND failed "validate and assemble disagree:\nvalidate: ${vlines}\nassemble: ${alines}\n")
  endif()
else()
  set(input_opt "")
  if(STDIN)
    set(input_opt INPUT_FILE ${STDIN})
  endif()
  execute_process(COMMAND ${TOOL} ${args} ${input_opt} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT "${rc}" STREQUAL "${RC}")
    string(APPEND failed "exit status ${rc}, expected ${RC}\n")
  endif()
  if(DEFINED OUT_REGEX AND NOT out MATCHES "${OUT_REGEX}")
    string(APPEND failed "stdout does not match '${OUT_REGEX}'\n")
  endif()
  if(DEFINED NOT_OUT_REGEX AND out MATCHES "${NOT_OUT_REGEX}")
    string(APPEND failed "stdout matches '${NOT_OUT_REGEX}'\n")
  endif()
  if(DEFINED ERR_REGEX AND NOT err MATCHES "${ERR_REGEX}")
    string(APPEND failed "stderr does not match '${ERR_REGEX}'\n")
  endif()
endif()
if(failed)
  message(FATAL_ERROR "${TOOL} ${args}\n${failed}--- stdout:\n${out}--- stderr:\n${err}")
endif()
