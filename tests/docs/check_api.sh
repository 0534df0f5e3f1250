#!/bin/sh
# check_api.sh SOURCE_DIR NM LIBRARY...
#
# The API reference is complete and current:
#   - docs/api.md is what tools/docs/api_md.sh writes from today's headers;
#   - every function a public header declares has a comment documenting it;
#   - every function the LIBRARIES export (nm: global text symbols; the
#     installed libraries are built with their APS_INTERNAL helpers made
#     local) is declared in a public header, so it is in the reference.
set -u
src=$1 nm=$2
shift 2
failed=0
tmp=${TMPDIR:-/tmp}/check_api.$$
trap 'rm -f "$tmp".*' EXIT

sh "$src/tools/docs/api_md.sh" "$src" >"$tmp.md" || { echo "FAIL api_md.sh failed"; exit 1; }
if ! cmp -s "$tmp.md" "$src/docs/api.md"; then
    echo "FAIL docs/api.md is stale: regenerate it with"
    echo "    sh tools/docs/api_md.sh . > docs/api.md"
    diff -u "$src/docs/api.md" "$tmp.md" | head -40 | sed 's/^/    /'
    failed=1
fi

sh "$src/tools/docs/api_md.sh" --list "$src" >"$tmp.list" || { echo "FAIL api_md.sh --list failed"; exit 1; }
undocumented=$(awk -F '\t' '$2 == 0 { print "    " $1 " (" $3 ")" }' "$tmp.list")
if [ -n "$undocumented" ]; then
    echo "FAIL functions without a comment in their header:"
    echo "$undocumented"
    failed=1
fi

cut -f 1 "$tmp.list" | sort -u >"$tmp.names"
: >"$tmp.exported"
for lib in "$@"; do
    "$nm" -g --defined-only "$lib" | awk -v lib="$(basename "$lib")" 'NF == 3 && $2 == "T" { print $3 "\t" lib }' >>"$tmp.exported" ||
        { echo "FAIL nm $lib"; failed=1; }
done
sort -u -o "$tmp.exported" "$tmp.exported"
missing=$(awk -F '\t' 'NR == FNR { known[$1] = 1; next } !($1 in known) { print "    " $1 " (" $2 ")" }' "$tmp.names" "$tmp.exported")
if [ -n "$missing" ]; then
    echo "FAIL exported functions that no public header declares, so the reference lacks them:"
    echo "$missing"
    failed=1
fi
n_exported=$(wc -l <"$tmp.exported")
n_listed=$(wc -l <"$tmp.names")
[ "$n_exported" -gt 0 ] || { echo "FAIL no exported function found in: $*"; failed=1; }
echo "$n_listed functions in the reference; $n_exported exported by $# libraries"
[ "$failed" = 0 ]
