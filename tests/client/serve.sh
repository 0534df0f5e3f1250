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
#
# The scripts are tested at once, each by a background job with its own
# servers (free ports), scratch folder and log, the logs printed in the
# scripts' order at the end: most of a run is waiting on the network
# loops, and one script after another took 20 s.
set -u
apstream=$1
client=$2
shift 2
scratch=$(mktemp -d)
jobs_pids=
cleanup() {
  for pid in $jobs_pids; do kill "$pid" 2>/dev/null; done
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

# In each job (a subshell): its serve, its counts, its scratch folder $dir.
serve_pid=
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
  out="$dir/serve.$k.out"
  "$apstream" serve --listen 127.0.0.1:0 --script "$script" --pace 1 "$@" > "$out" 2> "$dir/serve.$k.err" &
  serve_pid=$!
  url=
  for _ in $(seq 100); do
    url=$(sed -n 's/^listening on //p' "$out" 2>/dev/null)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  fail "$script: apstream serve did not start"
  cat "$dir/serve.$k.err"
  stop_serve
  return 1
}
stop_serve() {
  [ -n "$serve_pid" ] || return 0
  kill "$serve_pid" 2>/dev/null
  wait "$serve_pid" 2>/dev/null
  serve_pid=
}

# test_script SCRIPT: every check of one script, in the job's folder $dir;
# its last line is "RUNS FAILURES", read back by the parent.
test_script() {
  script=$1
  trap 'stop_serve' EXIT
  trap 'stop_serve; exit 1' INT TERM
  k=0
  name=$(basename "$script")
  "$apstream" assemble "$script" > "$dir/expected" 2>/dev/null
  if [ ! -s "$dir/expected" ]; then
    fail "$name: apstream assemble gave nothing to compare with"
    echo "$runs $failures"
    return
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
      timeout 60 "$client" "$url" "t$n" $way > "$dir/got" 2> "$dir/err"
      rc=$?
      if [ $rc -ne 0 ]; then
        fail "$what: client_run exited $rc"
        tail -5 "$dir/err"
      elif ! cmp -s "$dir/expected" "$dir/got"; then
        fail "$what: the callbacks' messages differ from apstream assemble's:"
        diff "$dir/expected" "$dir/got" | head -10
      elif [ -n "$drop" ] && ! grep -q "resuming" "$dir/err"; then
        fail "$what: the server dropped nothing: the resume was not tested"
      fi
      tail -1 "$dir/err" | sed "s|^|$what: |"
    done
    if [ -z "$drop" ]; then
      # a filtered subscription: channels, then the root namespace down to one level
      for filter in "--channels lifecycle,messages,input" "--depth 1"; do
        n=$((n + 1))
        runs=$((runs + 1))
        case $filter in
          --channels*) grep '"kind":"message"' "$dir/expected" > "$dir/want" ;;
          *) grep -E '"namespace":\[("[^"]*")?\]' "$dir/expected" > "$dir/want" ;;
        esac
        # shellcheck disable=SC2086
        timeout 60 "$client" "$url" "t$n" sse $filter > "$dir/got" 2> "$dir/err"
        rc=$?
        if [ $rc -ne 0 ]; then
          fail "$name sse $filter: client_run exited $rc"
          tail -5 "$dir/err"
        elif ! cmp -s "$dir/want" "$dir/got"; then
          fail "$name sse $filter: the callbacks' messages differ from apstream assemble's, filtered alike:"
          diff "$dir/want" "$dir/got" | head -10
        fi
      done
    fi
    stop_serve
  done
  echo "$runs $failures"
}

j=0
for script in "$@"; do
  j=$((j + 1))
  dir="$scratch/$j"
  mkdir -p "$dir"
  (test_script "$script") > "$dir/log" 2>&1 &
  jobs_pids="$jobs_pids $!"
done
total_runs=0
total_failures=0
j=0
for pid in $jobs_pids; do
  j=$((j + 1))
  wait "$pid"
  # all but the counts line, then the counts; a job that died before it is a failure
  sed '$d' "$scratch/$j/log"
  set -- $(tail -1 "$scratch/$j/log")
  if [ $# -eq 2 ] && [ "$1" -ge 0 ] 2>/dev/null && [ "$2" -ge 0 ] 2>/dev/null; then
    total_runs=$((total_runs + $1))
    total_failures=$((total_failures + $2))
  else
    echo "FAIL: job $j ended without its counts (its last line: $*)"
    total_failures=$((total_failures + 1))
  fi
done
jobs_pids=
echo "$total_runs runs, $total_failures failed"
[ "$total_failures" -eq 0 ] && [ "$total_runs" -gt 0 ]
