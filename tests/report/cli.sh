#!/bin/sh
# cli.sh - `apstream report` as a gate (ctest report-cli): it exits as
# validate does on the same capture, prints validate's findings on standard
# error, writes one page (to -o FILE, or standard output) that holds its
# data in JSON script elements and loads nothing from the network, and
# refuses what it cannot do with exit status 2.
#
#   cli.sh APSTREAM CAPTURE...
set -u
bin=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

for c in "$@"; do
    "$bin" validate --strict "$c" >"$tmp/v.out" 2>"$tmp/v.err"
    v=$?
    "$bin" report --strict "$c" -o "$tmp/page.html" >"$tmp/r.out" 2>"$tmp/r.err"
    r=$?
    [ "$v" = "$r" ] || fail "$c: report exits $r, validate $v"
    [ -s "$tmp/r.out" ] && fail "$c: report with -o wrote on standard output"
    # validate's report lines are report's standard error, in the same order
    grep -E '^[0-9]+: (error|warning):' "$tmp/v.out" >"$tmp/v.lines"
    grep -E '^[0-9]+: (error|warning):' "$tmp/r.err" >"$tmp/r.lines"
    cmp -s "$tmp/v.lines" "$tmp/r.lines" || fail "$c: report's findings are not validate's"
    [ "$(grep -c '<script' "$tmp/page.html")" = 3 ] || fail "$c: the page has not exactly its three script elements"
    grep -q 'id="aps-events">\[' "$tmp/page.html" || fail "$c: no events element"
    grep -Eq '(src|href)="(https?:)?//' "$tmp/page.html" && fail "$c: the page loads something from the network"
    "$bin" report "$c" >"$tmp/stdout.html" 2>/dev/null
    grep -q '</html>' "$tmp/stdout.html" || fail "$c: no page on standard output without -o"
done

"$bin" report "$1" -o "$tmp/no/such/dir/page.html" 2>/dev/null
[ $? = 2 ] || fail "an -o that cannot be written: not exit 2"
"$bin" validate -o "$tmp/x.html" "$1" 2>/dev/null
[ $? = 2 ] || fail "-o given to validate: not exit 2"
"$bin" report --output json "$1" 2>/dev/null >/dev/null
[ $? = 2 ] || fail "--output json given to report: not exit 2"

[ "$fails" = 0 ] && echo "report-cli: $# captures: report exits and reports as validate; pass"
[ "$fails" = 0 ]
