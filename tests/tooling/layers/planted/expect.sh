#!/bin/sh
# expect.sh CALLS.SH LOW.a HIGH.a: calls.sh on the planted libraries must
# fail, and its message must name the upward call and both files of the cycle.
out=$(sh "$1" "$2" "$3")
rc=$?
printf '%s\n' "$out"
fail=0
[ $rc -eq 1 ] || { echo "expect.sh: calls.sh exited $rc, not 1"; fail=1; }
for want in 'low.c.o) uses planted_high' 'cycle_a.c.o -> cycle_b.c.o (planted_cycle_b)' \
            'cycle_b.c.o -> cycle_a.c.o (planted_cycle_a)'; do
  case $out in
  *"$want"*) ;;
  *) echo "expect.sh: the message lacks: $want"; fail=1 ;;
  esac
done
exit $fail
