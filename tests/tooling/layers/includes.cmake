# The runtime's layers, checked from their #include lines: a file includes
# only headers of its own layer or of a layer below it, and the generic
# layers (core, schema, framing) include nothing of the protocol's. Run as:
#   cmake -DRUNTIME=<source>/runtime -P includes.cmake
#
# Layers and what each may include besides itself (runtime/CMakeLists.txt
# links them the same way):
#   core      -
#   schema    core
#   framing   core
#   protocol  core, schema, framing
#   protocol/companion  the above, plus the committed bindings (ap.h)
#   protocol/server     the above, plus the companion (its ap_*.h): the
#                       thread server is a library on top of it
#   protocol/client     the same for the thread client; and neither of the
#                       two includes the other
cmake_minimum_required(VERSION 3.20)
get_filename_component(RUNTIME ${RUNTIME} ABSOLUTE)
set(layers core schema framing protocol)
set(below_core "")
set(below_schema core)
set(below_framing core)
set(below_protocol core schema framing)

# Where each header lives: "aps/json.h" -> core; "schema_internal.h" -> schema.
foreach(l ${layers})
  file(GLOB_RECURSE hs RELATIVE ${RUNTIME}/${l} ${RUNTIME}/${l}/*.h)
  foreach(h ${hs})
    string(MAKE_C_IDENTIFIER "${h}" key)
    if(DEFINED home_${key})
      message(FATAL_ERROR "header ${h} is in two layers: ${home_${key}} and ${l}")
    endif()
    set(home_${key} ${l})
    set(path_${key} ${h})
  endforeach()
endforeach()

set(bad "")
set(checked 0)
foreach(l ${layers})
  file(GLOB_RECURSE files RELATIVE ${RUNTIME} ${RUNTIME}/${l}/*.c ${RUNTIME}/${l}/*.h)
  foreach(f ${files})
    set(allowed ${l} ${below_${l}})
    set(extra "")
    if(f MATCHES "^protocol/companion/")
      set(extra ap.h)
    elseif(f MATCHES "^protocol/(server|client)/")
      file(GLOB companion_headers RELATIVE ${RUNTIME}/protocol/companion ${RUNTIME}/protocol/companion/*.h)
      set(extra ap.h ${companion_headers})
    endif()
    file(STRINGS ${RUNTIME}/${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(inc ${incs})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" name "${inc}")
      math(EXPR checked "${checked} + 1")
      if(name IN_LIST extra)
        continue()
      endif()
      string(MAKE_C_IDENTIFIER "${name}" key)
      if(NOT DEFINED home_${key})
        # a private header beside the file, in a subfolder of its layer
        get_filename_component(dir ${f} DIRECTORY)
        if(EXISTS ${RUNTIME}/${dir}/${name})
          continue()
        endif()
        string(APPEND bad "  ${f}: \"${name}\" is no header of the runtime's layers\n")
      elseif(NOT home_${key} IN_LIST allowed)
        string(APPEND bad "  ${f} (${l}): \"${name}\" belongs to ${home_${key}}, which ${l} may not include\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "includes across layers the wrong way:\n${bad}")
endif()
if(checked EQUAL 0)
  message(FATAL_ERROR "no #include line found under ${RUNTIME}: nothing was checked")
endif()
message(STATUS "${checked} includes, none upward")
