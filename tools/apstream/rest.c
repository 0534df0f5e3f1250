/*
 * rest.c - the REST API of `apstream serve` (rest.h, docs/rest.md): the
 * routes, the runs' classic streams, and the records of threads, runs,
 * assistants and store items (rest_store.c keeps them).
 *
 * Every request body is decoded with a type of cddl/agent-api.cddl (a bad
 * one: 422 with the JSON Pointer of the value) and every answer is written
 * as JSON and then decoded and re-encoded with its type, so that nothing
 * leaves that the schema does not accept (a failure there is our bug: 500).
 */
#include "rest_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/utf8.h"

/* ---- answers ------------------------------------------------------------------------ */

/* Hands `text` (copied) to the reply as its body. */
static void reply_text(ap_server_reply *reply, unsigned status, const char *text, size_t len)
{
    reply->body = malloc(len > 0 ? len : 1);
    if (reply->body == NULL) {
        reply->status = 500;
        return;
    }
    memcpy(reply->body, text, len);
    reply->len = len;
    reply->status = status;
    reply->content_type = "application/json";
}

void rest_error(ap_server_reply *reply, unsigned status, const char *pointer, const char *fmt, ...)
{
    char text[512];
    aa_error_body_t e = AA_ERROR_BODY_INIT;
    aps_json_writer w;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    free(reply->body);
    reply->body = NULL;
    e.detail.ptr = text;
    e.detail.len = strlen(text);
    if (pointer != NULL) {
        e.has_pointer = true;
        e.pointer.ptr = pointer;
        e.pointer.len = strlen(pointer);
    }
    aps_json_writer_init(&w, NULL);
    if (aa_error_body_encode(&e, &w, NULL) == APS_OK)
        reply_text(reply, status, aps_json_writer_data(&w), aps_json_writer_len(&w));
    else
        reply->status = status;
    aps_json_writer_deinit(&w);
}

aps_status rest_typed(aps_json_writer *out, const aps_type *type, const char *json, size_t len, aps_error *err)
{
    aps_arena arena;
    void *value;
    aps_status st;
    aps_arena_init(&arena, NULL);
    value = aps_arena_alloc(&arena, type->size > 0 ? type->size : 1);
    if (value == NULL) {
        aps_arena_deinit(&arena);
        return APS_E_NOMEM;
    }
    memset(value, 0, type->size);
    st = aps_schema_decode(type, json, len, &arena, value, NULL, err);
    if (st == APS_OK)
        st = aps_schema_encode(type, value, out, NULL, err);
    aps_arena_deinit(&arena);
    return st;
}

void rest_reply_typed(ap_server_reply *reply, unsigned status, const aps_type *type, aps_json_writer *w)
{
    aps_json_writer out;
    aps_error err = APS_ERROR_INIT;
    aps_status st = aps_json_writer_status(w);
    aps_json_writer_init(&out, NULL);
    if (st == APS_OK)
        st = rest_typed(&out, type, aps_json_writer_data(w), aps_json_writer_len(w), &err);
    if (st == APS_OK)
        reply_text(reply, status, aps_json_writer_data(&out), aps_json_writer_len(&out));
    else
        rest_error(reply, 500, err.pointer[0] ? err.pointer : NULL, "the answer did not match %s: %s",
                   type->name != NULL ? type->name : "its type", err.message);
    aps_json_writer_deinit(&out);
}

/* An array whose elements are each `type` (the writer holds the array). */
static void reply_typed_array(ap_server_reply *reply, const aps_type *type, aps_json_writer *w)
{
    aps_arena arena;
    aps_json_reader r;
    aps_json_writer out;
    aps_error err = APS_ERROR_INIT;
    aps_status st = aps_json_writer_status(w);
    int more = 0;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&out, NULL);
    aps_json_write_array_begin(&out);
    if (st == APS_OK) {
        aps_json_reader_init(&r, aps_json_writer_data(w), aps_json_writer_len(w), &arena, NULL);
        st = aps_json_read_array(&r, &err);
        while (st == APS_OK && (st = aps_json_next_element(&r, &more, &err)) == APS_OK && more) {
            aps_json_raw raw;
            if ((st = aps_json_read_raw(&r, &raw, &err)) == APS_OK)
                st = rest_typed(&out, type, raw.ptr, raw.len, &err);
        }
    }
    aps_json_write_array_end(&out);
    if (st == APS_OK && aps_json_writer_status(&out) == APS_OK)
        reply_text(reply, 200, aps_json_writer_data(&out), aps_json_writer_len(&out));
    else
        rest_error(reply, 500, NULL, "an element did not match %s: %s", type->name, err.message);
    aps_json_writer_deinit(&out);
    aps_arena_deinit(&arena);
}

