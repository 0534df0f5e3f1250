#!/bin/sh
# golden.sh - runs `cddlgen generate` on one small schema and compares what it
# writes with the committed golden files.
#
# Usage: golden.sh CDDLGEN DIR NAME WORKDIR MODE
#
# Runs, from DIR, `CDDLGEN generate NAME.cddl --prefix NAME --out WORKDIR/out`
# plus the arguments in DIR/NAME.args when that file exists. Then:
#   - MODE ok: cddlgen must exit 0 and write NAME.h and NAME.c equal byte for
#     byte to NAME.expected.h and NAME.expected.c, and print on stderr exactly
#     NAME.expected.stderr (nothing if that file does not exist);
#   - MODE error: the schema is one cddlgen must refuse: it must exit 1,
#     write no C at all, and print on stderr exactly NAME.expected.stderr.
# Nothing may appear on stdout. On a mismatch it prints a unified diff
# (expected first).
#
# To regenerate the golden files after an intended change, run the tests with
# CDDLGEN_REGEN_GOLDEN=1 set, then read every changed file before committing:
#   CDDLGEN_REGEN_GOLDEN=1 ctest --test-dir build -R '^backend-(golden|unsupported)-'
#   git diff tests/backend
set -u
if [ $# -ne 5 ] || { [ "$5" != ok ] && [ "$5" != error ]; }; then
    echo "usage: golden.sh CDDLGEN DIR NAME WORKDIR ok|error" >&2
    exit 2
fi
cddlgen=$1 dir=$2 name=$3 work=$4 mode=$5
rm -rf "$work" && mkdir -p "$work/out" || exit 2
cd "$dir" || exit 2
args=""
if [ -f "$name.args" ]; then
    args=$(cat "$name.args")
fi
# $args is split on purpose: it holds options such as `--root A --root B`.
# shellcheck disable=SC2086
"$cddlgen" generate "$name.cddl" --prefix "$name" --out "$work/out" $args \
    >"$work/stdout" 2>"$work/stderr"
got=$?
regen=${CDDLGEN_REGEN_GOLDEN:-0}
fail=0

# Compares the file we got with the golden one (or, when regenerating, copies it).
compare() { # compare EXPECTED GOT WHAT
    if [ "$regen" = 1 ]; then
        cp "$2" "$1" || exit 2
        echo "regenerated $dir/$1"
    elif [ ! -f "$1" ]; then
        echo "missing golden file $dir/$1; cddlgen wrote:" >&2
        cat "$2" >&2
        fail=1
    elif ! cmp -s "$1" "$2"; then
        echo "$3 differs from $dir/$1:" >&2
        diff -u "$1" "$2" >&2
        fail=1
    fi
}

if [ -s "$work/stdout" ]; then
    echo "unexpected output on stdout:" >&2
    cat "$work/stdout" >&2
    fail=1
fi
if [ "$mode" = ok ]; then
    if [ "$got" -ne 0 ]; then
        echo "cddlgen exited with status $got, expected 0; stderr:" >&2
        cat "$work/stderr" >&2
        exit 1
    fi
    compare "$name.expected.h" "$work/out/$name.h" "the generated header"
    compare "$name.expected.c" "$work/out/$name.c" "the generated source"
    if [ "$regen" = 1 ] && [ ! -s "$work/stderr" ]; then
        rm -f "$name.expected.stderr"
    elif [ -s "$work/stderr" ] || [ -f "$name.expected.stderr" ]; then
        compare "$name.expected.stderr" "$work/stderr" "the diagnostics"
    fi
else
    if [ "$got" -ne 1 ]; then
        echo "cddlgen exited with status $got, expected 1 (an unsupported feature)" >&2
        fail=1
    fi
    for f in "$work"/out/*; do
        if [ -e "$f" ]; then
            echo "cddlgen wrote $f for a schema it cannot represent" >&2
            fail=1
        fi
    done
    compare "$name.expected.stderr" "$work/stderr" "the diagnostics"
fi
exit $fail
