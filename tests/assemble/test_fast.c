/*
 * test_fast.c - the assembler's fast path for text deltas (aps_asm_feed):
 * the caches that route an event to its open message without a lookup,
 * and the token copy. Every event here carries its namespace and node in
 * memory of its own, as decoded events do, so nothing can match by
 * pointer. Checked against what was fed: every token of every length
 * lands once, in order, in its own message; places that differ in any
 * byte, segment boundary or node presence never share a message; a
 * message stops taking tokens once it closes; malformed views are refused
 * as before. Everything runs twice: without and with the padded promise
 * (aps_asm_options.padded), the padding filled with bytes that differ from
 * one event to the next, so that a compare or copy that let them count
 * would show. Strings end where their memory (and padding) ends, so the
 * sanitizer build catches any read past them.
 */
#include "../test.h"
#include "asm_test.h"

/* Whether the assembler is given the padded promise, which every event below then keeps. */
static int padded;
static uint64_t garbage = 12345;

/* Bytes a string of an event gets after it: APS_PADDING when padded, none else. */
static size_t pad_bytes(void)
{
    return padded ? APS_PADDING : 0;
}

/* Fills the padding after `n` bytes at `p` with bytes that change every time. */
static void scribble(char *p, size_t n)
{
    size_t i;
    for (i = 0; i < pad_bytes(); i++)
        p[n + i] = (char)test_rand(&garbage);
}

/* A copy of `n` bytes in memory of its own, exactly as long as the promise needs (free it). */
static char *own_copy(const char *src, size_t n)
{
    size_t size = n + pad_bytes();
    char *p = (char *)malloc(size != 0 ? size : 1);
    if (p == NULL)
        abort();
    if (n)
        memcpy(p, src, n);
    scribble(p, n);
    return p;
}

/* One place of a test, and the text its open message should hold. */
typedef struct spot {
    const char *ns[3];
    size_t ns_len;
    const char *node; /* NULL: absent */
    tlog text;
    char id[16];
    uint64_t started; /* position of its message's start */
} spot;

static spot at(const char *seg0, const char *seg1, const char *node)
{
    spot s;
    memset(&s, 0, sizeof s);
    if (seg0)
        s.ns[s.ns_len++] = seg0;
    if (seg1)
        s.ns[s.ns_len++] = seg1;
    s.node = node;
    return s;
}

/* Feeds `e` with its place and text copied to memory of their own, freed after the call. */
static aps_status feed_at(aps_assembler *a, aps_asm_event *e, const spot *s)
{
    aps_slice ns[3];
    char *mem, *text = NULL;
    size_t i, total = 1, off = 0;
    aps_status st;
    for (i = 0; i < s->ns_len; i++)
        total += strlen(s->ns[i]);
    if (s->node)
        total += strlen(s->node);
    mem = (char *)malloc(total + pad_bytes());
    if (mem == NULL)
        abort();
    scribble(mem, total);
    if (e->text.ptr != NULL) {
        text = own_copy(e->text.ptr, e->text.len);
        e->text.ptr = text;
    }
    for (i = 0; i < s->ns_len; i++) {
        ns[i].len = strlen(s->ns[i]);
        ns[i].ptr = mem + off;
        memcpy(mem + off, s->ns[i], ns[i].len);
        off += ns[i].len;
    }
    e->ns = s->ns_len ? ns : NULL;
    e->ns_len = s->ns_len;
    e->node.ptr = NULL;
    e->node.len = 0;
    if (s->node) {
        e->node.len = strlen(s->node);
        e->node.ptr = mem + off;
        memcpy(mem + off, s->node, e->node.len);
    }
    st = aps_asm_feed(a, e, NULL);
    free(mem);
    free(text);
    return st;
}

static aps_asm_event ev(aps_asm_kind kind, uint64_t pos)
{
    aps_asm_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.position = pos;
    return e;
}

/* Everything delivered: "ID STATUS BLOCK0\n" per message, and the violations. */
typedef struct seen {
    tlog out;
    tlog violations;
    size_t appends;
} seen;

