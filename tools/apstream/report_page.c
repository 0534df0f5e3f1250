/*
 * report_page.c - the HTML page of a stream (`apstream report`, `connect
 * --report`): one self-contained file, the page's HTML, CSS and JS
 * (report.html, embedded at build time) with the stream's data inside.
 *
 * Nothing is decided here. The events are written as they are read, each
 * with what the page filters and draws by (line, seq, eventId, method,
 * namespace) and its text; the findings are those the checker printed
 * (apstream_diag_hook); the messages and tool runs are what the assembler
 * delivered, as `apstream assemble` prints them (apstream_asm_hook).
 *
 * Safety: the data goes into <script type="application/json"> elements,
 * written through emit_safe, which writes '<', '>', '&', U+2028 and U+2029
 * as \u escapes and any byte that is not UTF-8 as \ufffd, so nothing in a
 * capture can end the element or make the JSON invalid; the page's JS puts
 * every string into the DOM as text.
 *
 * Memory: the events are streamed to the file; what is kept is the
 * findings, the assembled values and the namespace and method tables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

extern const char apstream_report_html[];
extern const size_t apstream_report_html_len;

/* A table of distinct strings (namespaces, methods), each numbered in order of first sight. */
typedef struct intern {
    char **keys;
    size_t *lens;
    size_t count, cap;
    uint32_t *slots; /* index + 1; 0: empty */
    size_t nslots;   /* a power of two, at most half full */
} intern;

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static int intern_grow(intern *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 64, i;
    uint32_t *s = calloc(n, sizeof *s);
    if (s == NULL)
        return -1;
    for (i = 0; i < t->count; i++) {
        size_t k = (size_t)hash_bytes(t->keys[i], t->lens[i]) & (n - 1);
        while (s[k] != 0)
            k = (k + 1) & (n - 1);
        s[k] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

/* The number of `key`, added when new. -1: out of memory. */
static int64_t intern_get(intern *t, const char *key, size_t len)
{
    size_t k;
    if (2 * (t->count + 1) > t->nslots && intern_grow(t) != 0)
        return -1;
    for (k = (size_t)hash_bytes(key, len) & (t->nslots - 1); t->slots[k] != 0; k = (k + 1) & (t->nslots - 1)) {
        size_t i = t->slots[k] - 1;
        if (t->lens[i] == len && memcmp(t->keys[i], key, len) == 0)
            return (int64_t)i;
    }
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **keys = realloc(t->keys, cap * sizeof *keys);
        size_t *lens;
        if (keys == NULL)
            return -1;
        t->keys = keys;
        if ((lens = realloc(t->lens, cap * sizeof *lens)) == NULL)
            return -1;
        t->lens = lens;
        t->cap = cap;
    }
    if ((t->keys[t->count] = malloc(len + 1)) == NULL)
        return -1;
    memcpy(t->keys[t->count], key, len);
    t->keys[t->count][len] = '\0';
    t->lens[t->count] = len;
    t->slots[k] = (uint32_t)(t->count + 1);
    return (int64_t)t->count++;
}

static void intern_free(intern *t)
{
    size_t i;
    for (i = 0; i < t->count; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->lens);
    free(t->slots);
}

struct apstream_page {
    FILE *out;
    int close_out;           /* out was opened here */
    const char *path;        /* for messages */
    const char *name;        /* the stream's name, shown on the page */
    const char *tail;        /* the template after the events marker */
    size_t tail_len;
    apstream_check *check;   /* apstream_page_record feeds it after the page */
    aps_arena arena;
    aps_json_writer row;     /* one event's entry */
    aps_json_writer findings, messages, tools; /* JSON arrays, kept to the end */
    intern spaces, methods;
    uint64_t events, line;   /* events written; the line of the one being checked */
    int failed;              /* out of memory: the page would be incomplete */
};

/* Writes JSON text so that it cannot end a <script> element (see the top of the file). */
static void emit_safe(FILE *out, const char *s, size_t n)
{
    size_t i = 0, run = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        size_t adv = 1;
        if (c == '<')
            esc = "\\u003c";
        else if (c == '>')
            esc = "\\u003e";
        else if (c == '&')
            esc = "\\u0026";
        else if (c >= 0x80) {
            size_t need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0, k;
            int ok = need > 0 && i + need <= n;
            for (k = 1; ok && k < need; k++)
                ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
            /* overlong forms, surrogates and code points past U+10FFFF are not UTF-8 */
            if (ok && need == 3 && ((c == 0xe0 && (unsigned char)s[i + 1] < 0xa0) ||
                                    (c == 0xed && (unsigned char)s[i + 1] >= 0xa0)))
                ok = 0;
            if (ok && need == 4 && ((c == 0xf0 && (unsigned char)s[i + 1] < 0x90) ||
                                    (c == 0xf4 && (unsigned char)s[i + 1] >= 0x90)))
                ok = 0;
            if (!ok)
                esc = "\\ufffd";
            else if (need == 3 && c == 0xe2 && (unsigned char)s[i + 1] == 0x80 &&
                     ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
                esc = (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", adv = 3;
            else
                adv = need;
        }
        if (esc == NULL) {
            i += adv;
            run += adv;
            continue;
        }
        fwrite(s + i - run, 1, run, out);
        fputs(esc, out);
        run = 0;
        i += adv;
    }
    fwrite(s + i - run, 1, run, out);
}

static void emit_writer(FILE *out, const aps_json_writer *w)
{
    emit_safe(out, aps_json_writer_data(w), aps_json_writer_len(w));
}

static const char *find_marker(const char *from, size_t len, const char *marker)
{
    size_t m = strlen(marker), i;
    for (i = 0; i + m <= len; i++)
        if (memcmp(from + i, marker, m) == 0)
            return from + i;
    return NULL;
}

#define CONNECT_MARKER "@@APSTREAM_CONNECT@@" /* the end of the CSP: only the live page may connect */
#define EVENTS_MARKER "@@APSTREAM_EVENTS@@"
#define SUMMARY_MARKER "@@APSTREAM_SUMMARY@@"

apstream_page *apstream_page_open(const char *path, const char *name)
{
    apstream_page *p = calloc(1, sizeof *p);
    const char *csp = find_marker(apstream_report_html, apstream_report_html_len, CONNECT_MARKER);
    const char *mark = find_marker(apstream_report_html, apstream_report_html_len, EVENTS_MARKER);
    if (p == NULL || mark == NULL || csp == NULL || csp > mark) {
        fprintf(stderr, "apstream: out of memory\n");
        free(p);
        return NULL;
    }
    p->path = path != NULL && strcmp(path, "-") != 0 ? path : "(standard output)";
    p->name = name;
    if (path == NULL || strcmp(path, "-") == 0) {
        p->out = stdout;
    } else if ((p->out = fopen(path, "wb")) == NULL) {
        perror(path);
        free(p);
        return NULL;
    } else {
        p->close_out = 1;
    }
    aps_arena_init(&p->arena, NULL);
    aps_json_writer_init(&p->row, NULL);
    aps_json_writer_init(&p->findings, NULL);
    aps_json_writer_init(&p->messages, NULL);
    aps_json_writer_init(&p->tools, NULL);
    aps_json_write_array_begin(&p->findings);
    aps_json_write_array_begin(&p->messages);
    aps_json_write_array_begin(&p->tools);
    /* the root namespace is lane 0 whether or not an event names it */
    if (intern_get(&p->spaces, "[]", 2) < 0)
        p->failed = 1;
    /* a file page connects to nothing: the CSP stays default-src 'none' */
    fwrite(apstream_report_html, 1, (size_t)(csp - apstream_report_html), p->out);
    csp += strlen(CONNECT_MARKER);
    fwrite(csp, 1, (size_t)(mark - csp), p->out);
    p->tail = mark + strlen(EVENTS_MARKER);
    p->tail_len = apstream_report_html_len - (size_t)(p->tail - apstream_report_html);
    fputc('[', p->out);
    return p;
}

void apstream_page_attach(apstream_page *p, apstream_check *c)
{
    p->check = c;
}

/* A string member of `obj` written to the row (null when absent or not a string). */
static void row_string(apstream_page *p, aps_json_raw obj, const char *name, const char *alt)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_slice s;
    if (obj.ptr != NULL &&
        (aps_json_raw_member(obj, name, strlen(name), &p->arena, &v, NULL) == APS_OK ||
         (alt != NULL && aps_json_raw_member(obj, alt, strlen(alt), &p->arena, &v, NULL) == APS_OK))) {
        aps_json_raw_reader(&r, v, &p->arena);
        if (aps_json_read_string(&r, &s, NULL) == APS_OK) {
            aps_json_write_string(&p->row, s.ptr, s.len);
            return;
        }
    }
    aps_json_write_null(&p->row);
}

/* The namespace of `params` as a compact JSON array of strings, interned; -1: none (or not such an array). */
static int64_t row_namespace(apstream_page *p, aps_json_raw params)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_json_writer w;
    aps_slice seg;
    int more = 0;
    int64_t idx = -1;
    if (params.ptr == NULL || aps_json_raw_member(params, "namespace", 9, &p->arena, &v, NULL) != APS_OK)
        return -1;
    aps_json_raw_reader(&r, v, &p->arena);
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    if (aps_json_read_array(&r, NULL) != APS_OK)
        goto done;
    for (;;) {
        if (aps_json_next_element(&r, &more, NULL) != APS_OK)
            goto done;
        if (!more)
            break;
        if (aps_json_read_string(&r, &seg, NULL) != APS_OK)
            goto done;
        aps_json_write_string(&w, seg.ptr, seg.len);
    }
    aps_json_write_array_end(&w);
    if (aps_json_writer_status(&w) == APS_OK &&
        (idx = intern_get(&p->spaces, aps_json_writer_data(&w), aps_json_writer_len(&w))) < 0)
        p->failed = 1;
done:
    aps_json_writer_deinit(&w);
    return idx;
}

