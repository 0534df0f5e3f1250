# The example-* tests (see CMakeLists.txt here), one MODE each.
# Inputs: MODE SOURCE (examples/) SCRATCH PREFIX (an installed cddlgen) CC
#         GENERATOR BUILD_TYPE APSTREAM EXTRA_FLAGS [TRACE]
cmake_minimum_required(VERSION 3.20)
set(bin ${SCRATCH}/build)

file(MAKE_DIRECTORY ${SCRATCH})
include(${CMAKE_CURRENT_LIST_DIR}/../tooling/package/run.cmake)

function(expect_same what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: got\n${got}\nexpected\n${want}")
  endif()
endfunction()

if(MODE STREQUAL "size")
  # Lines of code: block comments (also several lines long) and // comments
  # removed, then the lines that are not blank.
  foreach(name consumer producer chat)
    file(READ ${SOURCE}/${name}.c text)
    string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
    string(REGEX REPLACE "//[^\n]*" "" text "${text}")
    string(REGEX REPLACE "[ \t\r]+\n" "\n" text "${text}")
    string(REGEX REPLACE "\n\n+" "\n" text "${text}")
    string(REGEX REPLACE "^\n" "" text "${text}")
    string(REGEX MATCHALL "\n" lines "${text}")
    list(LENGTH lines n)
    message(STATUS "examples/${name}.c: ${n} lines of code")
    set(most 80)
    if(name STREQUAL "chat")
      set(most 60) # issue 42: a client of a live server in under 60 lines
    endif()
    if(n GREATER most)
      message(FATAL_ERROR "examples/${name}.c has ${n} lines of code; at most ${most}")
    endif()
  endforeach()

elseif(MODE STREQUAL "build")
  file(REMOVE_RECURSE ${bin})
  string(REPLACE "|" ";" EXTRA_FLAGS "${EXTRA_FLAGS}")
  # the examples are held to the warnings our own code is
  set(flags -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror ${EXTRA_FLAGS})
  list(JOIN flags " " flags)
  list(JOIN EXTRA_FLAGS " " link)
  run(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${bin} -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${link}")
  run(COMMAND ${CMAKE_COMMAND} --build ${bin})

elseif(MODE STREQUAL "consumer")
  run(COMMAND ${bin}/consumer ${SOURCE}/capture.sse OUT got)
  run(COMMAND ${APSTREAM} assemble --strict ${SOURCE}/capture.sse OUT want)
  expect_same("consumer on capture.sse, against apstream assemble" "${got}" "${want}")
  string(REGEX MATCHALL "\"kind\":\"message\"" messages "${got}")
  string(REGEX MATCHALL "\"kind\":\"tool\"" tools "${got}")
  list(LENGTH messages m)
  list(LENGTH tools t)
  if(m LESS 2 OR t LESS 1)
    message(FATAL_ERROR "capture.sse should assemble to 2 messages and a tool run; got:\n${got}")
  endif()

elseif(MODE STREQUAL "consumer_trace")
  run(COMMAND ${bin}/consumer ${TRACE} OUT got EXPECT_RC 1)
  run(COMMAND ${APSTREAM} assemble ${TRACE} OUT want) # warnings only: exit 0
  expect_same("consumer on the shared trace, against apstream assemble" "${got}" "${want}")

elseif(MODE STREQUAL "producer")
  file(MAKE_DIRECTORY ${SCRATCH})
  set(stream ${SCRATCH}/producer.sse)
  run(COMMAND ${bin}/producer OUT sse)
  file(WRITE ${stream} "${sse}")
  run(COMMAND ${APSTREAM} validate --strict ${stream} OUT report)
  run(COMMAND ${APSTREAM} assemble --strict ${stream} OUT assembled)
  file(READ ${SOURCE}/producer.expected want)
  expect_same("apstream assemble of the producer's stream" "${assembled}" "${want}")
  run(COMMAND ${bin}/consumer ${stream} OUT consumed)
  expect_same("consumer on the producer's stream" "${consumed}" "${want}")
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