/*
 * Decodes a request body as `type` into `out` (from `arena`). An empty
 * body is `{}`. 0; -1 when refused (the reply is the 422).
 */
static int decode_body(const ap_server_request *req, const aps_type *type, aps_arena *arena, void *out,
                       ap_server_reply *reply)
{
    aps_error err = APS_ERROR_INIT;
    const char *body = req->body_len > 0 ? req->body : "{}";
    size_t len = req->body_len > 0 ? req->body_len : 2;
    memset(out, 0, type->size);
    if (aps_schema_decode(type, body, len, arena, out, NULL, &err) != APS_OK) {
        rest_error(reply, 422, err.pointer, "the body is not a %s: %s%s%s", type->name, err.pointer,
                   err.pointer[0] ? ": " : "", err.message);
        return -1;
    }
    return 0;
}

/* ---- paths and queries --------------------------------------------------------------- */

#define MAX_SEGMENTS 8

typedef struct route {
    const char *seg[MAX_SEGMENTS];
    size_t len[MAX_SEGMENTS];
    size_t n;
} route;

static void split_path(const char *path, route *rt)
{
    const char *p = path;
    rt->n = 0;
    while (*p == '/')
        p++;
    while (*p != '\0' && rt->n < MAX_SEGMENTS) {
        const char *e = strchr(p, '/');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        rt->seg[rt->n] = p;
        rt->len[rt->n++] = n;
        p += n;
        while (*p == '/')
            p++;
    }
    if (*p != '\0')
        rt->n = MAX_SEGMENTS + 1; /* too deep: none of ours */
}

static int seg_is(const route *rt, size_t i, const char *s)
{
    return i < rt->n && rt->len[i] == strlen(s) && memcmp(rt->seg[i], s, rt->len[i]) == 0;
}

/*
 * Copies path segment i, an id, into buf[REST_MAX_ID + 1]: 1 to
 * REST_MAX_ID bytes of printable UTF-8. 0; -1 when refused (the reply is
 * the 422).
 */
static int seg_id(const route *rt, size_t i, char *buf, const char *what, ap_server_reply *reply)
{
    if (rest_check_id(rt->seg[i], rt->len[i]) != 0) {
        rest_error(reply, 422, NULL, "a %s id is 1 to %u bytes of printable UTF-8", what, REST_MAX_ID);
        return -1;
    }
    memcpy(buf, rt->seg[i], rt->len[i]);
    buf[rt->len[i]] = '\0';
    return 0;
}

int rest_check_id(const char *id, size_t len)
{
    size_t i;
    if (len == 0 || len > REST_MAX_ID || aps_utf8_check((const uint8_t *)id, len) != SIZE_MAX)
        return -1;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)id[i];
        if (c < 0x20 || c == 0x7f || c == '/')
            return -1;
        /* the C1 controls, U+0080-U+009F: C2 80 - C2 9F */
        if (c == 0xc2 && i + 1 < len && (unsigned char)id[i + 1] < 0xa0)
            return -1;
    }
    return 0;
}

/* The value of query argument `name` (as libwebsockets decoded it) into buf; 1 when present. */
int rest_query(const char *query, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    const char *p = query;
    while (p != NULL && *p != '\0') {
        const char *e = strchr(p, '&');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            size_t v = len - n - 1;
            if (v >= cap)
                v = cap - 1;
            memcpy(buf, p + n + 1, v);
            buf[v] = '\0';
            return 1;
        }
        p = e != NULL ? e + 1 : NULL;
    }
    return 0;
}

