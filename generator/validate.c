/* validate.c - `cddlgen validate` (see validate.h). */
#include "validate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "aps/records.h"
#include "cddl.h"
#include "frontend.h"
#include "interp.h"

/* Longest JSONL line or SSE event accepted. */
#define VALIDATE_MAX_RECORD ((size_t)64 << 20)

typedef struct run {
    const aps_type *type;
    aps_decode_options dopt;
    int strict;
    int json_out;
    const char *file;
    aps_arena arena;
    aps_json_writer *report;  /* JSON output: the errors array being written */
    uint64_t valid, invalid;
    uint64_t failed;          /* files rejected whole: not in their format, empty, cut (--strict) */
} run;

/*
 * The gate before a file's records are read, so validation fails closed
 * (aps_records_gate_check). Returns 0 to read it, 1 to read it and fail (a
 * cut stream under --strict), -1 to skip it.
 */
static int check_input(run *r, const char *data, size_t len, aps_record_format format, int strict)
{
    aps_records_gate g;
    aps_records_gate_check(data, len, format, strict, &g);
    if (g.severity != NULL)
        fprintf(stderr, "cddlgen: %s:%" PRIu64 ": %s: %s\n", r->file, g.line, g.severity, g.reason);
    return g.verdict == APS_RECORDS_REJECT ? -1 : g.verdict == APS_RECORDS_READ_AND_FAIL;
}

static void report(run *r, uint64_t line, const aps_error *err)
{
    if (!r->json_out) {
        printf("%s:%" PRIu64 ": error: %s: %s\n", r->file, line, err->pointer[0] ? err->pointer : "(root)",
               err->message);
        return;
    }
    aps_json_write_object_begin(r->report);
    aps_json_write_key(r->report, "file", 4);
    aps_json_write_string(r->report, r->file, strlen(r->file));
    aps_json_write_key(r->report, "line", 4);
    aps_json_write_uint64(r->report, line);
    aps_json_write_key(r->report, "pointer", 7);
    aps_json_write_string(r->report, err->pointer, strlen(err->pointer));
    aps_json_write_key(r->report, "offset", 6);
    aps_json_write_uint64(r->report, err->offset);
    aps_json_write_key(r->report, "message", 7);
    aps_json_write_string(r->report, err->message, strlen(err->message));
    aps_json_write_object_end(r->report);
}

static int on_record(void *user, const aps_record *rec)
{
    run *r = user;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *value;
    aps_arena_reset(&r->arena);
    value = aps_arena_alloc(&r->arena, r->type->size ? r->type->size : 1);
    st = value ? aps_schema_decode(r->type, rec->text, rec->len, &r->arena, value, &r->dopt, &err) : APS_E_NOMEM;
    if (st == APS_OK)
        st = aps_schema_validate(r->type, value, r->strict, &err);
    if (st != APS_OK) {
        if (err.code == APS_OK)
            aps_error_set(&err, st, 0, "%s", aps_status_str(st));
        report(r, rec->line, &err);
        r->invalid++;
    } else {
        r->valid++;
    }
    return 0;
}

static void on_framing_error(void *user, uint64_t line, const aps_error *err)
{
    run *r = user;
    report(r, line, err);
    r->invalid++;
}

static int parse_format(const char *s, aps_record_format *out)
{
    if (s == NULL)
        return 0;
    if (strcmp(s, "json") == 0)
        *out = APS_FORMAT_JSON;
    else if (strcmp(s, "jsonl") == 0)
        *out = APS_FORMAT_JSONL;
    else if (strcmp(s, "sse") == 0)
        *out = APS_FORMAT_SSE;
    else
        return -1;
    return 0;
}

/*
 * Compiles `schema` as far as rule `type` needs, into r->type. Returns 0, 1
 * after errors in the schema, or 2 (unreadable, out of memory, or `type`
 * names no rule of the schema). interp_type allocates: ctx->oom must be set.
 */
static int compile_type(cddl_ctx *ctx, cddl_unit *u, const char *schema, const char *type, run *r)
{
    /* the schema's own warnings are not what a person validating instances asked about */
    cddl_compile_options copt = { .stop_after = CDDL_STAGE_CHECK, .warn_off = CDDL_WARN_ALL };
    ast_str name = { type, strlen(type) };
    const sema_symbol *sym;
    int rc = cddl_compile(ctx, u, &copt);
    if (rc != CDDL_COMPILE_OK)
        return rc;
    sym = sema_lookup(&u->table, name);
    if (sym == NULL || sym->from_prelude) {
        /* a usage error, not a schema error */
        fprintf(stderr, "cddlgen: error: --type %s: no such rule in %s\n", type, schema);
        return 2;
    }
    copt.stop_after = CDDL_STAGE_LOWER;
    copt.roots = &type;
    copt.nroots = 1;
    if ((rc = cddl_compile(ctx, u, &copt)) != CDDL_COMPILE_OK)
        return rc;
    r->type = interp_type(ctx, &u->mod, type);
    return r->type != NULL ? 0 : 1;
}

