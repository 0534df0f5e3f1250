#!/bin/sh
# cbor2_diff.sh CBOR-TOOL - runs cbor2_diff.py with Debian's python3, whose
# python3-cbor2 is the oracle; skips (fails in CI) when either is missing.
here=$(dirname "$0")
. "$here/../optional.sh"
python=/usr/bin/python3
[ -x "$python" ] || unavailable cbor2-diff "no /usr/bin/python3 (Debian's python3, where python3-cbor2 installs)"
"$python" -c "import cbor2" 2>/dev/null || unavailable cbor2-diff "python3-cbor2 is not installed"
exec "$python" "$here/cbor2_diff.py" "$1"