/* A number member written as it is (null when absent or not a number). */
static void row_number(apstream_page *p, aps_json_raw obj, const char *name)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_slice num;
    if (obj.ptr != NULL && aps_json_raw_member(obj, name, strlen(name), &p->arena, &v, NULL) == APS_OK) {
        aps_json_raw_reader(&r, v, &p->arena);
        if (aps_json_read_number(&r, &num, NULL) == APS_OK) {
            aps_json_raw raw = { num.ptr, num.len };
            aps_json_write_raw(&p->row, raw);
            return;
        }
    }
    aps_json_write_null(&p->row);
}

/* The number of the record's method in the table (whatever its length), -1 when it has none, -2: out of memory. */
static int64_t row_method(apstream_page *p, aps_json_raw obj)
{
    aps_slice s;
    int64_t m;
    if (apstream_string_member(obj, "method", &p->arena, &s) != 0)
        return -1;
    m = intern_get(&p->methods, s.ptr, s.len);
    return m < 0 ? -2 : m;
}

void apstream_page_event(apstream_page *p, const aps_record *rec)
{
    aps_json_raw obj = { rec->text, rec->len }, params = { NULL, 0 };
    int64_t m, ns;
    p->line = rec->line;
    aps_arena_reset(&p->arena);
    if (aps_json_raw_kind(obj) != APS_JSON_OBJECT)
        obj.ptr = NULL;
    if (obj.ptr != NULL && aps_json_raw_member(obj, "params", 6, &p->arena, &params, NULL) != APS_OK)
        params.ptr = NULL;
    aps_json_writer_reset(&p->row);
    /* [line, seq, eventId, method, namespace, text]: method and namespace as numbers of their tables */
    aps_json_write_array_begin(&p->row);
    aps_json_write_uint64(&p->row, rec->line);
    row_number(p, obj, "seq");
    row_string(p, obj, "eventId", "event_id");
    if ((m = row_method(p, obj)) == -2)
        p->failed = 1;
    aps_json_write_int64(&p->row, m < 0 ? -1 : m);
    ns = row_namespace(p, params);
    aps_json_write_int64(&p->row, ns);
    aps_json_write_string(&p->row, rec->text, rec->len);
    aps_json_write_array_end(&p->row);
    if (aps_json_writer_status(&p->row) != APS_OK) {
        p->failed = 1;
        return;
    }
    if (p->events++ > 0)
        fputs(",\n", p->out);
    emit_writer(p->out, &p->row);
}

