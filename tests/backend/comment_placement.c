/*
 * comment_placement.c - checks that the schema's comments land on the C
 * declarations they describe, and nowhere else.
 *
 *   backend-comment-placement SCHEMA HEADER PREFIX
 *
 * It reads the schema's comments itself, line by line, rather than through
 * cddlgen's own doc attachment (generator/docs.c), so that a mistake there
 * shows up here:
 *   - a rule's doc is the block of whole-line comments directly above a rule
 *     that starts in column 0 (or, for a one-line rule, the comment beside
 *     it). In HEADER it must appear as a doc block exactly once for a rule
 *     that has a C type (one with a "/ * ---- RULE ---- * /" section), never
 *     for a rule without one (a group that is inlined), and each appearance
 *     must name the rule ("Schema: `RULE`") and sit directly above the
 *     rule's struct, enum or typedef;
 *   - a member's doc is the comment at the end of its line, or the block of
 *     whole-line comments directly above it. It must appear as a member doc
 *     directly above the member it documents (past the has_/_is_null flags
 *     that belong to the member), or above the "always" note of a literal
 *     member, and never above another member;
 *   - an enum value's doc (`/ "value" ; doc`) must appear beside that value.
 * Every failure names the schema line and the rule.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "naming.h"
#include "test_util.h"

#define MAX_DOC 4096

/* Counts a check; prints the message when it failed. */
static void expect(int ok, const char *fmt, ...)
{
    va_list ap;
    ++test_checks_run;
    if (ok)
        return;
    ++test_checks_failed;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The whole file, or exit 2: without it there is nothing to test. */
static char *read_file(const char *path)
{
    char *buf = test_read_file(path, NULL);
    if (buf == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    return buf;
}

/* ---- the schema, read line by line ---------------------------------------- */

typedef struct line {
    const char *p;
    size_t len;
} line;

static line *lines;
static size_t nlines;

static void split_lines(const char *text)
{
    const char *p = text;
    size_t cap = 0;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (nlines == cap) {
            cap = cap ? cap * 2 : 256;
            lines = realloc(lines, cap * sizeof *lines);
            if (lines == NULL)
                exit(2);
        }
        if (len > 0 && p[len - 1] == '\r')
            len--;
        lines[nlines].p = p;
        lines[nlines].len = len;
        nlines++;
        p = nl ? nl + 1 : p + len;
    }
}

/* Offset of the comment on line i (its ';' outside a string), or -1. */
static long comment_start(size_t i)
{
    const line *l = &lines[i];
    size_t k;
    int in_str = 0;
    for (k = 0; k < l->len; k++) {
        char c = l->p[k];
        if (in_str && c == '\\')
            k++;
        else if (c == '"')
            in_str = !in_str;
        else if (!in_str && c == ';')
            return (long)k;
    }
    return -1;
}

static int is_comment_line(size_t i)
{
    size_t k = 0;
    while (k < lines[i].len && lines[i].p[k] == ' ')
        k++;
    return k < lines[i].len && lines[i].p[k] == ';';
}

static int is_blank(size_t i)
{
    size_t k;
    for (k = 0; k < lines[i].len; k++)
        if (lines[i].p[k] != ' ' && lines[i].p[k] != '\t')
            return 0;
    return 1;
}

/* Appends the text of the comment on line i (one leading space dropped, trailing blanks trimmed). */
static void append_comment(char *doc, size_t i)
{
    long c = comment_start(i);
    const char *t = lines[i].p + c + 1;
    size_t len = lines[i].len - (size_t)c - 1, n = strlen(doc);
    if (len > 0 && t[0] == ' ')
        t++, len--;
    while (len > 0 && (t[len - 1] == ' ' || t[len - 1] == '\t'))
        len--;
    if (n + len + 2 >= MAX_DOC)
        return;
    if (n > 0)
        doc[n++] = '\n';
    memcpy(doc + n, t, len);
    doc[n + len] = '\0';
}

/* The block of whole-line comments directly above line i, joined; "" if none. */
static void doc_above(size_t i, char *doc)
{
    size_t first = i;
    doc[0] = '\0';
    while (first > 0 && is_comment_line(first - 1))
        first--;
    for (; first < i; first++)
        append_comment(doc, first);
    /* a block's trailing empty comment lines carry nothing */
    while (strlen(doc) > 0 && doc[strlen(doc) - 1] == '\n')
        doc[strlen(doc) - 1] = '\0';
}

static int name_char(char c, int first)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$' || c == '@' ||
           (!first && (isdigit((unsigned char)c) || c == '-' || c == '.'));
}

