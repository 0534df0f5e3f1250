#!/bin/sh
# browser.sh - runs browser.mjs (interop-browser: headless Chromium against
# `apstream serve` from another origin) with the arguments, after checking
# that node and chromium are there (CHROMIUM names another command).
#
#   browser.sh --apstream BIN SCRIPT...
#
# Without them it is skipped (exit 77) with a one-line reason, unless
# CDDLGEN_REQUIRE_OPTIONAL=1, as in CI: then it fails, so that CI cannot pass
# by skipping.
set -u
chromium=${CHROMIUM:-chromium}

. "$(dirname "$0")/../optional.sh"

command -v node >/dev/null 2>&1 || unavailable interop-browser "node is not installed"
command -v "$chromium" >/dev/null 2>&1 || unavailable interop-browser "$chromium is not installed (apt-get install -y chromium)"

exec node "$(dirname "$0")/browser.mjs" --chromium "$chromium" "$@"
