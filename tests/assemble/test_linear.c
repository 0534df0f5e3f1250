/*
 * test_linear.c - 1,000,000 one-character text deltas assemble in linear
 * work. Work is measured, not timed: a counting allocator records every
 * allocation, and since an append copies only the new byte plus, when the
 * buffer grows, the old contents into the new buffer, the bytes ever
 * allocated bound the bytes ever copied. The test asserts that this stays
 * within a constant factor of n, and that doubling n at most doubles it
 * (plus a constant), for message text and for tool output.
 */
#include "../test.h"
#include "asm_test.h"

typedef struct work {
    size_t calls, bytes, out_len, appends;
} work;

static void count_append(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                         aps_slice appended)
{
    (void)m;
    (void)index;
    (void)kind;
    ((work *)ctx)[1].appends += appended.len;
}

static void measure_message(work *w, size_t n)
{
    static work ctx[2];
    test_alloc ta;
    aps_asm_options o;
    aps_asm_callbacks cb;
    aps_assembler a;
    aps_asm_event e;
    place p = P("ns", NULL, "node");
    size_t i;
    test_alloc_init(&ta, -1, 0);
    memset(&o, 0, sizeof o);
    memset(&cb, 0, sizeof cb);
    memset(ctx, 0, sizeof ctx);
    o.allocator = test_alloc_hooks(&ta);
    cb.on_append = count_append;
    cb.ctx = ctx;
    aps_asm_init(&a, &o, &cb);
    e = E(&p, APS_ASM_MESSAGE_START, 0);
    e.id = S("m");
    e.role = S("ai");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e = E(&p, APS_ASM_BLOCK_START, 1);
    e.content = R("{\"type\":\"text\",\"text\":\"\"}");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    /* what start cost is not append work */
    w->calls = ta.calls;
    w->bytes = ta.total;
    e = E(&p, APS_ASM_BLOCK_DELTA, 0);
    e.delta = APS_ASM_DELTA_TEXT;
    e.text = S("a");
    for (i = 0; i < n; i++) {
        e.position = i + 2;
        if (aps_asm_feed(&a, &e, NULL) != APS_OK)
            break;
    }
    CHECK_INT(i, n);
    w->calls = ta.calls - w->calls;
    w->bytes = ta.total - w->bytes;
    w->appends = ctx[1].appends;
    CHECK_INT(w->appends, n);
    CHECK_INT(aps_asm_violations(&a), 0);
    aps_asm_finish(&a);
    aps_asm_deinit(&a);
    CHECK_INT(ta.allocs - ta.frees, 0);
    CHECK_INT(ta.live, 0);
}

static void render_len(void *ctx, const aps_asm_message *m)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_asm_message_write_block(m, 0, &w);
    *(size_t *)ctx = aps_json_writer_finish(&w, NULL) == APS_OK ? aps_json_writer_len(&w) : 0;
    aps_json_writer_deinit(&w);
}

static void test_result(size_t n)
{
    aps_asm_callbacks cb;
    aps_assembler a;
    aps_asm_event e;
    place p = P(NULL, NULL, NULL);
    size_t i, len = 0;
    memset(&cb, 0, sizeof cb);
    cb.on_message_done = render_len;
    cb.ctx = &len;
    aps_asm_init(&a, NULL, &cb);
    e = E(&p, APS_ASM_MESSAGE_START, 0);
    e.id = S("m");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e = E(&p, APS_ASM_BLOCK_START, 1);
    e.content = R("{\"type\":\"text\",\"text\":\"\"}");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e = E(&p, APS_ASM_BLOCK_DELTA, 2);
    e.delta = APS_ASM_DELTA_TEXT;
    e.text = S("b");
    for (i = 0; i < n; i++)
        if (aps_asm_feed(&a, &e, NULL) != APS_OK)
            break;
    aps_asm_finish(&a);
    /* {"type":"text","text":"bbbb...b"} */
    CHECK_INT(len, strlen("{\"type\":\"text\",\"text\":\"\"}") + n);
    aps_asm_deinit(&a);
}

static void measure_tool(work *w, size_t n)
{
    test_alloc ta;
    aps_asm_options o;
    aps_assembler a;
    aps_asm_event e;
    place p = P(NULL, NULL, NULL);
    size_t i;
    test_alloc_init(&ta, -1, 0);
    memset(&o, 0, sizeof o);
    o.allocator = test_alloc_hooks(&ta);
    aps_asm_init(&a, &o, NULL);
    e = E(&p, APS_ASM_TOOL_STARTED, 0);
    e.tool_call_id = S("call");
    e.tool_name = S("f");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    w->calls = ta.calls;
    w->bytes = ta.total;
    e = E(&p, APS_ASM_TOOL_OUTPUT_DELTA, 1);
    e.tool_call_id = S("call");
    e.text = S("x");
    for (i = 0; i < n; i++)
        if (aps_asm_feed(&a, &e, NULL) != APS_OK)
            break;
    CHECK_INT(i, n);
    w->calls = ta.calls - w->calls;
    w->bytes = ta.total - w->bytes;
    aps_asm_finish(&a);
    aps_asm_deinit(&a);
    CHECK_INT(ta.allocs - ta.frees, 0);
}

static void check_linear(const char *what, const work *w1, const work *w2, size_t n)
{
    printf("%s: n=%zu: %zu allocations, %zu bytes allocated; 2n: %zu allocations, %zu bytes\n",
           what, n, w1->calls, w1->bytes, w2->calls, w2->bytes);
    /* bytes allocated (which bound bytes copied) within 4 bytes per appended byte */
    CHECK(w1->bytes <= 4 * n + 4096);
    CHECK(w2->bytes <= 4 * 2 * n + 4096);
    /* doubling n at most doubles the work (plus a constant) */
    CHECK(w2->bytes <= 2 * w1->bytes + 4096);
    /* allocations grow logarithmically: one more doubling of the buffer */
    CHECK(w1->calls <= 64);
    CHECK(w2->calls <= w1->calls + 2);
}

int main(void)
{
    enum { N = 1000000 };
    work m1, m2, t1, t2;
    measure_message(&m1, N);
    measure_message(&m2, 2 * N);
    check_linear("text deltas", &m1, &m2, N);
    measure_tool(&t1, N);
    measure_tool(&t2, 2 * N);
    check_linear("tool output deltas", &t1, &t2, N);
    test_result(N);
    return test_report();
}
