#!/bin/sh
# usestream.sh - runs usestream.mjs (ctest interop-usestream-*: the useStream
# page in headless Chromium) with the arguments, after checking that node and
# chromium are there (CHROMIUM names another command). Without them it is
# skipped (exit 77) with a one-line reason, unless CDDLGEN_REQUIRE_OPTIONAL=1,
# as in CI: then it fails, so that CI cannot pass by skipping.
set -u
chromium=${CHROMIUM:-chromium}

. "$(dirname "$0")/../../optional.sh"

command -v node >/dev/null 2>&1 || unavailable interop-usestream "node is not installed"
command -v "$chromium" >/dev/null 2>&1 || unavailable interop-usestream "$chromium is not installed (apt-get install -y chromium)"

exec node "$(dirname "$0")/usestream.mjs" --chromium "$chromium" "$@"
