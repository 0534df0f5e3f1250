#!/bin/sh
# chat.sh - examples/chat.c, built against the installed package
# (example-build), talks to `apstream serve` playing a script whose run
# stops at an interrupt: the answer comes from standard input. The tokens
# it prints must be the text of the script's messages, the interrupt's
# question must be shown, and the run must complete (exit 0).
#
#   chat.sh APSTREAM CHAT SCRIPT
set -u
apstream=$1
chat=$2
script=$3
if [ ! -x "$chat" ]; then
  echo "example-chat: $chat was not built (the installed cddlgen has no client component)"
  [ "${CDDLGEN_REQUIRE_OPTIONAL:-}" = 1 ] && exit 1
  exit 77
fi
scratch=$(mktemp -d)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
"$apstream" serve --listen 127.0.0.1:0 --script "$script" --pace 1 > "$scratch/serve.out" 2> "$scratch/serve.err" &
serve_pid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^listening on //p' "$scratch/serve.out" 2>/dev/null)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: apstream serve did not start"; cat "$scratch/serve.err"; exit 1; }
echo yes | timeout 30 "$chat" "$url" agent "Plan a day in Lyon" > "$scratch/chat.out" 2> "$scratch/chat.err"
rc=$?
cat "$scratch/chat.out"
failures=0
[ $rc -eq 0 ] || { echo "FAIL: chat exited $rc"; cat "$scratch/chat.err"; failures=1; }
# every text a content-block-finish of the script holds was printed token by token
"$apstream" assemble "$script" 2>/dev/null | sed -n 's/.*"type":"text","text":"\([^"]*\)".*/\1/p' > "$scratch/texts"
[ -s "$scratch/texts" ] || { echo "FAIL: the script has no text to compare with"; failures=1; }
while IFS= read -r text; do
  grep -qF "$text" "$scratch/chat.out" || { echo "FAIL: chat did not print: $text"; failures=1; }
done < "$scratch/texts"
grep -q '^\[interrupt\] ' "$scratch/chat.out" || { echo "FAIL: chat showed no interrupt"; failures=1; }
exit $failures
