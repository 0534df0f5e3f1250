#!/bin/sh
# connect.sh - `apstream connect --report FILE` (ctest report-connect): the
# page of a live check of `apstream serve` playing SCRIPT is written, says
# connect's verdict, and holds every finding connect printed.
#
#   connect.sh APSTREAM SCRIPT
set -u
bin=$1 script=$2
tmp=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" serve --listen 127.0.0.1:0 --pace 0 --script "$script" >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
i=0
while ! grep -q 'listening on' "$tmp/serve.out" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt 100 ] && { echo "FAIL apstream serve did not start"; cat "$tmp/serve.err"; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$tmp/serve.out" | head -n 1)
printf '%s\n' '{"id":1,"method":"run.start","params":{"assistant_id":"agent","input":{}}}' >"$tmp/start.json"
timeout 60 "$bin" connect "$url" --thread t1 --start "$tmp/start.json" --max-errors 0 --report "$tmp/page.html" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
[ -s "$tmp/page.html" ] || fail "no page written (exit $rc)"
grep -q "\"command\":\"connect\",\"name\":\"http://127.0.0.1:[0-9]*/* thread t1\",\"exit\":$rc," "$tmp/page.html" ||
    fail "the page does not say connect's exit status $rc"
printed=$(grep -cE '^[0-9]+: (error|warning):' "$tmp/out")
# the findings are the only objects of the page with a severity
onpage=$(sed -n 's/.*id="aps-summary">//p' "$tmp/page.html" | grep -o '"severity":' | wc -l)
[ "$onpage" -ge "$printed" ] || fail "the page has $onpage findings, connect printed $printed on events"
[ "$fails" = 0 ] && echo "report-connect: exit $rc, $printed findings on events, $onpage on the page: pass"
[ "$fails" = 0 ]
