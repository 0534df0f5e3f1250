/*
 * rest_request.c - fuzz target for `apstream serve`'s REST API
 * (tools/apstream/rest*.c, docs/rest.md): bytes, to requests, to answers.
 * The input is requests separated by NUL bytes; each is a method digit
 * (0 GET, 1 POST, 2 PUT, 3 PATCH, 4 DELETE), the path and query up to the
 * first line feed, an optional `Last-Event-ID: N` line, and the body. Each
 * goes to rest_api on one REST layer (fresh per input) whose runs are
 * played at once through rest_event from a fixed script (a message, a tool
 * result, an interrupt, the end), and every answer is checked:
 *   - a status of the API (200, 204, 400, 404, 409, 413, 422; never 500);
 *   - a body that is one JSON text, an ErrorBody when the status is 4xx;
 *   - a stream or long poll only with 200, on a feed.
 * Whatever the bytes, nothing leaks (ASan) and nothing crashes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aa.h"
#include "rest.h"

typedef struct started {
    char thread[160];
    char run[48];
    int resume;
    int pending;
} started;

static int on_start(void *user, const char *thread_id, const char *run_id, const char *graph, int resume,
                    const char *resume_json)
{
    started *s = user;
    (void)graph;
    (void)resume_json;
    snprintf(s->thread, sizeof s->thread, "%s", thread_id);
    snprintf(s->run, sizeof s->run, "%s", run_id);
    s->resume = resume;
    s->pending = 1;
    return 0;
}

static void on_cancel(void *user, const char *thread_id)
{
    (void)user;
    (void)thread_id;
}

/* The run the start hook was asked for, played to its end (or its pause). */
static void play(rest *r, started *s)
{
    static const char *const first[] = {
        "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"running\",\"graph_name\":\"agent\"}}}",
        "{\"type\":\"event\",\"method\":\"checkpoints\",\"params\":{\"namespace\":[],\"data\":{\"id\":\"c1\",\"parent_id\":\"c0\",\"step\":1,\"source\":\"loop\"}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"data\":{\"messages\":[]}}}",
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"model:1\"],\"data\":{\"event\":\"message-start\",\"id\":\"m1\"}}}",
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"model:1\"],\"data\":{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"tool_call_chunk\",\"id\":\"t1\",\"name\":\"f\",\"args\":\"\"}}}}",
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"model:1\"],\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"tool-call-delta\",\"args\":\"{\\\"a\\\":1}\"}}}}",
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"model:1\"],\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"hi\"}}}}",
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"model:1\"],\"data\":{\"event\":\"message-finish\"}}}",
        "{\"type\":\"event\",\"method\":\"tools\",\"params\":{\"namespace\":[\"tools:2\"],\"data\":{\"event\":\"tool-finished\",\"tool_call_id\":\"t1\",\"output\":{\"type\":\"tool\",\"content\":\"ok\"}}}}",
        "{\"type\":\"event\",\"method\":\"updates\",\"params\":{\"namespace\":[],\"node\":\"model\",\"data\":{\"messages\":[]}}}",
        "{\"type\":\"event\",\"method\":\"tasks\",\"params\":{\"namespace\":[],\"data\":{\"id\":\"k\",\"name\":\"model\",\"result\":{}}}}",
        "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[\"a:1\"],\"data\":{\"n\":1}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[\"a:1\"],\"data\":{\"n\":1}}}",
        "{\"type\":\"event\",\"method\":\"input.requested\",\"params\":{\"namespace\":[],\"data\":{\"interrupt_id\":\"i1\",\"payload\":{\"q\":\"?\"}}}}",
    };
    static const char *const second[] = {
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"data\":{\"messages\":[1]}}}",
        "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"completed\"}}}",
    };
    size_t i;
    while (s->pending) {
        started now = *s;
        s->pending = 0;
        if (!now.resume) {
            for (i = 0; i < sizeof first / sizeof *first; i++)
                rest_event(r, now.thread, now.run, first[i], strlen(first[i]));
            rest_paused(r, now.thread, now.run);
        } else {
            for (i = 0; i < sizeof second / sizeof *second; i++)
                rest_event(r, now.thread, now.run, second[i], strlen(second[i]));
        }
    }
}

