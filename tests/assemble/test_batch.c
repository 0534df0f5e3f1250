/*
 * test_batch.c - aps_asm_feed_batch gives exactly what aps_asm_feed gives
 * event by event: the same delivered messages and tools, violations,
 * statuses, and appended text. The streams are random (fixed seeds) and
 * aimed at the batch's run loop and at its edges: places whose one
 * namespace segment is 16 to 65 bytes long and whose node is 0 to 16,
 * twins of a place that differ in one byte of the segment (first, middle,
 * last) or of the node, a deeper place and the root (every two of them
 * alternating), runs of tokens of 0 to 40 bytes broken by a wrong delta
 * type or index, fields, OTHER events, malformed views, and members growing
 * many times. Batches of random sizes; with and without the padded
 * promise, every string of every event in memory of its own that ends
 * where the promise says (the sanitizer build catches a read past it), its
 * padding scribbled.
 */
#include "../test.h"
#include "asm_test.h"

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng >> 33) % n);
}

/* Whether the assembler is given the padded promise, which every event then keeps. */
static int padded;

/* Every string of a stream: a copy of its own, freed with the stream. */
typedef struct pool {
    void **p;
    size_t n, cap;
} pool;

static void *pool_alloc(pool *pl, size_t size)
{
    void *p = malloc(size != 0 ? size : 1);
    if (p == NULL)
        abort();
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? pl->cap * 2 : 1024;
        pl->p = (void **)realloc(pl->p, pl->cap * sizeof *pl->p);
        if (pl->p == NULL)
            abort();
    }
    pl->p[pl->n++] = p;
    return p;
}

static void pool_free(pool *pl)
{
    size_t i;
    for (i = 0; i < pl->n; i++)
        free(pl->p[i]);
    free(pl->p);
    memset(pl, 0, sizeof *pl);
}

/* A copy of `n` bytes, followed by APS_PADDING bytes of garbage when padded, by nothing else. */
static aps_slice own(pool *pl, const char *src, size_t n)
{
    size_t pad = padded ? APS_PADDING : 0, i;
    char *p = (char *)pool_alloc(pl, n + pad);
    aps_slice s;
    if (n != 0)
        memcpy(p, src, n);
    for (i = 0; i < pad; i++)
        p[n + i] = (char)rnd(256);
    s.ptr = p;
    s.len = n;
    return s;
}

/*
 * The places of the streams. Segments are cut from one long name, so
 * that places differ in length only, or (the twins) in one byte.
 */
static const char long_name[] = "model_request:db60c136-bbdc-5c76-a665-4bd487797692/0a1b2c3d4e5f60718293";

typedef struct spec {
    size_t seg_len;   /* SIZE_MAX: the root (no segment); 1000: two segments */
    size_t node_len;  /* SIZE_MAX: no node */
    int flip_seg;     /* the segment's byte to change, -1 none */
    int flip_node;    /* the node's byte to change, -1 none */
} spec;

static const spec specs[] = {
    { 50, 5, -1, -1 },  { 50, 5, 0, -1 },   { 50, 5, 25, -1 },  { 50, 5, 49, -1 },  { 50, 5, -1, 4 },
    { 17, 1, -1, -1 },  { 17, 1, 16, -1 },  { 31, 15, -1, -1 }, { 31, 15, -1, 14 }, { 32, 7, -1, -1 },
    { 32, 7, 31, -1 },  { 33, 7, -1, -1 },  { 33, 7, 32, -1 },  { 48, 9, 47, -1 },  { 63, 3, -1, -1 },
    { 64, 3, -1, -1 },  { 64, 3, 63, -1 },  { 64, 3, 31, -1 },  { 64, 3, 40, -1 },  { 50, 5, 33, -1 },
    { 16, 5, -1, -1 },  { 65, 5, -1, -1 },
    { 50, 0, -1, -1 },  { 50, 16, -1, -1 }, { 50, SIZE_MAX, -1, -1 }, { SIZE_MAX, 5, -1, -1 },
    { 1000, 5, -1, -1 },
};
#define SPECS (sizeof specs / sizeof specs[0])

static const char node_name[] = "model_node_0123456789";

