/*
 * client_io.c - the client's transports (client_io.h): HTTP on libcurl's
 * multi interface, WebSocket on libwebsockets' client side. Moved here from
 * `apstream connect`, which now drives them through this interface: the
 * bytes move here, every judgement stays with the handler.
 *
 * Connections closed by their owner are only marked (`dead`) and reaped at
 * the next pump, outside any libcurl or libwebsockets callback: neither
 * library lets a callback free the handle it runs for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <libwebsockets.h>

#include "client_io.h"

struct apc_conn {
    apc_io *io;
    apc_conn *next;
    apc_handler h;
    int dead;                /* closed by its owner: no more callbacks, reaped at the next pump */
    int notified;            /* on_done was called */
    int64_t last_byte_ms;
    /* HTTP */
    CURL *easy;
    struct curl_slist *headers;
    char *body;              /* what is POSTed (owned) */
    int sse;                 /* the response is a stream for on_data */
    long status;
    char *resp;              /* a POST's response, or the start of an error page */
    size_t resp_len;
    int too_big, stopped;
    /* WebSocket */
    struct lws *wsi;
    char *msg;               /* the message being assembled, APS_PADDING zero bytes after it */
    size_t len, cap;
    char *out[APC_WS_QUEUE]; /* texts to send, in order (owned) */
    size_t out_len[APC_WS_QUEUE];
    size_t nout;
    int established, gone, closing;
};

struct apc_io {
    char base[1024];
    int websocket;
    size_t max_message;
    apc_conn *conns;
    CURLM *multi;
    struct lws_context *ctx;
    lws_sorted_usec_list_t tick;
    char host[256];
    char host_port[300];
    char prefix[512];
    int port;
};

int64_t apc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t apc_conn_last_byte_ms(const apc_conn *c)
{
    return c->last_byte_ms;
}

/* Calls on_done once, unless the owner closed the connection. */
static void done(apc_conn *c, apc_end end, const char *why)
{
    apc_done d;
    if (c->dead || c->notified)
        return;
    c->notified = 1;
    memset(&d, 0, sizeof d);
    d.end = end;
    d.status = c->status;
    d.why = why;
    d.established = c->established;
    d.body = c->resp;
    d.len = c->resp_len;
    if (c->h.on_done != NULL)
        c->h.on_done(c->h.user, &d);
}

static void conn_free(apc_conn *c)
{
    size_t i;
    if (c->easy != NULL) {
        curl_multi_remove_handle(c->io->multi, c->easy);
        curl_easy_cleanup(c->easy);
    }
    curl_slist_free_all(c->headers);
    free(c->body);
    free(c->resp);
    free(c->msg);
    for (i = 0; i < c->nout; i++)
        free(c->out[i]);
    free(c);
}

/* Frees what is over: HTTP transfers closed or finished, WebSockets whose socket is gone. */
static void reap(apc_io *io)
{
    apc_conn **p = &io->conns;
    while (*p != NULL) {
        apc_conn *c = *p;
        int over = io->websocket ? c->gone && (c->dead || c->notified) : c->dead || c->notified;
        if (!over) {
            p = &c->next;
            continue;
        }
        *p = c->next;
        conn_free(c);
    }
}

/* ---- HTTP ----------------------------------------------------------------------- */

static size_t on_http_bytes(char *ptr, size_t size, size_t nmemb, void *user)
{
    apc_conn *c = user;
    size_t n = size * nmemb;
    if (c->dead)
        return 0;
    c->last_byte_ms = apc_now_ms();
    if (c->status == 0)
        curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &c->status);
    if (c->sse && c->status != 200) {
        /* an error page: its start kept for the message (one line, printable) */
        size_t i;
        if (c->resp == NULL && (c->resp = malloc(APC_ERROR_PAGE_KEPT + 1)) == NULL)
            return n;
        for (i = 0; i < n && c->resp_len < APC_ERROR_PAGE_KEPT; i++)
            c->resp[c->resp_len++] = ptr[i] >= 0x20 && ptr[i] < 0x7f ? ptr[i] : ' ';
        c->resp[c->resp_len] = '\0';
        return n;
    }
    if (c->sse) {
        if (c->h.on_data != NULL && c->h.on_data(c->h.user, ptr, n) != 0) {
            c->stopped = 1;
            return 0;
        }
        return n;
    }
    if (c->resp_len + n > c->io->max_message) {
        c->too_big = 1;
        return 0;
    }
    if (c->resp_len + n + APS_PADDING > c->cap) {
        size_t cap = (c->resp_len + n + APS_PADDING) * 2;
        char *grown = realloc(c->resp, cap);
        if (grown == NULL)
            return 0;
        c->resp = grown;
        c->cap = cap;
    }
    memcpy(c->resp + c->resp_len, ptr, n);
    c->resp_len += n;
    memset(c->resp + c->resp_len, 0, APS_PADDING);
    return n;
}