int apstream_page_record(void *user, const aps_record *rec)
{
    apstream_page *p = user;
    apstream_page_event(p, rec);
    return p->check != NULL ? apstream_check_record(p->check, rec) : 0;
}

void apstream_page_framing_error(void *user, uint64_t line, const aps_error *err)
{
    apstream_page *p = user;
    if (p->check != NULL)
        apstream_check_framing_error(p->check, line, err);
}

static void write_str(aps_json_writer *w, const char *key, const char *s)
{
    aps_json_write_key(w, key, strlen(key));
    if (s != NULL)
        aps_json_write_string(w, s, strlen(s));
    else
        aps_json_write_null(w);
}

/* The findings hook (apstream_diag_hook). */
static void on_finding(void *user, uint64_t line, const char *severity, const char *rule, const char *method,
                       const char *pointer, const char *message)
{
    apstream_page *p = user;
    aps_json_writer *w = &p->findings;
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "line", 4);
    aps_json_write_uint64(w, line);
    write_str(w, "severity", severity);
    write_str(w, "rule", rule);
    write_str(w, "method", method != NULL && method[0] ? method : NULL);
    write_str(w, "pointer", pointer);
    write_str(w, "message", message);
    aps_json_write_object_end(w);
}

/* The assembler's hook (apstream_asm_hook): the value, and the line of the event that completed it. */
static void on_assembled(void *user, int kind, const char *json, size_t len)
{
    apstream_page *p = user;
    aps_json_writer *w = kind == 'm' ? &p->messages : &p->tools;
    aps_json_raw v = { json, len };
    aps_json_write_object_begin(w);
    aps_json_write_key(w, "line", 4);
    aps_json_write_uint64(w, p->line);
    aps_json_write_key(w, "value", 5);
    aps_json_write_raw(w, v);
    aps_json_write_object_end(w);
}

