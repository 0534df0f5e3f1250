#!/bin/sh
# validate_sse.sh CDDLGEN SCHEMA RULE FILE.sse
# Every event of the SSE capture FILE (one per `data:` line) must validate
# against RULE: `cddlgen validate --input sse` says "N valid, 0 invalid"
# with N the number of data lines, and exits 0.
set -u
cddlgen=$1 schema=$2 rule=$3 file=$4
out=$("$cddlgen" validate "$schema" --type "$rule" --input sse "$file" 2>&1)
status=$?
events=$(grep -c '^data:' "$file")
summary=$(printf '%s\n' "$out" | tail -n 1)
if [ "$status" -ne 0 ] || [ "$summary" != "$events valid, 0 invalid" ]; then
    printf '%s\n' "$out" >&2
    echo "expected '$events valid, 0 invalid' and exit status 0; got '$summary', status $status" >&2
    exit 1
fi
echo "$file: $summary"
