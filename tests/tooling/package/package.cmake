# The package tests, one MODE per ctest (see CMakeLists.txt here):
#   install       cmake --install the build into SCRATCH/prefix; check the layout
#                 and that the man pages document every option of --help
#   find_package  build consumer/ against that prefix, change its schema,
#                 rebuild without reconfiguring: the code must be regenerated
#   pkg_config    compile one file against the prefix with pkg-config alone
#   embed         cddlgen generate --embed-runtime, then compile the pair alone
# Inputs: MODE BUILD SOURCE SCRATCH CC GENERATOR BUILD_TYPE LIBDIR VERSION
#         SCHEMA PKG_CONFIG EXTRA_FLAGS ('|'-separated compiler flags)
cmake_minimum_required(VERSION 3.20)
set(prefix ${SCRATCH}/prefix)
string(REPLACE "|" ";" EXTRA_FLAGS "${EXTRA_FLAGS}")
# What users compile generated code with; the runtime itself is held to it.
set(strict -std=c99 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
  ${EXTRA_FLAGS})

# Runs a command; on failure stops with its output. OUT receives stdout; EXPECT_RC defaults to 0.
function(run)
  cmake_parse_arguments(R "" "OUT;EXPECT_RC;WORKING_DIRECTORY" "COMMAND" ${ARGN})
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
endfunction()

function(expect_match what regex text)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}', got:\n${text}")
  endif()
endfunction()

function(expect_no_match what regex text)
  if(text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected no match for '${regex}' ('${CMAKE_MATCH_0}') in:\n${text}")
  endif()
endfunction()

# Every option of `TOOL --help` must appear in the man page.
function(check_man tool)
  run(COMMAND ${prefix}/bin/${tool} --help OUT help)
  file(READ ${prefix}/share/man/man1/${tool}.1 man)
  string(REPLACE "\\-" "-" man "${man}")
  # (a '[' in a list item would keep CMake from splitting the list)
  string(REGEX REPLACE "[][|]" " " help "${help}")
  string(REGEX MATCHALL "(^|[ ,])--?[A-Za-z][A-Za-z-]*" options "${help}")
  foreach(o ${options})
    string(REGEX REPLACE "^[ ,]" "" o "${o}")
    # -Wno-GROUP stands for -Wno-loose and the rest: the page spells the pattern
    string(REGEX REPLACE "^-Wno-[A-Z]+$" "-Wno-" o "${o}")
    string(FIND "${man}" "${o}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${tool}.1 does not document ${o}, which `${tool} --help` lists")
    endif()
  endforeach()
  expect_match("${tool}.1" "\\.SH EXIT STATUS" "${man}")
  expect_match("${tool}.1" "\\.SH EXAMPLES" "${man}")
endfunction()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${prefix})
  file(MAKE_DIRECTORY ${SCRATCH})
  run(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
  foreach(f bin/cddlgen bin/apstream ${LIBDIR}/libaps_core.a ${LIBDIR}/libaps_schema.a
            ${LIBDIR}/libaps_framing.a ${LIBDIR}/libaps_protocol.a include/aps/common.h include/aps/schema.h
            include/aps/types.h include/aps/json.h include/aps/sse.h include/aps/asm.h include/aps/replay.h
            ${LIBDIR}/cmake/cddlgen/cddlgenConfig.cmake
            ${LIBDIR}/cmake/cddlgen/cddlgenConfigVersion.cmake ${LIBDIR}/cmake/cddlgen/cddlgenTargets.cmake
            ${LIBDIR}/cmake/cddlgen/CddlgenGenerate.cmake ${LIBDIR}/pkgconfig/cddlgen-runtime.pc
            share/man/man1/cddlgen.1 share/man/man1/apstream.1)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "cmake --install did not put ${f} in place")
    endif()
  endforeach()
  run(COMMAND ${prefix}/bin/cddlgen --version OUT v)
  expect_match("installed cddlgen --version" "^cddlgen ${VERSION}\n$" "${v}")
  check_man(cddlgen)
  check_man(apstream)

