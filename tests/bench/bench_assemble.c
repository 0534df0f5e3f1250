/*
 * bench_assemble.c - the message assembler on a token-by-token stream, from
 * decoded events.
 *
 * Before the clock starts, EVENTS content-block-delta events are written as
 * the JSON a server sends (the whole envelope: type, eventId, seq, method,
 * params with namespace ["model_request:<uuid>"], timestamp, node "model",
 * data) and decoded with the generated ap_message_decode, each into its own
 * ap_message_t with its own namespace array, as a client has them. Each
 * delta is one token (1 to 8 bytes, mean 4.5, like LLM tokens; some are
 * escaped in the JSON, so the decoder unescapes them into its arena). The
 * events are few, so they stay in cache as an event does right after it is
 * decoded, and they are fed in a random order drawn beforehand, so token
 * lengths follow no pattern a branch predictor could learn.
 *
 * Timed: for each decoded event, what a caller does, filling an
 * aps_asm_event view from the decoded message (apstream assemble's code for
 * this kind) and aps_asm_feed, or filling views for 64 events in an array
 * and aps_asm_feed_batch; one message per 4 MiB of text. Reported:
 * appended text bytes per second and events per second, without callbacks,
 * with the padded promise (aps_asm_options.padded: the decoded strings lie
 * in the JSON buffer, which has room after every event, or in the arena),
 * with callbacks (on_append summing the bytes, as a renderer would see
 * them, and on_message_done), with the same text in 64-byte deltas, with 8
 * messages in 8 namespaces interleaved token by token (in random order),
 * coalesce-then-assemble, in batches (without and with the promise, and
 * the 8 interleaved messages, whose runs are short), padded from views
 * described before the clock (the assembler alone), and the floors:
 * filling the view (or a batch of views) and calling a function that does
 * nothing, which bounds what any assembler behind that API can reach. Each rate is given by wall clock and by the thread's CPU
 * time (on a loaded machine the latter is the steadier one), best of
 * --repeat runs.
 */
#include "bench.h"

#include "ap.h"
#include "aps/asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENTS 64u    /* distinct decoded delta events: few, so they stay in cache as right after decoding */
#define ORDER 65536u  /* the order they are fed in, random, so token lengths never repeat in a pattern */
#define MESSAGE_BYTES (4u << 20) /* text per message before it is finished */
#define PLACES 8

typedef struct sink {
    uint64_t appended;
    uint64_t messages;
} sink;

static void on_append(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                      aps_slice appended)
{
    (void)m;
    (void)index;
    (void)kind;
    ((sink *)ctx)->appended += appended.len;
}

static void on_done(void *ctx, const aps_asm_message *m)
{
    (void)m;
    ((sink *)ctx)->messages++;
}

static const char *const ns_names[PLACES] = {
    "model_request:db60c136-bbdc-5c76-a665-4bd487797692", "model_request:03dd88a7-d731-50f4-9502-0c40616d3b07",
    "tools:dd864e2c-ffd0-5630-8613-603347e3a46e",         "researcher:0a1b2c3d",
    "writer:4e5f6a7b",                                     "critic:8c9d0e1f",
    "planner:2a3b4c5d",                                    "summarizer:6e7f8091",
};

typedef struct corpus {
    char *json;           /* the events' JSON texts, which the decoded strings borrow from */
    ap_message_t *msgs;   /* EVENTS decoded events */
    aps_asm_event *views; /* the same described as assembler views (for VIA_VIEWS) */
    aps_arena arena;      /* what the decoder allocated for them */
    aps_slice ns[PLACES];
    char names[PLACES][64]; /* the namespaces, padded (APS_PADDING bytes after each) */
    size_t places;        /* event i is in namespace i % places */
    uint16_t *order;      /* ORDER indexes into msgs */
    uint64_t order_bytes; /* text bytes of the events in `order` */
} corpus;

static inline int event_view(const ap_message_t *msg, aps_asm_event *ev);

/*
 * Writes EVENTS text deltas as JSON, event i in namespace i % places, and
 * decodes them; `fixed` > 0 gives deltas of that length. Then draws the
 * feeding order.
 */
