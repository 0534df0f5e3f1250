# pipeline-cmake-twice: builds twice/ (two targets, one cddlgen_generate output
# set) against the scratch install with Makefiles at -j2, and checks that
# cddlgen ran once and both programs work.
# Inputs: SOURCE (this folder) SCRATCH (a build folder) PREFIX (the install) CC
cmake_minimum_required(VERSION 3.20)
set(bin ${SCRATCH}/twice-build)
file(REMOVE_RECURSE ${bin})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/twice -B ${bin} -G "Unix Makefiles"
  -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${bin} -j2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build failed:\n${out}\n${err}")
endif()
string(REGEX MATCHALL "cddlgen: generating pair.h" runs "${out}")
list(LENGTH runs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "cddlgen ran ${n} times for one output set (expected once):\n${out}")
endif()
foreach(p first second)
  execute_process(COMMAND ${bin}/${p} "{\"a\":1,\"b\":2}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${p} failed on a valid pair: ${rc}")
  endif()
endforeach()
file(GLOB leftovers ${bin}/cddlgen-pair/.*tmp*)
if(leftovers)
  message(FATAL_ERROR "temporary files left behind: ${leftovers}")
endif()
message(STATUS "one cddlgen run for two targets; both programs decode")
