#!/bin/sh
# determinism.sh - cddlgen's output depends on the schema alone.
#
# Usage: determinism.sh CDDLGEN SCHEMA PREFIX WORKDIR
#
# Generates twice: once with absolute paths from /, once from a copy of the
# schema with relative paths, another time zone, locale and
# SOURCE_DATE_EPOCH. Both outputs must be byte for byte the same, contain no
# absolute path of the schema, the output or the working directory, and no
# date or time that the schema (or its file name) does not itself contain.
set -u
if [ $# -ne 4 ]; then
    echo "usage: determinism.sh CDDLGEN SCHEMA PREFIX WORKDIR" >&2
    exit 2
fi
cddlgen=$1 schema=$2 prefix=$3 work=$4
case $cddlgen in /*) ;; *) cddlgen=$(pwd)/$cddlgen ;; esac
case $schema in /*) ;; *) schema=$(pwd)/$schema ;; esac
case $work in /*) ;; *) work=$(pwd)/$work ;; esac
rm -rf "$work" && mkdir -p "$work/a" "$work/b" "$work/src" || exit 2
dir=$(dirname "$schema")
base=$(basename "$schema")
fail=0

(cd / && TZ=UTC LC_ALL=C "$cddlgen" generate "$schema" --prefix "$prefix" --out "$work/a") 2>"$work/a.stderr" ||
    { echo "first generation failed:" >&2; cat "$work/a.stderr" >&2; exit 1; }
cp "$schema" "$work/src/$base" || exit 2
(cd "$work/src" && TZ=Pacific/Kiritimati LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=86400 \
    "$cddlgen" generate "$base" --prefix "$prefix" --out ../b) \
    2>"$work/b.stderr" || { echo "second generation failed:" >&2; cat "$work/b.stderr" >&2; exit 1; }

for f in "$prefix.h" "$prefix.c"; do
    if ! cmp -s "$work/a/$f" "$work/b/$f"; then
        echo "$f differs between two runs:" >&2
        diff -u "$work/a/$f" "$work/b/$f" >&2
        fail=1
    fi
    for path in "$dir" "$work" "$(dirname "$cddlgen")" "${HOME:-/nonexistent-home}"; do
        if grep -F -n -e "$path" "$work/a/$f" >&2; then
            echo "$f contains the absolute path $path (lines above)" >&2
            fail=1
        fi
    done
    # Dates and times: allowed only when the schema text or its name has them.
    grep -o -E '[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?|(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] [0-9]{4}' \
        "$work/a/$f" | sort -u >"$work/stamps"
    while IFS= read -r stamp; do
        if ! grep -F -q -e "$stamp" "$schema" && ! printf '%s' "$base" | grep -F -q -e "$stamp"; then
            echo "$f contains the date or time '$stamp', which the schema does not" >&2
            fail=1
        fi
    done <"$work/stamps"
done
exit $fail
