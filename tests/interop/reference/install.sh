#!/bin/sh
# install.sh - installs the reference server (@langchain/langgraph-api and
# the packages its graphs import, pinned by package.json and
# package-lock.json beside this script) into DIR, a folder of the build
# tree, with `npm ci`. It installs again only when the lock file differs
# from the one DIR was installed from.
#
#   install.sh DIR
#
# Peers the server does not need here (typescript: TypeScript graphs and
# schema extraction; ts-node) and optional packages (platform binaries of
# the Studio UI's bundlers) are left out, and no install script runs.
#
# Without node or npm, or when npm fails, it is skipped (exit 77) with a
# one-line reason, unless CDDLGEN_REQUIRE_OPTIONAL=1, as in CI: then it
# fails (exit 1), so that CI cannot pass by skipping.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: install.sh DIR}

. "$(dirname "$0")/../../optional.sh"

command -v node >/dev/null 2>&1 || unavailable interop-reference "node is not installed"
command -v npm >/dev/null 2>&1 || unavailable interop-reference "npm is not installed"

stamp=$dir/installed-package-lock.json
if cmp -s "$here/package-lock.json" "$stamp" && [ -d "$dir/node_modules/@langchain/langgraph-api" ]; then
    echo "interop-reference: up to date in $dir"
    exit 0
fi
echo "interop-reference: installing @langchain/langgraph-api into $dir"
mkdir -p "$dir" || exit 1
rm -f "$stamp"
cp "$here/package.json" "$here/package-lock.json" "$dir/" || exit 1
start=$(date +%s)
if ! (cd "$dir" && npm ci --omit=peer --omit=optional --ignore-scripts --no-audit --no-fund \
        --loglevel=error) >"$dir/npm-install.log" 2>&1; then
    cat "$dir/npm-install.log"
    unavailable interop-reference "npm could not install @langchain/langgraph-api (log above)"
fi
cp "$here/package-lock.json" "$stamp" || exit 1
echo "interop-reference: installed in $(( $(date +%s) - start )) s, $(du -sh "$dir/node_modules" | cut -f1)"
