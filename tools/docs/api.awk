# api.awk - the functions a C header declares, with the comments that document them.
#
# For each function declared or defined (static inline) at file scope, prints
#   F <TAB> name <TAB> internal(0/1) <TAB> line <TAB> declaration (one line, comments removed)
#   D <TAB> doc line            (zero or more: its doc comment, markers stripped)
# and first, once, the header's opening comment as
#   H <TAB> line                (zero or more)
#
# A function's doc comment is the comment block directly above it (no blank
# line between), or the one above the run of declarations it belongs to
# (declarations on consecutive lines share the comment above the first), or
# else a comment on its own last line. Preprocessor lines are ignored, as are
# `extern "C" {` and its closing brace.

function flush_stmt() { stmt = ""; depth = 0; has_body = 0 }

function emit(text,    name, head, rest, i, n, lines, internal) {
    head = text
    sub(/\{.*/, "", head)
    if (head ~ /^[ \t]*typedef/ || head !~ /\(/)
        return 0
    # the function's name: the last identifier before the first '(' that opens
    # its parameter list (skipping APS_* macros with arguments such as APS_PRINTF)
    rest = head
    name = ""
    while (match(rest, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
        n = substr(rest, RSTART, RLENGTH)
        sub(/[ \t]*\($/, "", n)
        if (n !~ /^(__attribute__|APS_[A-Z0-9_]+)$/) { name = n; break }
        rest = substr(rest, RSTART + RLENGTH)
    }
    if (name == "")
        return 0
    internal = head ~ /APS_INTERNAL/ ? 1 : 0
    gsub(/[ \t]+/, " ", head)
    sub(/^ /, "", head)
    sub(/ $/, "", head)
    if (has_body)
        head = head " { ... }"
    printf "F\t%s\t%d\t%d\t%s\n", name, internal, start_line, head
    n = split(doc, lines, "\n")
    for (i = 1; i <= n; i++)
        printf "D\t%s\n", lines[i]
    return 1
}

BEGIN { in_comment = 0; doc = ""; cur = ""; header_done = 0; flush_stmt(); prev_blank = 1; seen_code = 0 }

{
    line = $0
    code = ""
    # split the line into code and comment text
    while (line != "") {
        if (in_comment) {
            i = index(line, "*/")
            part = i ? substr(line, 1, i - 1) : line
            sub(/^[ \t]*\*?[ \t]?/, "", part)
            if (part !~ /^[ \t]*\**[ \t]*$/ || cur != "")
                cur = cur (cur == "" ? "" : "\n") part
            if (i) { in_comment = 0; line = substr(line, i + 2); comment_done = 1 }
            else line = ""
        } else {
            i = index(line, "/*")
            j = index(line, "//")
            if (j && (!i || j < i)) { code = code substr(line, 1, j - 1); line = ""; continue }
            if (!i) { code = code line; line = "" ; continue }
            code = code substr(line, 1, i - 1)
            line = substr(line, i + 2)
            in_comment = 1
            cur = ""
            comment_line = NR
        }
    }
    if (comment_done && !in_comment) {
        comment_done = 0
        sub(/\n[ \t]*$/, "", cur); sub(/[ \t]+$/, "", cur)
        if (!header_done && !seen_code) {
            n = split(cur, hl, "\n")
            for (k = 1; k <= n; k++) printf "H\t%s\n", hl[k]
            header_done = 1
            cur = ""
        } else if (code ~ /[^ \t]/ && stmt == "" ) {
            # a comment after code on one line: the doc of that code when it has none
            trailing = cur
        } else if (code !~ /[^ \t]/) {
            doc = cur
        } else {
            trailing = cur
        }
    }
    if (in_comment && code !~ /[^ \t]/)
        next
    if (code ~ /^[ \t]*#/ || continued) {
        continued = code ~ /\\[ \t]*$/
        seen_code = 1
        next
    }
    if (code ~ /^[ \t]*$/) {
        if (!in_comment && $0 ~ /^[ \t]*$/ && stmt == "") { doc = ""; grouped = 0 }
        next
    }
    if (code ~ /^[ \t]*extern "C" \{[ \t]*$/ || (stmt == "" && code ~ /^[ \t]*\}[ \t]*$/))
        next
    seen_code = 1
    if (stmt == "") start_line = NR
    # walk the code, tracking braces, to find where the statement ends
    n = length(code)
    for (k = 1; k <= n; k++) {
        c = substr(code, k, 1)
        stmt = stmt c
        if (c == "\"" || c == "'") {
            # a string or character literal: its braces and semicolons are not code
            for (k++; k <= n && substr(code, k, 1) != c; k++) {
                if (substr(code, k, 1) == "\\") { stmt = stmt substr(code, k, 1); k++ }
                stmt = stmt substr(code, k, 1)
            }
            stmt = stmt c
        } else if (c == "{") {
            if (depth == 0) {
                h = stmt
                sub(/\{$/, "", h)
                if (h ~ /\)[ \t\n]*$/ && h !~ /^[ \t]*(typedef|struct|union|enum)/) has_body = 1
            }
            depth++
        } else if (c == "}") {
            depth--
            if (depth == 0 && has_body) { end_stmt = 1 }
        } else if (c == ";" && depth == 0) {
            end_stmt = 1
        }
        if (end_stmt) {
            end_stmt = 0
            if (doc == "" && trailing != "") doc = trailing
            # a type or variable ends the run its comment documents; an extern
            # declaration inside a run (a generated type's descriptor) does not
            if (!emit(stmt) && stmt !~ /^[ \t]*extern[ \t]/) doc = ""
            trailing = ""
            flush_stmt()
        }
    }
    stmt = stmt (stmt == "" ? "" : " ")
    if (stmt == " ") stmt = ""
}
