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

typedef struct validate_state {
    const apstream_options *o;
    const aps_type *type;
    int roundtrip;
    FILE *out;                 /* where reports go */
    aps_arena arena;
    aps_json_writer writer;
    uint64_t valid, invalid;
    uint64_t stream_findings;  /* breaks of the stream-level rules (seq, eventId) */
    int have_seq;
    uint64_t last_seq, last_seq_line;
    id_window ids;
    asm_run *assembler;        /* Message streams: the lifecycle rules, as assemble checks them */
} validate_state;

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
static int check_stream(validate_state *s, const aps_record *rec, const ap_message_t *msg)
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
            apstream_diag(s->out, rec->line, sev, "/seq", "seq %" PRIu64 " is not greater than seq %" PRIu64 " at line %" PRIu64,
                          seq, s->last_seq, s->last_seq_line);
            found++;
        } else {
            if (s->have_seq && s->o->unfiltered && seq - s->last_seq > 1) {
                if (seq - s->last_seq == 2)
                    apstream_diag(s->out, rec->line, sev, "/seq",
                                  "seq %" PRIu64 " is missing: seq %" PRIu64 " follows seq %" PRIu64 " at line %" PRIu64,
                                  s->last_seq + 1, seq, s->last_seq, s->last_seq_line);
                else
                    apstream_diag(s->out, rec->line, sev, "/seq",
                                  "seqs %" PRIu64 " to %" PRIu64 " are missing: seq %" PRIu64 " follows seq %" PRIu64
                                  " at line %" PRIu64,
                                  s->last_seq + 1, seq - 1, seq, s->last_seq, s->last_seq_line);
                found++;
            }
            /* the highest seq so far: after a swap, the next event is compared with the later of the two */
            s->have_seq = 1;
            s->last_seq = seq;
            s->last_seq_line = rec->line;
        }
    }
    if (ev->has_event_id) {
        int64_t first = id_seen(&s->ids, ev->event_id.ptr, ev->event_id.len, rec->line);
        if (first < 0)
            return -1;
        if (first > 0) {
            apstream_diag(s->out, rec->line, sev, "/eventId", "eventId \"%.*s\" repeats the event at line %" PRId64,
                          (int)(ev->event_id.len > 64 ? 64 : ev->event_id.len), ev->event_id.ptr, first);
            found++;
        }
    }
    return found;
}

static int on_record(void *user, const aps_record *rec)
{
    validate_state *s = user;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *value;
    int stream = 0, decoded;
    uint64_t lifecycle = 0;
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
    if (st == APS_OK && rec->from_sse && s->o->strict && s->type == &ap_message_type)
        st = check_sse_binding(rec, value, &err);
    if (st == APS_E_NOMEM)
        return 2;
    if (st != APS_OK) {
        if (err.code == APS_OK)
            aps_error_set(&err, st, 0, "%s", aps_status_str(st));
        apstream_report(s->out, rec->line, &err);
    }
    /* the stream's order is checked and recorded whatever else is wrong with the event */
    if (decoded && s->type == &ap_message_type && !s->roundtrip && (stream = check_stream(s, rec, value)) < 0)
        return 2;
    s->stream_findings += (uint64_t)stream;
    if (s->assembler != NULL) {
        uint64_t before = apstream_asm_found(s->assembler);
        if (apstream_asm_record(s->assembler, rec) != 0)
            return 2;
        lifecycle = apstream_asm_found(s->assembler) - before;
    }
    /* under --strict a record is valid when it breaks no rule, its own or the stream's */
    if (st != APS_OK || (s->o->strict && (stream > 0 || lifecycle > 0))) {
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
    apstream_report(s->out, line, err);
    s->invalid++;
}

int apstream_validate(const apstream_options *o, int roundtrip)
{
    validate_state s;
    apstream_gate gate;
    uint64_t lifecycle = 0;
    int json = o->json_report && !roundtrip;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.roundtrip = roundtrip;
    /* roundtrip's stdout is JSON values: its report lines go to stderr */
    s.out = roundtrip ? stderr : stdout;
    if ((s.type = apstream_find_type(o->type_name)) == NULL)
        return 2;
    apstream_diag_setup(o, json);
    /* the messages and tools lifecycle, checked as `assemble` checks it */
    if (!roundtrip && s.type == &ap_message_type &&
        (s.assembler = apstream_asm_open(o, 1, s.out, o->strict ? "error" : "warning")) == NULL) {
        fprintf(stderr, "apstream: out of memory\n");
        return 2;
    }
    aps_arena_init(&s.arena, NULL);
    aps_json_writer_init(&s.writer, NULL);
    if (json)
        fputs("{\"errors\":[", stdout);
    gate = apstream_read_records(o, o->format, on_record, on_framing_error, &s);
    if (s.assembler != NULL)
        lifecycle = apstream_asm_close(s.assembler, gate == APSTREAM_INPUT_OK || gate == APSTREAM_INPUT_FAILED);
    aps_json_writer_deinit(&s.writer);
    aps_arena_deinit(&s.arena);
    free(s.ids.cur.slots);
    free(s.ids.old.slots);
    if (json)
        printf("\n],\"valid\":%" PRIu64 ",\"invalid\":%" PRIu64 "}\n", s.valid, s.invalid);
    else if (gate == APSTREAM_INPUT_OK || gate == APSTREAM_INPUT_FAILED)
        fprintf(s.out, "%" PRIu64 " valid, %" PRIu64 " invalid\n", s.valid, s.invalid);
    fflush(stdout);
    apstream_diag_end();
    if (gate == APSTREAM_INPUT_ERROR)
        return 2;
    if (gate == APSTREAM_INPUT_REJECTED || apstream_check_records(o, s.valid + s.invalid) != 0)
        return 1;
    if (s.invalid > 0 || gate != APSTREAM_INPUT_OK)
        return 1;
    return o->strict && (s.stream_findings > 0 || lifecycle > 0) ? 1 : 0;
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
    sse2jsonl_counts n = { 0, 0 };
    /* the input must be SSE whatever it looks like */
    apstream_gate gate = apstream_read_records(o, APS_FORMAT_SSE, print_data, print_framing_error, &n);
    fflush(stdout);
    if (gate == APSTREAM_INPUT_ERROR)
        return 2;
    if (gate == APSTREAM_INPUT_REJECTED || apstream_check_records(o, n.records) != 0)
        return 1;
    return n.errors > 0 || gate != APSTREAM_INPUT_OK ? 1 : 0;
}
