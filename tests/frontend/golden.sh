#!/bin/sh
# golden.sh - runs cddlgen and compares its diagnostics with a golden file.
#
# Usage (from the directory the file names in the output are relative to):
#   golden.sh [--head N] CDDLGEN EXPECTED STATUS [ARG...]
# Runs `CDDLGEN ARG...`; passes when it exits with STATUS, prints nothing on
# stdout, and its stderr is byte for byte the file EXPECTED. On a mismatch it
# prints a unified diff (expected first). With --head N only the first N
# lines of stderr are compared (for messages followed by the usage text,
# which changes whenever a command is added).
#
# To regenerate the golden files after an intended change of wording, run the
# tests with CDDLGEN_REGEN_GOLDEN=1 set, then read every changed file:
#   CDDLGEN_REGEN_GOLDEN=1 ctest --test-dir build -R '^frontend-(golden|option)'
#   git diff tests/frontend
# The exit status is checked in that mode too.
set -u
head=
if [ "${1:-}" = --head ]; then
    head=$2
    shift 2
fi
if [ $# -lt 3 ]; then
    echo "usage: golden.sh [--head N] CDDLGEN EXPECTED STATUS [ARG...]" >&2
    exit 2
fi
cddlgen=$1 expected=$2 want=$3
shift 3
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$cddlgen" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
got=$?
if [ -n "$head" ]; then
    head -n "$head" "$tmp/stderr" >"$tmp/head" && mv "$tmp/head" "$tmp/stderr"
fi
fail=0
if [ "${CDDLGEN_REGEN_GOLDEN:-0}" = 1 ]; then
    cp "$tmp/stderr" "$expected" || exit 2
    echo "regenerated $expected"
fi
if [ "$got" -ne "$want" ]; then
    echo "exit status $got, expected $want" >&2
    fail=1
fi
if [ -s "$tmp/stdout" ]; then
    echo "unexpected output on stdout:" >&2
    cat "$tmp/stdout" >&2
    fail=1
fi
if [ ! -f "$expected" ]; then
    echo "missing golden file $expected; its output would be:" >&2
    cat "$tmp/stderr" >&2
    fail=1
elif ! cmp -s "$expected" "$tmp/stderr"; then
    echo "diagnostics differ from $expected:" >&2
    diff -u "$expected" "$tmp/stderr" >&2
    fail=1
fi
exit $fail
