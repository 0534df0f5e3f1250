/* test_cddl.c - test_cddl.h: parse and check a text in process, through the front end's driver. */
#include "test_cddl.h"

#include "cddl.h"
#include "frontend.h"

unsigned test_cddl_check(FILE *sink, const char *name, const char *text, size_t len, size_t *nrules,
                         int *oom)
{
    static const cddl_compile_options to_check = { .stop_after = CDDL_STAGE_CHECK };
    diag_ctx d;
    cddl_ctx ctx;
    cddl_unit u;
    cddl_compile_status rc;
    diag_init(&d, sink);
    cddl_ctx_init(&ctx, &d);
    cddl_unit_init_text(&u, name, text, len);
    rc = cddl_compile(&ctx, &u, &to_check);
    /* text cannot fail to be read: FAILED is out of memory, which counts as an error */
    if (oom != NULL)
        *oom = rc == CDDL_COMPILE_FAILED;
    /* the rules parsed count even when a later stage reported errors */
    if (nrules != NULL)
        *nrules = rc != CDDL_COMPILE_FAILED && u.doc != NULL ? u.doc->nrules : 0;
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return d.errors + (rc == CDDL_COMPILE_FAILED && d.errors == 0);
}
