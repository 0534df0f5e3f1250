/*
 * check.c - the checks of `apstream validate`, one record at a time: each
 * record decoded with the generated descriptors and validated, the
 * stream-level rules (seq order, eventId uniqueness, SSE event:/id:
 * agreeing with the payload) and the messages and tools lifecycle (the
 * assembler). `validate` feeds it a capture; `connect` feeds it the events
 * of a live server as they arrive, so the two report the same findings in
 * the same words.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap_transport.h"
#include "apstream.h"

/*
 * eventIds seen, for the uniqueness rule of validate: 64-bit hashes of the
 * last ID_WINDOW to 2 * ID_WINDOW eventIds, in two generations (the
 * current one, and the one before it, dropped when the current one is
 * full), so memory stays bounded on a capture of any length. A repeat
 * further back than that is not seen; a hash collision (2^-64 per pair)
 * would report a repeat that is none.
 */
#define ID_WINDOW ((size_t)1 << 18)

typedef struct id_slot {
    uint64_t hash; /* 0: empty */
    uint64_t line;
} id_slot;

typedef struct id_table {
    id_slot *slots;
    size_t cap, count; /* cap: a power of two, at most half full */
} id_table;

typedef struct id_window {
    id_table cur, old;
} id_window;

static uint64_t id_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a finalizer that spreads it over all 64 bits */
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h != 0 ? h : 1;
}

static id_slot *id_find(const id_table *t, uint64_t h)
{
    size_t i;
    if (t->cap == 0)
        return NULL;
    for (i = (size_t)h & (t->cap - 1); t->slots[i].hash != 0; i = (i + 1) & (t->cap - 1))
        if (t->slots[i].hash == h)
            return &t->slots[i];
    return NULL;
}

static int id_put(id_table *t, uint64_t h, uint64_t line)
{
    size_t i;
    if (2 * (t->count + 1) > t->cap) {
        id_table grown;
        size_t k;
        grown.cap = t->cap ? 2 * t->cap : 1024;
        grown.count = 0;
        if ((grown.slots = calloc(grown.cap, sizeof *grown.slots)) == NULL)
            return -1;
        for (k = 0; k < t->cap; k++)
            if (t->slots[k].hash != 0)
                (void)id_put(&grown, t->slots[k].hash, t->slots[k].line);
        free(t->slots);
        *t = grown;
    }
    for (i = (size_t)h & (t->cap - 1); t->slots[i].hash != 0; i = (i + 1) & (t->cap - 1))
        ;
    t->slots[i].hash = h;
    t->slots[i].line = line;
    t->count++;
    return 0;
}

/* The line of an earlier event with this eventId (0: none), remembering this one. -1: out of memory. */
static int64_t id_seen(id_window *w, const char *id, size_t len, uint64_t line)
{
    uint64_t h = id_hash(id, len);
    const id_slot *hit = id_find(&w->cur, h);
    if (hit == NULL)
        hit = id_find(&w->old, h);
    if (hit != NULL)
        return (int64_t)hit->line;
    if (w->cur.count >= ID_WINDOW) {
        free(w->old.slots);
        w->old = w->cur;
        memset(&w->cur, 0, sizeof w->cur);
    }
    return id_put(&w->cur, h, line) == 0 ? 0 : -1;
}

struct apstream_check {
    const apstream_options *o;
    const aps_type *type;
    int roundtrip;
    FILE *out;                 /* where reports go */
    aps_arena arena;
    aps_json_writer writer;
    uint64_t valid, invalid;
    uint64_t stream_findings;  /* breaks of the stream-level rules (seq, eventId) */
    int have_seq;
    uint64_t rejected_since;   /* records the schema rejected since last_seq: their seqs are unknown */
    uint64_t last_seq, last_seq_line;
    id_window ids;
    asm_run *assembler;        /* Message streams: the lifecycle rules, as assemble checks them */
    /* the record being checked, for reporting each of its schema errors */
    const aps_record *rec;
    char method[48];           /* its method, once record_method has read it */
    int method_read;
    uint64_t counted;          /* its errors the baseline did not accept */
};