static int corpus_build(corpus *c, uint64_t seed, size_t fixed, size_t places)
{
    static const char pool[] = "etaoin shrdlu\n\"cmfwyp";
    size_t cap = (size_t)EVENTS * 1024, at = 0, i, k;
    size_t *start = (size_t *)malloc((EVENTS + 1) * sizeof *start);
    size_t lens[EVENTS];
    uint64_t s = seed;
    int failed = 0;
    memset(c, 0, sizeof *c);
    c->places = places;
    c->json = (char *)malloc(cap);
    c->msgs = (ap_message_t *)calloc(EVENTS, sizeof *c->msgs);
    c->views = (aps_asm_event *)calloc(EVENTS, sizeof *c->views);
    c->order = (uint16_t *)malloc(ORDER * sizeof *c->order);
    aps_arena_init(&c->arena, NULL);
    if (start == NULL || c->json == NULL || c->msgs == NULL || c->views == NULL || c->order == NULL) {
        free(start);
        return 1;
    }
    for (i = 0; i < PLACES; i++) {
        c->ns[i].len = strlen(ns_names[i]);
        c->ns[i].ptr = memcpy(c->names[i], ns_names[i], c->ns[i].len);
    }
    for (i = 0; i < EVENTS; i++) {
        size_t len = fixed ? fixed : 1 + (size_t)(test_rand(&s) % 8);
        lens[i] = len;
        start[i] = at;
        at += (size_t)snprintf(c->json + at, cap - at,
                               "{\"type\":\"event\",\"eventId\":\"%zu\",\"seq\":%zu,\"method\":\"messages\","
                               "\"params\":{\"namespace\":[\"%s\"],\"timestamp\":%llu,\"node\":\"model\","
                               "\"data\":{\"event\":\"content-block-delta\",\"index\":0,"
                               "\"delta\":{\"type\":\"text-delta\",\"text\":\"",
                               i + 1, i + 1, ns_names[i % places], 1777587969651ull + i);
        for (k = 0; k < len; k++) {
            char ch = pool[test_rand(&s) % (sizeof pool - 1)];
            if (ch == '\n' || ch == '"')
                c->json[at++] = '\\';
            c->json[at++] = ch == '\n' ? 'n' : ch;
        }
        at += (size_t)snprintf(c->json + at, cap - at, "\"}}}}");
    }
    start[EVENTS] = at;
    for (i = 0; i < EVENTS && !failed; i++)
        failed = ap_message_decode(c->json + start[i], start[i + 1] - start[i], &c->arena,
                                   &c->msgs[i], NULL) != APS_OK ||
                 !event_view(&c->msgs[i], &c->views[i]);
    for (i = 0; i < ORDER; i++) {
        c->order[i] = (uint16_t)(test_rand(&s) % EVENTS);
        c->order_bytes += lens[c->order[i]];
    }
    free(start);
    return failed;
}

static void corpus_free(corpus *c)
{
    free(c->json);
    free(c->msgs);
    free(c->views);
    free(c->order);
    aps_arena_deinit(&c->arena);
}

/*
 * What a caller does with each decoded event (apstream assemble's code for
 * a content-block-delta): point the view at the decoded members, nothing
 * copied. The view was zeroed once; the members set here are all those of
 * this kind. Returns 0 for an event the assembler does not take.
 */
static inline int event_view(const ap_message_t *msg, aps_asm_event *ev)
{
    const ap_messages_event_params_t *p;
    const ap_content_block_delta_t *d;
    if (msg->kind != AP_MESSAGE_EVENT || msg->u.event.event_data.kind != AP_EVENT_DATA_MESSAGES_EVENT)
        return 0;
    p = &msg->u.event.event_data.u.messages_event.params;
    if (p->data.kind != AP_MESSAGES_DATA_CONTENT_BLOCK_DELTA_DATA)
        return 0;
    d = &p->data.u.content_block_delta_data.delta;
    ev->kind = APS_ASM_BLOCK_DELTA;
    ev->ns = p->namespace_.items;
    ev->ns_len = p->namespace_.count;
    ev->node.ptr = p->has_node ? p->node.ptr : NULL;
    ev->node.len = p->has_node ? p->node.len : 0;
    ev->index = p->data.u.content_block_delta_data.index;
    ev->fields.ptr = NULL;
    ev->fields.len = 0;
    switch (d->kind) {
    case AP_CONTENT_BLOCK_DELTA_TEXT_DELTA:
        ev->delta = APS_ASM_DELTA_TEXT;
        ev->text = d->u.text_delta.text;
        break;
    case AP_CONTENT_BLOCK_DELTA_REASONING_DELTA:
        ev->delta = APS_ASM_DELTA_REASONING;
        ev->text = d->u.reasoning_delta.reasoning;
        break;
    default:
        return 0; /* the corpus has text deltas only */
    }
    return 1;
}

