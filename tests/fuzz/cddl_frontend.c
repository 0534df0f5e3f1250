/*
 * cddl_frontend.c - fuzz target for the cddlgen front end: lexer, parser,
 * doc comments and sema on arbitrary bytes. When a schema has no errors it
 * is printed, parsed again and checked to be the same AST, and printed once
 * more to the same text; a difference aborts, as a crash would. Then the
 * rest of the pipeline runs: lowering, and emission into a temporary folder,
 * so the whole of `cddlgen generate` is fuzzed (and must stay bounded).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cddl.h"
#include "emit.h"
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

/* One folder per fuzzing process for the emitted files, made on first use. */
static const char *out_dir(void)
{
    static char dir[] = "/tmp/cddl_frontend_fuzz.XXXXXX";
    static int made;
    if (!made && mkdtemp(dir) == NULL)
        abort();
    made = 1;
    return dir;
}

/* Lowers and emits a checked unit; errors are verdicts, a crash or a leak is the finding. */
static void generate(cddl_ctx *ctx, cddl_unit *u)
{
    static const cddl_compile_options to_lower = { .stop_after = CDDL_STAGE_LOWER };
    emit_options eo;
    jmp_buf oom;
    if (cddl_compile(ctx, u, &to_lower) != CDDL_COMPILE_OK)
        return;
    memset(&eo, 0, sizeof eo);
    eo.prefix = "fz";
    eo.out_dir = out_dir();
    u->mod.schema_name = "fuzz.cddl";
    if (setjmp(oom) != 0)
        abort(); /* no limit on the arena here: out of memory is a finding */
    ctx->oom = &oom;
    (void)emit_module(ctx, &u->mod, &eo);
    ctx->oom = NULL;
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
    if (rc == CDDL_COMPILE_OK) {
        check_round_trip(&ctx, u.doc);
        generate(&ctx, &u);
    }
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return 0;
}
