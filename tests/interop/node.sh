#!/bin/sh
# node.sh SCRIPT [ARG...] - runs a node script of the interop tests, or
# skips (exit 77) with a one-line reason when node is not installed; with
# CDDLGEN_REQUIRE_OPTIONAL=1, as in CI, it fails instead.
if ! command -v node >/dev/null 2>&1; then
    echo "interop: skipped: node is not installed"
    [ "${CDDLGEN_REQUIRE_OPTIONAL:-0}" = 1 ] && exit 1
    exit 77
fi
exec node "$@"
