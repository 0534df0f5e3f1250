#!/bin/sh
# compile.sh - compiles cddlgen output with -Werror, as C99 or as C++.
#
# Usage:
#   compile.sh WORKDIR RUNTIME_INCLUDE PREFIX LANG COMPILER SOURCE...
# where SOURCE... is one of
#   gen CDDLGEN SCHEMA [CDDLGEN_ARG...]
#       run `CDDLGEN generate SCHEMA --prefix PREFIX --out WORKDIR/out` first;
#       it must exit 0
#   files HEADER SOURCE
#       use these files (committed goldens) as PREFIX.h and PREFIX.c
# and LANG is
#   c    compile PREFIX.c with COMPILER -std=c99 and the project's warnings
#   c++  compile a file that includes PREFIX.h with COMPILER -std=c++11
#
# Environment, for tests that pin more than "it compiles":
#   EXPECT_STDERR  text cddlgen's stderr must contain (gen only)
#   EXPECT_HEADER  text PREFIX.h must contain; several separated by '|'
# and, for tests that pin less:
#   COMPILE_FRONT_END_ONLY=1  gcc too stops after its front end (see below)
set -u
if [ $# -lt 7 ]; then
    echo "usage: compile.sh WORKDIR RUNTIME_INCLUDE PREFIX c|c++ COMPILER gen CDDLGEN SCHEMA [ARG...]" >&2
    echo "       compile.sh WORKDIR RUNTIME_INCLUDE PREFIX c|c++ COMPILER files HEADER SOURCE" >&2
    exit 2
fi
work=$1 include=$2 prefix=$3 lang=$4 compiler=$5 how=$6
# RUNTIME_INCLUDE is the runtime layers' include folders, separated by ':'
incflags=$(printf '%s' "$include" | sed 's/^/-I/; s/:/ -I/g')
shift 6
rm -rf "$work" && mkdir -p "$work/out" || exit 2
out=$work/out

case $how in
gen)
    cddlgen=$1 schema=$2
    shift 2
    "$cddlgen" generate "$schema" --prefix "$prefix" --out "$out" "$@" >"$work/stdout" 2>"$work/stderr"
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "cddlgen generate $schema exited with status $status:" >&2
        cat "$work/stderr" >&2
        exit 1
    fi
    if [ -n "${EXPECT_STDERR:-}" ] && ! grep -F -q -e "$EXPECT_STDERR" "$work/stderr"; then
        echo "cddlgen's diagnostics do not say: $EXPECT_STDERR" >&2
        echo "they were:" >&2
        cat "$work/stderr" >&2
        exit 1
    fi
    ;;
files)
    cp "$1" "$out/$prefix.h" && cp "$2" "$out/$prefix.c" || exit 2
    ;;
*)
    echo "compile.sh: unknown source kind '$how'" >&2
    exit 2
    ;;
esac

if [ -n "${EXPECT_HEADER:-}" ]; then
    old_ifs=$IFS
    IFS='|'
    for want in $EXPECT_HEADER; do
        if ! grep -F -q -e "$want" "$out/$prefix.h"; then
            echo "$prefix.h does not contain: $want" >&2
            IFS=$old_ifs
            exit 1
        fi
    done
    IFS=$old_ifs
fi

# How far to compile. clang issues all of these warnings from its front end,
# so -fsyntax-only sees every one of them in a fraction of the time; gcc
# reports some (unused static functions) only when it generates code, so
# the C file goes all the way to an object with gcc. The C++ check is of
# the header alone: its front end is all there is to it.
case ${COMPILE_FRONT_END_ONLY:-0}:$lang:$(basename "$compiler") in
1:*|*:c:*clang*|*:c++:*) stop=-fsyntax-only ;;
*) stop="-c -o $work/$lang.o" ;;
esac
case $lang in
c)
    set -- -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror \
        $incflags -I"$out" $stop "$out/$prefix.c"
    ;;
c++)
    printf '#include "%s.h"\n' "$prefix" >"$work/use.cpp"
    set -- -std=c++11 -Wall -Wextra -Wpedantic -Werror $incflags -I"$out" $stop "$work/use.cpp"
    ;;
*)
    echo "compile.sh: unknown language '$lang'" >&2
    exit 2
    ;;
esac
echo "$compiler $*"
"$compiler" "$@"