const char *apstream_record_method(const aps_record *rec, char *buf, size_t cap)
{
    aps_json_raw obj = { rec->text, rec->len };
    aps_arena arena;
    aps_slice m;
    buf[0] = '\0';
    aps_arena_init(&arena, NULL);
    /* the envelope's own member, whatever the schema says of the rest */
    if (apstream_string_member(obj, "method", &arena, &m) == 0 && m.len < cap && memchr(m.ptr, '\0', m.len) == NULL) {
        memcpy(buf, m.ptr, m.len);
        buf[m.len] = '\0';
    }
    aps_arena_deinit(&arena);
    return buf;
}

/* The method of the record being checked, read from its JSON only when a finding names it. */
static const char *record_method(apstream_check *s)
{
    if (!s->method_read) {
        (void)apstream_record_method(s->rec, s->method, sizeof s->method);
        s->method_read = 1;
    }
    return s->method;
}

/* --strict on SSE: the transport fields must agree with the message (see ap_message_check_sse_binding). */
static aps_status check_sse_binding(const aps_record *rec, const ap_message_t *msg, aps_error *err)
{
    aps_slice type = { rec->sse_type, rec->sse_type_len }, id = { rec->sse_id, rec->sse_id_len };
    return ap_message_check_sse_binding(msg, type, id, err);
}

/*
 * The rules of one stream, beyond each event alone: seq strictly increases
 * (with --unfiltered, by one: a gap is reported with what is missing), and
 * no eventId repeats. Errors with --strict, else warnings. Returns how many
 * it found.
 */
static int check_stream(apstream_check *s, const aps_record *rec, const ap_message_t *msg)
{
    const ap_event_t *ev;
    const char *sev = s->o->strict ? "error" : "warning";
    int found = 0;
    if (msg->kind != AP_MESSAGE_EVENT)
        return 0;
    ev = &msg->u.event;
    if (ev->has_seq) {
        uint64_t seq = ev->seq;
        if (s->have_seq && seq <= s->last_seq) {
            found += apstream_diag(s->out, rec->line, sev, "seq-order", record_method(s), "/seq",
                                   "seq %" PRIu64 " is not greater than seq %" PRIu64 " at line %" PRIu64, seq,
                                   s->last_seq, s->last_seq_line);
        } else {
            /* the seqs of records rejected in between may fill a gap: only what they cannot is a loss */
            if (s->have_seq && s->o->unfiltered && seq - s->last_seq > 1 + s->rejected_since) {
                if (seq - s->last_seq == 2)
                    found += apstream_diag(s->out, rec->line, sev, "seq-gap", record_method(s), "/seq",
                                           "seq %" PRIu64 " is missing: seq %" PRIu64 " follows seq %" PRIu64
                                           " at line %" PRIu64,
                                           s->last_seq + 1, seq, s->last_seq, s->last_seq_line);
                else
                    found += apstream_diag(s->out, rec->line, sev, "seq-gap", record_method(s), "/seq",
                                           "seqs %" PRIu64 " to %" PRIu64 " are missing: seq %" PRIu64
                                           " follows seq %" PRIu64 " at line %" PRIu64,
                                           s->last_seq + 1, seq - 1, seq, s->last_seq, s->last_seq_line);
            }
            /* the highest seq so far: after a swap, the next event is compared with the later of the two */
            s->have_seq = 1;
            s->rejected_since = 0;
            s->last_seq = seq;
            s->last_seq_line = rec->line;
        }
    }
    if (ev->has_event_id) {
        int64_t first = id_seen(&s->ids, ev->event_id.ptr, ev->event_id.len, rec->line);
        if (first < 0)
            return -1;
        if (first > 0)
            found += apstream_diag(s->out, rec->line, sev, "event-id-repeat", record_method(s), "/eventId",
                                   "eventId \"%.*s\" repeats the event at line %" PRId64,
                                   (int)(ev->event_id.len > 64 ? 64 : ev->event_id.len), ev->event_id.ptr, first);
    }
    return found;
}

/* One schema error of the record being checked (an aps_error_fn). */
static void schema_error(void *user, const aps_error *err)
{
    apstream_check *s = user;
    s->counted += (uint64_t)apstream_report(s->out, s->rec->line, "schema", record_method(s), err);
}