/* A count argument of the query (`dflt` when absent); -1 when it is not one (the reply is the 422). */
static long query_count(const ap_server_request *req, const char *name, long dflt, ap_server_reply *reply)
{
    char v[32], *end;
    long n;
    if (!rest_query(req->query, name, v, sizeof v))
        return dflt;
    n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 0 || n > 1000000) {
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/%s", name);
        rest_error(reply, 422, pointer, "?%s= takes a count", name);
        return -1;
    }
    return n;
}

/* ---- routes ------------------------------------------------------------------------------ */

static void server_ok(ap_server_reply *reply)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "ok", 2);
    aps_json_write_bool(&w, 1);
    aps_json_write_object_end(&w);
    rest_reply_typed(reply, 200, &aa_ok_type, &w);
    aps_json_writer_deinit(&w);
}

static void server_info(ap_server_reply *reply)
{
    static const char info[] = "{\"version\":\"" APSTREAM_REST_VERSION "\",\"context\":\"apstream\",\"flags\":"
                               "{\"assistants\":true,\"crons\":false,\"langsmith\":false,\"store\":true,"
                               "\"vector_search\":false}}";
    aps_json_writer w;
    aps_json_raw raw = { info, sizeof info - 1 };
    aps_json_writer_init(&w, NULL);
    aps_json_write_raw(&w, raw);
    rest_reply_typed(reply, 200, &aa_server_info_type, &w);
    aps_json_writer_deinit(&w);
}

void rest_api(void *user, ap_server *srv, const ap_server_request *req, ap_server_reply *reply)
{
    rest *r = user;
    route rt;
    char id[REST_MAX_ID + 1], sub[REST_MAX_ID + 1];
    int get = req->method == AP_SERVER_GET, post = req->method == AP_SERVER_POST;
    int del = req->method == AP_SERVER_DELETE;
    aps_arena arena;
    if (r->srv == NULL)
        r->srv = srv; /* (the feeds of runs are this server's) */
    if (rest_begin(r, 0) != 0) {
        rest_reply_unavailable(reply);
        return;
    }
    split_path(req->path, &rt);
    aps_arena_init(&arena, NULL);
    if (req->token != NULL) {
        rest_runs_finish_wait(r, req->token, reply);
        goto done;
    }
    if (rt.n == 1 && seg_is(&rt, 0, "ok") && get) {
        server_ok(reply);
    } else if (rt.n == 1 && seg_is(&rt, 0, "info") && get) {
        server_info(reply);
    } else if (rt.n >= 1 && (seg_is(&rt, 0, "assistants") || seg_is(&rt, 0, "agents"))) {
        int agents = seg_is(&rt, 0, "agents");
        if (rt.n == 2 && seg_is(&rt, 1, "search") && post)
            rest_assistants_search(r, req, agents, &arena, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "count") && post && !agents)
            rest_assistants_count(r, req, &arena, reply);
        else if (rt.n >= 2 && rt.n <= 3 && (get || rt.n == 3) && seg_id(&rt, 1, id, "assistant", reply) == 0) {
            if (rt.n == 2 && get)
                rest_assistant_get(r, id, agents, reply);
            else if (rt.n == 3 && get && seg_is(&rt, 2, "graph") && !agents)
                rest_assistant_graph(r, id, reply);
            else if (rt.n == 3 && get && seg_is(&rt, 2, "schemas"))
                rest_assistant_schemas(r, id, agents, reply);
            else if (rt.n == 3 && post && seg_is(&rt, 2, "versions") && !agents)
                rest_assistant_versions(r, id, reply);
        }
    } else if (rt.n >= 1 && seg_is(&rt, 0, "threads")) {
        if (rt.n == 1 && post)
            rest_threads_create(r, req, &arena, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "search") && post)
            rest_threads_search(r, req, 0, &arena, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "count") && post)
            rest_threads_search(r, req, 1, &arena, reply);
        else if (rt.n >= 2 && seg_id(&rt, 1, id, "thread", reply) == 0) {
            if (rt.n == 2 && get)
                rest_thread_get(r, id, reply);
            else if (rt.n == 2 && del)
                rest_thread_delete(r, id, reply);
            else if (rt.n == 2 && req->method == AP_SERVER_PATCH)
                rest_thread_patch(r, id, req, &arena, reply);
            else if (rt.n == 3 && seg_is(&rt, 2, "copy") && post)
                rest_thread_copy(r, id, reply);
            else if (rt.n == 3 && seg_is(&rt, 2, "state") && get)
                rest_thread_state(r, id, NULL, reply);
            else if (rt.n == 4 && seg_is(&rt, 2, "state") && post && seg_is(&rt, 3, "checkpoint"))
                rest_thread_state_at(r, id, req, &arena, reply);
            else if (rt.n == 4 && seg_is(&rt, 2, "state") && get && seg_id(&rt, 3, sub, "checkpoint", reply) == 0)
                rest_thread_state(r, id, sub, reply);
            else if (rt.n == 3 && seg_is(&rt, 2, "state") && post)
                rest_thread_update_state(r, id, req, &arena, reply);
            else if (rt.n == 3 && seg_is(&rt, 2, "history") && (get || post))
                rest_thread_history(r, id, req, &arena, reply);
            else if (rt.n >= 3 && seg_is(&rt, 2, "runs"))
                rest_thread_runs(r, id, &rt.seg[3], &rt.len[3], rt.n - 3, req, &arena, reply);
        }
    } else if (rt.n >= 1 && seg_is(&rt, 0, "runs")) {
        rest_thread_runs(r, NULL, &rt.seg[1], &rt.len[1], rt.n - 1, req, &arena, reply);
    } else if (rt.n >= 2 && seg_is(&rt, 0, "store")) {
        if (rt.n == 2 && seg_is(&rt, 1, "items") && req->method == AP_SERVER_PUT)
            rest_store_put(r, req, &arena, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "items") && get)
            rest_store_get(r, req, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "items") && del)
            rest_store_delete(r, req, &arena, reply);
        else if (rt.n == 3 && seg_is(&rt, 1, "items") && seg_is(&rt, 2, "search") && post)
            rest_store_search(r, req, &arena, reply);
        else if (rt.n == 2 && seg_is(&rt, 1, "namespaces") && post)
            rest_store_namespaces(r, req, &arena, reply);
    }
    if (reply->status == 0 && reply->feed == NULL)
        rest_error(reply, 404, NULL, "no such endpoint: %s %.200s", req->method_name, req->path);
