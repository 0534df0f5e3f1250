/*
 * roundtrip.c - the printer's promise: for every schema given,
 * parse(print(parse(x))) is the same AST as parse(x), and printing it again
 * gives the same bytes (the canonical form is a fixed point).
 *
 * Usage: frontend-roundtrip FILE...
 *
 * Before the files it checks the checker: pairs of schemas that differ in
 * one detail must compare unequal, so a round trip that loses that detail
 * cannot pass by ast_document_equal saying yes too easily.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "cddl.h"

/* Parses `text` as a source named `name`; NULL and a message when it has errors. */
static ast_document *parse_text(cddl_ctx *ctx, cddl_source *src, const char *name,
                                const char *text, size_t len)
{
    unsigned before = ctx->diag->errors;
    ast_document *doc;
    cddl_source_from_text(src, name, text, len);
    doc = cddl_parse(ctx, src);
    if (doc == NULL || ctx->diag->errors != before) {
        fprintf(stderr, "%s: does not parse without errors\n", name);
        return NULL;
    }
    return doc;
}

/* Prints `doc` into a malloc'd buffer; NULL if memory ran out. */
static char *print_to_memory(const ast_document *doc, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (f == NULL)
        return NULL;
    cddl_print(f, doc);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Names the first rule on which two documents differ, to make a failure readable. */
static void explain_difference(const char *name, const ast_document *a, const ast_document *b)
{
    size_t i;
    if (a->nrules != b->nrules) {
        fprintf(stderr, "%s: %zu rules before printing, %zu after\n", name, a->nrules, b->nrules);
        return;
    }
    for (i = 0; i < a->nrules; i++) {
        ast_document x = *a, y = *b;
        x.rules = &a->rules[i];
        y.rules = &b->rules[i];
        x.nrules = y.nrules = 1;
        if (!ast_document_equal(&x, &y)) {
            fprintf(stderr, "%s: rule %zu ('%.*s') differs after printing\n", name, i + 1,
                    (int)a->rules[i]->name.len, a->rules[i]->name.ptr);
            return;
        }
    }
}

/* Reports the line of the first byte where two printouts differ. */
static void explain_text_difference(const char *name, const char *a, size_t alen, const char *b,
                                    size_t blen)
{
    size_t i, line = 1;
    for (i = 0; i < alen && i < blen && a[i] == b[i]; i++)
        if (a[i] == '\n')
            line++;
    fprintf(stderr, "%s: second printout differs from the first at line %zu\n", name, line);
}

static void roundtrip_file(const char *path)
{
    diag_ctx d;
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_source src, printed_src;
    ast_document *first, *second;
    /* volatile: freed after a longjmp from an out-of-memory in the arena */
    char *volatile text1 = NULL;
    char *volatile text2 = NULL;
    size_t len1 = 0, len2 = 0;
    diag_init(&d, stderr);
    cddl_ctx_init(&ctx, &d);
    memset(&src, 0, sizeof src);
    memset(&printed_src, 0, sizeof printed_src);
    if (setjmp(oom) != 0) {
        CHECK(!"out of memory");
        goto done;
    }
    ctx.oom = &oom;
    if (cddl_source_load(&ctx, &src, path) != 0) {
        CHECK(!"cannot read the file");
        goto done;
    }
    first = cddl_parse(&ctx, &src);
    CHECK_INT(d.errors, 0);
    if (first == NULL || d.errors != 0)
        goto done;
    CHECK(first->nrules > 0);
    text1 = print_to_memory(first, &len1);
    CHECK(text1 != NULL);
    if (text1 == NULL)
        goto done;
    second = parse_text(&ctx, &printed_src, "<printout>", text1, len1);
    CHECK(second != NULL);
    if (second == NULL) {
        fprintf(stderr, "%s: its printout does not parse:\n%.*s\n", path, (int)len1, text1);
        goto done;
    }
    CHECK(ast_document_equal(first, second));
    if (!ast_document_equal(first, second))
        explain_difference(path, first, second);
    text2 = print_to_memory(second, &len2);
    CHECK(text2 != NULL);
    if (text2 == NULL)
        goto done;
    CHECK(len1 == len2 && memcmp(text1, text2, len1) == 0);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0)
        explain_text_difference(path, text1, len1, text2, len2);
done:
    cddl_source_deinit(&printed_src);
    cddl_source_deinit(&src);
    cddl_ctx_deinit(&ctx);
    free(text1);
    free(text2);
}