/* The event's namespace and node for place `k`, in memory of their own. */
static void place_event(pool *pl, size_t k, aps_asm_event *e)
{
    const spec *s = &specs[k];
    char seg[sizeof long_name], node[sizeof node_name];
    memcpy(seg, long_name, sizeof seg);
    memcpy(node, node_name, sizeof node);
    if (s->flip_seg >= 0)
        seg[s->flip_seg] ^= 1;
    if (s->flip_node >= 0)
        node[s->flip_node] ^= 1;
    if (s->seg_len == SIZE_MAX) {
        e->ns = NULL;
        e->ns_len = 0;
    } else {
        size_t nseg = s->seg_len == 1000 ? 2 : 1, i;
        aps_slice *ns = (aps_slice *)pool_alloc(pl, nseg * sizeof *ns);
        for (i = 0; i < nseg; i++)
            ns[i] = own(pl, seg + i, nseg == 2 ? 40 : s->seg_len);
        e->ns = ns;
        e->ns_len = nseg;
    }
    if (s->node_len == SIZE_MAX) {
        e->node.ptr = NULL;
        e->node.len = 0;
    } else {
        e->node = own(pl, node, s->node_len);
    }
}


typedef struct pstate {
    int open, block_open;
    unsigned nblocks, type;
} pstate;

typedef struct stream {
    aps_asm_event *ev;
    size_t n, cap;
    pool mem;
} stream;

static aps_asm_event *next_event(stream *s, size_t k, aps_asm_kind kind)
{
    aps_asm_event *e;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->ev = (aps_asm_event *)realloc(s->ev, s->cap * sizeof *s->ev);
        if (s->ev == NULL)
            abort();
    }
    e = &s->ev[s->n];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->position = ++s->n;
    place_event(&s->mem, k, e);
    return e;
}

/* A token of `n` bytes, different from its neighbours. */
static aps_slice token(stream *s, size_t n)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789 .,\"\\\n";
    char buf[64];
    size_t i;
    for (i = 0; i < n; i++)
        buf[i] = chars[rnd(sizeof chars - 1)];
    return own(&s->mem, buf, n);
}

static size_t token_len(void)
{
    unsigned r = rnd(100);
    return r < 85 ? 1 + rnd(8) : r < 93 ? 9 + rnd(8) : r < 96 ? 0 : 17 + rnd(24);
}

/* A burst of deltas for the open block of place k, now and then one that leaves the run. */
static void burst(stream *s, size_t k, const pstate *p)
{
    unsigned n = 1 + rnd(60), j;
    for (j = 0; j < n; j++) {
        aps_asm_event *e = next_event(s, k, APS_ASM_BLOCK_DELTA);
        unsigned r = rnd(1000);
        e->index = p->nblocks;
        e->delta = asm_blocks[p->type].fits;
        e->text = token(s, token_len());
        if (r < 10)
            e->delta = (aps_asm_delta)(1 + rnd(5)); /* maybe another type */
        else if (r < 15)
            e->index += 1 + rnd(2);
        else if (r < 20)
            e->fields = R("{\"extra\":1}");
        else if (r < 23)
            e->text.ptr = NULL; /* malformed: a length without bytes */
        else if (r < 25) {
            e->ns = e->ns_len != 0 ? NULL : e->ns; /* malformed when it has segments */
        } else if (r < 30)
            e->kind = APS_ASM_OTHER;
    }
}

/* A stream over a few places, mostly staying with one for a while. */
static void gen(stream *s, size_t steps)
{
    pstate st[SPECS];
    size_t used[5], i, k = 0;
    memset(st, 0, sizeof st);
    for (i = 0; i < 5; i++)
        used[i] = rnd(SPECS);
    used[0] = 0; /* the usual place and its twins */
    used[1] = 1 + rnd(4);
    for (i = 0; i < steps; i++) {
        pstate *p;
        aps_asm_event *e;
        if (rnd(8) == 0)
            k = used[rnd(5)];
        p = &st[k];
        if (!p->open) {
            e = next_event(s, k, APS_ASM_MESSAGE_START);
            e->id = own(&s->mem, "msg_1", 5);
            e->role = own(&s->mem, "ai", 2);
            p->open = 1;
            p->nblocks = 0;
            p->block_open = 0;
        } else if (!p->block_open) {
            if (rnd(6) != 0) {
                p->type = rnd(4); /* the kinds a delta appends to */
                e = next_event(s, k, APS_ASM_BLOCK_START);
                e->index = p->nblocks;
                e->content = R(asm_blocks[p->type].content);
                p->block_open = 1;
            } else {
                e = next_event(s, k, APS_ASM_MESSAGE_FINISH);
                e->usage = R("{\"outputTokens\":3}");
                p->open = 0;
            }
        } else if (rnd(12) != 0) {
            burst(s, k, p);
        } else {
            e = next_event(s, k, APS_ASM_BLOCK_FINISH);
            e->index = p->nblocks;
            e->content = R("{\"type\":\"text\",\"text\":\"final\"}");
            p->block_open = 0;
            p->nblocks++;
        }
    }
}

