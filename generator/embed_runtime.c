/*
 * embed_runtime.c - the runtime written into the generated pair (see
 * embed_runtime.h). The text was joined by generator/amalgamate.cmake at
 * build time, so this file only places it.
 */
#include "embed_runtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"

/* Built by generator/CMakeLists.txt from runtime/ (runtime_embedded.c). */
extern const char cddl_runtime_h[];
extern const size_t cddl_runtime_h_len;
extern const char cddl_runtime_c[];
extern const size_t cddl_runtime_c_len;

/* Is the line [p, end) `#include "aps/...`, a runtime header the pair now carries? */
static int is_runtime_include(const char *p, const char *end)
{
    static const char directive[] = "include";
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < sizeof directive - 1 || memcmp(p, directive, sizeof directive - 1) != 0)
        return 0;
    p += sizeof directive - 1;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return (size_t)(end - p) >= 5 && memcmp(p, "\"aps/", 5) == 0;
}

/*
 * The pair's own spelling of the runtime: every identifier that starts with
 * `aps_` or `APS_` (functions, types, tags, enum constants, macros, include
 * guards) is written with the generated code's prefix in front, `ap_aps_`
 * and `AP_APS_` for --prefix ap. Two pairs then share no name, so they link
 * into one program and their headers can meet in one translation unit.
 * Text is C: identifiers in code and comments are renamed; in string and
 * character literals only when `in_strings` (the runtime's messages), never
 * in the generated code's, which hold wire names. A lexer state carries
 * over between calls, since a comment spans lines.
 */
typedef struct renamer {
    FILE *out;
    const char *lower;  /* "ap_" */
    const char *upper;  /* "AP_" */
    enum { R_CODE, R_BLOCK, R_LINE, R_STRING, R_CHAR } state;
    int prev;           /* the last byte read, for where identifiers start */
} renamer;

static int ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* Writes the identifier [p, end), renamed when it is the runtime's. */
static void put_ident(renamer *r, const char *p, size_t len)
{
    if (len > 4 && memcmp(p, "aps_", 4) == 0)
        fputs(r->lower, r->out);
    else if (len > 4 && memcmp(p, "APS_", 4) == 0)
        fputs(r->upper, r->out);
    fwrite(p, 1, len, r->out);
}

/* Writes `len` bytes of C text, renaming as the state allows. */
static void put_renamed(renamer *r, const char *p, size_t len, int in_strings)
{
    const char *end = p + len;
    while (p < end) {
        int c = (unsigned char)*p;
        int renames = r->state != R_STRING && r->state != R_CHAR ? 1 : in_strings;
        if (renames && (isalpha(c) || c == '_') && !ident_char(r->prev)) {
            const char *q = p;
            while (q < end && ident_char((unsigned char)*q))
                q++;
            put_ident(r, p, (size_t)(q - p));
            r->prev = (unsigned char)q[-1];
            p = q;
            continue;
        }
        if (r->state == R_CODE) {
            if (c == '"')
                r->state = R_STRING;
            else if (c == '\'')
                r->state = R_CHAR;
            else if (c == '/' && p + 1 < end && (p[1] == '*' || p[1] == '/')) {
                r->state = p[1] == '*' ? R_BLOCK : R_LINE;
                fwrite(p, 1, 2, r->out);
                r->prev = ' ';
                p += 2;
                continue;
            }
        } else if (r->state == R_BLOCK) {
            if (c == '*' && p + 1 < end && p[1] == '/') {
                fwrite(p, 1, 2, r->out);
                r->state = R_CODE;
                r->prev = '/';
                p += 2;
                continue;
            }
        } else if (r->state == R_LINE) {
            if (c == '\n')
                r->state = R_CODE;
        } else if (c == '\\' && p + 1 < end) { /* an escape inside a literal: both bytes */
            fwrite(p, 1, 2, r->out);
            r->prev = (unsigned char)p[1];
            p += 2;
            continue;
        } else if (c == (r->state == R_STRING ? '"' : '\'')) {
            r->state = R_CODE;
        }
        fputc(c, r->out);
        r->prev = c;
        p++;
    }
}

/*
 * The file at path again, renamed, without its runtime `#include` lines:
 * `insert` (len bytes) where the first of them was, `tail` at the end. Sets
 * *placed when there was one to replace.
 */
static int rewrite(cddl_ctx *ctx, renamer *r, const char *path, const char *insert, size_t insert_len,
                   const char *tail, size_t tail_len, int *placed)
{
    cddl_source src;
    cddl_outfile out;
    const char *p, *end;
    int failed;
    memset(&src, 0, sizeof src);
    *placed = 0;
    if (cddl_source_load(ctx, &src, path) != 0)
        return 1;
    if ((r->out = cddl_outfile_open(ctx, &out, path)) == NULL) {
        cddl_source_deinit(&src);
        return 1;
    }
    r->state = R_CODE;
    r->prev = '\n';
    for (p = src.text, end = src.text + src.len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *next = nl ? nl + 1 : end;
        if (!is_runtime_include(p, next))
            put_renamed(r, p, (size_t)(next - p), 0);
        else if (!(*placed)++)
            put_renamed(r, insert, insert_len, 1);
        p = next;
    }
    put_renamed(r, tail, tail_len, 1);
    failed = cddl_outfile_commit(ctx, &out, 1);
    cddl_source_deinit(&src);
    return failed;
}

int embed_runtime(cddl_ctx *ctx, const emit_options *opt)
{
    char path[4096], lower[80], upper[80];
    renamer r;
    int placed;
    size_t i, n = strlen(opt->prefix);
    /* --prefix aps would make the generated names the runtime's: everything renamed twice over */
    if (n + 2 > sizeof lower || (n >= 3 && strncmp(opt->prefix, "aps", 3) == 0 && (n == 3 || opt->prefix[3] == '_'))) {
        diag_plain(ctx->diag, DIAG_ERROR, "cddlgen",
                   "--embed-runtime: the prefix '%s' %s; choose another", opt->prefix,
                   n + 2 > sizeof lower ? "is too long" : "is the runtime's own (aps_)");
        return 1;
    }
    for (i = 0; i < n; i++) {
        lower[i] = opt->prefix[i];
        upper[i] = (char)toupper((unsigned char)opt->prefix[i]);
    }
    lower[n] = upper[n] = '_';
    lower[n + 1] = upper[n + 1] = '\0';
    memset(&r, 0, sizeof r);
    r.lower = lower;
    r.upper = upper;
    /* PREFIX.h declares the runtime where it included the first runtime header... */
    snprintf(path, sizeof path, "%s/%s.h", opt->out_dir, opt->prefix);
    if (rewrite(ctx, &r, path, cddl_runtime_h, cddl_runtime_h_len, "", 0, &placed) != 0)
        return 1;
    if (!placed) {
        /* custom templates that include no runtime header: the pair would not compile alone */
        diag_plain(ctx->diag, DIAG_ERROR, path,
                   "--embed-runtime: the header includes no runtime header (\"aps/*.h\") to replace");
        return 1;
    }
    /* ...so PREFIX.c needs none of its own, and ends with the runtime's sources. */
    snprintf(path, sizeof path, "%s/%s.c", opt->out_dir, opt->prefix);
    return rewrite(ctx, &r, path, "", 0, cddl_runtime_c, cddl_runtime_c_len, &placed);
}
