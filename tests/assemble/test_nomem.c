/*
 * test_nomem.c - allocation failure loop: a stream that reaches every
 * allocation of the assembler (namespace and metadata copies, blocks,
 * members, growing appends, block-delta merges, links, usage, errors,
 * tools, tombstones, map growth, the scratch arena, the key buffer) is
 * replayed with the k-th allocation failing, for every k until a run needs
 * no failure. Each feed returns APS_OK or APS_E_NOMEM; the assembler stays
 * usable after a failure; deinit frees everything (the allocator counts
 * live blocks; ASan checks the rest in the sanitizer build).
 */
#include "../test.h"
#include "asm_test.h"

typedef struct counts {
    size_t nomem, other, delivered;
} counts;

static void on_message(void *ctx, const aps_asm_message *m)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_asm_message_write(m, &w);
    if (aps_json_writer_finish(&w, NULL) == APS_OK)
        ((counts *)ctx)->delivered++;
    aps_json_writer_deinit(&w);
}

static void on_tool(void *ctx, const aps_asm_tool *t)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_asm_tool_write(t, &w);
    if (aps_json_writer_finish(&w, NULL) == APS_OK)
        ((counts *)ctx)->delivered++;
    aps_json_writer_deinit(&w);
}

static void feed(aps_assembler *a, counts *c, aps_asm_event *e, uint64_t *pos)
{
    aps_status st;
    e->position = ++*pos;
    st = aps_asm_feed(a, e, NULL);
    if (st == APS_E_NOMEM)
        c->nomem++;
    else if (st != APS_OK)
        c->other++;
}

static void scenario(aps_assembler *a, counts *c)
{
    char seg[32], id[32], text[64];
    uint64_t pos = 0;
    int i, k;
    aps_asm_event e;
    place p;
    /* 40 messages in their own places: the map grows; every block kind */
    for (i = 0; i < 40; i++) {
        snprintf(seg, sizeof seg, "place-%d-\\u", i); /* a long-ish segment */
        snprintf(id, sizeof id, "msg-%d", i);
        p = P(seg, i % 2 ? "sub" : NULL, i % 3 ? "node" : NULL);
        e = E(&p, APS_ASM_MESSAGE_START, 0);
        e.id = S(id);
        e.role = S("ai");
        e.metadata = R("{\"model\":\"m\",\"provider\":\"p\"}");
        feed(a, c, &e, &pos);
        e = E(&p, APS_ASM_BLOCK_START, 0);
        e.index = 0;
        e.content = R(i % 4 == 0 ? "{\"type\":\"text\",\"text\":\"\\u00e9\",\"id\":\"t\"}"
                      : i % 4 == 1 ? "{\"type\":\"reasoning\",\"reasoning\":null}"
                      : i % 4 == 2 ? "{\"type\":\"image\",\"base64\":\"QQ\"}"
                                   : "{\"type\":\"tool_call_chunk\",\"id\":\"x\",\"name\":null,\"args\":null}");
        feed(a, c, &e, &pos);
        e = E(&p, APS_ASM_BLOCK_DELTA, 0);
        e.delta = i % 4 == 0 ? APS_ASM_DELTA_TEXT
                  : i % 4 == 1 ? APS_ASM_DELTA_REASONING
                  : i % 4 == 2 ? APS_ASM_DELTA_DATA : APS_ASM_DELTA_TOOL_CALL;
        for (k = 0; k < 20; k++) {
            snprintf(text, sizeof text, "chunk %d of message %d; ", k, i);
            e.text = S(text);
            feed(a, c, &e, &pos);
        }
        e.delta = APS_ASM_DELTA_BLOCK;
        e.fields = R("{\"type\":\"text\",\"extra\\u0021\":[1,{\"a\":2}],\"text\":\"T\"}");
        feed(a, c, &e, &pos);
        e.delta = APS_ASM_DELTA_TEXT;
        e.text = S("more");
        feed(a, c, &e, &pos);
        if (i % 5 == 4)
            continue; /* left open for aps_asm_finish */
        e = E(&p, APS_ASM_BLOCK_FINISH, 0);
        snprintf(text, sizeof text, "{\"type\":\"tool_call\",\"id\":\"call-%d\",\"name\":\"f\",\"args\":{}}", i);
        e.content = R(text);
        feed(a, c, &e, &pos);
        if (i % 7 == 3) {
            e = E(&p, APS_ASM_MESSAGE_ERROR, 0);
            e.message = S("model failed");
            e.code = S("failed");
        } else {
            e = E(&p, APS_ASM_MESSAGE_FINISH, 0);
            e.usage = R("{\"inputTokens\":3,\"outputTokens\":4}");
        }
        feed(a, c, &e, &pos);
        /* a violation after the finish (tombstone), and one before any start (poisoned key) */
        feed(a, c, &e, &pos);
        p = P(seg, "never-started", NULL);
        e = E(&p, APS_ASM_BLOCK_DELTA, 0);
        e.delta = APS_ASM_DELTA_TEXT;
        e.text = S("x");
        feed(a, c, &e, &pos);
    }
    /* tools: started, streamed, finished or failed, linked to the blocks above */
    p = P("tools", NULL, NULL);
    for (i = 0; i < 30; i++) {
        snprintf(id, sizeof id, "call-%d", i);
        e = E(&p, APS_ASM_TOOL_STARTED, 0);
        e.tool_call_id = S(id);
        e.tool_name = S("f");
        e.input = R("{\"q\":[1,2,3]}");
        feed(a, c, &e, &pos);
        e = E(&p, APS_ASM_TOOL_OUTPUT_DELTA, 0);
        e.tool_call_id = S(id);
        for (k = 0; k < 10; k++) {
            e.text = S("output piece, ");
            feed(a, c, &e, &pos);
        }
        if (i % 6 == 5)
            continue;
        e = E(&p, i % 3 ? APS_ASM_TOOL_FINISHED : APS_ASM_TOOL_ERROR, 0);
        e.tool_call_id = S(id);
        e.output = R("{\"result\":\"ok\"}");
        e.message = S("tool failed");
        feed(a, c, &e, &pos);
        feed(a, c, &e, &pos); /* after the finish */
    }
    e = E(&p, APS_ASM_TOOL_FINISHED, 0);
    e.tool_call_id = S("unknown");
    feed(a, c, &e, &pos);
}