done:
    aps_arena_deinit(&arena);
    if (rest_end(r) != 0)
        rest_reply_unavailable(reply); /* nothing acknowledged that is not written */
}

int rest_begin(rest *r, int patient)
{
    if (r->be == NULL)
        return 0;
    if (r->be->begin(r, patient) != 0)
        return -1;
    rest_drain_external(r);
    return 0;
}

int rest_end(rest *r)
{
    return r->be != NULL ? r->be->end(r) : 0;
}

void rest_reply_unavailable(ap_server_reply *reply)
{
    if (reply->feed != NULL) {
        ap_server_feed_unref(reply->feed);
        reply->feed = NULL;
    }
    reply->feed_wait = 0;
    reply->token[0] = '\0';
    reply->content_location[0] = '\0';
    rest_error(reply, 503, NULL, "the records are unreachable (Redis): try again");
}

/* ---- request helpers the route files share --------------------------------------------- */

int rest_decode(const ap_server_request *req, const aps_type *type, aps_arena *arena, void *out,
                ap_server_reply *reply)
{
    return decode_body(req, type, arena, out, reply);
}

long rest_query_count(const ap_server_request *req, const char *name, long dflt, ap_server_reply *reply)
{
    return query_count(req, name, dflt, reply);
}

void rest_reply_array(ap_server_reply *reply, const aps_type *type, aps_json_writer *w)
{
    reply_typed_array(reply, type, w);
}

void rest_reply_raw(ap_server_reply *reply, unsigned status, const char *text, size_t len)
{
    reply_text(reply, status, text, len);
}
