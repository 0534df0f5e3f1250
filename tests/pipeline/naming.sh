#!/bin/sh
# naming.sh CDDLGEN CC WORKDIR SCHEMA RUNTIME_INCLUDES... - generates SCHEMA,
# expects one -Wnaming warning per colliding rule (each "; ... twice" and
# "before ..." line of the schema), and compiles the output with -Werror.
cddlgen=$1 cc=$2 work=$3 schema=$4
shift 4
rm -rf "$work" && mkdir -p "$work" || exit 2
"$cddlgen" generate "$schema" --prefix h --out "$work" 2>"$work/stderr" || { cat "$work/stderr"; exit 1; }
want=$(grep -c '; \.\.\. ' "$schema")
got=$(grep -c 'would meet those of an earlier type.*\[-Wnaming\]' "$work/stderr")
cat "$work/stderr"
if [ "$got" != "$want" ]; then
    echo "expected $want -Wnaming warnings, got $got"
    exit 1
fi
incs=""
for d in "$@"; do incs="$incs -I$d"; done
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Wpedantic -Wshadow -Werror $incs -c "$work/h.c" -o "$work/h.o" || exit 1
echo "$got collisions renamed; the output compiles with -Werror"
