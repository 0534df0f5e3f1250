#!/bin/sh
# generate_out.sh CDDLGEN SCHEMA WORK_DIR
#
# `cddlgen generate --out DIR` makes DIR and its missing parents (mkdir -p), a
# folder it cannot make is an I/O error (status 2) whose message says why, and
# a schema with errors (status 1) leaves no folder behind.
set -u
cddlgen=$1 schema=$2 work=$3
failed=0
fail() { echo "FAIL $*"; failed=1; }

rm -rf "$work"
mkdir -p "$work" || exit 1

"$cddlgen" generate "$schema" --prefix ap --out "$work/a/b/c" 2>"$work/err"
rc=$?
[ "$rc" = 0 ] || fail "--out a/b/c: status $rc, expected 0: $(cat "$work/err")"
[ -s "$work/a/b/c/ap.h" ] && [ -s "$work/a/b/c/ap.c" ] || fail "--out a/b/c: ap.h and ap.c not written"

: >"$work/file"
"$cddlgen" generate "$schema" --prefix ap --out "$work/file/x" 2>"$work/err"
rc=$?
[ "$rc" = 2 ] || fail "--out under a regular file: status $rc, expected 2"
grep -q "^$work/file: error: cannot create the --out folder: Not a directory\$" "$work/err" ||
    fail "--out under a regular file: no reason given: $(grep error "$work/err")"

printf 'a = {\n  b: undefined-rule\n}\n' >"$work/bad.cddl"
"$cddlgen" generate "$work/bad.cddl" --prefix ap --out "$work/not/made" 2>"$work/err"
rc=$?
[ "$rc" = 1 ] || fail "schema with an error: status $rc, expected 1"
[ ! -e "$work/not" ] || fail "schema with an error: the --out folder was made anyway"

[ "$failed" = 0 ] && echo "ok: --out made with its parents; I/O error 2 with its reason; schema error 1, nothing made"
[ "$failed" = 0 ]
