# The package tests, one MODE per ctest (see CMakeLists.txt here):
#   install       cmake --install the build into SCRATCH/prefix; check the layout
#                 and that the man pages document every option of --help
#   find_package  build consumer/ against that prefix, change its schema,
#                 rebuild without reconfiguring: the code must be regenerated
#   pkg_config    compile one file against the prefix with pkg-config alone,
#                 and examples/consumer.c with cddlgen-ap (the companion)
#   embed         cddlgen generate --embed-runtime, then compile the pair alone
#   embed_two     two embedded pairs of two schemas in one program, both
#                 headers in one file; the protocol's pair written with
#                 --size (descriptors only), so --size with --embed-runtime
#                 is compiled -O2 -Werror and run too (and the test's compile
#                 takes seconds, not the fast pair's minute: `embed` has that)
#   version_check generated code compiles against runtime headers of its
#                 version and stops, naming both versions, against others
#   redis_find_package  build redis_consumer/ (cddlgen::redis) against the
#                 prefix and run it; then hide hiredis, and then the
#                 component itself: find_package(cddlgen) must still load,
#                 and fail, saying why, only when the component is REQUIRED
#   redis_pkg_config  compile redis_main.c with `pkg-config cddlgen-redis`
#                 alone, run it
# Inputs: MODE BUILD SOURCE SCRATCH CC GENERATOR BUILD_TYPE LIBDIR VERSION
#         SCHEMA ROOT (the source tree) PKG_CONFIG EXTRA_FLAGS ('|'-separated
#         compiler flags) REDIS (ON when the build has aps_redis)
cmake_minimum_required(VERSION 3.20)
set(prefix ${SCRATCH}/prefix)
string(REPLACE "|" ";" EXTRA_FLAGS "${EXTRA_FLAGS}")
# What users compile generated code with; the runtime itself is held to it.
set(strict -std=c99 -O2 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
  ${EXTRA_FLAGS})

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

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
            ${LIBDIR}/libcddlgen_ap.a ${LIBDIR}/libcddlgen_ap_companion.a include/ap/ap.h
            include/ap/ap_companion.h ${LIBDIR}/pkgconfig/cddlgen-ap.pc
            share/man/man1/cddlgen.1 share/man/man1/apstream.1)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "cmake --install did not put ${f} in place")
    endif()
  endforeach()
  # aps_redis: installed exactly when built
  foreach(f ${LIBDIR}/libaps_redis.a include/aps/replay_redis.h ${LIBDIR}/cmake/cddlgen/cddlgenRedisTargets.cmake
            ${LIBDIR}/cmake/cddlgen/CddlgenHiredis.cmake ${LIBDIR}/pkgconfig/cddlgen-redis.pc)
    if(REDIS AND NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "aps_redis was built, but cmake --install did not put ${f} in place")
    elseif(NOT REDIS AND EXISTS ${prefix}/${f})
      message(FATAL_ERROR "aps_redis was not built, yet cmake --install put ${f} in place")
    endif()
  endforeach()
  # ap_client: installed exactly when built
  foreach(f ${LIBDIR}/libcddlgen_ap_client.a include/ap/ap_client.h ${LIBDIR}/cmake/cddlgen/cddlgenClientTargets.cmake
            ${LIBDIR}/pkgconfig/cddlgen-client.pc)
    if(CLIENT AND NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "ap_client was built, but cmake --install did not put ${f} in place")
    elseif(NOT CLIENT AND EXISTS ${prefix}/${f})
      message(FATAL_ERROR "ap_client was not built, yet cmake --install put ${f} in place")
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
  # the protocol's bindings and companion: the consumer example, with pkg-config alone
  run(COMMAND ${PKG_CONFIG} --cflags --libs cddlgen-ap OUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(COMMAND ${CC} ${strict} ${ROOT}/examples/consumer.c ${flags} -o ${SCRATCH}/pkgconfig_consumer)
  run(COMMAND ${SCRATCH}/pkgconfig_consumer ${ROOT}/examples/capture.sse OUT out)
  expect_match("consumer built with pkg-config cddlgen-ap" "\"kind\":\"tool\"" "${out}")

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

elseif(MODE STREQUAL "embed_two")
  # Two schemas, two pairs, one program. The --out folders do not exist yet:
  # generate makes them.
  set(dir ${SCRATCH}/embed_two)
  set(alone ${dir}/alone)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${alone})
  run(COMMAND ${BUILD}/bin/cddlgen generate ${SCHEMA} --prefix ap --out ${dir}/ap --embed-runtime --size)
  run(COMMAND ${BUILD}/bin/cddlgen generate ${SOURCE}/consumer/greeting.cddl --prefix hello
    --out ${dir}/hello --embed-runtime)
  foreach(p ap hello)
    string(TOUPPER ${p} P)
    file(READ ${dir}/${p}/${p}.h header)
    # the runtime under the pair's prefix, and no declaration left under the shared one
    expect_match("${p}.h" "typedef struct ${p}_aps_arena" "${header}")
    expect_match("${p}.h" "#define ${P}_APS_VERSION_STRING" "${header}")
    expect_no_match("${p}.h" "(typedef|struct|enum|#define)[ \t]+(aps|APS)_" "${header}")
  endforeach()
  file(COPY ${dir}/ap/ap.h ${dir}/ap/ap.c ${dir}/hello/hello.h ${dir}/hello/hello.c ${SOURCE}/embed_two_main.c
    DESTINATION ${alone})
  foreach(f ap hello embed_two_main)
    run(COMMAND ${CC} ${strict} -c ${f}.c -o ${f}.o WORKING_DIRECTORY ${alone})
  endforeach()
  run(COMMAND ${CC} ${EXTRA_FLAGS} ap.o hello.o embed_two_main.o -o embed_two_main WORKING_DIRECTORY ${alone})
  run(COMMAND ${alone}/embed_two_main OUT out)
  expect_match("embed_two_main" "^ap: decoded and re-encoded: [^\n]*\nhello: decoded and re-encoded: \\{\"name\":\"ada\",\"count\":2\\}\nhello: rejected as expected: /count: " "${out}")

