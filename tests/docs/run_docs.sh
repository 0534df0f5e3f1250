#!/bin/sh
# run_docs.sh SOURCE_DIR BIN_DIR LIB_DIR WORK_DIR [SHARED_DIR]
#
# Runs every command the README and docs/*.md show, as printed (see
# docs/index.md, "How the docs are tested", for the convention):
#
#   ```sh               run with `sh -e` in the page's scratch folder; must exit 0
#   <!-- docs-test: skip REASON -->        before a ```sh block: not run, REASON printed
#   <!-- docs-test: exit N -->             before a ```sh block: must exit N
#   <!-- docs-test: shared [exit N] -->    before a ```sh block: run only when SHARED_DIR
#                                          (the page's ../shared) exists
#   <!-- docs-test: output -->             before any block: what the previous run block
#                                          printed on standard output, exactly
#   <!-- docs-test: file NAME -->          before any block: written to NAME in the scratch folder
#   other blocks (```text, ```c, ```cmake...) are not run
#
# Each page gets its own scratch folder WORK_DIR/PAGE holding copies of
# cddl/, examples/, generated/ and runtime/, build/bin and build/lib linked to the build
# tree's, and ../shared linked to SHARED_DIR; its blocks run in order there,
# as a reader would run them, with BIN_DIR first on the PATH (as after an
# install). Then the README's install and test commands are checked against
# .ci/run, which runs them.
set -u
src=$1 bin=$2 lib=$3 work=$4 shared=${5-}
failed=0 ran=0 skipped=0

fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}

rm -rf "$work"
mkdir -p "$work" || exit 1
[ -d "$shared" ] && ln -s "$shared" "$work/shared"
PATH="$bin:$PATH"
export PATH

for page in "$src/README.md" "$src"/docs/*.md; do
    name=$(basename "$page" .md)
    dir="$work/$name"
    blocks="$work/$name.blocks"
    mkdir -p "$dir/build" "$blocks"
    cp -R "$src/cddl" "$src/examples" "$src/generated" "$src/runtime" "$dir/"
    ln -s "$bin" "$dir/build/bin"
    ln -s "$lib" "$dir/build/lib"
    # One manifest line per fenced block: number, language, line, directive.
    awk -v out="$blocks" '
        function flush() { pending = "" }
        !infence && /^```/ {
            n++; infence = 1; lang = substr($0, 4); file = out "/" n
            printf "" > file
            printf "%d\t%s\t%d\t%s\n", n, lang, NR, pending > (out "/manifest")
            flush(); next
        }
        infence && /^```[ \t]*$/ { infence = 0; close(file); next }
        infence { print > file; next }
        /^<!-- docs-test: .* -->[ \t]*$/ {
            pending = $0; sub(/^<!-- docs-test: /, "", pending); sub(/ -->[ \t]*$/, "", pending); next
        }
        /^[ \t]*$/ { next }
        { flush() }
    ' "$page"
    [ -f "$blocks/manifest" ] || continue
    last=""   # output of the last block run; "skipped" when it was skipped
    tab=$(printf '\t')
    while IFS="$tab" read -r n lang line directive; do
        where="${page#"$src"/}:$line"
        needs_shared=0
        case "$directive" in shared | "shared "*) needs_shared=1 directive=${directive#shared} directive=${directive# } ;; esac
        verb=${directive%% *}
        arg=${directive#"$verb"}
        arg=${arg# }
        case "$verb" in
        file)
            [ -n "$arg" ] || { fail "$where: 'file' needs a name"; continue; }
            cp "$blocks/$n" "$dir/$arg"
            continue ;;
        output)
            if [ "$last" = skipped ]; then
                continue
            elif [ -z "$last" ]; then
                fail "$where: 'output' does not follow a block that ran"
            elif ! cmp -s "$blocks/$n" "$last"; then
                fail "$where: the commands above print something else:"
                diff -u "$blocks/$n" "$last" | sed 's/^/    /'
            fi
            last=""
            continue ;;
        skip | exit | "") ;;
        *)
            fail "$where: unknown directive '$directive'"
            continue ;;
        esac
        if [ "$lang" != sh ]; then
            if [ -n "$verb" ] || [ "$needs_shared" = 1 ]; then fail "$where: '$directive' is for \`\`\`sh blocks"; fi
            continue
        fi
        if [ "$verb" = skip ]; then
            [ -n "$arg" ] || fail "$where: 'skip' needs a reason"
            echo "skip $where: $arg"
            skipped=$((skipped + 1)) last=skipped
            continue
        fi
        if [ "$needs_shared" = 1 ] && [ ! -d "$shared" ]; then
            echo "skip $where: needs the shared test material (${shared:-not in this build})"
            skipped=$((skipped + 1)) last=skipped
            continue
        fi
        want=0
        [ "$verb" = exit ] && want=$arg
        (cd "$dir" && sh -e "$blocks/$n") </dev/null >"$blocks/$n.out" 2>"$blocks/$n.err"
        rc=$?
        ran=$((ran + 1)) last="$blocks/$n.out"
        if [ "$rc" != "$want" ]; then
            fail "$where: exit status $rc, the page expects $want; the commands print:"
            cat "$blocks/$n.out" "$blocks/$n.err" | sed 's/^/    /' | head -40
        else
            echo "ok   $where"
        fi
    done <"$blocks/manifest"
done

# The README's install line installs what .ci/run installs, and its test
# command is the line .ci/run runs.
packages=$(sed -n 's/^packages="\(.*\)"$/\1/p' "$src/.ci/run")
[ -n "$packages" ] || fail ".ci/run: no packages=\"...\" line"
grep -qxF "apt-get update && apt-get install -y $packages" "$src/README.md" ||
    fail "README.md: no line 'apt-get update && apt-get install -y $packages' (the packages of .ci/run)"
command=$(sed -n '/^echo "== README test command"$/{n;p;}' "$src/.ci/run")
[ -n "$command" ] || fail ".ci/run: no command after 'echo \"== README test command\"'"
grep -qxF "$command" "$src/README.md" || fail "README.md: no line '$command' (the test command .ci/run runs)"

echo "$ran blocks run, $skipped skipped, $failed failures"
[ "$failed" -eq 0 ]
