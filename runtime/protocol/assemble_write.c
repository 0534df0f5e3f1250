/*
 * assemble_write.c - what callers read of an assembled message or tool
 * (aps/asm.h): the accessors, and the final JSON of a block, a message and
 * a tool.
 */
#include "assemble_internal.h"

/* ---- accessors ------------------------------------------------------------ */

aps_slice aps_asm_message_id(const aps_asm_message *m) { return m->id; }
aps_slice aps_asm_message_role(const aps_asm_message *m) { return m->role; }
aps_slice aps_asm_message_node(const aps_asm_message *m) { return m->c.node; }
aps_json_raw aps_asm_message_metadata(const aps_asm_message *m) { return m->metadata; }
aps_json_raw aps_asm_message_usage(const aps_asm_message *m) { return m->usage; }
aps_asm_state aps_asm_message_state(const aps_asm_message *m) { return m->c.state; }
size_t aps_asm_message_block_count(const aps_asm_message *m) { return m->nblocks; }

size_t aps_asm_message_namespace(const aps_asm_message *m, const aps_slice **segs)
{
    *segs = m->c.ns;
    return m->c.ns_len;
}

static int common_error(const asm_common *c, aps_slice *message, aps_slice *code)
{
    if (c->state != APS_ASM_ERROR)
        return 0;
    if (message)
        *message = c->err_message;
    if (code)
        *code = c->err_code;
    return 1;
}

int aps_asm_message_error(const aps_asm_message *m, aps_slice *message, aps_slice *code)
{
    return common_error(&m->c, message, code);
}

int aps_asm_message_block_final(const aps_asm_message *m, size_t i, aps_json_raw *out)
{
    if (i >= m->nblocks || m->blocks[i].final == NULL)
        return 0;
    if (out) {
        out->ptr = m->blocks[i].final;
        out->len = m->blocks[i].final_len;
    }
    return 1;
}

void aps_asm_message_write_block(const aps_asm_message *m, size_t i, aps_json_writer *w)
{
    const asm_block *b;
    size_t k;
    if (i >= m->nblocks || !m->blocks[i].present) { /* out of range, or a hole (default mode) */
        aps_json_write_null(w);
        return;
    }
    b = &m->blocks[i];
    if (b->final != NULL) {
        aps_json_raw raw;
        raw.ptr = b->final;
        raw.len = b->final_len;
        aps_json_write_raw(w, raw);
        return;
    }
    aps_json_write_object_begin(w);
    for (k = 0; k < b->n; k++) {
        aps_json_write_key(w, b->mem[k].key, b->mem[k].key_len);
        if (b->mem[k].text) {
            /* An appended member that received only empty text has no buffer yet. */
            aps_json_write_string(w, b->mem[k].val ? b->mem[k].val : "", b->mem[k].len);
        } else {
            aps_json_raw raw;
            raw.ptr = b->mem[k].val;
            raw.len = b->mem[k].len;
            aps_json_write_raw(w, raw);
        }
    }
    aps_json_write_object_end(w);
}

static void write_slice_or_null(aps_json_writer *w, aps_slice s)
{
    if (s.ptr == NULL)
        aps_json_write_null(w);
    else
        aps_json_write_string(w, s.ptr, s.len);
}

static void write_raw_or_null(aps_json_writer *w, aps_json_raw r)
{
    if (r.ptr == NULL)
        aps_json_write_null(w);
    else
        aps_json_write_raw(w, r);
}

#define WRITE_KEY(w, lit) aps_json_write_key((w), (lit), sizeof(lit) - 1)

static void write_place(aps_json_writer *w, const asm_common *c)
{
    size_t i;
    WRITE_KEY(w, "namespace");
    aps_json_write_array_begin(w);
    for (i = 0; i < c->ns_len; i++)
        aps_json_write_string(w, c->ns[i].ptr, c->ns[i].len);
    aps_json_write_array_end(w);
    WRITE_KEY(w, "node");
    write_slice_or_null(w, c->node);
}