elseif(MODE STREQUAL "find_package")
  set(bin ${SCRATCH}/consumer-build)
  set(schema ${SCRATCH}/greeting.cddl)
  file(REMOVE_RECURSE ${bin})
  configure_file(${SOURCE}/consumer/greeting.cddl ${schema} COPYONLY)
  run(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/consumer -B ${bin} -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DGREETING_SCHEMA=${schema})
  file(STRINGS ${bin}/CMakeCache.txt found REGEX "^cddlgen_DIR:")
  expect_match("find_package(cddlgen)" "=${prefix}/${LIBDIR}/cmake/cddlgen$" "${found}")
  file(TIMESTAMP ${bin}/CMakeCache.txt configured)

  set(plain "{\"name\":\"ada\",\"count\":2}")
  set(noted "{\"name\":\"ada\",\"count\":2,\"note\":\"hi\"}")
  run(COMMAND ${CMAKE_COMMAND} --build ${bin})
  file(READ ${bin}/cddlgen-hello/hello.h header)
  expect_no_match("hello.h before the change" "note" "${header}")
  run(COMMAND ${bin}/greet ${plain} ${noted} OUT before EXPECT_RC 1)
  expect_match("greet before the change" "^ok \\{\"name\":\"ada\",\"count\":2\\}\nrejected /note: " "${before}")

  # The schema gains a member; the build alone must notice. Some file systems
  # keep whole seconds, so let one pass first.
  run(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
  file(READ ${schema} text)
  string(REPLACE "  count: uint .le 10,\n" "  count: uint .le 10,\n  ? note: tstr,     ; added between the builds\n"
    changed "${text}")
  if(changed STREQUAL text)
    message(FATAL_ERROR "could not add a member to ${schema}")
  endif()
  file(WRITE ${schema} "${changed}")
  run(COMMAND ${CMAKE_COMMAND} --build ${bin})
  file(READ ${bin}/cddlgen-hello/hello.h header)
  expect_match("hello.h after the change" "bool has_note;" "${header}")
  run(COMMAND ${bin}/greet ${plain} ${noted} OUT after)
  expect_match("greet after the change" "^ok \\{\"name\":\"ada\",\"count\":2\\}\nok \\{\"name\":\"ada\",\"count\":2,\"note\":\"hi\"\\}\n$" "${after}")

  # A new cddlgen (new templates) regenerates too.
  file(TIMESTAMP ${bin}/cddlgen-hello/hello.c generated "%s")
  run(COMMAND ${CMAKE_COMMAND} -E sleep 1.1)
  file(TOUCH ${prefix}/bin/cddlgen)
  run(COMMAND ${CMAKE_COMMAND} --build ${bin})
  file(TIMESTAMP ${bin}/cddlgen-hello/hello.c regenerated "%s")
  if(NOT regenerated GREATER generated)
    message(FATAL_ERROR "hello.c was not regenerated after cddlgen changed")
  endif()

  file(TIMESTAMP ${bin}/CMakeCache.txt still)
  if(NOT still STREQUAL configured)
    message(FATAL_ERROR "the consumer was reconfigured; the schema change must be a build-time dependency only")
  endif()

elseif(MODE STREQUAL "pkg_config")
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(COMMAND ${PKG_CONFIG} --modversion cddlgen-runtime OUT v)
  expect_match("pkg-config --modversion" "^${VERSION}\n$" "${v}")
  run(COMMAND ${PKG_CONFIG} --cflags --libs cddlgen-runtime OUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(COMMAND ${CC} ${strict} ${SOURCE}/pkgconfig_main.c ${flags} -o ${SCRATCH}/pkgconfig_main)
  run(COMMAND ${SCRATCH}/pkgconfig_main OUT out)
  expect_match("pkgconfig_main" "^runtime ok: \"h[^\"]+llo\"\n$" "${out}")

elseif(MODE STREQUAL "embed")
  set(gen ${SCRATCH}/embed/gen)
  set(alone ${SCRATCH}/embed/alone)
  file(REMOVE_RECURSE ${SCRATCH}/embed)
  file(MAKE_DIRECTORY ${gen} ${alone})
  run(COMMAND ${BUILD}/bin/cddlgen generate ${SCHEMA} --prefix ap --out ${gen} --embed-runtime)
  file(READ ${gen}/ap.h header)
  file(READ ${gen}/ap.c source)
  expect_no_match("ap.h" "#[ \t]*include[ \t]*\"" "${header}")
  string(REPLACE "#include \"ap.h\"" "" rest "${source}")
  expect_no_match("ap.c" "#[ \t]*include[ \t]*\"" "${rest}")
  # Only the pair and a main, in a folder of their own: no -I, no library.
  file(COPY ${gen}/ap.h ${gen}/ap.c ${SOURCE}/embed_main.c DESTINATION ${alone})
  run(COMMAND ${CC} ${strict} -c ap.c -o ap.o WORKING_DIRECTORY ${alone})
  run(COMMAND ${CC} ${strict} -c embed_main.c -o embed_main.o WORKING_DIRECTORY ${alone})
  run(COMMAND ${CC} ${EXTRA_FLAGS} ap.o embed_main.o -o embed_main WORKING_DIRECTORY ${alone})
  run(COMMAND ${alone}/embed_main OUT out)
  expect_match("embed_main" "^decoded and re-encoded: [^\n]*\nrejected as expected: " "${out}")

else()
  message(FATAL_ERROR "package.cmake: unknown MODE '${MODE}'")
endif()
