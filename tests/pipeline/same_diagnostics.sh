#!/bin/sh
# same_diagnostics.sh CDDLGEN WORKDIR SCHEMA... - `cddlgen check` runs every
# stage of `generate` but writing, so for each schema both must print the
# same diagnostics and exit with the same status.
cddlgen=$1 work=$2
shift 2
mkdir -p "$work" || exit 2
n=0 bad=0
for f in "$@"; do
    "$cddlgen" check "$f" >/dev/null 2>"$work/check.err"
    c=$?
    rm -rf "$work/out"
    "$cddlgen" generate "$f" --prefix t --out "$work/out" >/dev/null 2>"$work/generate.err"
    g=$?
    n=$((n + 1))
    if [ "$c" != "$g" ] || ! cmp -s "$work/check.err" "$work/generate.err"; then
        echo "$f: check exits $c, generate $g; diagnostics differ:"
        diff "$work/check.err" "$work/generate.err" | head -20
        bad=$((bad + 1))
    fi
done
echo "$n schemas, $bad with different diagnostics"
[ "$bad" = 0 ] && [ "$n" -gt 0 ]