/* If line i starts a rule in column 0 (`name [<...>] =`, `/=` or `//=`), its name. */
static int rule_name(size_t i, char *name, size_t cap, int *generic)
{
    const line *l = &lines[i];
    size_t k = 0, n;
    if (l->len == 0 || !name_char(l->p[0], 1))
        return 0;
    while (k < l->len && name_char(l->p[k], k == 0))
        k++;
    /* a name does not end in '-' or '.' */
    while (k > 0 && (l->p[k - 1] == '-' || l->p[k - 1] == '.'))
        k--;
    n = k;
    *generic = k < l->len && l->p[k] == '<';
    if (*generic)
        while (k < l->len && l->p[k] != '>')
            k++;
    if (*generic && k < l->len)
        k++;
    while (k < l->len && l->p[k] == ' ')
        k++;
    if (!(k < l->len && (l->p[k] == '=' || (l->p[k] == '/' && k + 1 < l->len &&
                                            (l->p[k + 1] == '=' || l->p[k + 1] == '/')))))
        return 0;
    if (n + 1 > cap)
        return 0;
    memcpy(name, l->p, n);
    name[n] = '\0';
    return 1;
}

/* A rule is one line when the next line is blank, a comment, or another rule. */
static int one_line_rule(size_t i)
{
    char name[256];
    int g;
    return i + 1 >= nlines || is_blank(i + 1) || is_comment_line(i + 1) || rule_name(i + 1, name, sizeof name, &g);
}

/* True when p[0, len) is one literal value (text, number, true, false or
 * null), blanks and a comma around it. */
static int is_literal(const char *p, size_t len)
{
    size_t k = 0, start;
    while (k < len && p[k] == ' ')
        k++;
    start = k;
    if (k < len && p[k] == '"') {
        for (k++; k < len && p[k] != '"'; k++)
            if (p[k] == '\\')
                k++;
        k++;
    } else {
        while (k < len && (isalnum((unsigned char)p[k]) || p[k] == '-' || p[k] == '+' || p[k] == '.'))
            k++;
        if (k == start || !(isdigit((unsigned char)p[start]) || p[start] == '-' ||
                            (k - start == 4 && (!strncmp(p + start, "true", 4) || !strncmp(p + start, "null", 4))) ||
                            (k - start == 5 && !strncmp(p + start, "false", 5))))
            return 0;
    }
    for (; k < len; k++)
        if (p[k] != ' ' && p[k] != ',')
            return 0;
    return 1;
}

/* If line i is a member `[occ] key: type`, its key (bareword or quoted), and
 * whether the type is a single literal. */
static int member_key(size_t i, char *key, size_t cap, int *literal)
{
    const line *l = &lines[i];
    size_t k = 0, start, end;
    long c = comment_start(i);
    size_t stop = c < 0 ? l->len : (size_t)c;
    int depth = 0;
    if (l->len == 0 || l->p[0] != ' ')
        return 0;
    while (k < stop && l->p[k] == ' ')
        k++;
    if (k < stop && (l->p[k] == '?' || l->p[k] == '*' || l->p[k] == '+')) {
        k++;
        while (k < stop && l->p[k] == ' ')
            k++;
    }
    if (k < stop && l->p[k] == '"') {
        start = ++k;
        while (k < stop && l->p[k] != '"')
            k++;
        end = k++;
    } else {
        start = k;
        while (k < stop && name_char(l->p[k], k == start))
            k++;
        end = k;
    }
    while (k < stop && l->p[k] == ' ')
        k++;
    if (end == start || k >= stop || l->p[k] != ':' || end - start + 1 > cap)
        return 0;
    *literal = is_literal(l->p + k + 1, stop - k - 1);
    /* a member whose value opens a map or array on this line ends on another line */
    for (; k < stop; k++) {
        if (l->p[k] == '"') {
            for (k++; k < stop && l->p[k] != '"'; k++)
                if (l->p[k] == '\\')
                    k++;
        } else if (strchr("{[(", l->p[k])) {
            depth++;
        } else if (strchr("}])", l->p[k])) {
            depth--;
        }
    }
    if (depth > 0)
        return 0;
    memcpy(key, l->p + start, end - start);
    key[end - start] = '\0';
    return 1;
}

