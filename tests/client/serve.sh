#!/bin/sh
# serve.sh - the thread client (client_run, on ap_client.h) against
# `apstream serve`, a real process on a free port of 127.0.0.1, for each
# script: over SSE and WebSocket, then with the server dropping every event
# stream after 3 events of progress (--drop-after 3), resumed by
# sinceEventId and by Last-Event-ID over SSE and by subscription.reconnect
# over WebSocket. Each run is on a fresh thread, its interrupts answered;
# what the callbacks deliver must be exactly `apstream assemble` of the
# script: every message and tool run once, none missing, none doubled. And
# with a filter (channels; the root namespace down to one level), what
# assemble gives that the filter lets through.
#
#   serve.sh APSTREAM CLIENT_RUN SCRIPT...
#
# Every wait is bounded: serve gets 10 s to listen, each run 60 s.
set -u
apstream=$1
client=$2
shift 2
scratch=$(mktemp -d)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

failures=0
runs=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

start_serve() { # SCRIPT K ARGS...: sets url, or fails
  script=$1
  k=$2
  shift 2
  out="$scratch/serve.$k.out"
  "$apstream" serve --listen 127.0.0.1:0 --script "$script" --pace 1 "$@" > "$out" 2> "$scratch/serve.$k.err" &
  serve_pid=$!
  url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^listening on //p' "$out" 2>/dev/null)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  fail "$script: apstream serve did not start"
  cat "$scratch/serve.$k.err"
  stop_serve
  return 1
}
stop_serve() {
  kill "$serve_pid" 2>/dev/null
  wait "$serve_pid" 2>/dev/null
  serve_pid=
}

k=0
for script in "$@"; do
  name=$(basename "$script")
  "$apstream" assemble "$script" > "$scratch/expected" 2>/dev/null
  if [ ! -s "$scratch/expected" ]; then
    fail "$name: apstream assemble gave nothing to compare with"
    continue
  fi
  for drop in "" "--drop-after 3"; do
    k=$((k + 1))
    # shellcheck disable=SC2086
    start_serve "$script" "$k" $drop || continue
    n=0
    for way in "sse" "websocket" "sse last-event-id"; do
      [ -z "$drop" ] && [ "$way" = "sse last-event-id" ] && continue
      n=$((n + 1))
      runs=$((runs + 1))
      what="$name ${drop:-(no drops)} $way"
      # shellcheck disable=SC2086
      timeout 60 "$client" "$url" "t$n" $way > "$scratch/got" 2> "$scratch/err"
      rc=$?
      if [ $rc -ne 0 ]; then
        fail "$what: client_run exited $rc"
        tail -5 "$scratch/err"
      elif ! cmp -s "$scratch/expected" "$scratch/got"; then
        fail "$what: the callbacks' messages differ from apstream assemble's:"
        diff "$scratch/expected" "$scratch/got" | head -10
      elif [ -n "$drop" ] && ! grep -q "resuming" "$scratch/err"; then
        fail "$what: the server dropped nothing: the resume was not tested"
      fi
      tail -1 "$scratch/err" | sed "s|^|$what: |"
    done
    if [ -z "$drop" ]; then
      # a filtered subscription: channels, then the root namespace down to one level
      for filter in "--channels lifecycle,messages,input" "--depth 1"; do
        n=$((n + 1))
        runs=$((runs + 1))
        case $filter in
          --channels*) grep '"kind":"message"' "$scratch/expected" > "$scratch/want" ;;
          *) grep -E '"namespace":\[("[^"]*")?\]' "$scratch/expected" > "$scratch/want" ;;
        esac
        # shellcheck disable=SC2086
        timeout 60 "$client" "$url" "t$n" sse $filter > "$scratch/got" 2> "$scratch/err"
        rc=$?
        if [ $rc -ne 0 ]; then
          fail "$name sse $filter: client_run exited $rc"
          tail -5 "$scratch/err"
        elif ! cmp -s "$scratch/want" "$scratch/got"; then
          fail "$name sse $filter: the callbacks' messages differ from apstream assemble's, filtered alike:"
          diff "$scratch/want" "$scratch/got" | head -10
        fi
      done
    fi
    stop_serve
  done
done
echo "$runs runs, $failures failed"
[ "$failures" -eq 0 ] && [ "$runs" -gt 0 ]
