#!/bin/sh
# help.sh TOOL MANPAGE [TOOL MANPAGE]...
#
# Every command of each tool answers --help and -h: exit 0 and its usage on
# standard output (a first line "usage: ..."), nothing on standard error.
# The commands are the ones the tool itself lists under "Commands:" in its
# own --help, so a new command cannot be left out; each command the man
# page's SYNOPSIS shows (".B TOOL COMMAND") must be among them, so the list
# is not short either.
set -u
failed=0
scratch=${TMPDIR:-/tmp}/cli-help.$$
trap 'rm -f "$scratch".*' EXIT

fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}

# check_help LABEL CMD...: CMD exits 0 with "usage:" first on stdout and an empty stderr.
check_help() {
    label=$1
    shift
    "$@" >"$scratch.out" 2>"$scratch.err" </dev/null
    rc=$?
    if [ "$rc" != 0 ]; then
        fail "$label: exit status $rc, not 0"
        sed 's/^/    /' "$scratch.err" | head -5
    elif ! head -n 1 "$scratch.out" | grep -q '^usage: '; then
        fail "$label: standard output does not start with 'usage: ':"
        head -n 3 "$scratch.out" | sed 's/^/    /'
    elif [ -s "$scratch.err" ]; then
        fail "$label: wrote on standard error:"
        sed 's/^/    /' "$scratch.err" | head -5
    else
        echo "ok   $label"
    fi
}

while [ $# -ge 2 ]; do
    tool=$1 man=$2
    shift 2
    name=$(basename "$tool")
    check_help "$name --help" "$tool" --help
    # the commands: "  NAME ..." lines of the block after "Commands:", up to its blank line
    commands=$("$tool" --help | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit }
                                     on && /^  [a-z][a-z0-9-]*( |$)/ { print $1 }')
    [ -n "$commands" ] || fail "$name --help lists no commands under 'Commands:'"
    for c in $commands; do
        check_help "$name $c --help" "$tool" "$c" --help
        check_help "$name $c -h" "$tool" "$c" -h
    done
    for c in $(sed -n "s/^\\.B $name \\([a-z][a-z0-9-]*\\).*/\\1/p" "$man" | sort -u); do
        echo "$commands" | grep -qx "$c" || fail "$man shows '$name $c', which '$name --help' does not list"
    done
done
[ $# -eq 0 ] || fail "help.sh: TOOL without MANPAGE: $*"
echo "$failed failures"
[ "$failed" -eq 0 ]
