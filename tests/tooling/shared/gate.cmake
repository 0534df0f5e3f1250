# gate.cmake -DSOURCE=<repo> -DWORK=<scratch> -DGENERATOR=<g> -DCC=<c compiler>
# Configures SOURCE in WORK/tree with CDDLGEN_SHARED_DIR pointed at a folder
# that does not exist and one planted test that names it, lists the
# registered tests (ctest --show-only=json-v1) and names each one whose
# command, working directory or properties mention that folder: it must be
# the planted one alone.
set(absent ${WORK}/no-shared-material-here)
set(tree ${WORK}/tree)
file(REMOVE_RECURSE ${tree})
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${tree} -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
          -DCDDLGEN_SHARED_DIR=${absent} -DCDDLGEN_SHARED_GATE_PLANT=ON
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring without the shared material failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "shared test material: [^\n]*\\(not found\\)")
  message(FATAL_ERROR "configure did not say the shared material is missing:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${tree} --show-only=json-v1
  RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest --show-only failed (${rc}): ${err}")
endif()
string(JSON count LENGTH "${listing}" tests)
set(offenders "")
set(found_plant FALSE)
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON test GET "${listing}" tests ${i})
    string(FIND "${test}" "${absent}" at)
    if(at GREATER -1)
      string(JSON name GET "${test}" name)
      list(APPEND offenders ${name})
      if(name STREQUAL "tooling-shared-gate-plant")
        set(found_plant TRUE)
      endif()
    endif()
  endforeach()
endif()
list(REMOVE_ITEM offenders tooling-shared-gate-plant)
if(NOT found_plant)
  message(FATAL_ERROR "the planted test was not found: the check cannot fail")
elseif(offenders)
  list(LENGTH offenders n)
  string(REPLACE ";" "\n  " offenders "${offenders}")
  message(FATAL_ERROR "${n} of ${count} tests registered without the shared material name it "
    "(${absent}); register them with cddlgen_add_test():\n  ${offenders}")
endif()
message(STATUS "${count} tests registered without the shared material; only the planted one names it")