typedef struct run {
    uint64_t bytes, events;
    double seconds;     /* wall clock */
    double cpu_seconds; /* this thread's CPU time: steadier on a shared machine */
    int failed;
} run;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void place_view(const corpus *c, size_t p, aps_asm_event *e)
{
    static const char node[5 + APS_PADDING] = "model";
    memset(e, 0, sizeof *e);
    e->ns = &c->ns[p];
    e->ns_len = 1;
    e->node.ptr = node;
    e->node.len = 5;
}

/* Starts a message with one text block in place `p`. */
static int open_message(aps_assembler *a, const corpus *c, size_t p)
{
    aps_asm_event e;
    place_view(c, p, &e);
    e.kind = APS_ASM_MESSAGE_START;
    e.id.ptr = "msg_01M6YsZj7Wn3ivDWCFZFrmt7";
    e.id.len = 28;
    e.role.ptr = "ai";
    e.role.len = 2;
    if (aps_asm_feed(a, &e, NULL) != APS_OK)
        return 1;
    e.kind = APS_ASM_BLOCK_START;
    e.content.ptr = "{\"type\":\"text\",\"text\":\"\"}";
    e.content.len = strlen(e.content.ptr);
    return aps_asm_feed(a, &e, NULL) != APS_OK;
}

static int close_message(aps_assembler *a, const corpus *c, size_t p)
{
    aps_asm_event e;
    place_view(c, p, &e);
    e.kind = APS_ASM_BLOCK_FINISH;
    e.content.ptr = "{\"type\":\"text\",\"text\":\"(final text)\"}";
    e.content.len = strlen(e.content.ptr);
    if (aps_asm_feed(a, &e, NULL) != APS_OK)
        return 1;
    e.kind = APS_ASM_MESSAGE_FINISH;
    e.usage.ptr = "{\"outputTokens\":1}";
    e.usage.len = strlen(e.usage.ptr);
    return aps_asm_feed(a, &e, NULL) != APS_OK;
}

/* The coalescer's output goes straight into the assembler. */
static aps_status emit(void *ctx, const aps_asm_event *ev)
{
    return aps_asm_feed((aps_assembler *)ctx, ev, NULL);
}

/* The floor: a feed that only looks at the event, called where it cannot be inlined. */
static aps_status feed_nothing(aps_assembler *a, const aps_asm_event *ev, aps_error *err)
{
    (void)a;
    (void)err;
    return ev->kind == APS_ASM_BLOCK_DELTA ? APS_OK : APS_E_ARGUMENT;
}

/*
 * How each event reaches the assembler: described as a view in the loop
 * and fed, the same through the coalescer, described and given to a
 * function that does nothing (the floor), fed from views described when
 * the events were decoded (the assembler alone), or described in an array
 * of BATCH views and fed as a batch (or the batch given to a function that
 * does nothing).
 */
typedef enum via { VIA_FEED, VIA_COALESCER, VIA_NOTHING, VIA_VIEWS, VIA_BATCH, VIA_BATCH_NOTHING } via;

#define BATCH 64u /* events described in an array, then given to aps_asm_feed_batch at once */

/* The floor of batches: a feed_batch that only looks at the events, called where it cannot be inlined. */
static aps_status feed_batch_nothing(aps_assembler *a, const aps_asm_event *evs, size_t n, size_t *fed,
                                     aps_error *err)
{
    (void)a;
    (void)err;
    *fed = n;
    return evs[0].kind == APS_ASM_BLOCK_DELTA && evs[n - 1].kind == APS_ASM_BLOCK_DELTA ? APS_OK : APS_E_ARGUMENT;
}

/*
 * Feeds the corpus's events in their order until about `total` bytes of
 * text were appended; each message is finished after MESSAGE_BYTES and a
 * new one started.
 */