/* If line i is an enum value `[=|/] "value"` with a comment, the value. */
static int enum_value(size_t i, char *value, size_t cap)
{
    const line *l = &lines[i];
    size_t k = 0, start;
    long c = comment_start(i);
    if (c < 0)
        return 0;
    while (k < (size_t)c && l->p[k] != '"')
        k++;
    if (k >= (size_t)c)
        return 0;
    /* only `/ "v"` or `Rule = "v"` forms: the text before the quote ends in '/' or '=' */
    {
        size_t b = k;
        while (b > 0 && l->p[b - 1] == ' ')
            b--;
        if (b == 0 || (l->p[b - 1] != '/' && l->p[b - 1] != '='))
            return 0;
    }
    start = ++k;
    while (k < (size_t)c && l->p[k] != '"')
        k++;
    if (k - start + 1 > cap)
        return 0;
    memcpy(value, l->p + start, k - start);
    value[k - start] = '\0';
    return 1;
}

/* ---- the header --------------------------------------------------------- */

static const char *header;
static const char *prefix;

/* The doc text as cddlgen writes it in a comment: no "*" "/" inside. */
static void comment_safe(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in != '\0' && n + 2 < cap; in++) {
        if (in[0] == '*' && in[1] == '/') {
            out[n++] = '*';
            out[n++] = ' ';
            in++;
            continue;
        }
        out[n++] = *in;
    }
    out[n] = '\0';
}

/* "/ **\n * line\n ...": the start of a doc block holding `doc`. */
static void render_block(const char *doc, char *out, size_t cap)
{
    char safe[MAX_DOC];
    const char *p = safe;
    size_t n;
    comment_safe(doc, safe, sizeof safe);
    n = (size_t)snprintf(out, cap, "/**\n");
    while (n < cap) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        n += (size_t)snprintf(out + n, cap - n, len ? " * %.*s\n" : " *\n", (int)len, p);
        if (nl == NULL)
            break;
        p = nl + 1;
    }
}

static const char *line_end(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : p + strlen(p);
}

static int header_line_no(const char *at)
{
    int n = 1;
    const char *p;
    for (p = header; p < at; p++)
        n += *p == '\n';
    return n;
}

static int starts_with(const char *p, const char *s)
{
    return strncmp(p, s, strlen(s)) == 0;
}

static size_t c_stem(const char *name, char *out, size_t cap)
{
    ast_str s;
    s.ptr = name;
    s.len = strlen(name);
    return naming_snake(s, out, cap);
}

/* True when the line at p declares the C type of the rule with stem `c`. */
static int declares(const char *p, const char *c)
{
    char a[512], b[512], t[512];
    const char *e = line_end(p);
    snprintf(a, sizeof a, "struct %s_%s {\n", prefix, c);
    snprintf(b, sizeof b, "typedef enum %s_%s {\n", prefix, c);
    snprintf(t, sizeof t, " %s_%s_t;\n", prefix, c);
    if (starts_with(p, a) || starts_with(p, b))
        return 1;
    return starts_with(p, "typedef ") && (size_t)(e - p) > strlen(t) &&
           strncmp(e - strlen(t), t, strlen(t)) == 0;
}

typedef struct rule_doc {
    char name[256];
    char doc[MAX_DOC];
    size_t line;
    int generic;
} rule_doc;

static rule_doc *rules;
static size_t nrules;
static const char *schema_name;

