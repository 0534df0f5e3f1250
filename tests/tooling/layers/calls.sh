#!/bin/sh
# calls.sh: the runtime's layers call one way, checked on the built objects.
#
#   calls.sh CORE.a SCHEMA.a FRAMING.a PROTOCOL.a      (lowest layer first)
#
# Two rules, both read from `nm -A -P` of the layer libraries:
#
#  1. Inside a layer, no call cycle between files. Each library gives a graph
#     "object A uses a symbol that object B defines"; tsort orders it, and a
#     loop it reports is a cycle. Files that call each other in a circle can
#     only be understood, tested and split together, so a layer's files must
#     form a chain from its entry points down to its shared helpers.
#  2. A lower layer never uses a symbol that only a higher layer defines:
#     the layers link in one direction, and a call upwards would make the
#     lower library unusable without the higher one.
#
# The symbols are the objects' external ones, so the check sees calls and
# uses of data across files, not calls inside a file (static functions).
# Exits 0 when both rules hold, 1 with one line per broken rule otherwise,
# 2 on bad usage. POSIX sh, nm, awk and tsort only.
set -u

me=${0##*/}
if [ $# -lt 1 ]; then
  echo "usage: $me LOWEST.a ... HIGHEST.a" >&2
  exit 2
fi
for lib in "$@"; do
  if [ ! -r "$lib" ]; then
    echo "$me: cannot read $lib" >&2
    exit 2
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/calls.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM

# One table for all layers: "layer library object D|U symbol", one line per
# external symbol an object defines or uses. A symbol is defined by an
# upper-case type other than U (lower case is local to its object); U, and
# the weak w and v without a value, are uses.
layer=0
for lib in "$@"; do
  layer=$((layer + 1))
  nm -A -P "$lib" 2>"$tmp/nm.err" >"$tmp/nm.out" || {
    echo "$me: nm failed on $lib:" >&2
    cat "$tmp/nm.err" >&2
    exit 2
  }
  awk -v layer="$layer" -v lib="${lib##*/}" '
    NF >= 3 {
      obj = $1
      sub(/^.*\[/, "", obj); sub(/\]:$/, "", obj); sub(/:$/, "", obj)
      sub(/^.*\//, "", obj)
      type = $3
      if (type == "U" || ((type == "w" || type == "v") && NF == 3))
        print layer, lib, obj, "U", $2
      else if (type ~ /^[A-TV-Z]$/)
        print layer, lib, obj, "D", $2
    }' "$tmp/nm.out" >>"$tmp/syms"
done

status=0

# Rule 2: a use in layer L that no library at or below L defines, but one
# above it does. The first pass finds, per symbol, the lowest layer that
# defines it and where.
awk '
  NR == FNR {
    if ($4 == "D" && (!($5 in low) || $1 < low[$5])) { low[$5] = $1; at[$5] = $2 "(" $3 ")" }
    next
  }
  $4 == "U" && ($5 in low) && low[$5] > $1 {
    printf "  %s(%s) uses %s, defined only in the higher %s\n", $2, $3, $5, at[$5]
  }' "$tmp/syms" "$tmp/syms" >"$tmp/upward"
if [ -s "$tmp/upward" ]; then
  echo "$me: a lower layer uses a higher one (the libraries are given lowest first):"
  cat "$tmp/upward"
  status=1
fi

# Rule 1: per library, the object graph through tsort. Each object is also
# paired with itself so that one with no edges is still a node. For the
# message, edges keeps one symbol that makes each edge.
layer=0
for lib in "$@"; do
  layer=$((layer + 1))
  name=${lib##*/}
  awk -v layer="$layer" -v pairs="$tmp/pairs" -v edges="$tmp/edges" '
    $1 != layer { next }
    { obj[$3] = 1 }
    $4 == "D" { def[$5] = $3; next }
    { n++; user[n] = $3; sym[n] = $5 }
    END {
      for (o in obj) print o, o > pairs
      for (i = 1; i <= n; i++) {
        if (!(sym[i] in def) || def[sym[i]] == user[i]) continue
        edge = user[i] " " def[sym[i]]
        print edge > pairs
        if (!(edge in seen)) { seen[edge] = 1; print edge, sym[i] > edges }
      }
    }' "$tmp/syms"
  : >>"$tmp/pairs"
  : >>"$tmp/edges"
  if ! tsort "$tmp/pairs" >/dev/null 2>"$tmp/tsort.err"; then
    # tsort names the files of each loop it finds, one a line behind a
    # "tsort: " prefix; the lines that announce a loop have spaces, the
    # names of objects do not.
    sed -n "s/^[^:]*: //p" "$tmp/tsort.err" | grep -v " " | sort -u >"$tmp/loop"
    echo "$me: $name: its files call each other in a cycle:"
    awk 'NR == FNR { in_loop[$1] = 1; next }
         ($1 in in_loop) && ($2 in in_loop) { printf "  %s -> %s (%s)\n", $1, $2, $3 }' \
      "$tmp/loop" "$tmp/edges"
    if [ ! -s "$tmp/loop" ]; then
      cat "$tmp/tsort.err"
    fi
    status=1
  fi
  rm -f "$tmp/pairs" "$tmp/edges"
done

if [ $status -eq 0 ]; then
  echo "$me: $# layers, no cycle inside a layer, no call upwards"
fi
exit $status