static void write_error(aps_json_writer *w, const asm_common *c)
{
    WRITE_KEY(w, "error");
    if (c->state != APS_ASM_ERROR) {
        aps_json_write_null(w);
        return;
    }
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "message");
    write_slice_or_null(w, c->err_message);
    WRITE_KEY(w, "code");
    write_slice_or_null(w, c->err_code);
    aps_json_write_object_end(w);
}

void aps_asm_message_write(const aps_asm_message *m, aps_json_writer *w)
{
    static const char *const status[] = { "open", "finished", "error" };
    const char *s = status[m->c.state];
    size_t i;
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "kind");
    aps_json_write_string(w, "message", 7);
    WRITE_KEY(w, "id");
    write_slice_or_null(w, m->id);
    write_place(w, &m->c);
    WRITE_KEY(w, "role");
    write_slice_or_null(w, m->role);
    WRITE_KEY(w, "metadata");
    write_raw_or_null(w, m->metadata);
    WRITE_KEY(w, "status");
    aps_json_write_string(w, s, strlen(s));
    WRITE_KEY(w, "content");
    aps_json_write_array_begin(w);
    for (i = 0; i < m->nblocks; i++)
        if (m->blocks[i].present) /* holes are left out, as the reference client leaves them out */
            aps_asm_message_write_block(m, i, w);
    aps_json_write_array_end(w);
    WRITE_KEY(w, "usage");
    write_raw_or_null(w, m->usage);
    write_error(w, &m->c);
    aps_json_write_object_end(w);
}

aps_slice aps_asm_tool_call_id(const aps_asm_tool *t) { return t->id; }
aps_slice aps_asm_tool_node(const aps_asm_tool *t) { return t->c.node; }
aps_slice aps_asm_tool_name(const aps_asm_tool *t) { return t->name; }
aps_json_raw aps_asm_tool_input(const aps_asm_tool *t) { return t->input; }
aps_json_raw aps_asm_tool_output(const aps_asm_tool *t) { return t->output; }
aps_asm_state aps_asm_tool_state(const aps_asm_tool *t) { return t->c.state; }

size_t aps_asm_tool_namespace(const aps_asm_tool *t, const aps_slice **segs)
{
    *segs = t->c.ns;
    return t->c.ns_len;
}

int aps_asm_tool_output_delta(const aps_asm_tool *t, aps_slice *out)
{
    if (!t->has_delta)
        return 0;
    if (out) {
        out->ptr = t->out_len ? t->out : "";
        out->len = t->out_len;
    }
    return 1;
}

int aps_asm_tool_error(const aps_asm_tool *t, aps_slice *message, aps_slice *code)
{
    return common_error(&t->c, message, code);
}

aps_json_raw aps_asm_tool_call_block(const aps_asm_tool *t)
{
    aps_json_raw r = { NULL, 0 };
    if (t->link != NULL) {
        const asm_link *l = (const asm_link *)(const void *)t->link;
        r.ptr = l->json;
        r.len = l->len;
    }
    return r;
}

void aps_asm_tool_write(const aps_asm_tool *t, aps_json_writer *w)
{
    static const char *const status[] = { "started", "finished", "error" };
    const char *s = status[t->c.state];
    aps_slice out;
    aps_json_write_object_begin(w);
    WRITE_KEY(w, "kind");
    aps_json_write_string(w, "tool", 4);
    WRITE_KEY(w, "toolCallId");
    write_slice_or_null(w, t->id);
    write_place(w, &t->c);
    WRITE_KEY(w, "toolName");
    write_slice_or_null(w, t->name);
    WRITE_KEY(w, "input");
    write_raw_or_null(w, t->input);
    WRITE_KEY(w, "status");
    aps_json_write_string(w, s, strlen(s));
    WRITE_KEY(w, "outputDelta");
    if (aps_asm_tool_output_delta(t, &out)) /* the deltas concatenated: "" when none arrived */
        aps_json_write_string(w, out.ptr, out.len);
    else
        aps_json_write_string(w, "", 0);
    WRITE_KEY(w, "output");
    write_raw_or_null(w, t->output);
    write_error(w, &t->c);
    aps_json_write_object_end(w);
}