void apstream_page_listen(apstream_page *p)
{
    apstream_diag_hook(on_finding, p);
    apstream_asm_hook(on_assembled, p);
}

static void write_table(aps_json_writer *w, const char *key, const intern *t, int raw)
{
    size_t i;
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_array_begin(w);
    for (i = 0; i < t->count; i++) {
        if (raw) {
            aps_json_raw v = { t->keys[i], t->lens[i] };
            aps_json_write_raw(w, v);
        } else {
            aps_json_write_string(w, t->keys[i], t->lens[i]);
        }
    }
    aps_json_write_array_end(w);
}

static void write_kept(aps_json_writer *w, const char *key, aps_json_writer *kept)
{
    aps_json_raw v;
    aps_json_write_array_end(kept);
    v.ptr = aps_json_writer_data(kept);
    v.len = aps_json_writer_len(kept);
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_raw(w, v);
}

int apstream_page_close(apstream_page *p, const apstream_page_verdict *v)
{
    aps_json_writer w;
    const char *summary;
    int rc = 0;
    apstream_diag_hook(NULL, NULL);
    apstream_asm_hook(NULL, NULL);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    write_str(&w, "tool", "apstream " APS_VERSION_STRING);
    write_str(&w, "command", v->command);
    write_str(&w, "name", p->name);
    aps_json_write_key(&w, "exit", 4);
    aps_json_write_int64(&w, v->exit_status);
    aps_json_write_key(&w, "strict", 6);
    aps_json_write_bool(&w, v->strict);
    aps_json_write_key(&w, "records", 7);
    aps_json_write_uint64(&w, p->events);
    aps_json_write_key(&w, "valid", 5);
    aps_json_write_uint64(&w, v->valid);
    aps_json_write_key(&w, "invalid", 7);
    aps_json_write_uint64(&w, v->invalid);
    write_table(&w, "methods", &p->methods, 0);
    write_table(&w, "namespaces", &p->spaces, 1);
    write_kept(&w, "findings", &p->findings);
    write_kept(&w, "messages", &p->messages);
    write_kept(&w, "tools", &p->tools);
    aps_json_write_object_end(&w);
    fputc(']', p->out);
    summary = find_marker(p->tail, p->tail_len, SUMMARY_MARKER);
    if (summary == NULL || aps_json_writer_status(&w) != APS_OK || p->failed) {
        fprintf(stderr, "apstream: %s: out of memory: the page is incomplete\n", p->path);
        rc = -1;
    } else {
        fwrite(p->tail, 1, (size_t)(summary - p->tail), p->out);
        emit_writer(p->out, &w);
        summary += strlen(SUMMARY_MARKER);
        fwrite(summary, 1, p->tail_len - (size_t)(summary - p->tail), p->out);
    }
    if (fflush(p->out) != 0 || ferror(p->out))
        rc = -1;
    if (p->close_out && fclose(p->out) != 0)
        rc = -1;
    if (rc != 0 && summary != NULL && !p->failed) {
        fprintf(stderr, "apstream: %s: write error\n", p->path);
        rc = -1;
    }
    aps_json_writer_deinit(&w);
    aps_json_writer_deinit(&p->row);
    aps_json_writer_deinit(&p->findings);
    aps_json_writer_deinit(&p->messages);
    aps_json_writer_deinit(&p->tools);
    aps_arena_deinit(&p->arena);
    intern_free(&p->spaces);
    intern_free(&p->methods);
    free(p);
    return rc;
}