typedef struct result {
    collector c;
    aps_assembler a;
    tlog statuses; /* "POSITION STATUS\n" for each event not fed with APS_OK */
} result;

/* on_append only when asked: with it the batch takes every event by aps_asm_feed. */
static void result_init(result *r, int appends)
{
    aps_asm_callbacks cb;
    aps_asm_options o;
    memset(r, 0, sizeof *r);
    cb = col_callbacks(&r->c);
    if (!appends)
        cb.on_append = NULL;
    memset(&o, 0, sizeof o);
    o.padded = padded;
    aps_asm_init(&r->a, &o, &cb);
}

static void note_status(result *r, const aps_asm_event *e, aps_status st)
{
    char line[64];
    snprintf(line, sizeof line, "%llu %d\n", (unsigned long long)e->position, (int)st);
    tlog_str(&r->statuses, line);
}

static void result_free(result *r)
{
    aps_asm_deinit(&r->a);
    col_free(&r->c);
    tlog_free(&r->statuses);
}

static int same(result *x, result *y)
{
    return col_same(&x->c, &y->c) && strcmp(tlog_get(&x->statuses), tlog_get(&y->statuses)) == 0;
}

static void run_direct(const stream *s, result *r)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        aps_status st = aps_asm_feed(&r->a, &s->ev[i], NULL);
        if (st != APS_OK)
            note_status(r, &s->ev[i], st);
    }
    aps_asm_finish(&r->a);
}

/* Batches of up to `most` events; after a failed event the next batch starts behind it. */
static void run_batched(const stream *s, result *r, unsigned most)
{
    size_t i = 0;
    while (i < s->n) {
        size_t n = 1 + rnd(most), fed = SIZE_MAX;
        aps_error err = APS_ERROR_INIT;
        aps_status st;
        if (n > s->n - i)
            n = s->n - i;
        st = aps_asm_feed_batch(&r->a, s->ev + i, n, &fed, &err);
        if (st == APS_OK) {
            CHECK_INT(fed, n);
            i += n;
            continue;
        }
        CHECK(fed < n);
        if (fed >= n)
            return;
        CHECK_INT(err.offset, s->ev[i + fed].position); /* the failed event's position */
        note_status(r, &s->ev[i + fed], st);
        i += fed + 1;
    }
    aps_asm_finish(&r->a);
}

static void test_equal(void)
{
    static const unsigned most[] = { 1, 2, 7, 64, 300 };
    unsigned seed, m, appends;
    size_t events = 0, refused = 0, violations = 0;
    for (seed = 1; seed <= 12; seed++) {
        stream s;
        memset(&s, 0, sizeof s);
        rng = seed;
        gen(&s, 300 + seed * 40);
        events += s.n;
        for (appends = 0; appends <= 1; appends++) {
            result direct;
            result_init(&direct, (int)appends);
            run_direct(&s, &direct);
            if (!appends) {
                violations += aps_asm_violations(&direct.a);
                refused += direct.statuses.len != 0;
            }
            for (m = 0; m < sizeof most / sizeof most[0]; m++) {
                result batched;
                result_init(&batched, (int)appends);
                run_batched(&s, &batched, most[m]);
                CHECK(same(&direct, &batched));
                if (!same(&direct, &batched))
                    fprintf(stderr, "seed %u, batches of up to %u, padded %d, on_append %u: differs\n", seed,
                            most[m], padded, appends);
                result_free(&batched);
            }
            result_free(&direct);
        }
        free(s.ev);
        pool_free(&s.mem);
    }
    printf("padded %d: %zu events, %zu violations, %u of 12 streams with refused views\n", padded, events,
           violations, (unsigned)refused);
    CHECK(violations > 50);
    CHECK(refused > 6);
}

/*
 * One message's text through batches, so long that its member grows many
 * times: every token lands once, in order (the message is delivered open,
 * by aps_asm_finish, so its block holds the appended text).
 */