static void on_done(void *ctx, const aps_asm_message *m)
{
    static const char *const status[] = { "open", "finished", "error" };
    seen *s = (seen *)ctx;
    aps_slice id = aps_asm_message_id(m);
    aps_json_writer w;
    tlog_add(&s->out, id.ptr, id.len);
    tlog_str(&s->out, " ");
    tlog_str(&s->out, status[aps_asm_message_state(m)]);
    tlog_str(&s->out, " ");
    aps_json_writer_init(&w, NULL);
    aps_asm_message_write_block(m, 0, &w);
    if (aps_json_writer_finish(&w, NULL) == APS_OK)
        tlog_add(&s->out, aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    tlog_str(&s->out, "\n");
}

static void on_append(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                      aps_slice appended)
{
    (void)m;
    (void)index;
    (void)kind;
    (void)appended;
    ((seen *)ctx)->appends++;
}

static void on_violation(void *ctx, uint64_t position, aps_asm_violation code, const char *text)
{
    asm_put_violation(&((seen *)ctx)->violations, position, code, text);
}

/* Every test runs in both modes: the fast path must give what the general path gives in each. */
static int strict;

/* The state aps_asm_finish gives a message still open: the default mode reports it abandoned. */
static const char *at_end(void)
{
    return strict ? "open" : "error";
}

static void init(aps_assembler *a, seen *s, const aps_asm_options *options)
{
    aps_asm_callbacks cb;
    aps_asm_options o;
    if (options != NULL)
        o = *options;
    else
        memset(&o, 0, sizeof o);
    o.padded = padded;
    o.strict = strict;
    memset(s, 0, sizeof *s);
    memset(&cb, 0, sizeof cb);
    cb.on_message_done = on_done;
    cb.on_append = on_append;
    cb.on_violation = on_violation;
    cb.ctx = s;
    aps_asm_init(a, &o, &cb);
}

static void done(aps_assembler *a, seen *s)
{
    aps_asm_deinit(a);
    tlog_free(&s->out);
    tlog_free(&s->violations);
}

/* message-start and a text block at `s`, as message `id`. */
static void open_at(aps_assembler *a, spot *s, const char *id, uint64_t *pos)
{
    aps_asm_event e = ev(APS_ASM_MESSAGE_START, ++*pos);
    snprintf(s->id, sizeof s->id, "%s", id);
    e.id = S(s->id);
    CHECK_INT(feed_at(a, &e, s), APS_OK);
    e = ev(APS_ASM_BLOCK_START, ++*pos);
    e.content = R("{\"type\":\"text\",\"text\":\"\"}");
    CHECK_INT(feed_at(a, &e, s), APS_OK);
    tlog_free(&s->text);
    s->started = *pos;
}

/* A text delta of `n` bytes at `s`; the bytes are also added to what `s` expects. */
static void token_at(aps_assembler *a, spot *s, const char *p, size_t n, uint64_t *pos)
{
    aps_asm_event e = ev(APS_ASM_BLOCK_DELTA, ++*pos);
    e.delta = APS_ASM_DELTA_TEXT;
    e.text.ptr = p;
    e.text.len = n;
    CHECK_INT(feed_at(a, &e, s), APS_OK);
    tlog_add(&s->text, p, n);
}

/* An `error` event at `s`: the message closes with its block as the deltas built it. */
static void fail_at(aps_assembler *a, spot *s, uint64_t *pos)
{
    aps_asm_event e = ev(APS_ASM_MESSAGE_ERROR, ++*pos);
    e.message = S("stopped");
    CHECK_INT(feed_at(a, &e, s), APS_OK);
}

/* What on_done writes for `s`'s message, with the text it was fed. */
static void expect_line(tlog *out, const spot *s, const char *status)
{
    aps_json_writer w;
    tlog_str(out, s->id);
    tlog_str(out, " ");
    tlog_str(out, status);
    tlog_str(out, " ");
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "type", 4);
    aps_json_write_string(&w, "text", 4);
    aps_json_write_key(&w, "text", 4);
    aps_json_write_string(&w, s->text.s ? s->text.s : "", s->text.len);
    aps_json_write_object_end(&w);
    if (aps_json_writer_finish(&w, NULL) == APS_OK)
        tlog_add(out, aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    tlog_str(out, "\n");
}

/*
 * Tokens of every length from 0 to 40, in a random order, so the copy sees
 * every length at every fill of its buffer (with and without the 16 bytes
 * of room the fast copy needs), with the default allocator (buffers grow
 * by realloc) and with allocator hooks (they grow by copying).
 */
static void test_token_lengths(int hooks)
{
    static const char chars[] = "abc \"\\\n\t/xyz0123456789ABCDEFGHIJ~!";
    aps_assembler a;
    seen s;
    test_alloc ta;
    aps_asm_options o;
    spot sp = at("model_request:db60c136-bbdc-5c76-a665-4bd487797692", NULL, "model");
    char src[41];
    tlog want;
    uint64_t pos = 0, r = 7;
    size_t i, k, tokens = 0;
    memset(&o, 0, sizeof o);
    test_alloc_init(&ta, -1, 0);
    memset(&want, 0, sizeof want);
    if (hooks)
        o.allocator = test_alloc_hooks(&ta);
    init(&a, &s, &o);
    open_at(&a, &sp, "m", &pos);
    for (i = 0; i < 4000; i++) {
        size_t n = (size_t)(test_rand(&r) % 41);
        for (k = 0; k < n; k++)
            src[k] = chars[test_rand(&r) % (sizeof chars - 1)];
        /* feed_at gives the token memory that ends where it (and its padding) ends */
        token_at(&a, &sp, src, n, &pos);
        tokens++;
    }
    aps_asm_finish(&a);
    expect_line(&want, &sp, at_end());
    CHECK_STR(tlog_get(&s.out), tlog_get(&want));
    CHECK_STR(tlog_get(&s.violations), "");
    CHECK_INT(s.appends, tokens);
    done(&a, &s);
    tlog_free(&want);
    tlog_free(&sp.text);
    if (hooks) {
        CHECK_INT(ta.allocs - ta.frees, 0);
        CHECK_INT(ta.live, 0);
    }
}

/*
 * Every pair of token lengths 0..40 as the first two tokens of a message,
 * then one more: the buffer's room after the first token takes every value
 * below 16 (where the fast copy must not be used) and the second token
 * every length around it.
 */
static void test_room_edges(void)
{
    static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
    aps_assembler a;
    seen s;
    spot sp = at("ns", NULL, "model");
    tlog want;
    uint64_t pos = 0;
    size_t l1, l2;
    memset(&want, 0, sizeof want);
    init(&a, &s, NULL);
    for (l1 = 0; l1 <= 40; l1++) {
        for (l2 = 0; l2 <= 40; l2++) {
            char id[16];
            snprintf(id, sizeof id, "m%zu.%zu", l1, l2);
            open_at(&a, &sp, id, &pos);
            token_at(&a, &sp, chars, l1, &pos);
            token_at(&a, &sp, chars + 40 - l2, l2, &pos);
            token_at(&a, &sp, "12345", 5, &pos);
            fail_at(&a, &sp, &pos);
            expect_line(&want, &sp, "error");
        }
    }
    aps_asm_finish(&a);
    CHECK_STR(tlog_get(&s.out), tlog_get(&want));
    CHECK_STR(tlog_get(&s.violations), "");
    done(&a, &s);
    tlog_free(&want);
    tlog_free(&sp.text);
}

/*
 * Two places that must not share a message, fed alternately token by token:
 * each message gets exactly its own tokens. The pairs differ only in the
 * last byte, the first byte, a middle byte that the compare of the ends
 * does not see, the segment boundaries, a trailing empty segment, node
 * presence (absent and "" are different places), and the node; and some
 * hash alike (same shape and same last 8 bytes), so they share a set of
 * the cache.
 */
static void test_places_apart(void)
{
    static const char *const pairs[][6] = {
        /* seg0, seg1, node | seg0, seg1, node; "-" is NULL */
        { "model_request:db60c136-bbdc-5c76-a665-4bd487797692", "-", "model",
          "model_request:db60c136-bbdc-5c76-a665-4bd487797693", "-", "model" },
        { "model_request:db60c136-bbdc-5c76-a665-4bd487797692", "-", "model",
          "Model_request:db60c136-bbdc-5c76-a665-4bd487797692", "-", "model" },
        { "model_request:db60c136-bbdc-5c76-a665-4bd487797692", "-", "model",
          "model_request:db60c136-bbdc-5d76-a665-4bd487797692", "-", "model" },
        { "0123456789abcdef", "-", "-", "0123456789abcdeF", "-", "-" },
        { "0123456789abcdef0", "-", "-", "1123456789abcdef0", "-", "-" },
        { "abcdefgh-1", "-", "-", "abcdefgh-2", "-", "-" },
        { "abcdefgh", "-", "-", "abcdefgi", "-", "-" },
        { "abcde", "-", "-", "abcdf", "-", "-" },
        { "abc", "-", "-", "abd", "-", "-" },
        { "a", "-", "-", "b", "-", "-" },
        { "a", "bc", "-", "ab", "c", "-" },
        { "x", "-", "-", "x", "", "-" },
        { "-", "-", "-", "", "-", "-" },
        { "ns", "-", "-", "ns", "-", "" },
        { "ns", "-", "model", "ns", "-", "-" },
        { "ns", "-", "n1", "ns", "-", "n2" },
        { "agent", "-", "model", "agent", "-", "modem" },
        { "aaaaaaaa-SAMETAIL", "-", "-", "bbbbbbbb-SAMETAIL", "-", "-" },
        { "aaaaaaaaaaaaaaaa-0123456789abcdef", "-", "n", "bbbbbbbbbbbbbbbb-0123456789abcdef", "-", "n" },
    };
    size_t p;
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        aps_assembler a;
        seen s;
        spot sp[2];
        tlog want;
        uint64_t pos = 0;
        int i, j;
        memset(&want, 0, sizeof want);
        for (j = 0; j < 2; j++) {
            const char *const *q = pairs[p] + 3 * j;
            sp[j] = at(strcmp(q[0], "-") ? q[0] : NULL, strcmp(q[1], "-") ? q[1] : NULL,
                       strcmp(q[2], "-") ? q[2] : NULL);
        }
        init(&a, &s, NULL);
        open_at(&a, &sp[0], "A", &pos);
        open_at(&a, &sp[1], "B", &pos);
        for (i = 0; i < 200; i++) {
            token_at(&a, &sp[0], "a", 1, &pos);
            token_at(&a, &sp[1], "bb", 2, &pos);
        }
        /* and runs, so each is the last message for a while */
        for (i = 0; i < 50; i++)
            token_at(&a, &sp[0], "aaa", 3, &pos);
        for (i = 0; i < 50; i++)
            token_at(&a, &sp[1], "b", 1, &pos);
        aps_asm_finish(&a);
        expect_line(&want, &sp[0], at_end());
        expect_line(&want, &sp[1], at_end());
        CHECK_STR(tlog_get(&s.out), tlog_get(&want));
        CHECK_STR(tlog_get(&s.violations), "");
        if (strcmp(tlog_get(&s.out), tlog_get(&want)) != 0)
            fprintf(stderr, "  (pair %zu)\n", p);
        done(&a, &s);
        tlog_free(&want);
        tlog_free(&sp[0].text);
        tlog_free(&sp[1].text);
    }
}

