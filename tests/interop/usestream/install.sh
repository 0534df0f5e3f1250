#!/bin/sh
# install.sh - installs the packages of the useStream page (react, react-dom,
# @langchain/langgraph-sdk with its peer @langchain/core, and esbuild, which
# bundles app.jsx at test time; pinned by package.json and package-lock.json
# beside this script) into DIR, a folder of the build tree, with `npm ci`.
# It installs again only when the lock file differs from the one DIR was
# installed from.
#
#   install.sh DIR
#
# No install script runs: esbuild's only checks its binary, which npm puts
# in place as the optional package of this platform (@esbuild/linux-x64 on
# CI), and which esbuild's API finds itself.
#
# Without node or npm, or when npm fails, it is skipped (exit 77) with a
# one-line reason, unless CDDLGEN_REQUIRE_OPTIONAL=1, as in CI: then it
# fails (exit 1), so that CI cannot pass by skipping.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: install.sh DIR}

. "$(dirname "$0")/../../optional.sh"

command -v node >/dev/null 2>&1 || unavailable interop-usestream "node is not installed"
command -v npm >/dev/null 2>&1 || unavailable interop-usestream "npm is not installed"

stamp=$dir/installed-package-lock.json
if cmp -s "$here/package-lock.json" "$stamp" && [ -d "$dir/node_modules/@langchain/langgraph-sdk" ]; then
    echo "interop-usestream: up to date in $dir"
    exit 0
fi
echo "interop-usestream: installing react, @langchain/langgraph-sdk and esbuild into $dir"
mkdir -p "$dir" || exit 1
rm -f "$stamp"
cp "$here/package.json" "$here/package-lock.json" "$dir/" || exit 1
start=$(date +%s)
if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$dir/npm-install.log" 2>&1; then
    cat "$dir/npm-install.log"
    unavailable interop-usestream "npm could not install the page's packages (log above)"
fi
cp "$here/package-lock.json" "$stamp" || exit 1
echo "interop-usestream: installed in $(( $(date +%s) - start )) s, $(du -sh "$dir/node_modules" | cut -f1)"
