# Included from generator/CMakeLists.txt once cddlgen_core exists: the runtime
# that generated code needs travels inside cddlgen, joined into one header
# text and one source text (generator/amalgamate.cmake, then embed.cmake),
# for `cddlgen generate --embed-runtime` (generator/embed_runtime.c).
#
# The parts are listed in dependency order. Generated code calls the schema
# engine, which needs the JSON reader and writer (and CBOR's), the arena and UTF-8; the
# framing, replay and assembly modules stay out. A new json_* or schema_*
# source joins by itself; a new dependency outside them is added here (the
# vendoring test, tests/tooling/package, fails to link until it is).
set(rt_dir ${CMAKE_SOURCE_DIR}/runtime)
set(rt_headers core/aps/common.h core/aps/arena.h core/aps/json.h core/aps/cbor.h core/aps/scan.h core/aps/json_impl.h
  core/aps/regex.h schema/aps/schema.h schema/aps/fast.h schema/aps/types.h)
set(rt_internal core/aps/utf8.h core/cbor_internal.h schema/schema_internal.h)
file(GLOB rt_json RELATIVE ${rt_dir} CONFIGURE_DEPENDS ${rt_dir}/core/json_*.c)
# CBOR: the schema engine's CBOR codec (aps_schema_decode_cbor) stands on it
file(GLOB rt_cbor RELATIVE ${rt_dir} CONFIGURE_DEPENDS ${rt_dir}/core/cbor_*.c)
file(GLOB rt_schema RELATIVE ${rt_dir} CONFIGURE_DEPENDS ${rt_dir}/schema/schema_*.c)
set(rt_sources core/common.c core/arena.c core/utf8.c ${rt_json} ${rt_cbor} core/regex.c ${rt_schema})

set(rt_deps "")
foreach(f ${rt_headers} ${rt_internal} ${rt_sources})
  list(APPEND rt_deps ${rt_dir}/${f})
endforeach()
string(REPLACE ";" "|" rt_headers "${rt_headers}")
string(REPLACE ";" "|" rt_internal "${rt_internal}")
string(REPLACE ";" "|" rt_sources "${rt_sources}")
set(rt_out ${CMAKE_CURRENT_BINARY_DIR}/runtime_embedded)
add_custom_command(OUTPUT ${rt_out}.c
  COMMAND ${CMAKE_COMMAND} -DROOT=${rt_dir} "-DHEADERS=${rt_headers}" "-DINTERNAL=${rt_internal}"
          "-DSOURCES=${rt_sources}" -DOUT_H=${rt_out}.h.txt -DOUT_C=${rt_out}.c.txt
          -P ${CMAKE_CURRENT_SOURCE_DIR}/amalgamate.cmake
  COMMAND ${CMAKE_COMMAND} -DOUT=${rt_out}.c "-DFILES=${rt_out}.h.txt|${rt_out}.c.txt"
          "-DNAMES=cddl_runtime_h|cddl_runtime_c" -P ${CMAKE_CURRENT_SOURCE_DIR}/embed.cmake
  BYPRODUCTS ${rt_out}.h.txt ${rt_out}.c.txt
  DEPENDS ${rt_deps} ${CMAKE_CURRENT_SOURCE_DIR}/amalgamate.cmake ${CMAKE_CURRENT_SOURCE_DIR}/embed.cmake
  COMMENT "Embedding the runtime for --embed-runtime" VERBATIM)
target_sources(cddlgen_core PRIVATE ${rt_out}.c)
