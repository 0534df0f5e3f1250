/*
 * cddl_frontend.c - fuzz target for the cddlgen front end: lexer, parser,
 * doc comments and sema on arbitrary bytes. When a schema has no errors it
 * is printed, parsed again and checked to be the same AST, and printed once
 * more to the same text; a difference aborts, as a crash would.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cddl.h"
#include "frontend.h"

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
    static const cddl_compile_options to_parse = { .stop_after = CDDL_STAGE_PARSE };
    cddl_unit printout;
    size_t len1 = 0, len2 = 0;
    char *text1 = print_to_memory(doc, &len1), *text2;
    cddl_unit_init_text(&printout, "<printout>", text1, len1);
    if (cddl_compile(ctx, &printout, &to_parse) != CDDL_COMPILE_OK || !ast_document_equal(doc, printout.doc))
        abort();
    text2 = print_to_memory(printout.doc, &len2);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0)
        abort();
    cddl_unit_deinit(&printout);
    free(text1);
    free(text2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const cddl_compile_options to_check = { .stop_after = CDDL_STAGE_CHECK };
    diag_ctx d;
    cddl_ctx ctx;
    cddl_unit u;
    int rc;
    diag_init(&d, diag_sink());
    cddl_ctx_init(&ctx, &d);
    cddl_unit_init_text(&u, "<fuzz>", (const char *)data, size);
    rc = cddl_compile(&ctx, &u, &to_check);
    /* The arena has no limit here: running out of memory is the sanitizer's finding. */
    if (rc == CDDL_COMPILE_FAILED)
        abort();
    if (rc == CDDL_COMPILE_OK)
        check_round_trip(&ctx, u.doc);
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return 0;
}
