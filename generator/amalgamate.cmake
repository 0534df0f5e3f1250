# Joins the runtime the generated code needs into two texts that
# `cddlgen generate --embed-runtime` writes into PREFIX.h and PREFIX.c, so the
# pair compiles with nothing but a C compiler. Run as:
#   cmake -DROOT=runtime -DHEADERS="include/a.h|..." -DINTERNAL="src/x.h|..."
#         -DSOURCES="src/a.c|..." -DOUT_H=h.txt -DOUT_C=c.txt -P amalgamate.cmake
# HEADERS (public, in dependency order) become OUT_H; INTERNAL headers (in
# dependency order) then SOURCES become OUT_C. Paths are relative to ROOT and
# only they appear in the output, so it is the same on every machine.
#
# Every `#include "..."` line goes: the files it named are already above.
# Each source is a translation unit of its own in the library, so the join
# keeps it one in the ways that matter: the macros a source defines are
# #undef'd after it, and a file-scope name that two sources both define
# (a static helper, a typedef, a tag) is renamed in each to FILE_NAME by a
# #define around that file. The renaming is a stopgap that keeps the join
# correct whatever the runtime does; the runtime is expected to keep such
# names distinct, so the build says which ones collide.
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" HEADERS "${HEADERS}")
string(REPLACE "|" ";" INTERNAL "${INTERNAL}")
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(ident "[A-Za-z_][A-Za-z0-9_]*")

# The text of ROOT/file without its local includes, under a banner.
function(stripped file outvar)
  file(READ ${ROOT}/${file} text)
  string(REGEX REPLACE "\n[ \t]*#[ \t]*include[ \t]*\"[^\"\n]*\"[^\n]*" "" text "\n${text}")
  set(${outvar} "/* ---- runtime/${file} ---- */${text}" PARENT_SCOPE)
endfunction()

# The file-scope names a source defines that another source could define too.
function(file_scope_names text outvar)
  set(names "")
  # A '[' would keep CMake from splitting the list of matches.
  string(REPLACE "[" "(" text "${text}")
  # static functions and objects: `static ... name(` or `static ... name[` / `=`
  string(REGEX MATCHALL "\nstatic[^;{}=()]*[ *\n]${ident}[ \t]*[(=]" hits "${text}")
  # typedef'd structs, enums and unions: `} name;`; tags: `struct name {`
  string(REGEX MATCHALL "\n}[ \t]*${ident}[ \t]*;" more "${text}")
  list(APPEND hits ${more})
  string(REGEX MATCHALL "\n(typedef[ \t]+)?(struct|enum|union)[ \t]+${ident}[ \t]*{" more "${text}")
  list(APPEND hits ${more})
  foreach(h ${hits})
    string(REGEX REPLACE "[ \t]*[(={;]$" "" h "${h}")
    string(REGEX MATCH "${ident}$" n "${h}")
    list(APPEND names ${n})
  endforeach()
  list(REMOVE_DUPLICATES names)
  set(${outvar} "${names}" PARENT_SCOPE)
endfunction()

set(out_h "/* The runtime (cddlgen --embed-runtime): public declarations. */\n")
foreach(f ${HEADERS})
  stripped(${f} text)
  string(APPEND out_h "${text}\n")
endforeach()

set(out_c "\n/* The runtime (cddlgen --embed-runtime): private headers and sources. */\n")
foreach(f ${INTERNAL})
  stripped(${f} text)
  string(APPEND out_c "${text}\n")
endforeach()

# Which file-scope names more than one source defines.
set(all_names "")
foreach(f ${SOURCES})
  stripped(${f} text_${f})
  file_scope_names("${text_${f}}" names_${f})
  list(APPEND all_names ${names_${f}})
endforeach()
set(seen "")
set(colliding "")
foreach(n ${all_names})
  if(n IN_LIST seen)
    list(APPEND colliding ${n})
  endif()
  list(APPEND seen ${n})
endforeach()
list(REMOVE_DUPLICATES colliding)
if(colliding)
  list(JOIN colliding ", " c)
  message(STATUS "amalgamate: renamed per file (defined by more than one runtime source): ${c}")
endif()

foreach(f ${SOURCES})
  get_filename_component(stem ${f} NAME_WE)
  set(before "")
  set(after "")
  foreach(n ${names_${f}})
    if(n IN_LIST colliding)
      string(APPEND before "#define ${n} ${stem}_${n}\n")
      string(APPEND after "#undef ${n}\n")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n[ \t]*#[ \t]*define[ \t]+${ident}" defs "${text_${f}}")
  set(macros "")
  foreach(d ${defs})
    string(REGEX MATCH "${ident}$" m "${d}")
    list(APPEND macros ${m})
  endforeach()
  list(REMOVE_DUPLICATES macros)
  foreach(m ${macros})
    string(APPEND after "#undef ${m}\n")
  endforeach()
  string(APPEND out_c "${before}${text_${f}}\n${after}")
endforeach()

foreach(pair "OUT_H;out_h" "OUT_C;out_c")
  list(GET pair 0 path_var)
  list(GET pair 1 text_var)
  file(WRITE ${${path_var}}.tmp "${${text_var}}")
  file(COPY_FILE ${${path_var}}.tmp ${${path_var}} ONLY_IF_DIFFERENT)
  file(REMOVE ${${path_var}}.tmp)
endforeach()
