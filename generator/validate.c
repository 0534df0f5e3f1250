/* validate.c - `cddlgen validate` (see validate.h). */
#include "validate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/cbor.h"
#include "aps/records.h"
#include "cddl.h"
#include "frontend.h"
#include "interp.h"

/* Longest JSONL line, SSE event or JSON document accepted. */
#define VALIDATE_MAX_RECORD ((size_t)64 << 20)

/* Bytes read at a time: a file is read as a stream, never whole. */
#define VALIDATE_CHUNK ((size_t)256 << 10)

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
    uint64_t max_errors;      /* reports shown at most (0: all) */
    uint64_t shown, hidden;
    const uint8_t *cbor;      /* CBOR input: the file's bytes, for the notation of a failing item */
    int cbor_types;           /* --input cbor|cborseq: the schema is lowered with CBOR's own types */
    size_t cbor_len, cbor_base; /* ... their length, and where the item being checked starts */
} run;

/* The gate's finding on a file (aps_records_reader): "cddlgen: FILE:LINE: error|warning: reason". */
static void print_gate(void *user, const aps_records_gate *g)
{
    run *r = user;
    if (g->line != 0)
        fprintf(stderr, "cddlgen: %s:%" PRIu64 ": %s: %s\n", r->file, g->line, g->severity, g->reason);
    else
        fprintf(stderr, "cddlgen: %s: %s: %s\n", r->file, g->severity, g->reason);
}

/*
 * CBOR input: the diagnostic notation (RFC 8949 §8) of the item an error
 * names, the one at err->offset of the item being checked, cut to `cap`;
 * "" when there is none to show.
 */
static const char *failing_item(const run *r, const aps_error *err, char *buf, size_t cap)
{
    aps_arena a;
    aps_cbor_reader rd;
    aps_cbor_raw item;
    aps_slice diag;
    size_t at;
    buf[0] = '\0';
    if (r->cbor == NULL || err->offset == SIZE_MAX || (at = r->cbor_base + err->offset) >= r->cbor_len)
        return buf;
    aps_arena_init(&a, NULL);
    aps_cbor_reader_init(&rd, r->cbor + at, r->cbor_len - at, &a, NULL);
    if (aps_cbor_read_raw(&rd, &item, NULL) == APS_OK &&
        aps_cbor_diag(item.ptr, item.len, false, &a, &diag, NULL) == APS_OK) {
        if (diag.len < cap) {
            memcpy(buf, diag.ptr, diag.len + 1);
        } else { /* cut, and said so */
            memcpy(buf, diag.ptr, cap - 4);
            memcpy(buf + cap - 4, "...", 4);
        }
    }
    aps_arena_deinit(&a);
    return buf;
}

