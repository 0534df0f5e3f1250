#!/bin/sh
# captures.sh - the reference server's recorded captures against its shipped
# baseline (ctest interop-reference-captures): `apstream validate --strict`
# finds in them exactly the baseline's findings that a capture can show (the
# schema's), and with the baseline it passes.
#
#   sh captures.sh APSTREAM BASELINE CAPTURE...
set -u
apstream=$1 baseline=$2
shift 2
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
keys() { grep -o '^{"rule":"[^"]*","method":"[^"]*","pointer":"[^"]*"' "$@" | sed 's/^[^{]*{//' | sort -u; }
status=0
for capture in "$@"; do
    name=$(basename "$capture")
    if ! "$apstream" validate --strict --baseline "$baseline" "$capture" >"$scratch/out" 2>&1; then
        echo "FAIL $name: validate --strict --baseline exits non-zero:"; cat "$scratch/out"; status=1
    fi
    "$apstream" validate --strict --write-baseline "$scratch/$name.jsonl" "$capture" >/dev/null 2>&1
    [ $? -eq 1 ] || { echo "FAIL $name: validate --strict without the baseline does not exit 1"; status=1; }
done
keys "$scratch"/*.jsonl >"$scratch/found"
grep '^{"rule":"schema"' "$baseline" | keys >"$scratch/expected"
if cmp -s "$scratch/found" "$scratch/expected"; then
    echo "ok   the captures' findings are the baseline's schema entries: $(wc -l <"$scratch/found") kinds"
else
    echo "FAIL the captures' findings differ from the baseline's schema entries (found, then expected):"
    cat "$scratch/found"; echo ---; cat "$scratch/expected"; status=1
fi
exit $status
