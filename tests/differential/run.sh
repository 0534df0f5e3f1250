#!/bin/sh
# run.sh - a differential test against the reference client: installs
# @langchain/langgraph-sdk at the pinned version into the build tree the
# first time (npm, kept for later runs), then runs SCRIPT (compare.mjs:
# message assembly; subscription.mjs: subscriptions) with --sdk SDK_DIR and
# the other arguments.
#
#   run.sh SDK_DIR SCRIPT [ARG...]
#
# Without node or npm it is skipped (exit 77) with a one-line reason, unless
# CDDLGEN_REQUIRE_OPTIONAL=1, as in CI: then it fails, so that CI cannot pass
# by skipping.
set -u
version=1.15.0
# The SDK's peer @langchain/core is pinned too, so that every run compares
# against the same code (npm would otherwise take the newest ^1.3.2).
core_version=1.4.0
# ws: node 20 has no global WebSocket; the interop tests give the SDK this one.
ws_version=8.23.0
sdk=$1 script=$2
shift 2

. "$(dirname "$0")/../optional.sh"

command -v node >/dev/null 2>&1 || unavailable differential "node is not installed"
command -v npm >/dev/null 2>&1 || unavailable differential "npm is not installed"

installed=$sdk/node_modules/@langchain/langgraph-sdk/package.json
installed_core=$sdk/node_modules/@langchain/core/package.json
installed_ws=$sdk/node_modules/ws/package.json
if ! grep -q "\"version\": \"$version\"" "$installed" 2>/dev/null ||
   ! grep -q "\"version\": \"$core_version\"" "$installed_core" 2>/dev/null ||
   ! grep -q "\"version\": \"$ws_version\"" "$installed_ws" 2>/dev/null; then
    echo "differential: installing @langchain/langgraph-sdk@$version into $sdk"
    mkdir -p "$sdk" || exit 1
    if ! npm install --prefix "$sdk" --no-audit --no-fund --loglevel=error \
        "@langchain/langgraph-sdk@$version" "@langchain/core@$core_version" "ws@$ws_version" \
        >"$sdk/npm-install.log" 2>&1; then
        cat "$sdk/npm-install.log"
        unavailable differential "npm could not install @langchain/langgraph-sdk@$version (log above)"
    fi
fi

exec node "$(dirname "$0")/$script" --sdk "$sdk" "$@"
