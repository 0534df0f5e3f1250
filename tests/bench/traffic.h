/*
 * traffic.h - a seeded generator of realistic Agent Streaming Protocol
 * traffic (server -> client messages, one JSON text per line), shared by the
 * benchmarks. Header-only: include it from one bench_*.c file.
 *
 * The mix follows what a real server sends (see ../shared/traces): runs made
 * of lifecycle events (some with causes), checkpoints, values snapshots and
 * updates with nested state of 1-4 KB, model turns of message-start, block
 * start, many small content-block-delta text events (1-20 characters, some
 * with escapes and non-ASCII), block finish and message-finish with usage,
 * tool events with argument objects, and command responses. Member names
 * are the schema's (camelCase). Same seed and size, same bytes.
 */
#ifndef AP_BENCH_TRAFFIC_H
#define AP_BENCH_TRAFFIC_H

#include "bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A generated corpus: `count` lines; line i is data[start[i] .. start[i+1]-1), its '\n' excluded. */
#ifdef HAVE_CJSON
#include <cjson/cJSON.h>
#endif
#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

typedef struct traffic_corpus {
    char *data;
    size_t len;
    size_t *start; /* count + 1 entries */
    size_t count;
} traffic_corpus;

typedef struct traffic_gen {
    traffic_corpus *c;
    size_t cap, start_cap;
    uint64_t rng;
    uint64_t seq;
    uint64_t now;
    int failed;
} traffic_gen;


static inline uint64_t traffic_pick(traffic_gen *g, uint64_t n)
{
    return test_rand(&g->rng) % n;
}

static inline void traffic_vput(traffic_gen *g, const char *fmt, va_list ap)
{
    traffic_corpus *c = g->c;
    va_list copy;
    int n;
    if (g->failed)
        return;
    va_copy(copy, ap);
    n = vsnprintf(c->data + c->len, g->cap - c->len, fmt, copy);
    va_end(copy);
    if (n < 0) {
        g->failed = 1;
        return;
    }
    if ((size_t)n >= g->cap - c->len) {
        size_t cap = g->cap * 2 + (size_t)n + 1;
        char *d = (char *)realloc(c->data, cap);
        if (d == NULL) {
            g->failed = 1;
            return;
        }
        c->data = d;
        g->cap = cap;
        vsnprintf(c->data + c->len, g->cap - c->len, fmt, ap);
    }
    c->len += (size_t)n;
}

static inline void traffic_put(traffic_gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    traffic_vput(g, fmt, ap);
    va_end(ap);
}

/* Ends the current line and records where the next one starts. */
static inline void traffic_end_line(traffic_gen *g)
{
    traffic_corpus *c = g->c;
    traffic_put(g, "\n");
    if (g->failed)
        return;
    if (c->count + 2 > g->start_cap) {
        size_t cap = g->start_cap * 2 + 16;
        size_t *s = (size_t *)realloc(c->start, cap * sizeof *s);
        if (s == NULL) {
            g->failed = 1;
            return;
        }
        c->start = s;
        g->start_cap = cap;
    }
    c->start[++c->count] = c->len;
}

/* Words and fragments a model streams; some need escaping, some are not ASCII. */
static const char *const traffic_words[] = {
    "the", " function", " returns", " a", " value", ".", " When", " you", "'d", " use",
    " this", " in", " code", ",", " consider", " the", " following", ":\\n", "\\n\\n", " `add(a, b)`",
    " \\\"quoted\\\"", " caf\xC3\xA9", " na\xC3\xAFve", " \xE2\x82\xAC\065", " \xF0\x9F\x98\x80", " \\u00e9t\\u00e9",
    " path\\\\to\\\\file", "\\t- item", " 12345", " + ", "67890", " = 80235", " result", " tool",
    " calculator", " Unicode \xE4\xB8\xAD\xE6\x96\x87", " because", " the", " sum", " is"
};

static inline void traffic_text(traffic_gen *g, size_t max_words)
{
    size_t n = 1 + (size_t)traffic_pick(g, max_words), i;
    for (i = 0; i < n; i++)
        traffic_put(g, "%s", traffic_words[traffic_pick(g, sizeof traffic_words / sizeof *traffic_words)]);
}