/*
 * 40 places, more than the cache holds, some alike but for their end, fed
 * in a random order; now and then a message fails (an error event) and a
 * new one starts at its place, so the caches must drop the closed one.
 */
static void test_interleaved_many(void)
{
    enum { N = 40 };
    static char names[N][64];
    aps_assembler a;
    seen s;
    spot sp[N];
    tlog want;
    uint64_t pos = 0, r = 99;
    size_t i, restarts = 0;
    memset(&want, 0, sizeof want);
    for (i = 0; i < N; i++) {
        if (i % 4 == 0)
            snprintf(names[i], sizeof names[i], "model_request:%08zx-bbdc-5c76-a665-4bd487797692", i);
        else if (i % 4 == 1)
            snprintf(names[i], sizeof names[i], "model_request:db60c136-bbdc-5c76-a665-4bd4877976%02zu", i);
        else
            snprintf(names[i], sizeof names[i], "agent%zu", i);
        sp[i] = at(names[i], i % 3 == 0 ? "sub" : NULL, i % 5 == 0 ? NULL : "model");
    }
    init(&a, &s, NULL);
    for (i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof id, "m%zu", i);
        open_at(&a, &sp[i], id, &pos);
    }
    for (i = 0; i < 20000; i++) {
        size_t k = (size_t)(test_rand(&r) % N);
        char tok[9];
        size_t n = 1 + (size_t)(test_rand(&r) % 8), j;
        for (j = 0; j < n; j++)
            tok[j] = (char)('a' + (k + j) % 26);
        if (test_rand(&r) % 500 == 0) {
            char id[16];
            fail_at(&a, &sp[k], &pos);
            expect_line(&want, &sp[k], "error");
            snprintf(id, sizeof id, "r%zu", restarts++);
            open_at(&a, &sp[k], id, &pos);
        }
        token_at(&a, &sp[k], tok, n, &pos);
    }
    aps_asm_finish(&a);
    /* aps_asm_finish delivers in the order messages started */
    for (;;) {
        size_t first = N;
        for (i = 0; i < N; i++)
            if (sp[i].started && (first == N || sp[i].started < sp[first].started))
                first = i;
        if (first == N)
            break;
        expect_line(&want, &sp[first], at_end());
        sp[first].started = 0;
    }
    CHECK(restarts > 0);
    CHECK_STR(tlog_get(&s.out), tlog_get(&want));
    CHECK_STR(tlog_get(&s.violations), "");
    done(&a, &s);
    tlog_free(&want);
    for (i = 0; i < N; i++)
        tlog_free(&sp[i].text);
}

