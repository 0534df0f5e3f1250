# run(COMMAND ... [OUT var] [ERR var] [EXPECT_RC n] [WORKING_DIRECTORY dir]),
# shared by the package-* and example-* test scripts: WORKING_DIRECTORY
# defaults to ${SCRATCH}.
# Runs a command; on failure stops with its output. OUT receives stdout; EXPECT_RC defaults to 0.
function(run)
  cmake_parse_arguments(R "" "OUT;ERR;EXPECT_RC;WORKING_DIRECTORY" "COMMAND" ${ARGN})
  if(NOT DEFINED R_EXPECT_RC)
    set(R_EXPECT_RC 0)
  endif()
  if(NOT R_WORKING_DIRECTORY)
    set(R_WORKING_DIRECTORY ${SCRATCH})
  endif()
  execute_process(COMMAND ${R_COMMAND} WORKING_DIRECTORY ${R_WORKING_DIRECTORY}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL R_EXPECT_RC)
    list(JOIN R_COMMAND " " cmd)
    message(FATAL_ERROR "'${cmd}' exited with ${rc} (expected ${R_EXPECT_RC})\n--- stdout:\n${out}\n--- stderr:\n${err}")
  endif()
  if(R_OUT)
    set(${R_OUT} "${out}" PARENT_SCOPE)
  endif()
  if(R_ERR)
    set(${R_ERR} "${err}" PARENT_SCOPE)
  endif()
endfunction()