/* `{"type":"event","eventId":"..","seq":N,"method":"M","params":{"namespace":[..],"timestamp":T,` */
static inline void traffic_event_head(traffic_gen *g, const char *method, int ns)
{
    g->seq++;
    g->now += 1 + traffic_pick(g, 40);
    traffic_put(g, "{\"type\":\"event\",\"eventId\":\"%llu\",\"seq\":%llu,\"method\":\"%s\",\"params\":{\"namespace\":[",
                (unsigned long long)g->seq, (unsigned long long)g->seq, method);
    if (ns)
        traffic_put(g, "\"model_request:%08llx-bbdc-5c76-a665-4bd487797692\"",
                    (unsigned long long)(g->rng & 0xFFFFFFFFu));
    traffic_put(g, "],\"timestamp\":%llu,", (unsigned long long)g->now);
}

static inline void traffic_lifecycle(traffic_gen *g, const char *status)
{
    static const char *const causes[] = {
        "{\"type\":\"toolCall\",\"toolCallId\":\"toolu_01A09q90qw90lq917835lq9\"}",
        "{\"type\":\"send\",\"fromNode\":\"agent\"}",
        "{\"type\":\"edge\",\"fromNode\":\"tools\"}"
    };
    traffic_event_head(g, "lifecycle", (int)traffic_pick(g, 2));
    traffic_put(g, "\"data\":{\"event\":\"%s\",\"graphName\":\"react-agent\"", status);
    if (traffic_pick(g, 2))
        traffic_put(g, ",\"cause\":%s", causes[traffic_pick(g, 3)]);
    traffic_put(g, "}}}");
    traffic_end_line(g);
}

static inline void traffic_checkpoint(traffic_gen *g, int step)
{
    traffic_event_head(g, "checkpoints", 0);
    traffic_put(g, "\"data\":{\"id\":\"1f144e39-6660-6790-8000-%012llx\",\"parentId\":\"1f144e39-6659-6261-ffff-7cbab0102476\",\"step\":%d,\"source\":\"loop\"}}}",
                (unsigned long long)(test_rand(&g->rng) & 0xFFFFFFFFFFFFull), step);
    traffic_end_line(g);
}

/* A state snapshot of about `size` bytes: a message history. */
static inline void traffic_state(traffic_gen *g, size_t size)
{
    size_t begin = g->c->len, i = 0;
    traffic_put(g, "{\"messages\":[");
    /* One draw per statement: the order of arguments is unspecified, and
     * the same seed must give the same bytes whatever the compiler. */
    uint64_t id, in, out, steps, score;
    while (g->c->len - begin < size && !g->failed) {
        traffic_put(g, "%s{\"type\":\"%s\",\"content\":\"", i ? "," : "", i % 2 ? "ai" : "human");
        traffic_text(g, 40);
        id = test_rand(&g->rng) & 0xFFFFFFFFFFFFull;
        in = traffic_pick(g, 5000);
        out = traffic_pick(g, 900);
        traffic_put(g, "\",\"id\":\"e89e07da-9da0-4ff7-9e25-%012llx\",\"additional_kwargs\":{},\"response_metadata\":{\"model\":\"claude-sonnet\",\"stop_reason\":null,\"usage\":{\"input_tokens\":%llu,\"output_tokens\":%llu}},\"tool_calls\":[]}",
                    (unsigned long long)id, (unsigned long long)in, (unsigned long long)out);
        i++;
    }
    steps = traffic_pick(g, 25);
    score = traffic_pick(g, 100000);
    traffic_put(g, "],\"remaining_steps\":%llu,\"score\":%.3f}", (unsigned long long)steps, (double)score / 1000.0);
}

static inline void traffic_values(traffic_gen *g)
{
    traffic_event_head(g, "values", 0);
    traffic_put(g, "\"data\":");
    traffic_state(g, 1024 + (size_t)traffic_pick(g, 3072));
    traffic_put(g, "}}");
    traffic_end_line(g);
}