/*
 * A message taking tokens closes (finished, failed, failed by a violation):
 * the next token at its place is reported, not appended to it; a new
 * message at the place takes tokens again; the rules still apply to a
 * token that would otherwise take the fast path (wrong block, wrong delta
 * type).
 */
static void test_closed_and_rules(void)
{
    aps_assembler a;
    seen s;
    spot sp = at("ns", NULL, "model");
    aps_asm_event e;
    uint64_t pos = 0;
    int i;
    init(&a, &s, NULL);
    open_at(&a, &sp, "m1", &pos);
    for (i = 0; i < 40; i++)
        token_at(&a, &sp, "tok", 3, &pos);
    e = ev(APS_ASM_BLOCK_FINISH, ++pos);
    e.content = R("{\"type\":\"text\",\"text\":\"final\"}");
    CHECK_INT(feed_at(&a, &e, &sp), APS_OK);
    e = ev(APS_ASM_MESSAGE_FINISH, ++pos);
    CHECK_INT(feed_at(&a, &e, &sp), APS_OK);
    token_at(&a, &sp, "late", 4, &pos); /* 45: reported once */
    token_at(&a, &sp, "late", 4, &pos); /* then ignored */
    open_at(&a, &sp, "m2", &pos);
    for (i = 0; i < 40; i++)
        token_at(&a, &sp, "x", 1, &pos);
    e = ev(APS_ASM_BLOCK_DELTA, ++pos); /* 89: block 1 was never started */
    e.delta = APS_ASM_DELTA_TEXT;
    e.index = 1;
    e.text = S("no");
    CHECK_INT(feed_at(&a, &e, &sp), APS_OK);
    open_at(&a, &sp, "m3", &pos);
    for (i = 0; i < 40; i++)
        token_at(&a, &sp, "y", 1, &pos);
    e = ev(APS_ASM_BLOCK_DELTA, ++pos); /* 132: a reasoning delta on a text block */
    e.delta = APS_ASM_DELTA_REASONING;
    e.text = S("no");
    CHECK_INT(feed_at(&a, &e, &sp), APS_OK);
    aps_asm_finish(&a);
    CHECK_STR(tlog_get(&s.out),
              "m1 finished {\"type\":\"text\",\"text\":\"final\"}\n"
              "m2 error {\"type\":\"text\",\"text\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n"
              "m3 error {\"type\":\"text\",\"text\":\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"}\n");
    CHECK_STR(tlog_get(&s.violations),
              "45 message-finished: content-block-delta after the message finished or failed\n"
              "89 block-not-started: content-block-delta for block 1, which was never started (message \"m2\")\n"
              "132 delta-mismatch: reasoning-delta on block 0, whose type does not take it (message \"m3\")\n");
    done(&a, &s);
    tlog_free(&sp.text);
}