apc_conn *apc_http_post(apc_io *io, const char *thread, const char *path, const char *body, size_t len,
                        const char *const *headers, int sse, const apc_handler *h)
{
    char url[2048];
    char *escaped;
    apc_conn *c = calloc(1, sizeof *c);
    if (c == NULL || io->websocket || (c->easy = curl_easy_init()) == NULL || (c->body = malloc(len + 1)) == NULL) {
        if (c != NULL && c->easy != NULL)
            curl_easy_cleanup(c->easy);
        free(c);
        return NULL;
    }
    c->io = io;
    c->h = *h;
    c->sse = sse;
    memcpy(c->body, body, len);
    c->body[len] = '\0';
    c->last_byte_ms = apc_now_ms();
    /* the thread id is a path segment: escaped, whatever it holds */
    escaped = curl_easy_escape(c->easy, thread, 0);
    snprintf(url, sizeof url, "%s/threads/%s/%s", io->base, escaped != NULL ? escaped : "", path);
    curl_free(escaped);
    c->headers = curl_slist_append(NULL, "content-type: application/json");
    if (sse && c->headers != NULL)
        c->headers = curl_slist_append(c->headers, "accept: text/event-stream");
    for (; headers != NULL && *headers != NULL && c->headers != NULL; headers++)
        c->headers = curl_slist_append(c->headers, *headers);
    curl_easy_setopt(c->easy, CURLOPT_URL, url);
    curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, c->body);
    curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE, (long)len);
    curl_easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(c->easy, CURLOPT_PRIVATE, c);
    curl_easy_setopt(c->easy, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_http_bytes);
    curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
    /* larger reads: fewer callbacks and parser pushes on a fast stream */
    curl_easy_setopt(c->easy, CURLOPT_BUFFERSIZE, 256L << 10);
    if (c->headers == NULL || curl_multi_add_handle(io->multi, c->easy) != CURLM_OK) {
        curl_easy_cleanup(c->easy);
        c->easy = NULL;
        conn_free(c);
        return NULL;
    }
    c->next = io->conns;
    io->conns = c;
    return c;
}

/* A transfer is over: say how. */
static void http_finished(apc_conn *c, CURLcode rc)
{
    const char *why = rc != CURLE_OK ? curl_easy_strerror(rc) : NULL;
    c->status = 0;
    curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &c->status);
    if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
        done(c, APC_END_UNREACHABLE, why);
    else if (c->stopped)
        done(c, APC_END_STOPPED, why);
    else if (c->too_big)
        done(c, APC_END_TOO_LARGE, why);
    else if (c->sse && rc == CURLE_OK && c->status != 200)
        done(c, APC_END_STATUS, why);
    else if (rc != CURLE_OK)
        done(c, APC_END_FAILED, why);
    else
        done(c, APC_END_CLOSED, why);
    c->notified = 1;
}

static void http_pump(apc_io *io, int ms)
{
    CURLMsg *m;
    int running, left;
    curl_multi_poll(io->multi, NULL, 0, ms, NULL);
    curl_multi_perform(io->multi, &running);
    while ((m = curl_multi_info_read(io->multi, &left)) != NULL) {
        apc_conn *c = NULL;
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&c);
        if (c != NULL)
            http_finished(c, m->data.result);
    }
}

/* ---- WebSocket ------------------------------------------------------------------ */

static int ws_receive(apc_conn *c, const char *in, size_t len)
{
    size_t max = c->io->max_message;
    c->last_byte_ms = apc_now_ms();
    if (c->dead || c->notified)
        return -1;
    if (lws_frame_is_binary(c->wsi)) {
        done(c, APC_END_BINARY, NULL);
        return -1;
    }
    if (c->len + len > max) {
        done(c, APC_END_TOO_LARGE, NULL);
        return -1;
    }
    if (c->len + len + APS_PADDING > c->cap) {
        size_t cap = (c->len + len + APS_PADDING) * 2;
        char *grown;
        if (cap > max + APS_PADDING)
            cap = max + APS_PADDING;
        if ((grown = realloc(c->msg, cap)) == NULL)
            return -1;
        c->msg = grown;
        c->cap = cap;
    }
    memcpy(c->msg + c->len, in, len);
    c->len += len;
    if (!lws_is_final_fragment(c->wsi))
        return 0;
    memset(c->msg + c->len, 0, APS_PADDING);
    len = c->len;
    c->len = 0;
    if (c->h.on_data != NULL && c->h.on_data(c->h.user, c->msg, len) != 0) {
        done(c, APC_END_STOPPED, NULL);
        return -1;
    }
    return 0;
}