static inline void traffic_updates(traffic_gen *g)
{
    traffic_event_head(g, "updates", 0);
    traffic_put(g, "\"data\":{\"node\":\"agent\",\"values\":{\"agent\":");
    traffic_state(g, 1024 + (size_t)traffic_pick(g, 3072));
    traffic_put(g, "}}}}");
    traffic_end_line(g);
}

static inline void traffic_model_turn(traffic_gen *g)
{
    uint64_t msg = test_rand(&g->rng), deltas = 20 + traffic_pick(g, 300), i;
    uint64_t in = 200 + traffic_pick(g, 4000), out = deltas * 3;
    traffic_event_head(g, "messages", 1);
    traffic_put(g, "\"node\":\"agent\",\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"msg_%016llx\",\"metadata\":{\"provider\":\"anthropic\",\"model\":\"claude-sonnet-4\",\"runId\":\"019de07f-de8b-737f-a872-e81aabb47645\"}}}}",
                (unsigned long long)msg);
    traffic_end_line(g);
    traffic_event_head(g, "messages", 1);
    traffic_put(g, "\"node\":\"agent\",\"data\":{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"}}}}");
    traffic_end_line(g);
    for (i = 0; i < deltas && !g->failed; i++) {
        traffic_event_head(g, "messages", 1);
        traffic_put(g, "\"node\":\"agent\",\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"");
        traffic_text(g, 3);
        traffic_put(g, "\"}}}}");
        traffic_end_line(g);
    }
    traffic_event_head(g, "messages", 1);
    traffic_put(g, "\"node\":\"agent\",\"data\":{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"");
    traffic_text(g, 30);
    traffic_put(g, "\"}}}}");
    traffic_end_line(g);
    traffic_event_head(g, "messages", 1);
    traffic_put(g, "\"node\":\"agent\",\"data\":{\"event\":\"message-finish\",\"usage\":{\"inputTokens\":%llu,\"outputTokens\":%llu,\"totalTokens\":%llu,\"inputTokenDetails\":{\"cacheCreation\":0,\"cacheRead\":%llu}}}}}",
                (unsigned long long)in, (unsigned long long)out, (unsigned long long)(in + out),
                (unsigned long long)traffic_pick(g, 1000));
    traffic_end_line(g);
}

static inline void traffic_tool(traffic_gen *g)
{
    uint64_t id = test_rand(&g->rng), a = traffic_pick(g, 100000), b = traffic_pick(g, 100000), i, n;
    traffic_event_head(g, "tools", 1);
    traffic_put(g, "\"node\":\"tools\",\"data\":{\"event\":\"tool-started\",\"toolCallId\":\"toolu_%016llx\",\"toolName\":\"calculator\",\"input\":{\"operation\":\"add\",\"a\":%llu,\"b\":%llu,\"options\":{\"precision\":2,\"explain\":true,\"tags\":[\"math\",\"demo\"]}}}}}",
                (unsigned long long)id, (unsigned long long)a, (unsigned long long)b);
    traffic_end_line(g);
    n = traffic_pick(g, 4);
    for (i = 0; i < n; i++) {
        traffic_event_head(g, "tools", 1);
        traffic_put(g, "\"data\":{\"event\":\"tool-output-delta\",\"toolCallId\":\"toolu_%016llx\",\"delta\":\"", (unsigned long long)id);
        traffic_text(g, 6);
        traffic_put(g, "\"}}}");
        traffic_end_line(g);
    }
    traffic_event_head(g, "tools", 1);
    traffic_put(g, "\"data\":{\"event\":\"tool-finished\",\"toolCallId\":\"toolu_%016llx\",\"output\":{\"result\":%llu,\"content\":\"%llu + %llu = %llu\",\"status\":\"success\"}}}}",
                (unsigned long long)id, (unsigned long long)(a + b), (unsigned long long)a,
                (unsigned long long)b, (unsigned long long)(a + b));
    traffic_end_line(g);
}

static inline void traffic_response(traffic_gen *g, uint64_t id)
{
    if (traffic_pick(g, 2))
        traffic_put(g, "{\"type\":\"success\",\"id\":%llu,\"result\":{\"runId\":\"019de07f-de8b-737f-a872-%012llx\"},\"meta\":{\"appliedThroughSeq\":%llu}}",
                    (unsigned long long)id, (unsigned long long)(test_rand(&g->rng) & 0xFFFFFFFFFFFFull),
                    (unsigned long long)g->seq);
    else
        traffic_put(g, "{\"type\":\"success\",\"id\":%llu,\"result\":{}}", (unsigned long long)id);
    traffic_end_line(g);
}

static inline void traffic_free(traffic_corpus *c)
{
    free(c->data);
    free(c->start);
    memset(c, 0, sizeof *c);
}

/* A generator writing into `out`: room for about `bytes` bytes, the rng at `seed`; g->failed when memory runs out. */
static inline void traffic_start(traffic_gen *g, size_t bytes, uint64_t seed, traffic_corpus *out)
{
    memset(out, 0, sizeof *out);
    memset(g, 0, sizeof *g);
    g->c = out;
    g->rng = seed;
    g->now = 1777587969651ull;
    g->cap = bytes + 65536;
    out->data = (char *)malloc(g->cap);
    out->start = (size_t *)malloc(16 * sizeof *out->start);
    g->start_cap = 16;
    if (out->data == NULL || out->start == NULL)
        g->failed = 1;
    else
        out->start[0] = 0;
}

/* 0, or -1 with `out` freed when the generator ran out of memory. */
static inline int traffic_finish(const traffic_gen *g, traffic_corpus *out)
{
    if (g->failed) {
        traffic_free(out);
        return -1;
    }
    return 0;
}

/*
 * Generates about `bytes` bytes of JSONL traffic from `seed` into `out`
 * (free with traffic_free). Returns 0, or -1 when memory runs out.
 */
static inline int traffic_generate(size_t bytes, uint64_t seed, traffic_corpus *out)
{
    traffic_gen g;
    uint64_t cmd = 1;
    traffic_start(&g, bytes, seed, out);
    while (!g.failed && out->len < bytes) {
        int turns = 1 + (int)traffic_pick(&g, 3), t;
        traffic_response(&g, cmd++);
        traffic_lifecycle(&g, "running");
        traffic_checkpoint(&g, -1);
        traffic_values(&g);
        for (t = 0; t < turns && !g.failed; t++) {
            traffic_lifecycle(&g, "started");
            traffic_model_turn(&g);
            if (t + 1 < turns)
                traffic_tool(&g);
            traffic_updates(&g);
            traffic_checkpoint(&g, t);
            traffic_lifecycle(&g, "completed");
        }
        traffic_values(&g);
        traffic_lifecycle(&g, "completed");
    }
    return traffic_finish(&g, out);
}

/* ---- state snapshots ------------------------------------------------------ */

/* Prose of a retrieved document: long runs with the escapes and characters real pages carry. */
static const char *const traffic_prose[] = {
    "The Transformer architecture", " relies entirely on attention", " mechanisms,", " dispensing with recurrence.",
    "\\n\\n## Results\\n", " Table 2 shows", " a BLEU score of 28.4", " on WMT 2014", " English-to-German",
    " (\\\"base\\\" model)", " r\xC3\xA9sum\xC3\xA9 of the method:", " \xE2\x80\x94 see Figure 3", "\\t\\u2022 training took",
    " 3.5 days on 8 GPUs.", " C:\\\\data\\\\wmt14", " <a href=\\\"https://arxiv.org/abs/1706.03762\\\">paper</a>",
    " \xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B", " and the", " of", " model", " layers", " each", " with", " heads."
};

static inline void traffic_prose_text(traffic_gen *g, size_t bytes)
{
    size_t begin = g->c->len;
    while (g->c->len - begin < bytes && !g->failed)
        traffic_put(g, "%s", traffic_prose[traffic_pick(g, sizeof traffic_prose / sizeof *traffic_prose)]);
}

/* One chat message of a graph state: text content blocks, sometimes a tool call with arguments or a tool result. */
static inline void traffic_state_message(traffic_gen *g, size_t i)
{
    uint64_t id = test_rand(&g->rng) & 0xFFFFFFFFFFFFull, kind = traffic_pick(g, 4);
    uint64_t in = traffic_pick(g, 90000), out = traffic_pick(g, 4000);
    if (i % 2 == 0) {
        traffic_put(g, "{\"type\":\"human\",\"content\":\"");
        traffic_text(g, 30);
        traffic_put(g, "\",\"id\":\"%012llx-7d1e-4b7a-9c41-5d1f2e3a4b5c\",\"additional_kwargs\":{},\"response_metadata\":{}}",
                    (unsigned long long)id);
        return;
    }
    traffic_put(g, "{\"type\":\"ai\",\"content\":[{\"type\":\"text\",\"text\":\"");
    traffic_text(g, 60);
    traffic_put(g, "\"}");
    if (kind == 0)
        traffic_put(g, ",{\"type\":\"tool_use\",\"id\":\"toolu_%016llx\",\"name\":\"search\",\"input\":{\"query\":\"attention is all you need\",\"k\":%llu,\"filters\":{\"year\":{\"gte\":2017},\"venue\":[\"NeurIPS\",\"ICML\"]}}}",
                    (unsigned long long)id, (unsigned long long)(1 + traffic_pick(g, 10)));
    traffic_put(g, "],\"id\":\"run-%012llx\",\"response_metadata\":{\"model_name\":\"claude-sonnet-4\",\"stop_reason\":%s,\"usage\":{\"input_tokens\":%llu,\"output_tokens\":%llu,\"cache_read_input_tokens\":0}},\"usage_metadata\":{\"input_tokens\":%llu,\"output_tokens\":%llu,\"total_tokens\":%llu},\"tool_calls\":[",
                (unsigned long long)id, kind == 0 ? "\"tool_use\"" : "\"end_turn\"", (unsigned long long)in,
                (unsigned long long)out, (unsigned long long)in, (unsigned long long)out, (unsigned long long)(in + out));
    if (kind == 0)
        traffic_put(g, "{\"name\":\"search\",\"args\":{\"query\":\"attention is all you need\"},\"id\":\"toolu_%016llx\",\"type\":\"tool_call\"}",
                    (unsigned long long)id);
    traffic_put(g, "],\"invalid_tool_calls\":[]}");
}

/* A retrieved document: a long escaped text and metadata with numbers. */
static inline void traffic_state_document(traffic_gen *g, size_t bytes)
{
    uint64_t page = traffic_pick(g, 400), score = traffic_pick(g, 1000000);
    traffic_put(g, "{\"id\":\"doc-%llu\",\"page_content\":\"", (unsigned long long)traffic_pick(g, 100000));
    traffic_prose_text(g, bytes);
    traffic_put(g, "\",\"metadata\":{\"source\":\"arxiv/1706.03762v%llu.pdf\",\"page\":%llu,\"score\":%.6f,\"embedding_norm\":%.4e,\"chunk\":[%llu,%llu],\"tags\":[\"nlp\",\"attention\"],\"verified\":%s}}",
                    (unsigned long long)(1 + page % 7), (unsigned long long)page, (double)score / 1e6,
                    (double)(score + 1) * 3.7e-3, (unsigned long long)(page * 512), (unsigned long long)(page * 512 + 511),
                    score % 2 ? "true" : "false");
}

/* A graph state of about `size` bytes: messages, documents, a nested plan, numbers. */
static inline void traffic_graph_state(traffic_gen *g, size_t size)
{
    size_t begin = g->c->len, i, n;
    uint64_t steps = traffic_pick(g, 25), docs = 1 + traffic_pick(g, 3);
    traffic_put(g, "{\"messages\":[");
    for (i = 0; g->c->len - begin < size / 2 && !g->failed; i++) {
        traffic_put(g, "%s", i ? "," : "");
        traffic_state_message(g, i);
    }
    traffic_put(g, "],\"documents\":[");
    for (i = 0; i < docs && !g->failed; i++) {
        traffic_put(g, "%s", i ? "," : "");
        traffic_state_document(g, (size - (g->c->len - begin < size ? g->c->len - begin : size)) / (docs + 1) + 64);
    }
    traffic_put(g, "],\"plan\":{\"goal\":\"summarise the paper\",\"steps\":[");
    n = 2 + (size_t)traffic_pick(g, 5);
    for (i = 0; i < n; i++)
        traffic_put(g, "%s{\"id\":%zu,\"task\":\"step %zu\",\"done\":%s,\"depends\":[%zu]}", i ? "," : "", i, i,
                    i < n / 2 ? "true" : "false", i ? i - 1 : 0);
    traffic_put(g, "]},\"scores\":[");
    for (i = 0; i < 8; i++)
        traffic_put(g, "%s%.5f", i ? "," : "", (double)traffic_pick(g, 100000) / 100000.0);
    traffic_put(g, "],\"remaining_steps\":%llu,\"final\":null}", (unsigned long long)steps);
}

/*
 * Generates about `bytes` bytes of state traffic: `values` events whose
 * data is a whole graph state of 2-15 KB, `updates` of one node's keys
 * (0.5-6 KB), and `checkpoints` with their metadata (about 0.5 KB). Free
 * with traffic_free. Returns 0, or -1 when memory runs out.
 */
static inline int traffic_generate_snapshots(size_t bytes, uint64_t seed, traffic_corpus *out)
{
    traffic_gen g;
    int step = -1;
    traffic_start(&g, bytes, seed, out);
    while (!g.failed && out->len < bytes) {
        uint64_t kind = traffic_pick(&g, 3);
        if (kind == 0) {
            traffic_event_head(&g, "values", (int)traffic_pick(&g, 2));
            traffic_put(&g, "\"data\":");
            traffic_graph_state(&g, 2048 + (size_t)traffic_pick(&g, 13 * 1024));
            traffic_put(&g, "}}");
        } else if (kind == 1) {
            traffic_event_head(&g, "updates", (int)traffic_pick(&g, 2));
            const char *node = traffic_pick(&g, 2) ? "agent" : "retrieve";
            traffic_put(&g, "\"data\":{\"node\":\"%s\",\"values\":{\"%s\":", node, node);
            traffic_graph_state(&g, 512 + (size_t)traffic_pick(&g, 5632));
            traffic_put(&g, "}}}}");
        } else {
            traffic_event_head(&g, "checkpoints", 0);
            traffic_put(&g, "\"data\":{\"id\":\"1f144e39-6660-6790-8000-%012llx\",\"parentId\":\"1f144e39-6659-6261-ffff-7cbab0102476\",\"step\":%d,\"source\":\"loop\",\"metadata\":{\"writes\":{\"agent\":{\"messages\":[{\"type\":\"ai\",\"content\":\"",
                        (unsigned long long)(test_rand(&g.rng) & 0xFFFFFFFFFFFFull), step++);
            traffic_text(&g, 40);
            traffic_put(&g, "\"}]}},\"parents\":{},\"thread_id\":\"7c4e%08llx\",\"run_attempt\":1,\"langgraph_version\":\"0.4.8\"}}}}",
                        (unsigned long long)traffic_pick(&g, 0xFFFFFFFFu));
        }
        traffic_end_line(&g);
    }
    return traffic_finish(&g, out);
}

/* Message i of the corpus (without its newline). */
static inline const char *traffic_line(const traffic_corpus *c, size_t i, size_t *len)
{
    *len = c->start[i + 1] - c->start[i] - 1;
    return c->data + c->start[i];
}

/* The baselines every JSON benchmark compares against: parse each message
 * (and free it). Return how many messages failed to parse. */
#ifdef HAVE_CJSON
static inline size_t traffic_parse_cjson(const traffic_corpus *c)
{
    size_t i, len, failed = 0;
    for (i = 0; i < c->count; i++) {
        const char *s = traffic_line(c, i, &len);
        cJSON *j = cJSON_ParseWithLength(s, len);
        failed += j == NULL;
        cJSON_Delete(j);
    }
    return failed;
}
#endif

#ifdef HAVE_JANSSON
static inline size_t traffic_parse_jansson(const traffic_corpus *c)
{
    size_t i, len, failed = 0;
    for (i = 0; i < c->count; i++) {
        const char *s = traffic_line(c, i, &len);
        json_t *j = json_loadb(s, len, 0, NULL);
        failed += j == NULL;
        json_decref(j);
    }
    return failed;
}
#endif

#endif