static run assemble(const bench_config *cfg, const corpus *c, size_t total,
                    const aps_asm_callbacks *cb, via how, int padded)
{
    aps_status (*volatile nothing)(aps_assembler *, const aps_asm_event *, aps_error *) = feed_nothing;
    aps_status (*volatile batch_nothing)(aps_assembler *, const aps_asm_event *, size_t, size_t *, aps_error *) =
        feed_batch_nothing;
    run best = { 0, 0, 1e30, 1e30, 0 };
    int r;
    for (r = 0; r < cfg->repeat; r++) {
        aps_assembler a;
        aps_asm_coalescer co;
        aps_asm_event e, batch[BATCH];
        uint64_t bytes = 0, events = 0, since = 0;
        size_t i = 0, p;
        double t0, c0, t, ct;
        aps_asm_options opt;
        memset(&opt, 0, sizeof opt);
        opt.padded = padded;
        aps_asm_init(&a, &opt, cb);
        aps_asm_coalescer_init(&co, NULL, emit, &a);
        memset(&e, 0, sizeof e);
        memset(batch, 0, sizeof batch);
        for (p = 0; p < c->places; p++)
            best.failed |= open_message(&a, c, p);
        t0 = bench_now();
        c0 = cpu_now();
        /* Whole passes over `order`, so the loop carries no per-event counters but i. */
        while (bytes < total) {
            if (how == VIA_BATCH || how == VIA_BATCH_NOTHING) {
                for (i = 0; i < ORDER; i += BATCH) { /* ORDER is a multiple of BATCH */
                    size_t j, fed = 0;
                    aps_status st;
                    for (j = 0; j < BATCH; j++) {
                        if (!event_view(&c->msgs[c->order[i + j]], &batch[j]))
                            break;
                        batch[j].position = events + i + j;
                    }
                    if (j < BATCH)
                        break;
                    if (how == VIA_BATCH)
                        st = aps_asm_feed_batch(&a, batch, BATCH, &fed, NULL);
                    else
                        st = batch_nothing(&a, batch, BATCH, &fed, NULL);
                    if (st != APS_OK || fed != BATCH)
                        break;
                }
            } else if (how == VIA_VIEWS) {
                for (i = 0; i < ORDER; i++)
                    if (aps_asm_feed(&a, &c->views[c->order[i]], NULL) != APS_OK)
                        break;
            } else {
                for (i = 0; i < ORDER; i++) {
                    aps_status st;
                    if (!event_view(&c->msgs[c->order[i]], &e))
                        break;
                    e.position = events + i;
                    if (how == VIA_FEED)
                        st = aps_asm_feed(&a, &e, NULL);
                    else if (how == VIA_COALESCER)
                        st = aps_asm_coalescer_push(&co, &e);
                    else
                        st = nothing(&a, &e, NULL);
                    if (st != APS_OK)
                        break;
                }
            }
            if (i < ORDER) {
                best.failed = 1;
                break;
            }
            bytes += c->order_bytes;
            since += c->order_bytes;
            events += ORDER;
            if (since >= MESSAGE_BYTES * c->places) {
                if (how == VIA_COALESCER)
                    best.failed |= aps_asm_coalescer_flush(&co) != APS_OK;
                for (p = 0; p < c->places; p++)
                    best.failed |= close_message(&a, c, p) | open_message(&a, c, p);
                since = 0;
            }
        }
        if (how == VIA_COALESCER)
            best.failed |= aps_asm_coalescer_flush(&co) != APS_OK;
        t = bench_now() - t0;
        ct = cpu_now() - c0;
        best.failed |= aps_asm_violations(&a) != 0;
        aps_asm_finish(&a);
        aps_asm_deinit(&a);
        aps_asm_coalescer_deinit(&co);
        if (ct < best.cpu_seconds)
            best.cpu_seconds = ct;
        if (t < best.seconds) {
            best.seconds = t;
            best.bytes = bytes;
            best.events = events;
        }
    }
    return best;
}

static void report(const char *what, run r)
{
    printf("%-40s wall %7.1f MB/s %6.1f M ev/s %6.2f ns/ev | cpu %7.1f MB/s %6.2f ns/ev%s\n",
           what, (double)r.bytes / r.seconds / 1e6, (double)r.events / r.seconds / 1e6,
           r.seconds * 1e9 / (double)r.events, (double)r.bytes / r.cpu_seconds / 1e6,
           r.cpu_seconds * 1e9 / (double)r.events, r.failed ? "  (FAILED)" : "");
}