static int ws_writable(apc_conn *c)
{
    unsigned char *buf;
    size_t n, i;
    int wrote;
    if (c->closing || c->dead)
        return -1;
    if (c->nout == 0)
        return 0;
    n = c->out_len[0];
    if ((buf = malloc(LWS_PRE + n)) == NULL)
        return -1;
    memcpy(buf + LWS_PRE, c->out[0], n);
    wrote = lws_write(c->wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT);
    free(buf);
    free(c->out[0]);
    for (i = 1; i < c->nout; i++) {
        c->out[i - 1] = c->out[i];
        c->out_len[i - 1] = c->out_len[i];
    }
    c->nout--;
    if (wrote < (int)n)
        return -1;
    if (c->nout > 0)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    apc_conn *c = user;
    if (c == NULL)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->established = 1;
        c->last_byte_ms = apc_now_ms();
        if (c->nout > 0 || c->dead)
            lws_callback_on_writable(c->wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return ws_receive(c, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return ws_writable(c);
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        /* the server answered the upgrade with a status of its own, or nothing answered */
        c->gone = 1;
        c->status = wsi != NULL && !c->established ? (long)lws_http_client_http_response(wsi) : 0;
        done(c, c->status != 0 ? APC_END_STATUS : c->established ? APC_END_FAILED : APC_END_UNREACHABLE,
             (const char *)in);
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED:
        c->gone = 1;
        done(c, APC_END_CLOSED, NULL);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        c->gone = 1;
        c->wsi = NULL;
        done(c, APC_END_GONE, NULL);
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols ws_protocols[] = {
    { "ap-client", ws_callback, 0, 0, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 },
};

aps_status apc_ws_send(apc_conn *c, const char *text, size_t len)
{
    char *copy;
    if (c->nout == APC_WS_QUEUE)
        return APS_E_LIMIT;
    if ((copy = malloc(len + 1)) == NULL)
        return APS_E_NOMEM;
    memcpy(copy, text, len);
    copy[len] = '\0';
    c->out[c->nout] = copy;
    c->out_len[c->nout++] = len;
    if (c->established && c->wsi != NULL && !c->gone)
        lws_callback_on_writable(c->wsi);
    return APS_OK;
}

apc_conn *apc_ws_open(apc_io *io, const char *thread, const char *path, const apc_handler *h, int *refused)
{
    struct lws_client_connect_info ci;
    char url_path[1024];
    apc_conn *c = calloc(1, sizeof *c);
    if (refused != NULL)
        *refused = 0;
    if (c == NULL || !io->websocket) {
        free(c);
        return NULL;
    }
    c->io = io;
    c->h = *h;
    c->last_byte_ms = apc_now_ms();
    snprintf(url_path, sizeof url_path, "%s/threads/%s/%s", io->prefix, thread, path);
    memset(&ci, 0, sizeof ci);
    ci.context = io->ctx;
    ci.address = io->host;
    ci.port = io->port;
    ci.path = url_path;
    ci.host = io->host_port;
    ci.origin = io->host_port;
    ci.ietf_version_or_minus_one = -1;
    ci.userdata = c;
    ci.local_protocol_name = ws_protocols[0].name;
    ci.pwsi = &c->wsi;
    /* listed before connecting: a connection error may be called back at once */
    c->next = io->conns;
    io->conns = c;
    if (lws_client_connect_via_info(&ci) == NULL && !c->gone) {
        /* refused at once, with no callback: the caller says so */
        c->gone = 1;
        c->dead = 1;
        if (refused != NULL)
            *refused = 1;
        return NULL;
    }
    return c;
}

static void wake_tick(lws_sorted_usec_list_t *sul)
{
    (void)sul; /* only to end lws_service's wait */
}

static void ws_pump(apc_io *io, int ms)
{
    lws_sul_schedule(io->ctx, 0, &io->tick, wake_tick, (lws_usec_t)ms * 1000);
    lws_service(io->ctx, ms);
}

/* ---- both ----------------------------------------------------------------------- */

void apc_conn_close(apc_conn *c)
{
    if (c == NULL)
        return;
    c->dead = 1;
    if (c->io->websocket && !c->gone && c->wsi != NULL) {
        c->closing = 1;
        lws_callback_on_writable(c->wsi); /* the write callback closes it */
    }
}

void apc_io_pump(apc_io *io, int ms)
{
    reap(io);
    if (io->websocket)
        ws_pump(io, ms);
    else
        http_pump(io, ms);
    reap(io);
}

void apc_io_wake(apc_io *io)
{
    if (io->websocket)
        lws_cancel_service(io->ctx);
    else
        curl_multi_wakeup(io->multi);
}

size_t apc_io_sockets(apc_io *io, int *fds, size_t cap)
{
    size_t n = 0;
    if (io->websocket) {
        apc_conn *c;
        for (c = io->conns; c != NULL; c = c->next)
            if (!c->gone && c->wsi != NULL) {
                int fd = (int)lws_get_socket_fd(c->wsi);
                if (fd >= 0 && n < cap)
                    fds[n] = fd;
                n += fd >= 0;
            }
    } else {
        fd_set r, w, e;
        int max = -1, fd;
        FD_ZERO(&r);
        FD_ZERO(&w);
        FD_ZERO(&e);
        if (curl_multi_fdset(io->multi, &r, &w, &e, &max) != CURLM_OK)
            return 0;
        for (fd = 0; fd <= max; fd++)
            if (FD_ISSET(fd, &r) || FD_ISSET(fd, &w) || FD_ISSET(fd, &e)) {
                if (n < cap)
                    fds[n] = fd;
                n++;
            }
    }
    return n;
}

/* HOST, PORT and the path prefix of http://HOST[:PORT][/prefix]. -1 when it is not such a URL. */
static int parse_base(apc_io *io, const char *base)
{
    const char *h, *end, *colon;
    size_t n;
    if (strncmp(base, "http://", 7) != 0)
        return -1;
    h = base + 7;
    end = strchr(h, '/');
    if (end == NULL)
        end = h + strlen(h);
    colon = memchr(h, ':', (size_t)(end - h));
    n = (size_t)((colon != NULL ? colon : end) - h);
    if (n == 0 || n >= sizeof io->host || strlen(end) >= sizeof io->prefix)
        return -1;
    memcpy(io->host, h, n);
    io->host[n] = '\0';
    io->port = colon != NULL ? atoi(colon + 1) : 80;
    if (io->port <= 0 || io->port > 65535)
        return -1;
    snprintf(io->host_port, sizeof io->host_port, "%s:%d", io->host, io->port);
    snprintf(io->prefix, sizeof io->prefix, "%s", end);
    return 0;
}

apc_io *apc_io_new(const char *base, int websocket, size_t max_message, aps_error *err)
{
    apc_io *io = calloc(1, sizeof *io);
    aps_error_clear(err);
    if (io == NULL) {
        (void)aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
        return NULL;
    }
    if (strlen(base) >= sizeof io->base || (websocket && parse_base(io, base) != 0)) {
        (void)aps_error_set(err, APS_E_ARGUMENT, 0, "not an http://HOST[:PORT][/prefix] URL this transport can use");
        aps_error_set_pointer(err, "/url");
        free(io);
        return NULL;
    }
    snprintf(io->base, sizeof io->base, "%s", base);
    io->websocket = websocket;
    io->max_message = max_message;
    if (websocket) {
        struct lws_context_creation_info info;
        lws_set_log_level(0, NULL); /* the handlers say what goes wrong, once */
        memset(&info, 0, sizeof info);
        info.port = CONTEXT_PORT_NO_LISTEN;
        info.protocols = ws_protocols;
        info.gid = -1;
        info.uid = -1;
        if ((io->ctx = lws_create_context(&info)) == NULL) {
            (void)aps_error_set(err, APS_E_IO, 0, "libwebsockets would not start");
            free(io);
            return NULL;
        }
    } else if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (io->multi = curl_multi_init()) == NULL) {
        (void)aps_error_set(err, APS_E_IO, 0, "libcurl would not start");
        free(io);
        return NULL;
    }
    return io;
}

void apc_io_free(apc_io *io)
{
    apc_conn *c;
    if (io == NULL)
        return;
    for (c = io->conns; c != NULL; c = c->next)
        c->dead = 1; /* no callback from here on */
    if (io->websocket)
        lws_context_destroy(io->ctx);
    while ((c = io->conns) != NULL) {
        io->conns = c->next;
        conn_free(c);
    }
    if (!io->websocket) {
        curl_multi_cleanup(io->multi);
        curl_global_cleanup();
    }
    free(io);
}
