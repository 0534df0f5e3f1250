/*
 * compile.c - the front end's driver, cddl_compile (generator/frontend.h):
 * it stops after the first stage that reported errors, resumes where it
 * stopped, keeps a failure, applies the warning options, lowers only what
 * the roots reach, and turns running out of memory at any point into
 * CDDL_COMPILE_FAILED with ctx->oom given back.
 *
 * Usage: frontend-compile SCHEMA (a schema that checks clean, for the
 * out-of-memory loop)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "cddl.h"
#include "frontend.h"

static FILE *sink;

/* One context and unit over `text`; the caller ends them with done(). */
typedef struct fixture {
    diag_ctx d;
    cddl_ctx ctx;
    cddl_unit u;
} fixture;

static void start(fixture *f, const char *text)
{
    diag_init(&f->d, sink);
    cddl_ctx_init(&f->ctx, &f->d);
    cddl_unit_init_text(&f->u, "<test>", text, strlen(text));
}

static void done(fixture *f)
{
    cddl_unit_deinit(&f->u);
    cddl_ctx_deinit(&f->ctx);
}

static cddl_compile_status compile_to(fixture *f, cddl_stage last)
{
    cddl_compile_options o;
    memset(&o, 0, sizeof o);
    o.stop_after = last;
    return cddl_compile(&f->ctx, &f->u, &o);
}

/* A syntax error stops the run before sema, which would report the undefined name too. */
static void test_stops_after_parse_errors(void)
{
    fixture f;
    start(&f, "a = [\nb = undefined-name\n");
    CHECK_INT(compile_to(&f, CDDL_STAGE_LOWER), CDDL_COMPILE_ERRORS);
    CHECK_INT(f.u.done, CDDL_STAGE_NONE);
    CHECK(f.u.doc != NULL);          /* what recovery parsed is still there */
    CHECK_INT(f.u.table.count, 0);   /* sema never ran */
    CHECK(f.u.errors > 0);
    CHECK_INT(f.u.errors, f.d.errors);
    done(&f);
}

static void test_stops_after_check_errors(void)
{
    fixture f;
    start(&f, "a = [* undefined-name]\n");
    CHECK_INT(compile_to(&f, CDDL_STAGE_NONE), CDDL_COMPILE_ERRORS); /* 0: every stage */
    CHECK_INT(f.u.done, CDDL_STAGE_PARSE);
    CHECK_INT(f.u.mod.count, 0);
    CHECK_INT(f.u.errors, 1);
    done(&f);
}

/* Resuming lowers the document already checked: nothing is parsed twice. */
static void test_resumes(void)
{
    fixture f;
    const ast_document *doc;
    start(&f, "a = { b: int, c: [* d] }\nd = tstr\n");
    CHECK_INT(compile_to(&f, CDDL_STAGE_PARSE), CDDL_COMPILE_OK);
    CHECK_INT(f.u.done, CDDL_STAGE_PARSE);
    CHECK(f.u.prelude != NULL && f.u.prelude == cddl_prelude(&f.ctx));
    CHECK_INT(compile_to(&f, CDDL_STAGE_CHECK), CDDL_COMPILE_OK);
    CHECK_INT(f.u.done, CDDL_STAGE_CHECK);
    CHECK(f.u.table.count > f.u.prelude->nrules);
    CHECK_INT(f.u.mod.count, 0);
    doc = f.u.doc;
    CHECK_INT(compile_to(&f, CDDL_STAGE_LOWER), CDDL_COMPILE_OK);
    CHECK_INT(f.u.done, CDDL_STAGE_LOWER);
    CHECK(f.u.doc == doc);
    CHECK(f.u.mod.count >= 2);
    /* asking for an earlier stage does nothing more */
    CHECK_INT(compile_to(&f, CDDL_STAGE_PARSE), CDDL_COMPILE_OK);
    CHECK_INT(f.u.done, CDDL_STAGE_LOWER);
    CHECK_INT(f.d.errors, 0);
    done(&f);
}

static void test_roots(void)
{
    static const char *const good[] = { "d" }, *const bad[] = { "no-such-rule" };
    cddl_compile_options o;
    fixture f;
    memset(&o, 0, sizeof o);
    o.roots = good;
    o.nroots = 1;
    start(&f, "a = { b: int }\nd = [* e]\ne = { x: tstr }\n");
    CHECK_INT(cddl_compile(&f.ctx, &f.u, &o), CDDL_COMPILE_OK);
    CHECK_INT(f.u.mod.count, 2); /* d and e, not a */
    done(&f);
    o.roots = bad;
    start(&f, "a = { b: int }\n");
    CHECK_INT(cddl_compile(&f.ctx, &f.u, &o), CDDL_COMPILE_ERRORS);
    CHECK_INT(f.u.done, CDDL_STAGE_CHECK);
    done(&f);
}

