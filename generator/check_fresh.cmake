# Regenerates bindings into a scratch directory and fails when they differ
# from the committed ones. Run as:
#   cmake -DCDDLGEN=... -DSCHEMA=... -DPREFIX=... -DCOMMITTED=dir -DSCRATCH=dir -P check_fresh.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${CDDLGEN} generate ${SCHEMA} --prefix ${PREFIX} --out ${SCRATCH}
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cddlgen generate failed (${rc})")
endif()
foreach(ext h c)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                  ${SCRATCH}/${PREFIX}.${ext} ${COMMITTED}/${PREFIX}.${ext} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${COMMITTED}/${PREFIX}.${ext} is stale: regenerate with\n"
            "  build/bin/cddlgen generate cddl/protocol.cddl --prefix ${PREFIX} --out generated\n"
            "and commit it.")
  endif()
endforeach()
message(STATUS "${PREFIX}.h and ${PREFIX}.c are fresh")
