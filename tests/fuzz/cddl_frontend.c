/*
 * cddl_frontend.c - fuzz target for the cddlgen front end: lexer, parser,
 * doc comments and sema on arbitrary bytes. When a schema has no errors it
 * is printed, parsed again and checked to be the same AST, and printed once
 * more to the same text; a difference aborts, as a crash would.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cddl.h"
#include "sema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Diagnostics are not what is tested; opened once, as fuzzing runs millions of inputs. */
static FILE *diag_sink(void)
{
    static FILE *sink;
    if (sink == NULL)
        sink = fopen("/dev/null", "w");
    if (sink == NULL)
        abort();
    return sink;
}

static char *print_to_memory(const ast_document *doc, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (f == NULL)
        abort();
    cddl_print(f, doc);
    if (fclose(f) != 0)
        abort();
    return buf;
}

/* print(doc) must parse to `doc` again and print to the same text. */
static void check_round_trip(cddl_ctx *ctx, const ast_document *doc)
{
    cddl_source src;
    ast_document *again;
    size_t len1 = 0, len2 = 0;
    char *text1 = print_to_memory(doc, &len1), *text2;
    cddl_source_from_text(&src, "<printout>", text1, len1);
    again = cddl_parse(ctx, &src);
    if (again == NULL || ctx->diag->errors != 0 || !ast_document_equal(doc, again))
        abort();
    text2 = print_to_memory(again, &len2);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0)
        abort();
    cddl_source_deinit(&src);
    free(text1);
    free(text2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_ctx d;
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_source src;
    ast_document *prelude, *doc;
    sema_table table;
    diag_init(&d, diag_sink());
    cddl_ctx_init(&ctx, &d);
    memset(&src, 0, sizeof src);
    /* The arena has no limit here: running out of memory is the sanitizer's finding. */
    if (setjmp(oom) != 0)
        abort();
    ctx.oom = &oom;
    prelude = cddl_prelude(&ctx);
    cddl_source_from_text(&src, "<fuzz>", (const char *)data, size);
    doc = cddl_parse(&ctx, &src);
    if (doc != NULL && d.errors == 0)
        sema_check(&ctx, prelude, doc, &table);
    if (doc != NULL && d.errors == 0)
        check_round_trip(&ctx, doc);
    cddl_source_deinit(&src);
    cddl_ctx_deinit(&ctx);
    return 0;
}
