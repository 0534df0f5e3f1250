#!/bin/sh
# cbor2.sh SCRIPT ARGS... - runs one of this folder's Python differentials
# (cbor2_diff.py, cbor2_schema.py) with Debian's python3, whose
# python3-cbor2 is the oracle; skips (fails in CI) when either is missing.
here=$(dirname "$0")
. "$here/../optional.sh"
script=$1
shift
python=/usr/bin/python3
[ -x "$python" ] || unavailable "$script" "no /usr/bin/python3 (Debian's python3, where python3-cbor2 installs)"
"$python" -c "import cbor2" 2>/dev/null || unavailable "$script" "python3-cbor2 is not installed"
exec "$python" "$here/$script" "$@"