static void check_rules(void)
{
    size_t r, j;
    for (r = 0; r < nrules; r++) {
        const rule_doc *rd = &rules[r];
        char block[2 * MAX_DOC], section[512], schema_ref[512], c[256];
        const char *p;
        int count = 0, has_type;
        if (rd->doc[0] == '\0')
            continue;
        render_block(rd->doc, block, sizeof block);
        snprintf(section, sizeof section, "/* ---- %s ---- */\n", rd->name);
        has_type = strstr(header, section) != NULL;
        snprintf(schema_ref, sizeof schema_ref, " *\n * Schema: `%s` (", rd->name);
        c_stem(rd->name, c, sizeof c);
        for (p = strstr(header, block); p != NULL; p = strstr(p + 1, block)) {
            const char *after = p + strlen(block), *end;
            /* Another rule with the same doc text owns this block. */
            if (!starts_with(after, schema_ref)) {
                int other = 0;
                for (j = 0; j < nrules && !other; j++) {
                    char ref[512];
                    snprintf(ref, sizeof ref, " *\n * Schema: `%s` (", rules[j].name);
                    other = j != r && strcmp(rules[j].doc, rd->doc) == 0 && starts_with(after, ref);
                }
                if (!other && starts_with(after, " *\n * Schema: `"))
                    expect(0, "%s:%zu: the doc of rule %s is on another declaration (%s line %d)",
                           schema_name, rd->line, rd->name, "header", header_line_no(p));
                else if (!other)
                    expect(0, "%s:%zu: the doc of rule %s appears in the header (line %d) where it names no rule",
                           schema_name, rd->line, rd->name, header_line_no(p));
                continue;
            }
            count++;
            end = strstr(after, " */\n");
            expect(end != NULL && declares(end + 4, c),
                   "%s:%zu: the doc of rule %s (header line %d) is not directly above the C type %s_%s",
                   schema_name, rd->line, rd->name, header_line_no(p), prefix, c);
        }
        if (rd->generic && has_type)
            expect(count >= 1, "%s:%zu: the doc of generic rule %s is above none of its instances",
                   schema_name, rd->line, rd->name);
        else if (has_type)
            expect(count == 1, "%s:%zu: the doc of rule %s appears %d times above its C type in the header, expected once",
                   schema_name, rd->line, rd->name, count);
        else
            expect(count == 0, "%s:%zu: rule %s has no C type, yet its doc appears %d times in the header",
                   schema_name, rd->line, rd->name, count);
    }
}

typedef struct member_doc {
    char rule[256];
    char key[256];
    int literal; /* its type is one literal value */
    char doc[MAX_DOC];
    size_t line;
} member_doc;

static member_doc *members;
static size_t nmembers;

/* The C member name cddlgen derives from a key. */
static void field_name(const char *key, char *out, size_t cap)
{
    size_t n = c_stem(key, out, cap);
    if (naming_is_reserved(out) && n + 1 < cap)
        out[n] = '_', out[n + 1] = '\0';
}

/* Does the member doc at p document a member named after one of the keys documented `doc`? */
static int documents(const char *p, const char *doc, const char **which)
{
    const char *q = line_end(p);
    size_t m;
    while (starts_with(q, "    bool has_") || (starts_with(q, "    bool ") && strstr(q, "_is_null;") != NULL &&
                                                 strstr(q, "_is_null;") < line_end(q)))
        q = line_end(q);
    for (m = 0; m < nmembers; m++) {
        char f[300], decl[310], lit[600], flag[320];
        const char *e = line_end(q);
        if (strcmp(members[m].doc, doc) != 0)
            continue;
        field_name(members[m].key, f, sizeof f);
        snprintf(decl, sizeof decl, " %s;\n", f);
        snprintf(lit, sizeof lit, "    /* \"%s\" is always ", members[m].key);
        snprintf(flag, sizeof flag, "    bool has_%s; ", f);
        /* a literal member is a note when required, its has_ flag when optional */
        if (((size_t)(e - q) > strlen(decl) && strncmp(e - strlen(decl), decl, strlen(decl)) == 0) ||
            (members[m].literal && (starts_with(q, lit) || starts_with(line_end(p), flag)))) {
            *which = members[m].key;
            return 1;
        }
    }
    return 0;
}