/* A file that cannot be read fails once, and stays failed. */
static void test_failure_is_kept(void)
{
    fixture f;
    diag_init(&f.d, sink);
    cddl_ctx_init(&f.ctx, &f.d);
    cddl_unit_init_file(&f.u, "/nonexistent/schema.cddl");
    CHECK_INT(cddl_compile(&f.ctx, &f.u, NULL), CDDL_COMPILE_FAILED);
    CHECK_INT(f.u.errors, 1);
    CHECK_INT(cddl_compile(&f.ctx, &f.u, NULL), CDDL_COMPILE_FAILED);
    CHECK_INT(f.u.errors, 1);
    CHECK(f.u.doc == NULL);
    done(&f);
}

/* Compiles `text` with warning options; returns the status, and the warning count in *warnings. */
static cddl_compile_status with_warnings(const char *text, const cddl_compile_options *o, unsigned *warnings)
{
    fixture f;
    cddl_compile_status rc;
    start(&f, text);
    rc = cddl_compile(&f.ctx, &f.u, o);
    *warnings = f.d.warnings;
    done(&f);
    return rc;
}

static void test_warnings(void)
{
    static const char unused[] = "a = int\nb = tstr\n";
    static const char loose[] = "m = { id: uint, Data }\nData = (P // Q)\nP = { k: \"p\" }\nQ = { k: \"q\" }\n";
    cddl_compile_options o;
    unsigned w;
    memset(&o, 0, sizeof o);
    CHECK_INT(with_warnings(unused, &o, &w), CDDL_COMPILE_OK);
    CHECK_INT(w, 0); /* -Wunused is off by default */
    o.warn_on = CDDL_WARN(DIAG_W_UNUSED);
    CHECK_INT(with_warnings(unused, &o, &w), CDDL_COMPILE_OK);
    CHECK_INT(w, 1);
    o.warn_off = CDDL_WARN(DIAG_W_UNUSED);
    CHECK_INT(with_warnings(unused, &o, &w), CDDL_COMPILE_OK);
    CHECK_INT(w, 0); /* off wins */
    o.warn_off = 0;
    o.warn_error = CDDL_WARN_ALL;
    CHECK_INT(with_warnings(unused, &o, &w), CDDL_COMPILE_ERRORS);
    memset(&o, 0, sizeof o);
    CHECK_INT(with_warnings(loose, &o, &w), CDDL_COMPILE_OK);
    CHECK(w > 0);
    o.strict = 1;
    CHECK_INT(with_warnings(loose, &o, &w), CDDL_COMPILE_ERRORS);
    o.warn_off = CDDL_WARN(DIAG_W_LOOSE);
    CHECK_INT(with_warnings(loose, &o, &w), CDDL_COMPILE_OK);
}

/*
 * An arena limit that grows until the whole compile fits: every limit below
 * it must end in CDDL_COMPILE_FAILED, with the caller's ctx->oom given back,
 * and never in a crash or a half-built OK.
 */
static void test_out_of_memory(const char *path)
{
    size_t limit;
    int failures = 0, ok = 0;
    for (limit = 4096; !ok && limit < ((size_t)64 << 20); limit += limit / 4) {
        fixture f;
        aps_arena_options ao;
        cddl_compile_status rc;
        memset(&ao, 0, sizeof ao);
        ao.chunk_size = 4096;
        ao.limit = limit;
        diag_init(&f.d, sink);
        cddl_ctx_init(&f.ctx, &f.d);
        aps_arena_deinit(&f.ctx.arena);
        aps_arena_init(&f.ctx.arena, &ao);
        cddl_unit_init_file(&f.u, path);
        rc = cddl_compile(&f.ctx, &f.u, NULL);
        CHECK(f.ctx.oom == NULL);
        CHECK(rc == CDDL_COMPILE_OK || rc == CDDL_COMPILE_FAILED);
        if (rc == CDDL_COMPILE_FAILED)
            failures++;
        ok = rc == CDDL_COMPILE_OK;
        if (ok)
            CHECK_INT(f.u.done, CDDL_STAGE_LOWER);
        done(&f);
    }
    CHECK(ok);
    CHECK(failures > 5);
    printf("out of memory caught at %d arena limits before %s compiled\n", failures, path);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCHEMA\n", argv[0]);
        return 2;
    }
    sink = fopen("/dev/null", "w");
    if (sink == NULL)
        return 2;
    test_stops_after_parse_errors();
    test_stops_after_check_errors();
    test_resumes();
    test_roots();
    test_failure_is_kept();
    test_warnings();
    test_out_of_memory(argv[1]);
    fclose(sink);
    return test_report();
}
