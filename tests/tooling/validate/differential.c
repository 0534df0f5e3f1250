/*
 * differential.c - `cddlgen validate` interprets a schema with descriptors
 * built in memory; generated code carries the same descriptors as C tables.
 * Both must give the same verdict, JSON Pointer and message for every input:
 * every corpus file and every fuzz-corpus input (as Message and as Command,
 * strict and tolerant) and seeded mutations of each (bytes replaced,
 * deleted, duplicated, inserted).
 * Usage: tooling-validate-differential SCHEMA DIR...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap.h"
#include "cddl.h"
#include "frontend.h"
#include "interp.h"
#include "mutate.h"
#include "test.h"
#include "test_util.h"

typedef struct verdict {
    aps_status status;
    aps_error err;
} verdict;

static verdict run(const aps_type *type, const char *json, size_t len, bool strict, aps_arena *arena)
{
    verdict v;
    aps_decode_options opt;
    void *value;
    memset(&v, 0, sizeof v);
    memset(&opt, 0, sizeof opt);
    opt.strict = strict;
    aps_arena_reset(arena);
    value = aps_arena_alloc(arena, type->size);
    v.status = aps_schema_decode(type, json, len, arena, value, &opt, &v.err);
    if (v.status == APS_OK)
        v.status = aps_schema_validate(type, value, strict, &v.err);
    return v;
}

static int compared, differed;

static void compare(const char *what, const aps_type *gen, const aps_type *interp, const char *json,
                    size_t len, aps_arena *arena)
{
    int s;
    for (s = 0; s < 2; s++) {
        verdict a = run(gen, json, len, s, arena), b = run(interp, json, len, s, arena);
        compared++;
        if (a.status != b.status || strcmp(a.err.pointer, b.err.pointer) != 0 ||
            strcmp(a.err.message, b.err.message) != 0 || a.err.offset != b.err.offset) {
            differed++;
            fprintf(stderr, "%s (%s): generated %s at '%s' [%zu]: %s\n  interpreted %s at '%s' [%zu]: %s\n",
                    what, s ? "strict" : "tolerant", aps_status_str(a.status), a.err.pointer, a.err.offset,
                    a.err.message, aps_status_str(b.status), b.err.pointer, b.err.offset, b.err.message);
        }
    }
}

/* The interpreted types each file is compared on, and the files so far. */
typedef struct corpus_walk {
    const aps_type *interp_msg, *interp_cmd;
    aps_arena *arena;
    int files;
} corpus_walk;

/* One file, as Message and as Command, and 40 mutations of it. */
static void compare_file(void *ctx, const char *path, const char *name)
{
    corpus_walk *w = (corpus_walk *)ctx;
    size_t len, i;
    char *json = test_read_file(path, &len), *mut;
    if (json == NULL)
        return;
    w->files++;
    compare(name, &ap_message_type, w->interp_msg, json, len, w->arena);
    compare(name, &ap_command_type, w->interp_cmd, json, len, w->arena);
    mut = malloc(2 * len + 16);
    for (i = 0; mut != NULL && i < 40; i++) {
        size_t n = mutate(json, len, mut);
        compare(name, &ap_message_type, w->interp_msg, mut, n, w->arena);
        compare(name, &ap_command_type, w->interp_cmd, mut, n, w->arena);
    }
    free(mut);
    free(json);
}

int main(int argc, char **argv)
{
    static const char *const roots[] = { "Message", "Command" };
    /* the protocol schema's loose readings and overlapping choices are known */
    static const cddl_compile_options copt = {
        .roots = roots, .nroots = 2, .warn_off = CDDL_WARN(DIAG_W_LOOSE) | CDDL_WARN(DIAG_W_CHOICE)
    };
    diag_ctx d;
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_unit u;
    const aps_type *interp_msg, *interp_cmd;
    aps_arena arena;
    int a;
    corpus_walk w = { NULL, NULL, NULL, 0 };
    if (argc < 3) {
        fprintf(stderr, "usage: %s SCHEMA DIR...\n", argv[0]);
        return 2;
    }
    diag_init(&d, stderr);
    cddl_ctx_init(&ctx, &d);
    cddl_unit_init_file(&u, argv[1]);
    if (cddl_compile(&ctx, &u, &copt) != CDDL_COMPILE_OK)
        return 2;
    /* interp_type allocates from the arena too */
    if (setjmp(oom) != 0)
        return 2;
    ctx.oom = &oom;
    interp_msg = interp_type(&ctx, &u.mod, "Message");
    interp_cmd = interp_type(&ctx, &u.mod, "Command");
    CHECK(interp_msg != NULL && interp_cmd != NULL);
    if (interp_msg == NULL || interp_cmd == NULL)
        return test_report();
    aps_arena_init(&arena, NULL);
    w.interp_msg = interp_msg;
    w.interp_cmd = interp_cmd;
    w.arena = &arena;
    for (a = 2; a < argc; a++)
        CHECK(test_for_each_file(argv[a], NULL, compare_file, &w) >= 0);
    printf("%d files, %d comparisons, %d differences\n", w.files, compared, differed);
    CHECK(w.files > 100);
    CHECK(differed == 0);
    aps_arena_deinit(&arena);
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return test_report();
}
