#!/bin/sh
# zcbor.sh - zcbor's test schemas through cddlgen's front end (parse and
# sema: `check --syntax-only`), read in zcbor's dialect (docs/cddl.md,
# "zcbor's dialect"): each listed schema gives no error, and --strict
# refuses the dialect; then every stage of generate --cbor (`check --cbor`)
# for all but manifest-moran4. The manifests that
# refer to COSE's rules are read after cose.cddl, as zcbor's tests pass both.
# Not listed, said in docs/cddl.md: corner_cases.cddl (UTF-8 names, \U
# escapes, `2**3Level3`, `//` at rule level), manifest9.cddl (names it never
# defines: zcbor reads only what its entry types reach), unordered_map.cddl
# (a control operator on a group).
#
#   zcbor.sh CDDLGEN ZCBOR_DIR
set -u
cddlgen=$1 dir=$2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
for name in cose everything manifest-moran3 manifest-moran4 manifest12 manifest14 manifest16 manifest2 \
            manifest20 manifest3 manifest9_simple map_bstr optional pet senml serial_recovery \
            serial_recovery_encode yaml_compatibility; do
    file=$dir/$name.cddl
    case $name in
    manifest14|manifest16|manifest20)
        cat "$dir/cose.cddl" "$file" >"$tmp/$name.cddl" || exit 2
        file=$tmp/$name.cddl ;;
    esac
    if ! "$cddlgen" check --syntax-only -Wno-loose -fmax-errors=0 "$file" >"$tmp/out" 2>&1; then
        echo "FAIL $name.cddl:" >&2
        cat "$tmp/out" >&2
        fail=1
    fi
    # and every stage of `generate --cbor` (docs/cbor.md), but for moran4's labelled member groups
    # in a map
    [ "$name" = manifest-moran4 ] && continue
    if ! "$cddlgen" check --cbor -Wno-loose -Wno-json -Wno-choice -Wno-naming -Wno-pedantic -Wno-shadow \
            -fmax-errors=0 "$file" >"$tmp/out" 2>&1; then
        echo "FAIL $name.cddl with --cbor:" >&2
        cat "$tmp/out" >&2
        fail=1
    fi
done
# the dialect is a loose reading: --strict refuses it
if "$cddlgen" check --syntax-only --strict "$dir/everything.cddl" >/dev/null 2>&1; then
    echo "FAIL everything.cddl passes --strict" >&2
    fail=1
fi
exit $fail
