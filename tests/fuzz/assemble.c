/*
 * assemble.c - fuzz target for event sequences: the lenient event reader
 * (aps_asm_event_from_json) and the assembler behind it, as `apstream
 * assemble` uses them. The input is a JSON Lines stream of protocol events.
 * It is assembled four ways that must agree: event by event; the same with
 * the padded promise (each line copied into a buffer APS_PADDING bytes
 * longer, the reader's strings being in it or in its arena); padded again,
 * in batches of 1 to BATCH events (aps_asm_feed_batch), each event read by
 * a reader of its own so that the batch's views live together; and through
 * a coalescer, which is lossless. Agreeing means the same messages and tools
 * delivered in the same order with the same contents, and the same
 * violations. A fifth run with tiny limits (open items, bytes per item,
 * members per block, remembered items) must only stay in bounds. The
 * assembler runs in the default mode or in strict mode, as the input's last
 * byte says.
 */
#include "aps/asm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one assembly reported, as text: each message and tool as JSON, each violation, a line each. */
typedef struct report {
    char *p;
    size_t len, cap;
    aps_json_writer w; /* scratch for one item */
} report;

static void add(report *r, const char *s, size_t n)
{
    if (r->len + n > r->cap) {
        size_t cap = (r->len + n) * 2;
        char *p = realloc(r->p, cap);
        if (p == NULL)
            abort();
        r->p = p;
        r->cap = cap;
    }
    memcpy(r->p + r->len, s, n);
    r->len += n;
}

static void add_written(report *r)
{
    if (aps_json_writer_finish(&r->w, NULL) != APS_OK)
        abort();
    add(r, aps_json_writer_data(&r->w), aps_json_writer_len(&r->w));
    add(r, "\n", 1);
    aps_json_writer_reset(&r->w);
}

static void on_message(void *ctx, const aps_asm_message *m)
{
    report *r = ctx;
    aps_asm_message_write(m, &r->w);
    add_written(r);
}

static void on_tool(void *ctx, const aps_asm_tool *t)
{
    report *r = ctx;
    aps_asm_tool_write(t, &r->w);
    add_written(r);
}

static void on_violation(void *ctx, uint64_t position, aps_asm_violation code, const char *text)
{
    report *r = ctx;
    char head[64];
    int n = snprintf(head, sizeof head, "%llu %s: ", (unsigned long long)position, aps_asm_violation_name(code));
    add(r, head, (size_t)n);
    add(r, text, strlen(text));
    add(r, "\n", 1);
}

enum { DIRECT, PADDED, BATCHED, COALESCED, TINY, WAYS };

#define BATCH 8

typedef struct way {
    aps_assembler a;
    aps_asm_coalescer co;
    report r;
} way;

static aps_status to_assembler(void *ctx, const aps_asm_event *ev)
{
    return aps_asm_feed((aps_assembler *)ctx, ev, NULL);
}

static void way_init(way *w, int which, int strict)
{
    aps_asm_options o;
    aps_asm_callbacks cb;
    aps_asm_coalesce_options co;
    memset(&o, 0, sizeof o);
    memset(&cb, 0, sizeof cb);
    memset(&co, 0, sizeof co);
    memset(&w->r, 0, sizeof w->r);
    aps_json_writer_init(&w->r.w, NULL);
    cb.on_message_done = on_message;
    cb.on_tool_done = on_tool;
    cb.on_violation = on_violation;
    cb.ctx = &w->r;
    o.padded = which == PADDED || which == BATCHED;
    o.strict = strict;
    if (which == TINY) {
        o.max_open_messages = 2;
        o.max_open_tools = 2;
        o.max_item_bytes = 700;
        o.max_block_members = 3;
        o.max_closed = 2;
        o.max_link_bytes = 100;
    }
    aps_asm_init(&w->a, &o, &cb);
    co.max_events = 5; /* small windows: runs end by count and by bytes */
    co.max_bytes = 24;
    aps_asm_coalescer_init(&w->co, &co, to_assembler, &w->a);
}

/* Feeds the events of a batch; they must all be applied. */
static void way_feed_batch(way *w, const aps_asm_event *evs, size_t n)
{
    size_t fed;
    if (aps_asm_feed_batch(&w->a, evs, n, &fed, NULL) != APS_OK || fed != n)
        abort();
}

/* Feeds one event the way `which` does. */
static void way_feed(way *w, int which, const aps_asm_event *ev)
{
    aps_status st = which == COALESCED ? aps_asm_coalescer_push(&w->co, ev) : aps_asm_feed(&w->a, ev, NULL);
    /* The reader's views are well formed and memory is plentiful. */
    if (st != APS_OK)
        abort();
}

static void way_finish(way *w, int which)
{
    if (which == COALESCED && aps_asm_coalescer_flush(&w->co) != APS_OK)
        abort();
    aps_asm_finish(&w->a);
}

static void way_deinit(way *w)
{
    aps_asm_coalescer_deinit(&w->co);
    aps_asm_deinit(&w->a);
    aps_json_writer_deinit(&w->r.w);
    free(w->r.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    way ways[WAYS];
    aps_asm_reader reader, batch_readers[BATCH];
    aps_asm_event batch[BATCH];
    char *batch_lines[BATCH];
    size_t at = 0, line = 0, held = 0, j;
    int k;
    /* Both modes: the last byte chooses (a stream ending in "\n" is the default mode, in "}" strict). */
    int strict = size != 0 && (data[size - 1] & 1);
    for (k = 0; k < WAYS; k++)
        way_init(&ways[k], k, strict);
    aps_asm_reader_init(&reader);
    for (j = 0; j < BATCH; j++)
        aps_asm_reader_init(&batch_readers[j]);
    while (at < size) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
        char *padded = malloc(len + APS_PADDING);
        line++;
        if (padded == NULL)
            abort();
        memcpy(padded, text + at, len);
        memset(padded + len, 'x', APS_PADDING);
        for (k = 0; k < WAYS; k++) {
            aps_asm_event ev;
            /* The padded ways read padded copies; the others the input itself, which ends where it ends. */
            const char *src = k == PADDED ? padded : text + at;
            if (k == BATCHED)
                continue;
            if (aps_asm_event_from_json(&reader, src, len, line, &ev) == 1)
                way_feed(&ways[k], k, &ev);
        }
        /* The batch keeps this line's padded copy and its reader until it is fed. */
        if (aps_asm_event_from_json(&batch_readers[held], padded, len, line, &batch[held]) == 1)
            batch_lines[held++] = padded;
        else
            free(padded);
        if (held != 0 && held >= 1 + line % BATCH) { /* sizes that vary with the input, at most BATCH */
            way_feed_batch(&ways[BATCHED], batch, held);
            while (held != 0)
                free(batch_lines[--held]);
        }
        at += len + 1;
    }
    way_feed_batch(&ways[BATCHED], batch, held);
    while (held != 0)
        free(batch_lines[--held]);
    for (k = 0; k < WAYS; k++)
        way_finish(&ways[k], k);
    for (k = PADDED; k <= COALESCED; k++) {
        const report *a = &ways[DIRECT].r, *b = &ways[k].r;
        if (a->len != b->len || (a->len != 0 && memcmp(a->p, b->p, a->len) != 0))
            abort();
    }
    for (k = 0; k < WAYS; k++)
        way_deinit(&ways[k]);
    aps_asm_reader_deinit(&reader);
    for (j = 0; j < BATCH; j++)
        aps_asm_reader_deinit(&batch_readers[j]);
    return 0;
}
