/*
 * test_coalesce.c - coalesce-then-assemble equals assemble, as a property
 * over random streams (fixed seeds): interleaved messages in four places,
 * tools, bursts of appending deltas, block-deltas, unknown deltas, OTHER
 * events and lifecycle violations. Equal means: the same delivered
 * messages and tools (JSON lines, in order), the same violations (position,
 * code and text), the same appended text. Windows of every size are tried,
 * and a coalescer whose allocations fail must still be lossless.
 */
#include "../test.h"
#include "asm_test.h"

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng >> 33) % n);
}

static const char *const tokens[] = { "a", "bc", "\"", "\n", "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
                                      "", " x ", "\\", "{\"k\":", "1}", "QUJD" };
static const char *const ids[] = { "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7" };
static const char *const tool_ids[] = { "call_0", "call_1", "call_2" };


typedef struct pstate {
    int open;       /* message open */
    int block_open;
    unsigned nblocks;
    unsigned type;  /* of the open block */
} pstate;

typedef struct stream {
    aps_asm_event *ev;
    size_t n, cap;
} stream;

static void push(stream *s, const aps_asm_event *e)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->ev = (aps_asm_event *)realloc(s->ev, s->cap * sizeof *s->ev);
        if (s->ev == NULL)
            abort();
    }
    s->ev[s->n] = *e;
    s->ev[s->n].position = s->n + 1;
    s->n++;
}

static place places[4];

static void gen(stream *s, size_t steps)
{
    pstate st[4];
    size_t i;
    memset(st, 0, sizeof st);
    for (i = 0; i < steps; i++) {
        unsigned pi = rnd(4), r = rnd(100);
        pstate *p = &st[pi];
        aps_asm_event e;
        if (r < 4) { /* noise: a random message event */
            e = E(&places[pi], (aps_asm_kind)(APS_ASM_BLOCK_START + rnd(5)), 0);
            e.index = rnd(3);
            e.delta = (aps_asm_delta)rnd(6);
            e.text = S(tokens[rnd(12)]);
            e.content = R(asm_blocks[rnd(5)].content);
            e.fields = R("{\"type\":\"text\"}");
            push(s, &e);
            continue;
        }
        if (r < 7) {
            e = E(&places[pi], APS_ASM_OTHER, 0);
            push(s, &e);
            continue;
        }
        if (r < 20) { /* tools */
            const char *id = tool_ids[rnd(3)];
            unsigned k = rnd(10), burst, j;
            e = E(&places[pi], APS_ASM_TOOL_OUTPUT_DELTA, 0);
            e.tool_call_id = S(id);
            if (k < 2) {
                e.kind = APS_ASM_TOOL_STARTED;
                e.tool_name = S("f");
                e.input = R("{\"q\":1}");
            } else if (k < 3) {
                e.kind = APS_ASM_TOOL_FINISHED;
                e.output = R("[1,2]");
            } else if (k < 4) {
                e.kind = APS_ASM_TOOL_ERROR;
                e.message = S("failed");
            }
            burst = e.kind == APS_ASM_TOOL_OUTPUT_DELTA ? 1 + rnd(6) : 1;
            for (j = 0; j < burst; j++) {
                e.text = S(tokens[rnd(12)]);
                push(s, &e);
            }
            continue;
        }
        if (!p->open) {
            e = E(&places[pi], APS_ASM_MESSAGE_START, 0);
            e.id = S(ids[rnd(8)]);
            e.role = S("ai");
            push(s, &e);
            p->open = 1;
            p->nblocks = 0;
            p->block_open = 0;
            continue;
        }
        if (!p->block_open) {
            unsigned k = rnd(10);
            if (k < 6) {
                p->type = rnd(5);
                e = E(&places[pi], APS_ASM_BLOCK_START, 0);
                e.index = p->nblocks;
                e.content = R(asm_blocks[p->type].content);
                push(s, &e);
                p->block_open = 1;
            } else {
                e = E(&places[pi], k < 9 ? APS_ASM_MESSAGE_FINISH : APS_ASM_MESSAGE_ERROR, 0);
                e.usage = R("{\"outputTokens\":3}");
                e.message = S("boom");
                e.code = S("c");
                push(s, &e);
                p->open = 0;
            }
            continue;
        }
        {
            unsigned k = rnd(10), burst, j;
            e = E(&places[pi], APS_ASM_BLOCK_DELTA, 0);
            e.index = p->nblocks;
            if (k < 6) { /* a burst of the fitting delta (sometimes the wrong one) */
                e.delta = asm_blocks[p->type].fits;
                if (e.delta == APS_ASM_DELTA_UNKNOWN || rnd(20) == 0)
                    e.delta = (aps_asm_delta)(1 + rnd(5));
                if (e.delta == APS_ASM_DELTA_BLOCK)
                    e.delta = APS_ASM_DELTA_TEXT;
                burst = 1 + rnd(12);
                for (j = 0; j < burst; j++) {
                    e.text = rnd(10) == 0 && e.delta == APS_ASM_DELTA_TOOL_CALL ? S(NULL)
                                                                                : S(tokens[rnd(12)]);
                    push(s, &e);
                }
            } else if (k < 7) {
                e.delta = APS_ASM_DELTA_BLOCK;
                e.fields = R(rnd(2) ? "{\"type\":\"text\",\"extra\":true}" : "{\"type\":\"text\",\"text\":\"R\"}");
                push(s, &e);
                if (rnd(2) == 0)
                    p->type = 0;
            } else if (k < 8) {
                e.delta = APS_ASM_DELTA_UNKNOWN;
                e.text = S("?");
                push(s, &e);
            } else {
                e.kind = APS_ASM_BLOCK_FINISH;
                e.content = R("{\"type\":\"text\",\"text\":\"final\"}");
                push(s, &e);
                p->block_open = 0;
                p->nblocks++;
            }
        }
    }
}

