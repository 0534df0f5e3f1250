# cddlgen_generate(TARGET <target> SCHEMA <file.cddl>... PREFIX <p>
#                  [ROOTS <rule>...] [OUTPUT_DIR <dir>] [OPTIONS <cddlgen flags>...])
#
# Generates <p>.h and <p>.c from SCHEMA (several files: one schema, in order)
# at build time, adds the .c to TARGET,
# puts the header on TARGET's include path and links the runtime. The files
# are regenerated whenever the schema or cddlgen itself (and so its built-in
# templates) changes. Works in our own tree and after find_package(cddlgen).
# Several targets may use the same output set (same PREFIX and OUTPUT_DIR,
# same arguments): it is generated once for all of them.
function(cddlgen_generate)
  cmake_parse_arguments(G "" "TARGET;PREFIX;OUTPUT_DIR" "SCHEMA;ROOTS;OPTIONS" ${ARGN})
  if(NOT G_TARGET OR NOT G_SCHEMA OR NOT G_PREFIX)
    message(FATAL_ERROR "cddlgen_generate: TARGET, SCHEMA and PREFIX are required")
  endif()
  set(schema "")
  foreach(s ${G_SCHEMA}) # several files are one schema, read in order
    get_filename_component(s "${s}" ABSOLUTE)
    list(APPEND schema ${s})
  endforeach()
  if(NOT G_OUTPUT_DIR)
    set(G_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/cddlgen-${G_PREFIX})
  endif()
  set(roots "")
  foreach(r ${G_ROOTS})
    list(APPEND roots --root ${r})
  endforeach()
  # One driver target per output set: targets that share the files depend on
  # it, so the Makefile generator runs cddlgen once, not once per target at
  # the same time into the same files (CMake's add_custom_command advice).
  set(outputs ${G_OUTPUT_DIR}/${G_PREFIX}.h ${G_OUTPUT_DIR}/${G_PREFIX}.c)
  set(command generate ${schema} --prefix ${G_PREFIX} --out ${G_OUTPUT_DIR} ${roots} ${G_OPTIONS})
  string(MD5 set_id "${G_OUTPUT_DIR}/${G_PREFIX}")
  string(SUBSTRING "${set_id}" 0 12 set_id)
  set(driver cddlgen_generate_${G_PREFIX}_${set_id})
  if(TARGET ${driver})
    get_target_property(earlier ${driver} CDDLGEN_COMMAND)
    if(NOT earlier STREQUAL command)
      message(FATAL_ERROR "cddlgen_generate: ${G_PREFIX}.h and ${G_PREFIX}.c in ${G_OUTPUT_DIR} are already "
        "generated with other arguments; give this call another PREFIX or OUTPUT_DIR")
    endif()
  else()
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${G_OUTPUT_DIR}
      COMMAND cddlgen::cddlgen ${command}
      DEPENDS ${schema} cddlgen::cddlgen
      COMMENT "cddlgen: generating ${G_PREFIX}.h and ${G_PREFIX}.c from ${G_SCHEMA}"
      VERBATIM)
    add_custom_target(${driver} DEPENDS ${outputs})
    set_target_properties(${driver} PROPERTIES CDDLGEN_COMMAND "${command}")
  endif()
  add_dependencies(${G_TARGET} ${driver})
  target_sources(${G_TARGET} PRIVATE ${G_OUTPUT_DIR}/${G_PREFIX}.c ${G_OUTPUT_DIR}/${G_PREFIX}.h)
  target_include_directories(${G_TARGET} PUBLIC ${G_OUTPUT_DIR})
  target_link_libraries(${G_TARGET} PUBLIC cddlgen::runtime)
endfunction()
