#!/bin/sh
# zcbor_same.sh - a schema in zcbor's dialect and the same schema written in
# RFC 8610's own forms generate the same C code (the schema's file name and
# line numbers aside): each rewrite of the dialect means what docs/cddl.md
# says it means.
#
#   zcbor_same.sh CDDLGEN DIALECT.cddl RFC.cddl
set -u
cddlgen=$1 dialect=$2 rfc=$3
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$cddlgen" generate --prefix z --out "$tmp/dialect" "$dialect" 2>/dev/null || { echo "generate $dialect failed" >&2; exit 1; }
"$cddlgen" generate --prefix z --out "$tmp/rfc" "$rfc" 2>/dev/null || { echo "generate $rfc failed" >&2; exit 1; }
for f in z.h z.c; do
    # the schema's name and the lines its rules are on differ, nothing else may
    sed -e "s/$(basename "$dialect")\(:[0-9]*\)\{0,1\}/SCHEMA/g" "$tmp/dialect/$f" >"$tmp/a"
    sed -e "s/$(basename "$rfc")\(:[0-9]*\)\{0,1\}/SCHEMA/g" "$tmp/rfc/$f" >"$tmp/b"
    if ! cmp -s "$tmp/a" "$tmp/b"; then
        echo "the generated $f differ:" >&2
        diff -u "$tmp/a" "$tmp/b" >&2
        exit 1
    fi
done
