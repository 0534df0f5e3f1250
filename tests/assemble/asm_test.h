/*
 * asm_test.h - helpers shared by the assembler tests: a collector that
 * records what the assembler delivers as text (tlog, test_util.h), event
 * builders, and the JSONL adapter that turns a protocol event line into an
 * aps_asm_event.
 */
#ifndef ASM_TEST_H
#define ASM_TEST_H

#include "aps/asm.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the collector ------------------------------------------------------ */

/* Everything the assembler said, as text: one line per item or violation. */
typedef struct collector {
    tlog out;          /* message and tool JSON lines, in delivery order */
    tlog violations;   /* "POS code: text" lines */
    tlog appended;     /* every on_append text, concatenated */
    size_t appends;
    size_t links;      /* tools delivered with a linked tool_call block */
    tlog link_json;    /* the linked blocks, one per line */
} collector;

static inline void col_line(tlog *b, void (*write)(const void *, aps_json_writer *), const void *item)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    write(item, &w);
    if (aps_json_writer_finish(&w, NULL) != APS_OK)
        tlog_str(b, "<writer error>");
    else
        tlog_add(b, aps_json_writer_data(&w), aps_json_writer_len(&w));
    tlog_str(b, "\n");
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
    tlog_add(&c->appended, appended.ptr, appended.len);
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
        tlog_add(&c->link_json, link.ptr, link.len);
        tlog_str(&c->link_json, "\n");
    }
}

/* Appends one violation as the tests pin it: "POSITION NAME: text\n". */
static inline void asm_put_violation(tlog *out, uint64_t position, aps_asm_violation code, const char *text)
{
    char head[64];
    snprintf(head, sizeof head, "%llu %s: ", (unsigned long long)position,
             aps_asm_violation_name(code));
    tlog_str(out, head);
    tlog_str(out, text);
    tlog_str(out, "\n");
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
    return strcmp(tlog_get(&x->out), tlog_get(&y->out)) == 0 &&
           strcmp(tlog_get(&x->violations), tlog_get(&y->violations)) == 0 &&
           strcmp(tlog_get(&x->appended), tlog_get(&y->appended)) == 0 && x->links == y->links;
}

static inline void col_free(collector *c)
{
    tlog_free(&c->out);
    tlog_free(&c->violations);
    tlog_free(&c->appended);
    tlog_free(&c->link_json);
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

/* ---- JSONL adapter: the runtime's lenient reader (aps_asm_event_from_json) ---- */

typedef aps_asm_reader adapter;
#define adapt_line aps_asm_event_from_json

/* Reads the whole file at `path` (malloc'd, NUL-terminated); NULL if it cannot. */
#endif