elseif(MODE STREQUAL "version_check")
  # The runtime's headers copied as they are, and copies that claim another
  # version; the generated header must accept the first only.
  set(dir ${SCRATCH}/version)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir}/gen)
  run(COMMAND ${BUILD}/bin/cddlgen generate ${SOURCE}/consumer/greeting.cddl --prefix hello --out ${dir}/gen)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$" ok "${VERSION}")
  if(NOT ok)
    message(FATAL_ERROR "project version '${VERSION}' is not MAJOR.MINOR.PATCH")
  endif()
  set(major ${CMAKE_MATCH_1})
  set(minor ${CMAKE_MATCH_2})
  set(patch ${CMAKE_MATCH_3})
  math(EXPR next_major "${major} + 1")
  math(EXPR next_minor "${minor} + 1")
  # label=MAJOR.MINOR.PATCH the copy claims; "same" is the runtime untouched
  set(cases "same=${major}.${minor}.${patch}" "minor=${major}.${next_minor}.0" "major=${next_major}.${minor}.0")
  if(minor GREATER 0)
    math(EXPR prev_minor "${minor} - 1")
    list(APPEND cases "older=${major}.${prev_minor}.0")
  endif()
  set(compilers ${CC})
  find_program(other_gcc NAMES gcc)
  find_program(other_clang NAMES clang)
  foreach(c ${other_gcc} ${other_clang})
    list(APPEND compilers ${c})
  endforeach()
  list(REMOVE_DUPLICATES compilers)
  foreach(case ${cases})
    string(REPLACE "=" ";" case "${case}")
    list(GET case 0 label)
    list(GET case 1 claimed)
    string(REPLACE "." ";" parts "${claimed}")
    list(GET parts 0 cmaj)
    list(GET parts 1 cmin)
    list(GET parts 2 cpat)
    set(rt ${dir}/runtime-${label})
    file(GLOB headers ${ROOT}/runtime/core/aps/*.h ${ROOT}/runtime/schema/aps/*.h)
    file(COPY ${headers} DESTINATION ${rt}/aps)
    file(READ ${rt}/aps/common.h common)
    set(changed "${common}")
    foreach(pair "MAJOR=${cmaj}" "MINOR=${cmin}" "PATCH=${cpat}")
      string(REPLACE "=" ";" pair "${pair}")
      list(GET pair 0 what)
      list(GET pair 1 value)
      string(REGEX REPLACE "#define APS_VERSION_${what} [0-9]+" "#define APS_VERSION_${what} ${value}" changed "${changed}")
    endforeach()
    string(REGEX REPLACE "#define APS_VERSION_STRING \"[^\"]*\"" "#define APS_VERSION_STRING \"${claimed}\"" changed "${changed}")
    if(label STREQUAL "same")
      if(NOT changed STREQUAL common)
        message(FATAL_ERROR "aps/common.h does not say it is version ${VERSION}")
      endif()
    elseif(changed STREQUAL common)
      message(FATAL_ERROR "could not change the version macros of the copy of aps/common.h")
    endif()
    file(WRITE ${rt}/aps/common.h "${changed}")
    foreach(cc ${compilers})
      set(cmd ${cc} ${strict} -I${rt} -I${dir}/gen -c ${dir}/gen/hello.c -o ${dir}/hello-${label}.o)
      execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
      if(label STREQUAL "same")
        if(NOT rc EQUAL 0)
          message(FATAL_ERROR "${cc}: hello.c does not compile against the runtime it was generated for:\n${out}")
        endif()
      else()
        if(rc EQUAL 0)
          message(FATAL_ERROR "${cc}: hello.c compiled against runtime headers of version ${claimed}")
        endif()
        expect_match("${cc} against ${claimed}" "generated for aps runtime ${VERSION}" "${out}")
        expect_match("${cc} against ${claimed}" "found aps runtime ${claimed}" "${out}")
        expect_match("${cc} against ${claimed}" "does not work with the runtime found" "${out}")
      endif()
    endforeach()
  endforeach()

elseif(MODE STREQUAL "redis_find_package")
  set(expected "^unreachable: redis 127\\.0\\.0\\.1:1: [^\n]+\nbad URL at byte [0-9]+: [^\n]+\n$")
  set(configure ${CMAKE_COMMAND} -S ${SOURCE}/redis_consumer -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  set(bin ${SCRATCH}/redis-consumer)
  file(REMOVE_RECURSE ${bin} ${bin}-hidden ${bin}-absent ${SCRATCH}/prefix-without-redis)
  file(MAKE_DIRECTORY ${SCRATCH})
  run(COMMAND ${configure} -B ${bin} -DCMAKE_PREFIX_PATH=${prefix} -DNEED_REDIS=ON OUT out)
  expect_match("redis_consumer" "cddlgen::redis: found" "${out}")
  run(COMMAND ${CMAKE_COMMAND} --build ${bin})
  run(COMMAND ${bin}/open_redis OUT out)
  expect_match("open_redis (find_package)" "${expected}" "${out}")

  # Where hiredis cannot be found (no pkg-config, no system prefix to search)
  # the package loads without the component, and says why.
  file(WRITE ${SCRATCH}/hide-hiredis.cmake "set(CMAKE_DISABLE_FIND_PACKAGE_PkgConfig ON CACHE BOOL \"\")\n"
    "set(CMAKE_IGNORE_PREFIX_PATH /usr /usr/local / CACHE STRING \"\")\n")
  set(hide -C ${SCRATCH}/hide-hiredis.cmake)
  run(COMMAND ${configure} -B ${bin}-hidden -DCMAKE_PREFIX_PATH=${prefix} -DNEED_REDIS=OFF ${hide} OUT out)
  expect_match("optional redis, hiredis hidden" "cddlgen::redis: missing \\(cddlgen::redis needs hiredis, which was not found" "${out}")
  file(REMOVE_RECURSE ${bin}-hidden)
  run(COMMAND ${configure} -B ${bin}-hidden -DCMAKE_PREFIX_PATH=${prefix} -DNEED_REDIS=ON ${hide} EXPECT_RC 1 ERR out)
  expect_match("required redis, hiredis hidden" "cddlgen::redis needs hiredis, which was not found" "${out}")

  # A prefix installed from a build without hiredis: the plain consumer and
  # the optional one configure, the required one fails.
  set(without ${SCRATCH}/prefix-without-redis)
  file(COPY ${prefix}/ DESTINATION ${without})
  file(REMOVE ${without}/${LIBDIR}/libaps_redis.a ${without}/include/aps/replay_redis.h
    ${without}/${LIBDIR}/pkgconfig/cddlgen-redis.pc ${without}/${LIBDIR}/cmake/cddlgen/CddlgenHiredis.cmake)
  file(GLOB redis_targets ${without}/${LIBDIR}/cmake/cddlgen/cddlgenRedisTargets*.cmake)
  file(REMOVE ${redis_targets})
  run(COMMAND ${configure} -B ${bin}-absent -DCMAKE_PREFIX_PATH=${without} -DNEED_REDIS=OFF OUT out)
  expect_match("optional redis, built without" "cddlgen::redis: missing \\(this cddlgen was built without hiredis" "${out}")
  file(REMOVE_RECURSE ${bin}-absent)
  run(COMMAND ${configure} -B ${bin}-absent -DCMAKE_PREFIX_PATH=${without} -DNEED_REDIS=ON EXPECT_RC 1 ERR out)
  expect_match("required redis, built without" "this cddlgen was built without hiredis" "${out}")
  file(REMOVE_RECURSE ${bin}-absent)
  run(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/consumer -B ${bin}-absent -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_PREFIX_PATH=${without} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  file(REMOVE_RECURSE ${bin}-hidden ${bin}-absent ${without})

elseif(MODE STREQUAL "redis_pkg_config")
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(COMMAND ${PKG_CONFIG} --modversion cddlgen-redis OUT v)
  expect_match("pkg-config --modversion cddlgen-redis" "^${VERSION}\n$" "${v}")
  run(COMMAND ${PKG_CONFIG} --cflags --libs cddlgen-redis OUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(COMMAND ${CC} ${strict} ${SOURCE}/redis_main.c ${flags} -o ${SCRATCH}/redis_main)
  run(COMMAND ${SCRATCH}/redis_main OUT out)
  expect_match("redis_main (pkg-config)" "^unreachable: redis 127\\.0\\.0\\.1:1: [^\n]+\nbad URL at byte [0-9]+: [^\n]+\n$" "${out}")

elseif(MODE STREQUAL "client_pkg_config")
  # examples/chat.c built with `pkg-config cddlgen-client` alone: usage, then a server that is not there
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(COMMAND ${PKG_CONFIG} --modversion cddlgen-client OUT v)
  expect_match("pkg-config --modversion cddlgen-client" "^${VERSION}\n$" "${v}")
  run(COMMAND ${PKG_CONFIG} --cflags --libs cddlgen-client OUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(COMMAND ${CC} ${strict} ${ROOT}/examples/chat.c ${flags} -o ${SCRATCH}/client_chat)
  run(COMMAND ${SCRATCH}/client_chat EXPECT_RC 2 ERR out)
  expect_match("chat without a URL" "^usage: chat URL" "${out}")
  run(COMMAND ${SCRATCH}/client_chat http://127.0.0.1:1 EXPECT_RC 1 ERR out)
  expect_match("chat with nothing listening" "chat: the server cannot be reached: " "${out}")

else()
  message(FATAL_ERROR "package.cmake: unknown MODE '${MODE}'")
endif()