int validate_files(const char *schema, const char *const *files, size_t nfiles,
                   const validate_options *o, diag_ctx *d)
{
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_unit u;
    run r;
    aps_json_writer w;
    aps_record_format format = APS_FORMAT_AUTO;
    volatile int rc = 0;
    size_t i;
    memset(&r, 0, sizeof r);
    if (o->format != NULL && strcmp(o->format, "json") == 0)
        r.json_out = 1; /* --format json: machine-readable results */
    else if (parse_format(o->format, &format) != 0) {
        fprintf(stderr, "cddlgen: error: --format takes json, jsonl or sse\n");
        return 2;
    }
    if (parse_format(o->input, &format) != 0) {
        fprintf(stderr, "cddlgen: error: --input takes json, jsonl or sse\n");
        return 2;
    }
    if (o->output != NULL)
        r.json_out = strcmp(o->output, "json") == 0;
    if (o->key_case != NULL) {
        if (strcmp(o->key_case, "snake") == 0)
            r.dopt.key_case = APS_CASE_SNAKE;
        else if (strcmp(o->key_case, "either") == 0)
            r.dopt.key_case = APS_CASE_EITHER;
        else if (strcmp(o->key_case, "schema") != 0) {
            fprintf(stderr, "cddlgen: error: --case takes schema, snake or either\n");
            return 2;
        }
    }
    /* a validator checks conformance: unknown variants are reported unless --tolerant */
    r.strict = !o->tolerant;
    r.dopt.strict = !o->tolerant;
    cddl_ctx_init(&ctx, d);
    cddl_unit_init_file(&u, schema);
    if (setjmp(oom) != 0) {
        cddl_unit_deinit(&u);
        cddl_ctx_deinit(&ctx);
        return 2;
    }
    ctx.oom = &oom;
    if ((rc = compile_type(&ctx, &u, schema, o->type, &r)) != 0) {
        cddl_unit_deinit(&u);
        cddl_ctx_deinit(&ctx);
        return rc;
    }
    aps_arena_init(&r.arena, NULL);
    aps_json_writer_init(&w, NULL);
    r.report = &w;
    if (r.json_out) {
        aps_json_write_object_begin(&w);
        aps_json_write_key(&w, "errors", 6);
        aps_json_write_array_begin(&w);
    }
    for (i = 0; i < nfiles; i++) {
        /* each file lives in the arena only while it is checked */
        aps_arena_marker before = aps_arena_mark(&ctx.arena);
        cddl_source data;
        aps_record_format in_format;
        uint64_t records;
        int gate;
        r.file = files[i];
        if (cddl_source_load(&ctx, &data, files[i]) != 0) {
            rc = 2;
            continue;
        }
        in_format = format != APS_FORMAT_AUTO ? format : aps_records_detect(data.text, data.len);
        gate = check_input(&r, data.text, data.len, in_format, o->strict);
        if (gate < 0) {
            r.failed++;
            aps_arena_rollback(&ctx.arena, before);
            continue;
        }
        records = r.valid + r.invalid;
        if (aps_records_split(data.text, data.len, in_format, VALIDATE_MAX_RECORD, on_record, on_framing_error, &r) != 0)
            rc = 2;
        if (r.valid + r.invalid == records) {
            fprintf(stderr, "cddlgen: %s: error: no records: nothing was checked\n", r.file);
            gate = 1;
        }
        if (gate > 0)
            r.failed++;
        aps_arena_rollback(&ctx.arena, before);
    }
    if (r.json_out) {
        aps_json_write_array_end(&w);
        aps_json_write_key(&w, "valid", 5);
        aps_json_write_uint64(&w, r.valid);
        aps_json_write_key(&w, "invalid", 7);
        aps_json_write_uint64(&w, r.invalid);
        aps_json_write_object_end(&w);
        if (aps_json_writer_status(&w) == APS_OK) {
            fwrite(aps_json_writer_data(&w), 1, aps_json_writer_len(&w), stdout);
            fputc('\n', stdout);
        }
    } else {
        printf("%" PRIu64 " valid, %" PRIu64 " invalid\n", r.valid, r.invalid);
    }
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&r.arena);
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    if (rc == 0 && (r.invalid > 0 || r.failed > 0))
        rc = 1;
    return rc;
}
