#!/bin/sh
# page.sh - runs page.mjs (ctest report-*: the page of `apstream report` in
# headless Chromium), or live.mjs when the first argument is --live (ctest
# report-inspect: /inspect of `apstream serve`), with the arguments, after
# checking that node and chromium are there (CHROMIUM names another command). Without them it is
# skipped (exit 77) with a one-line reason, unless CDDLGEN_REQUIRE_OPTIONAL=1,
# as in CI: then it fails, so that CI cannot pass by skipping.
set -u
chromium=${CHROMIUM:-chromium}

. "$(dirname "$0")/../optional.sh"

command -v node >/dev/null 2>&1 || unavailable report-page "node is not installed"
command -v "$chromium" >/dev/null 2>&1 || unavailable report-page "$chromium is not installed (apt-get install -y chromium)"

# --live: live.mjs (ctest report-inspect) instead of page.mjs
mjs=page.mjs
if [ "${1:-}" = --live ]; then
    mjs=live.mjs
    shift
fi
exec node "$(dirname "$0")/$mjs" --chromium "$chromium" "$@"