/* CPU seconds per event: the steadier figure on a shared machine. */
static double per_event(run r)
{
    return r.events != 0 ? r.cpu_seconds / (double)r.events : 0;
}

int bench_assemble(const bench_config *cfg)
{
    corpus tok, big, mixed;
    aps_asm_callbacks cb;
    sink s;
    size_t total = cfg->corpus_bytes < (8u << 20) ? (8u << 20) : cfg->corpus_bytes;
    run r, plain, padded, batches, batches_padded, floor, batch_floor;
    int failed = 0;
    if (corpus_build(&tok, cfg->seed, 0, 1) | corpus_build(&big, cfg->seed, 64, 1) |
        corpus_build(&mixed, cfg->seed, 0, PLACES)) {
        fprintf(stderr, "assemble: out of memory, or the generated decoder rejected an event\n");
        corpus_free(&tok);
        corpus_free(&big);
        corpus_free(&mixed);
        return 1;
    }
    printf("%.0f MB of text per run, %u decoded delta events fed in a random order, "
           "messages of %u MiB; best of %d\n",
           (double)total / 1e6, EVENTS, MESSAGE_BYTES >> 20, cfg->repeat);
    memset(&cb, 0, sizeof cb);
    memset(&s, 0, sizeof s);

    r = plain = assemble(cfg, &tok, total, NULL, VIA_FEED, 0);
    report("token deltas (1-8 B), no callbacks", r);
    failed |= r.failed;

    r = padded = assemble(cfg, &tok, total, NULL, VIA_FEED, 1);
    report("token deltas (1-8 B), padded strings", r);
    failed |= r.failed;

    cb.on_append = on_append;
    cb.on_message_done = on_done;
    cb.ctx = &s;
    r = assemble(cfg, &tok, total, &cb, VIA_FEED, 0);
    report("token deltas (1-8 B), callbacks on", r);
    failed |= r.failed || s.appended == 0;

    r = assemble(cfg, &big, total, NULL, VIA_FEED, 0);
    report("64-byte deltas, no callbacks", r);
    failed |= r.failed;

    r = assemble(cfg, &mixed, total, NULL, VIA_FEED, 0);
    report("token deltas, 8 messages interleaved", r);
    failed |= r.failed;

    r = assemble(cfg, &mixed, total, NULL, VIA_BATCH, 0);
    report("token deltas, 8 interleaved, batches", r);
    failed |= r.failed;

    r = assemble(cfg, &tok, total, NULL, VIA_COALESCER, 0);
    report("token deltas, coalesced (64 ev, 4 KiB)", r);
    failed |= r.failed;

    r = batches = assemble(cfg, &tok, total, NULL, VIA_BATCH, 0);
    report("token deltas, batches of 64", r);
    failed |= r.failed;

    r = batches_padded = assemble(cfg, &tok, total, NULL, VIA_BATCH, 1);
    report("token deltas, batches of 64, padded", r);
    failed |= r.failed;

    r = assemble(cfg, &tok, total, NULL, VIA_VIEWS, 1);
    report("token deltas, padded, views made before", r);
    failed |= r.failed;

    r = floor = assemble(cfg, &tok, total, NULL, VIA_NOTHING, 0);
    report("floor: view fill + empty call, no work", r);
    failed |= r.failed;

    r = batch_floor = assemble(cfg, &tok, total, NULL, VIA_BATCH_NOTHING, 0);
    report("floor: batch fill + empty call per 64", r);
    failed |= r.failed;

    /* Issue 34's bar: CPU time per event against the floor of the same run (aim: at most 2x). */
    printf("ratio token/floor %.2f (padded %.2f)\n", per_event(plain) / per_event(floor),
           per_event(padded) / per_event(floor));
    printf("ratio batches/batch floor %.2f (padded %.2f)\n", per_event(batches) / per_event(batch_floor),
           per_event(batches_padded) / per_event(batch_floor));

    corpus_free(&tok);
    corpus_free(&big);
    corpus_free(&mixed);
    return failed;
}