/* Each pair differs in one detail the printer must keep. */
static const char *const unequal_pairs[][2] = {
    { "a = [int]", "a = [uint]" },
    { "a = 1..2", "a = 1...2" },
    { "a = 1..2", "a = 1..3" },
    { "a = {? b: int}", "a = {b: int}" },
    { "a = {* b: int}", "a = {+ b: int}" },
    { "a = [1*2 int]", "a = [1*3 int]" },
    { "a = {b: int}", "a = {\"b\": int}" },
    { "a = {tstr => int}", "a = {tstr ^ => int}" },
    { "a = (b // c)", "a = (b, c)" },
    { "a = b / c", "a = c / b" },
    { "a = #6.1(int)", "a = #6.2(int)" },
    { "a = #6.1(int)", "a = #6.1(uint)" },
    { "a = #7.25", "a = #7.26" },
    { "a = #7", "a = #" },
    { "a = tstr .size 1", "a = tstr .size 2" },
    { "a = tstr .size 1", "a = tstr .bits 1" },
    { "a = \"x\"", "a = 'x'" },
    { "a = h'00'", "a = h'01'" },
    { "a = h'00'", "a = b64'00'" },
    { "a = \"\\u00e9\"", "a = \"e\"" },
    { "a = 1", "a = 1.0" },
    { "a = ~b", "a = &b" },
    { "a = &(b: 1)", "a = &(b: 2)" },
    { "a<T> = [T]", "a<U> = [U]" },
    { "a = b<int>", "a = b<uint>" },
    { "a = int", "a /= int" },
    { "a //= (b: int)", "a = (b: int)" },
    { "a = int", "b = int" },
    { "a = int", "a = int\nb = int" },
    { "; doc\na = int", "; other doc\na = int" },
};

static void check_unequal_pairs(void)
{
    size_t i, k;
    for (i = 0; i < sizeof unequal_pairs / sizeof unequal_pairs[0]; i++) {
        diag_ctx d;
        cddl_ctx ctx;
        jmp_buf oom;
        cddl_source src[2];
        ast_document *doc[2] = { NULL, NULL };
        diag_init(&d, stderr);
        cddl_ctx_init(&ctx, &d);
        memset(src, 0, sizeof src);
        if (setjmp(oom) != 0) {
            CHECK(!"out of memory");
            cddl_ctx_deinit(&ctx);
            continue;
        }
        ctx.oom = &oom;
        for (k = 0; k < 2; k++)
            doc[k] = parse_text(&ctx, &src[k], unequal_pairs[i][k], unequal_pairs[i][k],
                                strlen(unequal_pairs[i][k]));
        CHECK(doc[0] != NULL && doc[1] != NULL);
        if (doc[0] != NULL && doc[1] != NULL) {
            CHECK(ast_document_equal(doc[0], doc[0]));
            CHECK(!ast_document_equal(doc[0], doc[1]));
            if (ast_document_equal(doc[0], doc[1]))
                fprintf(stderr, "'%s' and '%s' compare equal\n", unequal_pairs[i][0], unequal_pairs[i][1]);
        }
        for (k = 0; k < 2; k++)
            cddl_source_deinit(&src[k]);
        cddl_ctx_deinit(&ctx);
    }
}

int main(int argc, char **argv)
{
    int i;
    check_unequal_pairs();
    for (i = 1; i < argc; i++)
        roundtrip_file(argv[i]);
    return test_report();
}
