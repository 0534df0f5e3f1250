#!/bin/sh
# rules_documented.sh APSTREAM DOC - every rule id a finding can carry (`apstream
# rules`, the one list in tools/apstream/rules.c) is in the table of DOC
# (docs/apstream.md, "Findings"), and the table names no other.
set -u
apstream=$1 doc=$2
scratch=${TMPDIR:-/tmp}/rules-documented.$$
trap 'rm -f "$scratch".*' EXIT
"$apstream" rules | cut -f1 | sort >"$scratch.code" || exit 1
# the first column of the table under "| rule | what it says | where |", up to its end
awk '/^\| rule \| what it says \| where \|$/ { on = 1; next } on && !/^\|/ { exit } on' "$doc" |
    cut -d'|' -f2 | grep -o '`[a-z-]*`' | tr -d '`' | sort >"$scratch.doc"
[ -s "$scratch.code" ] && [ -s "$scratch.doc" ] || { echo "FAIL: no rules read (apstream rules, or the table in $doc)"; exit 1; }
if ! cmp -s "$scratch.code" "$scratch.doc"; then
    echo "FAIL: apstream rules (<) and the table of $doc (>) differ:"
    diff "$scratch.code" "$scratch.doc"
    exit 1
fi
echo "ok   $(wc -l <"$scratch.code") rule ids, each in $doc"
