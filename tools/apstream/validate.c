/*
 * validate.c - `apstream validate`, `roundtrip` and `sse2jsonl`: every
 * record decoded with the generated descriptors, checked, and re-encoded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap_transport.h"
#include "apstream.h"

const aps_type *apstream_find_type(const char *name)
{
    size_t i;
    for (i = 0; i < ap_types_count; i++)
        if (strcmp(ap_types[i].name, name) == 0)
            return ap_types[i].type;
    fprintf(stderr, "apstream: error: no type '%s' in the schema; the rules are:\n", name);
    for (i = 0; i < ap_types_count; i++)
        if (strchr(ap_types[i].name, '.') == NULL || strchr(ap_types[i].name, '(') == NULL)
            fprintf(stderr, "  %s\n", ap_types[i].name);
    return NULL;
}

void apstream_report(FILE *out, uint64_t line, const aps_error *err)
{
    fprintf(out, "%" PRIu64 ": error: %s: %s\n", line, err->pointer[0] ? err->pointer : "(root)", err->message);
}

typedef struct validate_state {
    const apstream_options *o;
    const aps_type *type;
    int roundtrip;
    aps_arena arena;
    aps_json_writer writer;
    uint64_t valid, invalid;
    int have_seq;
    uint64_t last_seq;
} validate_state;

/*
 * --strict on SSE: the transport fields must agree with the message (see
 * ap_message_check_sse_binding), and seq strictly increases along the stream.
 */
static aps_status check_sse_binding(validate_state *s, const aps_record *rec, const ap_message_t *msg,
                                    aps_error *err)
{
    aps_slice type = { rec->sse_type, rec->sse_type_len }, id = { rec->sse_id, rec->sse_id_len };
    aps_status st = ap_message_check_sse_binding(msg, type, id, err);
    if (msg->kind == AP_MESSAGE_EVENT && msg->u.event.has_seq) {
        /* the order is checked and recorded whatever else is wrong with the event */
        uint64_t seq = msg->u.event.seq;
        int decreasing = s->have_seq && seq <= s->last_seq;
        uint64_t previous = s->last_seq;
        s->have_seq = 1;
        s->last_seq = seq;
        if (st == APS_OK && decreasing) {
            aps_error_set_pointer(err, "/seq");
            return aps_error_set(err, APS_E_STATE, 0, "seq %" PRIu64 " does not increase (the previous event had %" PRIu64 ")",
                                 seq, previous);
        }
    }
    return st;
}

static int on_record(void *user, const aps_record *rec)
{
    validate_state *s = user;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *value;
    aps_arena_reset(&s->arena);
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = s->o->key_case;
    /* Validation checks conformance: a variant the schema does not define is
     * reported unless --tolerant asks for a consuming application's view.
     * roundtrip re-encodes as an application would: unknown variants pass
     * through as the raw JSON they were. */
    dopt.strict = !s->roundtrip && !s->o->tolerant;
    value = aps_arena_alloc(&s->arena, s->type->size ? s->type->size : 1);
    st = value ? aps_schema_decode(s->type, rec->text, rec->len, &s->arena, value, &dopt, &err) : APS_E_NOMEM;
    if (st == APS_OK)
        st = aps_schema_validate(s->type, value, dopt.strict, &err);
    if (st == APS_OK && rec->from_sse && s->o->strict && s->type == &ap_message_type)
        st = check_sse_binding(s, rec, value, &err);
    if (st != APS_OK) {
        if (err.code == APS_OK)
            aps_error_set(&err, st, 0, "%s", aps_status_str(st));
        apstream_report(s->roundtrip ? stderr : stdout, rec->line, &err);
        s->invalid++;
        return 0;
    }
    s->valid++;
    if (s->roundtrip) {
        aps_encode_options eopt;
        memset(&eopt, 0, sizeof eopt);
        eopt.key_case = s->o->key_case == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
        aps_json_writer_reset(&s->writer);
        if (aps_schema_encode(s->type, value, &s->writer, &eopt, NULL) != APS_OK) {
            fprintf(stderr, "apstream: line %" PRIu64 ": cannot encode\n", rec->line);
            return 2;
        }
        fwrite(aps_json_writer_data(&s->writer), 1, aps_json_writer_len(&s->writer), stdout);
        fputc('\n', stdout);
    }
    return 0;
}

static void on_framing_error(void *user, uint64_t line, const aps_error *err)
{
    validate_state *s = user;
    apstream_report(s->roundtrip ? stderr : stdout, line, err);
    s->invalid++;
}

int apstream_validate(const apstream_options *o, int roundtrip)
{
    validate_state s;
    char *data;
    size_t len;
    int rc;
    aps_record_format format;
    apstream_gate gate;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.roundtrip = roundtrip;
    if ((s.type = apstream_find_type(o->type_name)) == NULL)
        return 2;
    if (apstream_read_file(o->file, &data, &len) != 0)
        return 2;
    if ((gate = apstream_check_input(o, data, len, &format)) == APSTREAM_INPUT_REJECTED) {
        free(data);
        return 1;
    }
    aps_arena_init(&s.arena, NULL);
    aps_json_writer_init(&s.writer, NULL);
    /* roundtrip's stdout is JSON: its report lines go to stderr */
    if (roundtrip)
        fflush(stdout);
    rc = aps_records_split(data, len, format, o->max_record, on_record, on_framing_error, &s);
    aps_json_writer_deinit(&s.writer);
    aps_arena_deinit(&s.arena);
    free(data);
    if (rc == 2 || rc < 0)
        return 2;
    fprintf(roundtrip ? stderr : stdout, "%" PRIu64 " valid, %" PRIu64 " invalid\n", s.valid, s.invalid);
    if (apstream_check_records(o, s.valid + s.invalid) != 0)
        return 1;
    return s.invalid > 0 || gate != APSTREAM_INPUT_OK ? 1 : 0;
}

/* What sse2jsonl counts: records printed and framing errors. */
typedef struct sse2jsonl_counts {
    uint64_t records;
    int errors;
} sse2jsonl_counts;

static int print_data(void *user, const aps_record *rec)
{
    size_t i;
    ((sse2jsonl_counts *)user)->records++;
    /* JSON allows a line break only between tokens, where a space says the same */
    for (i = 0; i < rec->len; i++)
        fputc(rec->text[i] == '\n' ? ' ' : rec->text[i], stdout);
    fputc('\n', stdout);
    return 0;
}

static void print_framing_error(void *user, uint64_t line, const aps_error *err)
{
    sse2jsonl_counts *n = user;
    fprintf(stderr, "%" PRIu64 ": error: %s\n", line, err->message);
    n->errors++;
}

int apstream_sse2jsonl(const apstream_options *o)
{
    char *data;
    size_t len;
    int rc;
    sse2jsonl_counts n = { 0, 0 };
    apstream_options sse = *o;
    aps_record_format format;
    apstream_gate gate;
    if (apstream_read_file(o->file, &data, &len) != 0)
        return 2;
    /* the input must be SSE whatever it looks like */
    sse.format = APS_FORMAT_SSE;
    if ((gate = apstream_check_input(&sse, data, len, &format)) == APSTREAM_INPUT_REJECTED) {
        free(data);
        return 1;
    }
    rc = aps_records_split(data, len, APS_FORMAT_SSE, o->max_record, print_data, print_framing_error, &n);
    free(data);
    if (rc != 0)
        return 2;
    if (apstream_check_records(o, n.records) != 0)
        return 1;
    return n.errors > 0 || gate != APSTREAM_INPUT_OK ? 1 : 0;
}