/*
 * A record the schema rejects: every error of it, not only the first (a
 * server told of one error at a time needs as many runs to learn them).
 * Returns how many the baseline did not accept.
 */
static uint64_t report_schema_errors(apstream_check *s, const aps_decode_options *dopt, const aps_error *first)
{
    aps_arena scratch;
    aps_status st;
    s->counted = 0;
    aps_arena_init(&scratch, NULL);
    st = aps_schema_check_all(s->type, s->rec->text, s->rec->len, &scratch, dopt, schema_error, s);
    aps_arena_deinit(&scratch);
    /* a rejection the full list cannot reproduce (out of memory there) is still reported */
    if (st == APS_OK || st == APS_E_NOMEM || st == APS_E_ARGUMENT)
        s->counted = (uint64_t)apstream_report(s->out, s->rec->line, "schema", record_method(s), first);
    return s->counted;
}

int apstream_check_record(void *user, const aps_record *rec)
{
    apstream_check *s = user;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *value;
    int stream = 0, decoded;
    uint64_t lifecycle = 0, schema = 0;
    s->rec = rec;
    s->method_read = 0;
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
    decoded = st == APS_OK;
    if (st == APS_E_NOMEM)
        return 2;
    if (st != APS_OK) {
        if (err.code == APS_OK)
            aps_error_set(&err, st, 0, "%s", aps_status_str(st));
        schema = report_schema_errors(s, &dopt, &err);
    } else if (rec->from_sse && s->o->strict && s->type == &ap_message_type &&
               check_sse_binding(rec, value, &err) != APS_OK) {
        schema = (uint64_t)apstream_report(s->out, rec->line, "sse-binding", record_method(s), &err);
    }
    /* the stream's order is checked and recorded whatever else is wrong with the event */
    if (decoded && s->type == &ap_message_type && !s->roundtrip && (stream = check_stream(s, rec, value)) < 0)
        return 2;
    s->stream_findings += (uint64_t)stream;
    if (!decoded)
        s->rejected_since++;
    if (s->assembler != NULL) {
        uint64_t before = apstream_asm_found(s->assembler);
        if (apstream_asm_record(s->assembler, rec) != 0)
            return 2;
        lifecycle = apstream_asm_found(s->assembler) - before;
    }
    /* under --strict a record is valid when it breaks no rule, its own or the stream's; what the
     * baseline accepts breaks none */
    if (schema > 0 || (s->o->strict && (stream > 0 || lifecycle > 0))) {
        s->invalid++;
        return 0;
    }
    s->valid++; /* a rejected record whose every error the baseline accepts counts as valid */
    if (s->roundtrip && decoded) {
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

void apstream_check_framing_error(void *user, uint64_t line, const aps_error *err)
{
    apstream_check *s = user;
    if (apstream_report(s->out, line, "framing", NULL, err))
        s->invalid++;
}

apstream_check *apstream_check_new(const apstream_options *o, const aps_type *type, int roundtrip, FILE *out)
{
    apstream_check *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->o = o;
    s->type = type;
    s->roundtrip = roundtrip;
    s->out = out;
    /* the messages and tools lifecycle, checked as `assemble` checks it */
    if (!roundtrip && type == &ap_message_type &&
        (s->assembler = apstream_asm_open(o, 1, out, o->strict ? "error" : "warning")) == NULL) {
        free(s);
        return NULL;
    }
    aps_arena_init(&s->arena, NULL);
    aps_json_writer_init(&s->writer, NULL);
    return s;
}

void apstream_check_forget_seq(apstream_check *s)
{
    s->have_seq = 0;
}

void apstream_check_counts(const apstream_check *s, uint64_t *valid, uint64_t *invalid)
{
    *valid = s->valid;
    *invalid = s->invalid;
}

uint64_t apstream_check_free(apstream_check *s, int deliver)
{
    uint64_t found;
    if (s == NULL)
        return 0;
    found = s->stream_findings;
    if (s->assembler != NULL)
        found += apstream_asm_close(s->assembler, deliver);
    aps_json_writer_deinit(&s->writer);
    aps_arena_deinit(&s->arena);
    free(s->ids.cur.slots);
    free(s->ids.old.slots);
    free(s);
    return found;
}
