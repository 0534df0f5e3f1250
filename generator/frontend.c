/* frontend.c - the front end's stages run in order by one driver (see frontend.h). */
#include "frontend.h"

#include <stdlib.h>
#include <string.h>

#include "lower.h"

typedef int (*stage_fn)(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o);

void cddl_unit_init_file(cddl_unit *u, const char *path)
{
    memset(u, 0, sizeof *u);
    u->path = path;
}

void cddl_unit_init_text(cddl_unit *u, const char *name, const char *text, size_t len)
{
    memset(u, 0, sizeof *u);
    cddl_source_from_text(&u->src, name, text, len);
}

int cddl_unit_add_files(cddl_unit *u, const char *const *paths, size_t n)
{
    if (n == 0)
        return 0;
    if ((u->more_src = calloc(n, sizeof *u->more_src)) == NULL)
        return -1;
    u->more_paths = paths;
    u->nmore = n;
    return 0;
}

void cddl_unit_deinit(cddl_unit *u)
{
    size_t i;
    cddl_source_deinit(&u->src);
    for (i = 0; i < u->nmore; i++)
        cddl_source_deinit(&u->more_src[i]);
    free(u->more_src);
    u->more_src = NULL;
    u->nmore = 0;
}

/* Reads the file, if the unit names one, and parses it and the prelude. Returns -1 when it cannot be read. */
static int parse_stage(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    (void)o;
    size_t i, k;
    if (u->path != NULL && cddl_source_load(ctx, &u->src, u->path) != 0)
        return -1;
    u->prelude = cddl_prelude(ctx);
    u->doc = cddl_parse(ctx, &u->src);
    if (u->doc == NULL)
        return -1;
    /* the other files of the schema: their rules follow, in order, as if written after */
    for (i = 0; i < u->nmore; i++) {
        ast_document *more;
        if (cddl_source_load(ctx, &u->more_src[i], u->more_paths[i]) != 0)
            return -1;
        if ((more = cddl_parse(ctx, &u->more_src[i])) == NULL)
            return -1;
        for (k = 0; k < more->nrules; k++)
            cddl_push(ctx, &u->doc->rules, &u->doc->nrules, sizeof *more->rules, &more->rules[k]);
    }
    return 0;
}

static int check_stage(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    (void)o;
    (void)sema_check(ctx, u->prelude, u->doc, &u->table);
    return 0;
}

static int lower_stage(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    lower_options lo;
    lo.roots = o->roots;
    lo.nroots = o->nroots;
    lo.features = o->features;
    lo.nfeatures = o->nfeatures;
    lo.cbor = o->cbor;
    (void)lower_module(ctx, &u->table, u->doc, &lo, &u->mod);
    return 0;
}

/* Runs the stages after u->done up to the last one asked for; errors are counted by ctx->diag. */
static cddl_compile_status run_stages(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    static const stage_fn stages[] = { NULL, parse_stage, check_stage, lower_stage };
    cddl_stage last = o->stop_after != CDDL_STAGE_NONE ? o->stop_after : CDDL_STAGE_LOWER;
    while (u->done < last) {
        unsigned before = ctx->diag->errors;
        if (stages[u->done + 1](ctx, u, o) != 0)
            return CDDL_COMPILE_FAILED;
        /* A pass that reported errors is the last: the next would build on what it rejected. */
        if (ctx->diag->errors > before)
            return CDDL_COMPILE_ERRORS;
        u->done = (cddl_stage)(u->done + 1);
    }
    return CDDL_COMPILE_OK;
}

static void apply_warnings(diag_ctx *d, const cddl_compile_options *o)
{
    int g;
    for (g = 0; g < DIAG_W_COUNT; g++) {
        if (o->warn_on & CDDL_WARN(g))
            d->enabled[g] = 1;
        if (o->warn_off & CDDL_WARN(g))
            d->enabled[g] = 0;
        if (o->warn_error & CDDL_WARN(g))
            d->as_error[g] = 1;
    }
    if (o->strict)
        d->as_error[DIAG_W_LOOSE] = 1;
}

/* run_stages with out-of-memory caught: cddl_alloc has reported it, and the stage it hit is abandoned. */
static cddl_compile_status run_guarded(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    jmp_buf here, *outer = ctx->oom;
    unsigned before = ctx->diag->errors;
    if (setjmp(here) != 0) {
        u->status = CDDL_COMPILE_FAILED;
    } else {
        ctx->oom = &here;
        u->status = run_stages(ctx, u, o);
    }
    ctx->oom = outer;
    u->errors += ctx->diag->errors - before;
    return u->status;
}

cddl_compile_status cddl_compile(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
{
    static const cddl_compile_options defaults;
    if (u->status != CDDL_COMPILE_OK)
        return u->status;
    if (o == NULL)
        o = &defaults;
    apply_warnings(ctx->diag, o);
    return run_guarded(ctx, u, o);
}
