#!/bin/sh
# validate.sh CDDLGEN SCHEMA RULE valid|invalid FILE.jsonl
# valid: `cddlgen validate` must accept every line of FILE (exit 0).
# invalid: it must reject every line: its summary says "0 valid, N invalid"
# with N the number of lines, and it exits 1.
set -u
cddlgen=$1 schema=$2 rule=$3 want=$4 file=$5
out=$("$cddlgen" validate "$schema" --type "$rule" -Wno-loose -Wno-choice "$file" 2>&1)
status=$?
lines=$(grep -c . "$file")
summary=$(printf '%s\n' "$out" | tail -n 1)
case $want in
valid) expect="$lines valid, 0 invalid" expect_status=0 ;;
invalid) expect="0 valid, $lines invalid" expect_status=1 ;;
*) echo "validate.sh: valid or invalid, not '$want'" >&2; exit 2 ;;
esac
if [ "$status" -ne "$expect_status" ] || [ "$summary" != "$expect" ]; then
    printf '%s\n' "$out" | grep -v '^ ' >&2
    echo "expected '$expect' and exit status $expect_status; got '$summary', status $status" >&2
    exit 1
fi
echo "$file: $summary"