static void check_members(void)
{
    size_t m;
    for (m = 0; m < nmembers; m++) {
        const member_doc *md = &members[m];
        char safe[MAX_DOC], one[2 * MAX_DOC + 64];
        const char *p;
        int placed = 0;
        comment_safe(md->doc, safe, sizeof safe);
        if (strchr(safe, '\n') != NULL) {
            /* several lines: rendered as an indented block */
            const char *s = safe;
            size_t n = (size_t)snprintf(one, sizeof one, "    /**\n");
            while (n < sizeof one) {
                const char *nl = strchr(s, '\n');
                size_t len = nl ? (size_t)(nl - s) : strlen(s);
                n += (size_t)snprintf(one + n, sizeof one - n, len ? "     * %.*s\n" : "     *\n", (int)len, s);
                if (nl == NULL)
                    break;
                s = nl + 1;
            }
            if (n < sizeof one)
                snprintf(one + n, sizeof one - n, "     */\n");
        } else {
            snprintf(one, sizeof one, "    /** %s */\n", safe);
        }
        for (p = strstr(header, one); p != NULL; p = strstr(p + 1, one)) {
            const char *which = NULL;
            const char *last = p + strlen(one) - 1; /* the doc's last line */
            while (last > p && last[-1] != '\n')
                last--;
            if (p != header && p[-1] != '\n')
                continue;
            if (documents(last, md->doc, &which)) {
                placed += strcmp(which, md->key) == 0;
            } else {
                expect(0, "%s:%zu: the doc of member \"%s\" of %s is on something else at header line %d",
                       schema_name, md->line, md->key, md->rule, header_line_no(p));
            }
        }
        expect(placed > 0, "%s:%zu: the doc of member \"%s\" of %s (\"%s\") is on no member \"%s\" in the header",
               schema_name, md->line, md->key, md->rule, md->doc, md->key);
    }
}

typedef struct value_doc {
    char rule[256];
    char value[256];
    char doc[MAX_DOC];
    size_t line;
} value_doc;

static void check_value(const value_doc *v)
{
    char safe[MAX_DOC], want[MAX_DOC + 300];
    comment_safe(v->doc, safe, sizeof safe);
    snprintf(want, sizeof want, "/**< \"%s\": %s */\n", v->value, safe);
    expect(strstr(header, want) != NULL, "%s:%zu: the doc of value \"%s\" of %s is not beside that value in the header",
           schema_name, v->line, v->value, v->rule);
}

int main(int argc, char **argv)
{
    char *schema;
    size_t i;
    char current[256] = "";
    if (argc != 4) {
        fprintf(stderr, "usage: %s SCHEMA HEADER PREFIX\n", argv[0]);
        return 2;
    }
    schema = read_file(argv[1]);
    header = read_file(argv[2]);
    prefix = argv[3];
    schema_name = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
    split_lines(schema);
    rules = calloc(nlines + 1, sizeof *rules);
    members = calloc(nlines + 1, sizeof *members);
    if (rules == NULL || members == NULL)
        return 2;
    for (i = 0; i < nlines; i++) {
        char name[256], key[256];
        int generic, literal;
        value_doc v;
        if (rule_name(i, name, sizeof name, &generic)) {
            rule_doc *rd = &rules[nrules++];
            snprintf(rd->name, sizeof rd->name, "%s", name);
            snprintf(current, sizeof current, "%s", name);
            rd->line = i + 1;
            rd->generic = generic;
            doc_above(i, rd->doc);
            if (rd->doc[0] == '\0' && comment_start(i) >= 0 && one_line_rule(i))
                append_comment(rd->doc, i);
        }
        if (member_key(i, key, sizeof key, &literal)) {
            member_doc *md = &members[nmembers];
            md->literal = literal;
            snprintf(md->rule, sizeof md->rule, "%s", current);
            snprintf(md->key, sizeof md->key, "%s", key);
            md->line = i + 1;
            md->doc[0] = '\0';
            if (comment_start(i) >= 0)
                append_comment(md->doc, i);
            else
                doc_above(i, md->doc);
            if (md->doc[0] != '\0')
                nmembers++;
        }
        memset(&v, 0, sizeof v);
        if (enum_value(i, v.value, sizeof v.value)) {
            snprintf(v.rule, sizeof v.rule, "%s", current);
            v.line = i + 1;
            append_comment(v.doc, i);
            check_value(&v);
        }
    }
    expect(nrules > 0, "%s: no rules found", schema_name);
    check_rules();
    check_members();
    printf("%zu rules, %zu documented members\n", nrules, nmembers);
    free(schema);
    free((char *)header);
    free(lines);
    free(rules);
    free(members);
    return test_report();
}