static void test_long_text(void)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    stream s;
    result direct, batched;
    tlog want = { NULL, 0, 0 };
    size_t i;
    memset(&s, 0, sizeof s);
    rng = 7;
    next_event(&s, 0, APS_ASM_MESSAGE_START)->id = own(&s.mem, "m", 1);
    next_event(&s, 0, APS_ASM_BLOCK_START)->content = R("{\"type\":\"reasoning\"}");
    tlog_str(&want, "\"reasoning\":\"");
    for (i = 0; i < 100000; i++) {
        aps_asm_event *e = next_event(&s, 0, APS_ASM_BLOCK_DELTA);
        char buf[16];
        size_t n = 1 + rnd(16), j;
        for (j = 0; j < n; j++)
            buf[j] = letters[rnd(sizeof letters - 1)];
        e->delta = APS_ASM_DELTA_REASONING;
        e->text = own(&s.mem, buf, n);
        tlog_add(&want, buf, n);
    }
    tlog_str(&want, "\"");
    result_init(&direct, 0);
    result_init(&batched, 0);
    for (i = 0; i < s.n; i += 64) {
        size_t n = s.n - i < 64 ? s.n - i : 64, fed;
        CHECK_INT(aps_asm_feed_batch(&batched.a, s.ev + i, n, &fed, NULL), APS_OK);
        CHECK_INT(fed, n);
    }
    aps_asm_finish(&batched.a);
    run_direct(&s, &direct);
    CHECK_INT(aps_asm_violations(&batched.a), 0);
    CHECK(strstr(tlog_get(&batched.c.out), tlog_get(&want)) != NULL);
    CHECK(same(&direct, &batched));
    tlog_free(&want);
    result_free(&direct);
    result_free(&batched);
    free(s.ev);
    pool_free(&s.mem);
}

/*
 * Every two places, each with a text block open, their tokens alternating
 * in short bursts: a compare that let a byte, a length or a segment
 * boundary slip would send a token to the other place's message.
 */
static void test_place_pairs(void)
{
    size_t i, j, k, pairs = 0;
    for (i = 0; i < SPECS; i++)
        for (j = 0; j < SPECS; j++) {
            stream s;
            result direct, batched;
            if (i == j)
                continue;
            memset(&s, 0, sizeof s);
            rng = i * SPECS + j;
            next_event(&s, i, APS_ASM_MESSAGE_START)->id = own(&s.mem, "a", 1);
            next_event(&s, j, APS_ASM_MESSAGE_START)->id = own(&s.mem, "b", 1);
            next_event(&s, i, APS_ASM_BLOCK_START)->content = R(asm_blocks[0].content);
            next_event(&s, j, APS_ASM_BLOCK_START)->content = R(asm_blocks[0].content);
            for (k = 0; k < 40; k++) {
                unsigned n = 1 + rnd(5), t;
                for (t = 0; t < n; t++) {
                    aps_asm_event *e = next_event(&s, k % 2 ? j : i, APS_ASM_BLOCK_DELTA);
                    e->delta = APS_ASM_DELTA_TEXT;
                    e->text = token(&s, 1 + rnd(16));
                }
            }
            result_init(&direct, 0);
            result_init(&batched, 0);
            run_direct(&s, &direct);
            run_batched(&s, &batched, 64);
            CHECK(same(&direct, &batched));
            if (!same(&direct, &batched))
                fprintf(stderr, "places %zu and %zu, padded %d: differ\n", i, j, padded);
            pairs++;
            result_free(&direct);
            result_free(&batched);
            free(s.ev);
            pool_free(&s.mem);
        }
    CHECK_INT(pairs, SPECS * (SPECS - 1));
}

static void test_arguments(void)
{
    aps_assembler a;
    aps_asm_event e;
    aps_error err = APS_ERROR_INIT;
    size_t fed = 99;
    aps_asm_init(&a, NULL, NULL);
    CHECK_INT(aps_asm_feed_batch(NULL, &e, 1, &fed, &err), APS_E_ARGUMENT);
    CHECK_INT(fed, 0);
    CHECK_INT(aps_asm_feed_batch(&a, NULL, 1, NULL, NULL), APS_E_ARGUMENT);
    fed = 99;
    CHECK_INT(aps_asm_feed_batch(&a, NULL, 0, &fed, NULL), APS_OK);
    CHECK_INT(fed, 0);
    aps_asm_deinit(&a);
}

int main(void)
{
    test_arguments();
    for (padded = 0; padded <= 1; padded++) {
        test_equal();
        test_place_pairs();
        test_long_text();
    }
    return test_report();
}