/* Appends `n` bytes to buf[*len] (room made by the caller). */
static void put(char *buf, size_t *len, const char *s, size_t n)
{
    memcpy(buf + *len, s, n);
    *len += n;
}

char *apstream_page_live(size_t *len)
{
    static const char connect[] = "; connect-src 'self'";
    static const char summary[] =
        "{\"live\":true,\"tool\":\"apstream " APS_VERSION_STRING "\",\"command\":\"serve\","
        "\"name\":\"apstream serve\",\"exit\":0,\"strict\":false,\"records\":0,\"valid\":0,\"invalid\":0,"
        "\"methods\":[],\"namespaces\":[[]],\"findings\":[],\"messages\":[],\"tools\":[]}";
    const char *t = apstream_report_html, *end = t + apstream_report_html_len;
    const char *csp = find_marker(t, apstream_report_html_len, CONNECT_MARKER);
    const char *ev = find_marker(t, apstream_report_html_len, EVENTS_MARKER);
    const char *sum = find_marker(t, apstream_report_html_len, SUMMARY_MARKER);
    char *page;
    size_t n = 0;
    if (csp == NULL || ev == NULL || sum == NULL || !(csp < ev && ev < sum) ||
        (page = malloc(apstream_report_html_len + sizeof connect + sizeof summary)) == NULL)
        return NULL;
    put(page, &n, t, (size_t)(csp - t));
    put(page, &n, connect, sizeof connect - 1);
    t = csp + strlen(CONNECT_MARKER);
    put(page, &n, t, (size_t)(ev - t));
    put(page, &n, "[]", 2);
    t = ev + strlen(EVENTS_MARKER);
    put(page, &n, t, (size_t)(sum - t));
    put(page, &n, summary, sizeof summary - 1); /* (ASCII with no '<', '>' or '&': safe in the element) */
    t = sum + strlen(SUMMARY_MARKER);
    put(page, &n, t, (size_t)(end - t));
    *len = n;
    return page;
}