/*
 * What a clean run delivers: strict mode, the 40 messages and 30 tools. The
 * default mode also opens an item for each event with none: per message
 * that closed (32 of 40) the repeated finish (closed by itself) and the
 * delta at "never-started" (delivered by aps_asm_finish); per tool that
 * closed (25 of 30) the repeated finish; and the finish of "unknown".
 */
static size_t clean_deliveries(int strict)
{
    return strict ? 40 + 30 : 40 + 32 * 2 + 30 + 25 + 1;
}

/*
 * Every allocation fails once in the default mode; in strict mode, whose
 * allocations are mostly the same ones, every third (the loop is quadratic,
 * and the sanitizer build runs it too).
 */
static void run(int strict)
{
    size_t fail_at, runs = 0, nomems = 0, stride = strict ? 3 : 1;
    for (fail_at = 1;; fail_at += stride) {
        test_alloc ta;
        aps_asm_options o;
        aps_asm_callbacks cb;
        aps_assembler a;
        counts c;
        size_t failed_before_finish;
        test_alloc_init(&ta, -1, 0);
        memset(&o, 0, sizeof o);
        memset(&cb, 0, sizeof cb);
        memset(&c, 0, sizeof c);
        ta.fail_at = (long)fail_at - 1; /* fail_at counts from 1 */
        o.allocator = test_alloc_hooks(&ta);
        o.strict = strict;
        cb.on_message_done = on_message;
        cb.on_tool_done = on_tool;
        cb.ctx = &c;
        aps_asm_init(&a, &o, &cb);
        scenario(&a, &c);
        failed_before_finish = ta.failed;
        aps_asm_finish(&a);
        aps_asm_deinit(&a);
        runs++;
        nomems += c.nomem;
        CHECK_INT(c.other, 0);
        CHECK_INT(ta.allocs - ta.frees, 0);
        CHECK_INT(ta.live, 0);
        /* a failed allocation is always reported */
        if (failed_before_finish)
            CHECK(c.nomem > 0);
        if (ta.failed == 0) {
            /* the clean run: everything was delivered */
            CHECK_INT(c.nomem, 0);
            CHECK_INT(c.delivered, clean_deliveries(strict));
            printf("%s mode: clean after %ld allocations; %zu runs, %zu APS_E_NOMEM returns\n",
                   strict ? "strict" : "default", ta.calls, runs, nomems);
            break;
        }
    }
    CHECK(runs > 100);
}

int main(void)
{
    run(0);
    run(1);
    return test_report();
}