/* Strings in memory of their own (own_copy), for views fed directly; freed together. */
typedef struct owned {
    char *p[8];
    int n;
} owned;

static aps_slice own(owned *o, const char *s)
{
    aps_slice r;
    r.len = strlen(s);
    r.ptr = o->p[o->n++] = own_copy(s, r.len);
    return r;
}

static void owned_free(owned *o)
{
    while (o->n > 0)
        free(o->p[--o->n]);
}

/*
 * Views a decoder would never give, sent while a message takes tokens
 * fast: each is refused with APS_E_ARGUMENT and changes nothing. A text
 * delta that also has (valid) `fields`, and one with absent text, are
 * applied as before.
 */
static void test_malformed_while_fast(void)
{
    aps_assembler a;
    seen s;
    spot sp = at("model_request:db60c136-bbdc-5c76-a665-4bd487797692", "sub", "model");
    aps_asm_event e;
    aps_slice ns[2];
    owned kept;
    tlog want;
    uint64_t pos = 0;
    int i;
    memset(&want, 0, sizeof want);
    memset(&kept, 0, sizeof kept);
    init(&a, &s, NULL);
    open_at(&a, &sp, "m", &pos);
    for (i = 0; i < 40; i++)
        token_at(&a, &sp, "ok", 2, &pos);
    e = ev(APS_ASM_BLOCK_DELTA, ++pos);
    e.delta = APS_ASM_DELTA_TEXT;
    e.text.len = 3; /* text NULL with a length */
    CHECK_INT(feed_at(&a, &e, &sp), APS_E_ARGUMENT);
    e.text = S("no");
    e.fields.len = 2; /* fields NULL with a length */
    CHECK_INT(feed_at(&a, &e, &sp), APS_E_ARGUMENT);
    e.fields.len = 0;
    e.text = own(&kept, "no");
    ns[0] = own(&kept, sp.ns[0]);
    ns[1].ptr = NULL; /* a segment NULL with its right length */
    ns[1].len = 3;
    e.ns = ns;
    e.ns_len = 2;
    e.node = own(&kept, "model");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_E_ARGUMENT);
    ns[1] = own(&kept, "sub");
    e.node.ptr = NULL; /* node NULL with its right length */
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_E_ARGUMENT);
    e.node = own(&kept, "model");
    e.ns = NULL; /* no segments, a count */
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_E_ARGUMENT);
    /* the same view, well formed: it is applied */
    e.ns = ns;
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    tlog_add(&sp.text, "no", 2);
    e.fields = R("{\"extra\":1}"); /* not read for a text delta */
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    tlog_add(&sp.text, "no", 2);
    e.fields.ptr = NULL;
    e.fields.len = 0;
    e.text.ptr = NULL; /* absent: appends nothing */
    e.text.len = 0;
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    token_at(&a, &sp, "end", 3, &pos);
    aps_asm_finish(&a);
    expect_line(&want, &sp, at_end());
    CHECK_STR(tlog_get(&s.out), tlog_get(&want));
    CHECK_STR(tlog_get(&s.violations), "");
    CHECK_INT(s.appends, 40 + 3 + 1);
    done(&a, &s);
    tlog_free(&want);
    tlog_free(&sp.text);
    owned_free(&kept);
}

int main(void)
{
    for (strict = 0; strict <= 1; strict++)
    for (padded = 0; padded <= 1; padded++) {
        test_token_lengths(0);
        test_token_lengths(1);
        test_room_edges();
        test_places_apart();
        test_interleaved_many();
        if (strict) /* its violations are strict mode's; test_lenient.c has the default mode's */
            test_closed_and_rules();
        test_malformed_while_fast();
    }
    return test_report();
}