static void check_reply(const ap_server_reply *reply)
{
    aps_arena arena;
    aa_error_body_t e;
    unsigned st = reply->status;
    if (st != 200 && st != 204 && st != 400 && st != 404 && st != 409 && st != 413 && st != 422) {
        fprintf(stderr, "rest_request: status %u: %.*s\n", st, (int)reply->len, reply->body != NULL ? reply->body : "");
        abort();
    }
    if (reply->feed != NULL && st != 200)
        abort();
    if (reply->body != NULL && reply->len > 0) {
        if (aps_json_validate(reply->body, reply->len, NULL, NULL) != APS_OK)
            abort();
        aps_arena_init(&arena, NULL);
        if (st >= 400 && aa_error_body_decode(reply->body, reply->len, &arena, &e, NULL) != APS_OK)
            abort();
        aps_arena_deinit(&arena);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const graphs[] = { "agent", "other" };
    static const ap_server_method methods[] = { AP_SERVER_GET, AP_SERVER_POST, AP_SERVER_PUT, AP_SERVER_PATCH,
                                                AP_SERVER_DELETE };
    static const char *const names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };
    started s;
    rest_hooks hooks;
    rest *r;
    size_t at = 0;
    memset(&s, 0, sizeof s);
    hooks.start = on_start;
    hooks.cancel = on_cancel;
    hooks.user = &s;
    if ((r = rest_new(&hooks, graphs, 2)) == NULL)
        return 0;
    while (at < size) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t len = end != NULL ? (size_t)(end - (data + at)) : size - at;
        char *text = malloc(len + 1), *nl, *q, lei[32] = "";
        ap_server_request req;
        ap_server_reply reply;
        int m;
        if (text == NULL)
            break;
        memcpy(text, data + at, len);
        text[len] = '\0';
        at += len + 1;
        if (len == 0 || text[0] < '0' || text[0] > '4') {
            free(text);
            continue;
        }
        m = text[0] - '0';
        memset(&req, 0, sizeof req);
        memset(&reply, 0, sizeof reply);
        nl = strchr(text + 1, '\n');
        if (nl != NULL)
            *nl = '\0';
        req.body = nl != NULL ? nl + 1 : "";
        if (nl != NULL && strncmp(req.body, "Last-Event-ID: ", 15) == 0) {
            char *e2 = strchr(req.body, '\n');
            size_t n = e2 != NULL ? (size_t)(e2 - req.body) - 15 : strlen(req.body) - 15;
            snprintf(lei, sizeof lei, "%.*s", (int)(n < sizeof lei ? n : sizeof lei - 1), req.body + 15);
            req.body = e2 != NULL ? e2 + 1 : "";
        }
        req.body_len = strlen(req.body);
        req.path = text + 1;
        q = strchr(text + 1, '?');
        if (q != NULL)
            *q = '\0';
        req.query = q != NULL ? q + 1 : "";
        req.method = methods[m];
        req.method_name = names[m];
        req.last_event_id = lei;
        rest_api(r, NULL, &req, &reply);
        check_reply(&reply);
        play(r, &s);
        if (reply.feed != NULL && reply.feed_wait) {
            /* the long poll's second call, its feed closed or not */
            ap_server_reply done;
            memset(&done, 0, sizeof done);
            req.token = reply.token;
            rest_api(r, NULL, &req, &done);
            check_reply(&done);
            free(done.body);
            ap_server_feed_unref(done.feed);
        }
        free(reply.body);
        ap_server_feed_unref(reply.feed);
        free(text);
    }
    rest_free(r);
    return 0;
}
