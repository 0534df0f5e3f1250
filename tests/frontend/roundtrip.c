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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "cddl.h"
#include "frontend.h"

/* Parses `u`; its document, or NULL and a message when it has errors or cannot be read. */
static ast_document *parse_unit(cddl_ctx *ctx, cddl_unit *u)
{
    static const cddl_compile_options to_parse = { .stop_after = CDDL_STAGE_PARSE };
    if (cddl_compile(ctx, u, &to_parse) != CDDL_COMPILE_OK) {
        fprintf(stderr, "%s: does not parse without errors\n", u->path != NULL ? u->path : u->src.name);
        return NULL;
    }
    return u->doc;
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
    cddl_unit file, printout;
    ast_document *first, *second;
    char *text1 = NULL, *text2 = NULL;
    size_t len1 = 0, len2 = 0;
    diag_init(&d, stderr);
    cddl_ctx_init(&ctx, &d);
    cddl_unit_init_file(&file, path);
    cddl_unit_init_text(&printout, "<printout>", NULL, 0);
    first = parse_unit(&ctx, &file);
    CHECK(first != NULL);
    if (first == NULL)
        goto done;
    CHECK(first->nrules > 0);
    text1 = print_to_memory(first, &len1);
    CHECK(text1 != NULL);
    if (text1 == NULL)
        goto done;
    cddl_unit_init_text(&printout, "<printout>", text1, len1);
    second = parse_unit(&ctx, &printout);
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
    cddl_unit_deinit(&printout);
    cddl_unit_deinit(&file);
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
        cddl_unit u[2];
        ast_document *doc[2] = { NULL, NULL };
        diag_init(&d, stderr);
        cddl_ctx_init(&ctx, &d);
        for (k = 0; k < 2; k++) {
            cddl_unit_init_text(&u[k], unequal_pairs[i][k], unequal_pairs[i][k], strlen(unequal_pairs[i][k]));
            doc[k] = parse_unit(&ctx, &u[k]);
        }
        CHECK(doc[0] != NULL && doc[1] != NULL);
        if (doc[0] != NULL && doc[1] != NULL) {
            CHECK(ast_document_equal(doc[0], doc[0]));
            CHECK(!ast_document_equal(doc[0], doc[1]));
            if (ast_document_equal(doc[0], doc[1]))
                fprintf(stderr, "'%s' and '%s' compare equal\n", unequal_pairs[i][0], unequal_pairs[i][1]);
        }
        for (k = 0; k < 2; k++)
            cddl_unit_deinit(&u[k]);
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
