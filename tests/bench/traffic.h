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

/*
 * Generates about `bytes` bytes of JSONL traffic from `seed` into `out`
 * (free with traffic_free). Returns 0, or -1 when memory runs out.
 */
static inline int traffic_generate(size_t bytes, uint64_t seed, traffic_corpus *out)
{
    traffic_gen g;
    uint64_t cmd = 1;
    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    g.c = out;
    g.rng = seed;
    g.now = 1777587969651ull;
    g.cap = bytes + 65536;
    out->data = (char *)malloc(g.cap);
    out->start = (size_t *)malloc(16 * sizeof *out->start);
    g.start_cap = 16;
    if (out->data == NULL || out->start == NULL)
        g.failed = 1;
    else
        out->start[0] = 0;
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
    if (g.failed) {
        free(out->data);
        free(out->start);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

static inline void traffic_free(traffic_corpus *c)
{
    free(c->data);
    free(c->start);
    memset(c, 0, sizeof *c);
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
