#!/bin/sh
# connect_serve.sh - `apstream connect` against `apstream serve`, a real
# process on a free port of 127.0.0.1, for each script: over SSE and
# WebSocket, with and without --resume-after, each run on a fresh thread.
#
#   connect_serve.sh APSTREAM MODE SCRIPT...
#
# MODE pass:      every run exits 0 ("N valid, 0 invalid").
# MODE validate:  every run prints exactly what `apstream validate --strict`
#                 prints for the script, with its exit status (a capture
#                 that breaks rules, such as the shared real trace: connect
#                 finds on the wire what validate finds in the file).
# MODE window:    serve keeps 4 events (--window 4): with --resume-after the
#                 probe from before the window must be told of a miss, and
#                 every run exits 0.
# Every wait is bounded: serve gets 10 s to listen, each connect 60 s.
set -u
apstream=$1
mode=$2
shift 2
scratch=$(mktemp -d)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
printf '%s\n' '{"id":1,"method":"run.start","params":{"assistant_id":"agent","input":{}}}' > "$scratch/start.json"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

k=0
for script in "$@"; do
  k=$((k + 1))
  serve_args="--pace 2"
  [ "$mode" = window ] && serve_args="--pace 10 --window 4"
  # a file of its own per server: the previous one's "listening on" must never be read
  out="$scratch/serve.$k.out"
  # shellcheck disable=SC2086
  "$apstream" serve --listen 127.0.0.1:0 --script "$script" $serve_args > "$out" 2> "$scratch/serve.err" &
  serve_pid=$!
  url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^listening on //p' "$out" 2>/dev/null)
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    fail "$script: apstream serve did not start"
    cat "$scratch/serve.err"
    kill "$serve_pid" 2>/dev/null
    wait "$serve_pid" 2>/dev/null
    serve_pid=
    continue
  fi
  if [ "$mode" = validate ]; then
    "$apstream" validate --strict "$script" > "$scratch/expected.out" 2>/dev/null
    expected_rc=$?
  fi
  n=0
  for transport in sse websocket; do
    for resume in "" "--resume-after 3"; do
      n=$((n + 1))
      what="$(basename "$script") --transport $transport $resume"
      # shellcheck disable=SC2086
      timeout 60 "$apstream" connect "$url" --thread "t$n" --start "$scratch/start.json" --transport $transport \
        $resume > "$scratch/connect.out" 2> "$scratch/connect.err"
      rc=$?
      case $mode in
        validate)
          if [ $rc -ne $expected_rc ] || ! cmp -s "$scratch/expected.out" "$scratch/connect.out"; then
            fail "$what: exit $rc (validate: $expected_rc); the report differs from validate --strict's:"
            diff "$scratch/expected.out" "$scratch/connect.out" | head -20
          fi
          ;;
        *)
          if [ $rc -ne 0 ]; then
            fail "$what: exit $rc"
            cat "$scratch/connect.out" "$scratch/connect.err"
          elif [ "$mode" = window ] && [ -n "$resume" ] && ! grep -q "the probe from before the window: a miss of" "$scratch/connect.err"; then
            fail "$what: the probe from before a 4-event window was not told of a miss"
            cat "$scratch/connect.err"
          fi
          ;;
      esac
      echo "$what: exit $rc; $(tail -1 "$scratch/connect.err")"
    done
  done
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null
  serve_pid=
done
[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
