/* test_cddl.c - test_cddl.h: parse and check a text in process. */
#include "test_cddl.h"

#include <setjmp.h>
#include <string.h>

#include "cddl.h"
#include "sema.h"

unsigned test_cddl_check(FILE *sink, const char *name, const char *text, size_t len, size_t *nrules,
                         int *oom)
{
    diag_ctx d;
    cddl_ctx ctx;
    jmp_buf out_of_memory;
    cddl_source src;
    ast_document *prelude, *doc;
    sema_table table;
    diag_init(&d, sink);
    cddl_ctx_init(&ctx, &d);
    memset(&src, 0, sizeof src);
    if (nrules != NULL)
        *nrules = 0;
    if (oom != NULL)
        *oom = 0;
    if (setjmp(out_of_memory) != 0) {
        if (oom != NULL)
            *oom = 1;
        cddl_source_deinit(&src);
        cddl_ctx_deinit(&ctx);
        return 1;
    }
    ctx.oom = &out_of_memory;
    prelude = cddl_prelude(&ctx);
    cddl_source_from_text(&src, name, text, len);
    doc = cddl_parse(&ctx, &src);
    if (nrules != NULL)
        *nrules = doc != NULL ? doc->nrules : 0;
    if (doc != NULL && d.errors == 0)
        sema_check(&ctx, prelude, doc, &table);
    cddl_source_deinit(&src);
    cddl_ctx_deinit(&ctx);
    return d.errors;
}
