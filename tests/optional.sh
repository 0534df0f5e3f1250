# optional.sh - sourced by the test scripts that need an optional tool (node,
# npm, chromium). `unavailable WHO REASON` skips the test (exit 77) with a
# one-line reason, unless CDDLGEN_REQUIRE_OPTIONAL=1, as in CI: then it fails
# (exit 1), so that CI cannot pass by skipping.
unavailable() {
    if [ "${CDDLGEN_REQUIRE_OPTIONAL:-0}" = 1 ]; then
        echo "$1: error: $2 (CDDLGEN_REQUIRE_OPTIONAL=1)"
        exit 1
    fi
    echo "$1: skipped: $2"
    exit 77
}