typedef struct result {
    collector c;
    aps_assembler a;
    size_t emitted;
    int failed;
} result;

/* Coalescing is lossless in both modes of the assembler. */
static int strict;

static void result_init(result *r)
{
    aps_asm_callbacks cb;
    aps_asm_options o;
    memset(r, 0, sizeof *r);
    memset(&o, 0, sizeof o);
    o.strict = strict;
    cb = col_callbacks(&r->c);
    aps_asm_init(&r->a, &o, &cb);
}

static aps_status emit(void *ctx, const aps_asm_event *ev)
{
    result *r = (result *)ctx;
    r->emitted++;
    if (aps_asm_feed(&r->a, ev, NULL) != APS_OK)
        r->failed = 1;
    return APS_OK;
}

static void result_free(result *r)
{
    aps_asm_deinit(&r->a);
    col_free(&r->c);
}

static int same(result *x, result *y)
{
    return col_same(&x->c, &y->c);
}

static void run_coalesced(const stream *s, const aps_asm_coalesce_options *o, result *out)
{
    aps_asm_coalescer co;
    size_t i;
    result_init(out);
    aps_asm_coalescer_init(&co, o, emit, out);
    for (i = 0; i < s->n; i++)
        if (aps_asm_coalescer_push(&co, &s->ev[i]) != APS_OK)
            out->failed = 1;
    if (aps_asm_coalescer_flush(&co) != APS_OK)
        out->failed = 1;
    aps_asm_coalescer_deinit(&co);
    aps_asm_finish(&out->a);
}

static void test_property(void)
{
    static const size_t windows[][2] = { { 1, 1 }, { 2, 4096 }, { 3, 5 }, { 64, 4096 },
                                         { 1000, 16 }, { 0, 0 }, { 7, 1 }, { 1000000, 1000000 } };
    unsigned seed;
    size_t total = 0, merged_away = 0, violations = 0;
    places[0] = P(NULL, NULL, NULL);
    places[1] = P("a", NULL, NULL);
    places[2] = P("a", NULL, "n");
    places[3] = P("b", "c", "");
    for (seed = 1; seed <= 40; seed++) {
        stream s = { NULL, 0, 0 };
        result direct;
        size_t w, i;
        rng = seed;
        gen(&s, 400 + seed * 20);
        result_init(&direct);
        for (i = 0; i < s.n; i++)
            if (aps_asm_feed(&direct.a, &s.ev[i], NULL) != APS_OK)
                direct.failed = 1;
        aps_asm_finish(&direct.a);
        CHECK(!direct.failed);
        violations += aps_asm_violations(&direct.a);
        for (w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            aps_asm_coalesce_options o;
            result co;
            memset(&o, 0, sizeof o);
            o.max_events = windows[w][0];
            o.max_bytes = windows[w][1];
            run_coalesced(&s, &o, &co);
            CHECK(!co.failed);
            CHECK(same(&direct, &co));
            if (!same(&direct, &co))
                fprintf(stderr, "seed %u window %zu/%zu differs\n", seed, windows[w][0], windows[w][1]);
            if (w == 3) {
                total += s.n;
                merged_away += s.n - co.emitted;
            }
            if (w == 0)
                CHECK_INT(co.emitted, s.n); /* a window of one merges nothing */
            result_free(&co);
        }
        result_free(&direct);
        free(s.ev);
    }
    printf("%zu events, %zu merged away with the default window, %zu violations in the streams\n",
           total, merged_away, violations);
    CHECK(merged_away > total / 5);
    CHECK(violations > 40);
}

