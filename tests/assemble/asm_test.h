/*
 * asm_test.h - helpers shared by the assembler tests: a collector that
 * records what the assembler delivers as text, event builders, a counting
 * allocator that can fail on demand, and the JSONL adapter that turns a
 * protocol event line into an aps_asm_event.
 */
#ifndef ASM_TEST_H
#define ASM_TEST_H

#include "aps/asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growable string ------------------------------------------------- */

typedef struct tbuf {
    char *p;
    size_t len, cap;
} tbuf;

static inline void tbuf_add(tbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = (char *)realloc(b->p, cap);
        if (b->p == NULL)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static inline void tbuf_str(tbuf *b, const char *s)
{
    tbuf_add(b, s, strlen(s));
}

static inline const char *tbuf_get(tbuf *b)
{
    if (b->p == NULL)
        tbuf_add(b, "", 0);
    return b->p;
}

static inline void tbuf_free(tbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- the collector ------------------------------------------------------ */

/* Everything the assembler said, as text: one line per item or violation. */
typedef struct collector {
    tbuf out;          /* message and tool JSON lines, in delivery order */
    tbuf violations;   /* "POS code: text" lines */
    tbuf appended;     /* every on_append text, concatenated */
    size_t appends;
    size_t links;      /* tools delivered with a linked tool_call block */
    tbuf link_json;    /* the linked blocks, one per line */
} collector;

static inline void col_line(tbuf *b, void (*write)(const void *, aps_json_writer *), const void *item)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    write(item, &w);
    if (aps_json_writer_finish(&w, NULL) != APS_OK)
        tbuf_str(b, "<writer error>");
    else
        tbuf_add(b, aps_json_writer_data(&w), aps_json_writer_len(&w));
    tbuf_str(b, "\n");
    aps_json_writer_deinit(&w);
}

static inline void write_message(const void *m, aps_json_writer *w)
{
    aps_asm_message_write((const aps_asm_message *)m, w);
}

static inline void write_tool(const void *t, aps_json_writer *w)
{
    aps_asm_tool_write((const aps_asm_tool *)t, w);
}

static inline void col_on_append(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                          aps_slice appended)
{
    collector *c = (collector *)ctx;
    (void)m;
    (void)index;
    (void)kind;
    c->appends++;
    tbuf_add(&c->appended, appended.ptr, appended.len);
}

static inline void col_on_message(void *ctx, const aps_asm_message *m)
{
    col_line(&((collector *)ctx)->out, write_message, m);
}

static inline void col_on_tool(void *ctx, const aps_asm_tool *t)
{
    collector *c = (collector *)ctx;
    aps_json_raw link = aps_asm_tool_call_block(t);
    col_line(&c->out, write_tool, t);
    if (link.ptr != NULL) {
        c->links++;
        tbuf_add(&c->link_json, link.ptr, link.len);
        tbuf_str(&c->link_json, "\n");
    }
}

/* Appends one violation as the tests pin it: "POSITION NAME: text\n". */
static inline void asm_put_violation(tbuf *out, uint64_t position, aps_asm_violation code, const char *text)
{
    char head[64];
    snprintf(head, sizeof head, "%llu %s: ", (unsigned long long)position,
             aps_asm_violation_name(code));
    tbuf_str(out, head);
    tbuf_str(out, text);
    tbuf_str(out, "\n");
}

static inline void col_on_violation(void *ctx, uint64_t position, aps_asm_violation code, const char *text)
{
    asm_put_violation(&((collector *)ctx)->violations, position, code, text);
}

static inline aps_asm_callbacks col_callbacks(collector *c)
{
    aps_asm_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_append = col_on_append;
    cb.on_message_done = col_on_message;
    cb.on_tool_done = col_on_tool;
    cb.on_violation = col_on_violation;
    cb.ctx = c;
    return cb;
}

/* Whether two collectors heard the same: items, violations, appended text, links. */
static inline int col_same(collector *x, collector *y)
{
    return strcmp(tbuf_get(&x->out), tbuf_get(&y->out)) == 0 &&
           strcmp(tbuf_get(&x->violations), tbuf_get(&y->violations)) == 0 &&
           strcmp(tbuf_get(&x->appended), tbuf_get(&y->appended)) == 0 && x->links == y->links;
}

static inline void col_free(collector *c)
{
    tbuf_free(&c->out);
    tbuf_free(&c->violations);
    tbuf_free(&c->appended);
    tbuf_free(&c->link_json);
}

/* ---- event builders ------------------------------------------------------ */

static inline aps_slice S(const char *s)
{
    aps_slice x;
    x.ptr = s;
    x.len = s ? strlen(s) : 0;
    return x;
}

static inline aps_json_raw R(const char *s)
{
    aps_json_raw x;
    x.ptr = s;
    x.len = s ? strlen(s) : 0;
    return x;
}

/* Where events go: a namespace of up to 4 segments and a node. */
typedef struct place {
    aps_slice ns[4];
    size_t ns_len;
    aps_slice node;
} place;

static inline place P(const char *seg0, const char *seg1, const char *node)
{
    place p;
    memset(&p, 0, sizeof p);
    if (seg0)
        p.ns[p.ns_len++] = S(seg0);
    if (seg1)
        p.ns[p.ns_len++] = S(seg1);
    p.node = S(node);
    return p;
}

static inline aps_asm_event E(const place *p, aps_asm_kind kind, uint64_t pos)
{
    aps_asm_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.ns = p->ns_len ? p->ns : NULL;
    e.ns_len = p->ns_len;
    e.node = p->node;
    e.position = pos;
    return e;
}

/* Content of a block of each kind, and the delta that fits it: the four that append first. */
static const struct {
    const char *content;
    aps_asm_delta fits;
} asm_blocks[] = {
    { "{\"type\":\"text\",\"text\":\"\"}", APS_ASM_DELTA_TEXT },
    { "{\"type\":\"reasoning\"}", APS_ASM_DELTA_REASONING },
    { "{\"type\":\"image\",\"mimeType\":\"image/png\"}", APS_ASM_DELTA_DATA },
    { "{\"type\":\"tool_call_chunk\",\"id\":\"call_1\",\"name\":null,\"args\":null}", APS_ASM_DELTA_TOOL_CALL },
    { "{\"type\":\"custom\",\"v\":1}", APS_ASM_DELTA_UNKNOWN },
};

/* ---- a counting allocator that fails on demand ---------------------------- */

typedef struct talloc {
    size_t calls;        /* allocations made */
    size_t fail_at;      /* fail the allocation with this number (1-based); 0: never */
    size_t failed;
    size_t live_blocks;
    size_t live_bytes;
    size_t total_bytes;  /* bytes ever allocated */
} talloc;

static inline void *talloc_alloc(void *ctx, size_t n)
{
    talloc *t = (talloc *)ctx;
    void *p;
    t->calls++;
    if (t->fail_at != 0 && t->calls == t->fail_at) {
        t->failed++;
        return NULL;
    }
    p = malloc(n);
    if (p != NULL) {
        t->live_blocks++;
        t->live_bytes += n;
        t->total_bytes += n;
    }
    return p;
}

static inline void talloc_free(void *ctx, void *p, size_t n)
{
    talloc *t = (talloc *)ctx;
    t->live_blocks--;
    t->live_bytes -= n;
    free(p);
}

static inline aps_allocator talloc_hooks(talloc *t)
{
    aps_allocator a;
    a.alloc = talloc_alloc;
    a.free = talloc_free;
    a.ctx = t;
    return a;
}

/* ---- JSONL adapter: the runtime's lenient reader (aps_asm_event_from_json) ---- */

typedef aps_asm_reader adapter;
#define adapt_line aps_asm_event_from_json

/* Reads the whole file at `path` (malloc'd, NUL-terminated); NULL if it cannot. */
static inline char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        p = (char *)malloc((size_t)n + 1);
        if (p != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        }
        if (p != NULL) {
            p[n] = 0;
            *len = (size_t)n;
        }
    }
    fclose(f);
    return p;
}

#endif