static void report(run *r, uint64_t line, const aps_error *err)
{
    char item[96];
    /* capped as gcc's -fmax-errors caps: one break at every record of a long capture says one thing */
    if (r->max_errors != 0 && r->shown >= r->max_errors) {
        r->hidden++;
        return;
    }
    r->shown++;
    failing_item(r, err, item, sizeof item);
    if (!r->json_out) {
        if (item[0] != '\0')
            printf("%s:%" PRIu64 ": error: %s: %s (byte %zu: %s)\n", r->file, line,
                   err->pointer[0] ? err->pointer : "(root)", err->message, r->cbor_base + err->offset, item);
        else
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
    aps_json_write_uint64(r->report, r->cbor != NULL && err->offset != SIZE_MAX ? r->cbor_base + err->offset
                                                                                : err->offset);
    if (item[0] != '\0') {
        aps_json_write_key(r->report, "item", 4);
        aps_json_write_string(r->report, item, strlen(item));
    }
    aps_json_write_key(r->report, "message", 7);
    aps_json_write_string(r->report, err->message, strlen(err->message));
    aps_json_write_object_end(r->report);
}

/* The record whose errors aps_schema_check_all hands over (its line). */
typedef struct record_errors {
    run *r;
    uint64_t line, count;
} record_errors;

static void on_schema_error(void *user, const aps_error *err)
{
    record_errors *e = user;
    report(e->r, e->line, err);
    e->count++;
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
        /* every error of the record, not only the first: one run tells the whole story */
        record_errors e = { r, rec->line, 0 };
        aps_status all = st == APS_E_NOMEM ? st
                                           : aps_schema_check_all(r->type, rec->text, rec->len, &r->arena, &r->dopt,
                                                                  on_schema_error, &e);
        if (all == APS_OK || e.count == 0) {
            if (err.code == APS_OK)
                aps_error_set(&err, st, 0, "%s", aps_status_str(st));
            report(r, rec->line, &err);
        }
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
    else if (strcmp(s, "auto") == 0)
        *out = APS_FORMAT_AUTO;
    else
        return -1;
    return 0;
}

/*
 * Compiles `schema` as far as rule `type` needs, into r->type. Returns 0, 1
 * after errors in the schema, or 2 (unreadable, out of memory, or `type`
 * names no rule of the schema). interp_type allocates: ctx->oom must be set.
 */
static int compile_type(cddl_ctx *ctx, cddl_unit *u, const char *schema, const char *type,
                        const validate_options *o, run *r)
{
    /* the schema's own warnings are not what a person validating instances asked about */
    cddl_compile_options copt = { .stop_after = CDDL_STAGE_CHECK, .warn_off = CDDL_WARN_ALL };
    copt.features = o->features;
    copt.nfeatures = o->nfeatures;
    copt.cbor = r->cbor != NULL || r->cbor_types;
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

/*
 * Reads one file ("-": standard input) as a stream through the records
 * reader, which is also the gate that fails closed. Returns 0, 1 when the
 * file fails as a whole (not in its format, no record, cut under
 * --strict), 2 when it cannot be read.
 */
static int read_file(run *r, const char *path, aps_record_format format, int strict)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    aps_records_config cfg;
    aps_records_reader *reader;
    uint64_t records = r->valid + r->invalid;
    char *buf;
    int rc = 0, io_failed = 0;
    r->file = is_stdin ? "(standard input)" : path;
    if (f == NULL) {
        fprintf(stderr, "cddlgen: %s: %s\n", path, strerror(errno));
        return 2;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.format = format;
    cfg.max_record = VALIDATE_MAX_RECORD;
    cfg.strict = strict;
    cfg.on_record = on_record;
    cfg.on_error = on_framing_error;
    cfg.on_gate = print_gate;
    cfg.user = r;
    reader = aps_records_reader_new(&cfg);
    /* zeroed: the APS_PADDING bytes after what was read are readable and defined */
    buf = calloc(1, VALIDATE_CHUNK + APS_PADDING);
    if (reader == NULL || buf == NULL)
        rc = APS_RECORDS_NOMEM;
    while (rc == 0) {
        size_t got = fread(buf, 1, VALIDATE_CHUNK, f);
        if (got == 0 && ferror(f)) {
            fprintf(stderr, "cddlgen: %s: read error\n", r->file);
            io_failed = 1;
            break;
        }
        rc = got == 0 ? aps_records_finish(reader) : aps_records_push(reader, buf, got);
        if (got == 0)
            break;
    }
    if (!is_stdin)
        fclose(f);
    if (rc == APS_RECORDS_NOMEM)
        fprintf(stderr, "cddlgen: %s: out of memory\n", r->file);
    if (io_failed || (rc != 0 && rc != APS_RECORDS_REJECTED))
        rc = 2;
    else if (rc == APS_RECORDS_REJECTED || aps_records_reader_verdict(reader) == APS_RECORDS_READ_AND_FAIL)
        rc = 1;
    else if (r->valid + r->invalid == records) {
        fprintf(stderr, "cddlgen: %s: error: no records: nothing was checked\n", r->file);
        rc = 1;
    }
    aps_records_reader_free(reader);
    free(buf);
    return rc;
}

/* One CBOR item [at, at+len) of r->cbor, record number `n`: decoded and checked as the rule says. */
static void check_cbor_item(run *r, uint64_t n, size_t at, size_t len)
{
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *value;
    aps_arena_reset(&r->arena);
    r->cbor_base = at;
    value = aps_arena_alloc(&r->arena, r->type->size ? r->type->size : 1);
    st = value ? aps_schema_decode_cbor(r->type, r->cbor + at, len, &r->arena, value, &r->dopt, &err) : APS_E_NOMEM;
    if (st == APS_OK)
        st = aps_schema_validate(r->type, value, r->strict, &err);
    if (st != APS_OK) {
        if (err.code == APS_OK)
            aps_error_set(&err, st, SIZE_MAX, "%s", aps_status_str(st));
        report(r, n, &err);
        r->invalid++;
    } else {
        r->valid++;
    }
}

/*
 * Reads a CBOR file ("-": standard input) whole, up to VALIDATE_MAX_RECORD
 * bytes (CBOR has no lines to stream by): one item, or with `sequence` an
 * RFC 8742 sequence whose items are records 1, 2, ... Returns as read_file.
 */
static int read_cbor_file(run *r, const char *path, int sequence)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    r->file = is_stdin ? "(standard input)" : path;
    if (f == NULL) {
        fprintf(stderr, "cddlgen: %s: %s\n", path, strerror(errno));
        return 2;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            uint8_t *nb;
            if (cap >= VALIDATE_MAX_RECORD) {
                fprintf(stderr, "cddlgen: %s: error: more than %zu bytes of CBOR\n", r->file, VALIDATE_MAX_RECORD);
                rc = 1;
                break;
            }
            cap = cap ? cap * 2 : VALIDATE_CHUNK;
            if ((nb = realloc(buf, cap)) == NULL) {
                fprintf(stderr, "cddlgen: %s: out of memory\n", r->file);
                rc = 2;
                break;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "cddlgen: %s: read error\n", r->file);
                rc = 2;
            }
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (rc == 0 && len == 0) {
        fprintf(stderr, "cddlgen: %s: error: no records: nothing was checked\n", r->file);
        rc = 1;
    }
    r->cbor = buf;
    r->cbor_len = len;
    if (rc == 0 && !sequence) {
        check_cbor_item(r, 1, 0, len);
    } else if (rc == 0) {
        /* each item's extent by the reader (well-formedness); a break in it ends the file */
        aps_arena a;
        aps_cbor_reader rd;
        aps_cbor_reader_options o;
        uint64_t n = 0;
        memset(&o, 0, sizeof o);
        o.sequence = true;
        aps_arena_init(&a, NULL);
        aps_cbor_reader_init(&rd, buf, len, &a, &o);
        while (!aps_cbor_reader_at_end(&rd)) {
            size_t at = aps_cbor_reader_offset(&rd);
            aps_error err = APS_ERROR_INIT;
            n++;
            aps_arena_reset(&a);
            if (aps_cbor_skip(&rd, &err) != APS_OK) {
                r->cbor_base = 0;
                report(r, n, &err);
                r->invalid++;
                break;
            }
            check_cbor_item(r, n, at, aps_cbor_reader_offset(&rd) - at);
        }
        aps_arena_deinit(&a);
    }
    r->cbor = NULL;
    free(buf);
    return rc;
}

int validate_files(const char *schema, const char *const *files, size_t nfiles,
                   const validate_options *o, diag_ctx *d)
{
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_unit u;
    run r;
    aps_json_writer w;
    aps_record_format parsed = APS_FORMAT_AUTO;
    volatile aps_record_format format;
    volatile int rc = 0;
    size_t i;
    memset(&r, 0, sizeof r);
    r.max_errors = o->max_errors;
    if (o->format != NULL && strcmp(o->format, "json") == 0)
        r.json_out = 1; /* --format json: machine-readable results */
    else if (parse_format(o->format, &parsed) != 0) {
        fprintf(stderr, "cddlgen: error: --format takes json, jsonl, sse or auto\n");
        return 2;
    }
    int cbor = 0; /* 1: --input cbor, 2: --input cborseq */
    if (o->input != NULL && strcmp(o->input, "cbor") == 0)
        cbor = 1;
    else if (o->input != NULL && strcmp(o->input, "cborseq") == 0)
        cbor = 2;
    else if (parse_format(o->input, &parsed) != 0) {
        fprintf(stderr, "cddlgen: error: --input takes json, jsonl, sse, auto, cbor or cborseq\n");
        return 2;
    }
    if (o->output != NULL) {
        if (strcmp(o->output, "json") != 0 && strcmp(o->output, "text") != 0) {
            fprintf(stderr, "cddlgen: error: --output takes text or json\n");
            return 2;
        }
        r.json_out = strcmp(o->output, "json") == 0;
    }
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
    format = parsed;
    r.cbor_types = cbor != 0;
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
    if ((rc = compile_type(&ctx, &u, schema, o->type, o, &r)) != 0) {
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
        int read_rc = cbor ? read_cbor_file(&r, files[i], cbor == 2) : read_file(&r, files[i], format, o->strict);
        if (read_rc == 2)
            rc = 2;
        else if (read_rc != 0)
            r.failed++;
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
    if (r.hidden > 0)
        fprintf(stderr, "cddlgen: %" PRIu64 " more errors not shown (--max-errors 0 shows all)\n", r.hidden);
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&r.arena);
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    if (rc == 0 && (r.invalid > 0 || r.failed > 0))
        rc = 1;
    return rc;
}