/* A coalescer whose allocations fail passes events through: still lossless. */
static void test_no_memory(void)
{
    stream s = { NULL, 0, 0 };
    result direct, co;
    test_alloc ta;
    aps_asm_coalesce_options o;
    aps_asm_coalescer c;
    size_t i, fail_at;
    rng = 99;
    gen(&s, 600);
    result_init(&direct);
    for (i = 0; i < s.n; i++)
        CHECK(aps_asm_feed(&direct.a, &s.ev[i], NULL) == APS_OK);
    aps_asm_finish(&direct.a);
    for (fail_at = 1; fail_at <= 4; fail_at++) {
        test_alloc_init(&ta, (long)fail_at - 1, 0); /* fail_at counts from 1 */
        memset(&o, 0, sizeof o);
        o.allocator = test_alloc_hooks(&ta);
        result_init(&co);
        aps_asm_coalescer_init(&c, &o, emit, &co);
        for (i = 0; i < s.n; i++)
            CHECK(aps_asm_coalescer_push(&c, &s.ev[i]) == APS_OK);
        CHECK(aps_asm_coalescer_flush(&c) == APS_OK);
        aps_asm_coalescer_deinit(&c);
        aps_asm_finish(&co.a);
        CHECK(same(&direct, &co));
        CHECK_INT(ta.allocs - ta.frees, 0);
        result_free(&co);
    }
    result_free(&direct);
    free(s.ev);
}

/* What a merged event looks like, and that emit's status stops a push. */
static aps_status capture(void *ctx, const aps_asm_event *ev)
{
    tlog *b = (tlog *)ctx;
    char head[64];
    snprintf(head, sizeof head, "%d/%d@%llu:", (int)ev->kind, (int)ev->delta,
             (unsigned long long)ev->position);
    tlog_str(b, head);
    tlog_add(b, ev->text.ptr, ev->text.len);
    tlog_str(b, "|");
    return ev->kind == APS_ASM_MESSAGE_FINISH ? APS_E_STATE : APS_OK;
}

static void test_shape(void)
{
    place pl = P("ns", NULL, "node");
    aps_asm_coalescer c;
    aps_asm_coalesce_options o;
    aps_asm_event e;
    tlog b = { NULL, 0, 0 };
    memset(&o, 0, sizeof o);
    o.max_bytes = 4;
    aps_asm_coalescer_init(&c, &o, capture, &b);
    e = E(&pl, APS_ASM_BLOCK_DELTA, 10);
    e.delta = APS_ASM_DELTA_TEXT;
    e.text = S("ab");
    CHECK(aps_asm_coalescer_push(&c, &e) == APS_OK);
    e.position = 11;
    e.text = S("cd");
    CHECK(aps_asm_coalescer_push(&c, &e) == APS_OK);
    e.position = 12; /* would exceed 4 bytes: a new run */
    e.text = S("e");
    CHECK(aps_asm_coalescer_push(&c, &e) == APS_OK);
    e.position = 13; /* longer than the window: passes through alone */
    e.text = S("fghijk");
    CHECK(aps_asm_coalescer_push(&c, &e) == APS_OK);
    e.position = 14;
    e.delta = APS_ASM_DELTA_REASONING; /* another delta type: a new run */
    e.text = S("r");
    CHECK(aps_asm_coalescer_push(&c, &e) == APS_OK);
    e = E(&pl, APS_ASM_MESSAGE_FINISH, 15);
    CHECK_INT(aps_asm_coalescer_push(&c, &e), APS_E_STATE);
    CHECK_STR(tlog_get(&b), "3/1@10:abcd|3/1@12:e|3/1@13:fghijk|3/2@14:r|5/0@15:|");
    CHECK_INT(aps_asm_coalescer_push(&c, NULL), APS_E_ARGUMENT);
    aps_asm_coalescer_deinit(&c);
    tlog_free(&b);
}

int main(void)
{
    for (strict = 0; strict <= 1; strict++)
        test_property();
    test_no_memory();
    test_shape();
    return test_report();
}
