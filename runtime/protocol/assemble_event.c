/*
 * assemble_event.c - one event by the general path (see
 * assemble_internal.h): finds the message of its place (caches first, then
 * the map) or its tool, and applies it; events for no open item are
 * reported through the tombstones.
 */
#include "assemble_internal.h"

#include <stdio.h>

/* ---- messages ------------------------------------------------------------ */

/*
 * The open message of the event's place when the caches have it, else
 * NULL: the message of the previous event (a token stream), or one of
 * a->recent (streams interleaved). This spares most events building the
 * key, hashing it and probing the map.
 */
static aps_asm_message *cached_message(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message **set;
    if (a->last != NULL && same_place(&a->last->c, ev, 0))
        return a->last;
    set = place_set(a, ev->ns, ev->ns_len, ev->node.len);
    if (set[0] != NULL && same_place(&set[0]->c, ev, 0))
        return a->last = set[0];
    if (set[1] != NULL && same_place(&set[1]->c, ev, 0))
        return a->last = set[1];
    return NULL;
}

/* Makes open message `m` the last one, and puts it first in its set of a->recent. */
static void remember(aps_assembler *a, aps_asm_message *m)
{
    aps_asm_message **set = place_set(a, m->c.ns, m->c.ns_len, m->c.node.len);
    a->last = m;
    if (set[0] != m) {
        set[1] = set[0];
        set[0] = m;
    }
}

static aps_status message_start(aps_assembler *a, const aps_asm_event *ev, aps_asm_item *it,
                                size_t key_len)
{
    aps_asm_message *m;
    aps_slice *s[2];
    aps_json_raw *r[1];
    verdict v;
    aps_status st = APS_OK;
    if (it != NULL && it->kind == ITEM_MESSAGE) {
        aps_asm_message *old = (aps_asm_message *)(void *)it;
        char buf[160];
        snprintf(buf, sizeof buf, "message-start of \"%.*s\" while this message is open",
                 aps_asm_priv_clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "");
        aps_asm_priv_describe_message(a, old, buf);
        st = aps_asm_priv_message_fail(a, old, ev, APS_ASM_E_MESSAGE_OPEN);
        if (st != APS_OK)
            return st;
    }
    if (it != NULL)
        aps_asm_priv_forget(a, &a->closed, it); /* a new message replaces the tombstone */
    if (a->open_messages >= a->opt.max_open_messages) {
        aps_asm_priv_describe(a, "message-start of \"%.*s\": more than %zu messages open",
                              aps_asm_priv_clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "",
                              a->opt.max_open_messages);
        aps_asm_priv_report(a, ev, APS_ASM_E_LIMIT);
        return aps_asm_priv_poison_key(a, key_len);
    }
    m = (aps_asm_message *)(void *)aps_asm_priv_item_new(a, ITEM_MESSAGE, sizeof *m, key_len);
    if (m == NULL)
        return APS_E_NOMEM;
    if (aps_asm_priv_map_insert(a, &m->item) != APS_OK) {
        aps_asm_priv_mem_free(a, m, m->item.size);
        return APS_E_NOMEM;
    }
    aps_asm_priv_list_push(&a->open, &m->item);
    a->open_messages++;
    m->id = ev->id;
    m->role = ev->role;
    m->metadata = ev->metadata;
    s[0] = &m->id;
    s[1] = &m->role;
    r[0] = &m->metadata;
    v = aps_asm_priv_copy_head(a, &m->c, ev, s, 2, r, 1);
    if (v != APS_ASM_OK) {
        m->id.ptr = NULL; /* the copy failed: nothing to show but the state */
        m->id.len = m->role.len = m->metadata.len = 0;
        m->role.ptr = NULL;
        m->metadata.ptr = NULL;
        aps_asm_priv_describe(a, "message-start: the message exceeds the assembler's size limits");
        return aps_asm_priv_message_fail(a, m, ev, v);
    }
    remember(a, m);
    return APS_OK;
}

/* An event for a key with no open item: tombstones say why. */
static aps_status no_item(aps_assembler *a, const aps_asm_event *ev, aps_asm_item *it,
                          size_t key_len, verdict finished, verdict unknown, const char *what)
{
    if (it != NULL) {
        if (it->flags & ITEM_POISONED)
            return APS_OK;
        aps_asm_priv_describe(a, "%s after the %s finished or failed", what,
                              finished == APS_ASM_E_MESSAGE_FINISHED ? "message" : "tool");
        it->flags |= ITEM_POISONED;
        aps_asm_priv_report(a, ev, finished);
        return APS_OK;
    }
    aps_asm_priv_describe(a, "%s with no %s started", what,
                          unknown == APS_ASM_E_NO_MESSAGE ? "message" : "tool");
    aps_asm_priv_report(a, ev, unknown);
    return aps_asm_priv_poison_key(a, key_len);
}

static const char *const event_names[] = {
    "event", "message-start", "content-block-start", "content-block-delta",
    "content-block-finish", "message-finish", "error", "tool-started", "tool-output-delta",
    "tool-finished", "tool-error",
};

aps_status aps_asm_priv_message_event(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message *m = ev->kind == APS_ASM_MESSAGE_START ? NULL : cached_message(a, ev);
    aps_asm_item *it = NULL;
    size_t key_len = 0;
    verdict v;
    if (m == NULL) {
        if (aps_asm_priv_message_key(a, ev, &key_len) != APS_OK)
            return APS_E_NOMEM;
        it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
        if (ev->kind == APS_ASM_MESSAGE_START)
            return message_start(a, ev, it, key_len);
        if (it == NULL || it->kind != ITEM_MESSAGE)
            return no_item(a, ev, it, key_len, APS_ASM_E_MESSAGE_FINISHED, APS_ASM_E_NO_MESSAGE,
                           event_names[ev->kind]);
        m = (aps_asm_message *)(void *)it;
        remember(a, m);
    }
    m->hot = NULL;
    switch (ev->kind) {
    case APS_ASM_BLOCK_DELTA:
        v = aps_asm_priv_block_delta(a, m, ev);
        break;
    case APS_ASM_BLOCK_START:
        v = aps_asm_priv_block_start(a, m, ev);
        break;
    case APS_ASM_BLOCK_FINISH:
        v = aps_asm_priv_block_finish(a, m, ev);
        break;
    case APS_ASM_MESSAGE_FINISH:
        if (m->block_open) {
            char buf[160];
            snprintf(buf, sizeof buf, "message-finish while block %llu is open",
                     (unsigned long long)(m->nblocks - 1));
            aps_asm_priv_describe_message(a, m, buf);
            v = APS_ASM_E_FINISH_BLOCK_OPEN;
            break;
        }
        v = aps_asm_priv_copy_tail_raw(a, &m->c, ev->usage, &m->usage);
        if (v == APS_ASM_OK) {
            m->c.state = APS_ASM_FINISHED;
            aps_asm_priv_message_close(a, m, 0);
            return APS_OK;
        }
        aps_asm_priv_describe_message(a, m, "message-finish: the usage exceeds the assembler's size limits");
        break;
    default: /* APS_ASM_MESSAGE_ERROR */
        v = aps_asm_priv_copy_error(a, &m->c, ev);
        if (v == APS_ASM_OK) {
            aps_asm_priv_message_close(a, m, 0);
            return APS_OK;
        }
        aps_asm_priv_describe_message(a, m, "error: its message exceeds the assembler's size limits");
        break;
    }
    if (v == APS_ASM_OK)
        return APS_OK;
    return aps_asm_priv_message_fail(a, m, ev, v);
}

/* ---- tools ---------------------------------------------------------------- */

aps_status aps_asm_priv_tool_event(aps_assembler *a, const aps_asm_event *ev)
{
    size_t key_len;
    aps_asm_item *it;
    aps_asm_tool *t;
    verdict v = APS_ASM_OK;
    if (aps_asm_priv_id_key(a, 'T', ev->tool_call_id, &key_len) != APS_OK)
        return APS_E_NOMEM;
    it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (ev->kind == APS_ASM_TOOL_STARTED) {
        aps_slice *s[2];
        aps_json_raw *r[1];
        if (it != NULL && it->kind == ITEM_TOOL) {
            aps_status st;
            aps_asm_priv_describe(a, "tool-started for toolCallId \"%.*s\", which is already running",
                                  aps_asm_priv_clip(ev->tool_call_id.len), ev->tool_call_id.ptr);
            st = aps_asm_priv_tool_fail(a, (aps_asm_tool *)(void *)it, ev, APS_ASM_E_TOOL_STARTED);
            if (st != APS_OK)
                return st;
            aps_asm_priv_forget(a, &a->closed, it);
            it = NULL;
        }
        if (it != NULL)
            return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                           "tool-started");
        if (a->open_tools >= a->opt.max_open_tools) {
            aps_asm_priv_describe(a, "tool-started for \"%.*s\": more than %zu tools running",
                                  aps_asm_priv_clip(ev->tool_call_id.len), ev->tool_call_id.ptr, a->opt.max_open_tools);
            aps_asm_priv_report(a, ev, APS_ASM_E_LIMIT);
            return aps_asm_priv_poison_key(a, key_len);
        }
        t = (aps_asm_tool *)(void *)aps_asm_priv_item_new(a, ITEM_TOOL, sizeof *t, key_len);
        if (t == NULL)
            return APS_E_NOMEM;
        if (aps_asm_priv_map_insert(a, &t->item) != APS_OK) {
            aps_asm_priv_mem_free(a, t, t->item.size);
            return APS_E_NOMEM;
        }
        aps_asm_priv_list_push(&a->open, &t->item);
        a->open_tools++;
        t->id = ev->tool_call_id;
        t->name = ev->tool_name;
        t->input = ev->input;
        s[0] = &t->id;
        s[1] = &t->name;
        r[0] = &t->input;
        v = aps_asm_priv_copy_head(a, &t->c, ev, s, 2, r, 1);
        if (v != APS_ASM_OK) {
            /* Keep the id (it is the key) for the report; drop what did not fit. */
            t->id.ptr = t->item.key + 1;
            t->id.len = t->item.key_len - 1;
            t->name.ptr = NULL;
            t->name.len = t->input.len = 0;
            t->input.ptr = NULL;
            aps_asm_priv_describe(a, "tool-started: the tool exceeds the assembler's size limits");
            return aps_asm_priv_tool_fail(a, t, ev, v);
        }
        return APS_OK;
    }
    if (it == NULL || it->kind != ITEM_TOOL)
        return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                       event_names[ev->kind]);
    t = (aps_asm_tool *)(void *)it;
    switch (ev->kind) {
    case APS_ASM_TOOL_OUTPUT_DELTA:
        if (ev->text.len > t->out_cap - t->out_len) {
            if (ev->text.len > SIZE_MAX - t->out_len)
                v = APS_ASM_E_LIMIT;
            else
                v = aps_asm_priv_grow(a, &t->c, &t->out, t->out_len, &t->out_cap, t->out_len + ev->text.len);
            if (v != APS_ASM_OK)
                break;
        }
        if (ev->text.len)
            memcpy(t->out + t->out_len, ev->text.ptr, ev->text.len);
        t->out_len += ev->text.len;
        t->has_delta = 1;
        return APS_OK;
    case APS_ASM_TOOL_FINISHED:
        v = aps_asm_priv_copy_tail_raw(a, &t->c, ev->output, &t->output);
        if (v != APS_ASM_OK)
            break;
        t->c.state = APS_ASM_FINISHED;
        aps_asm_priv_tool_close(a, t, 0);
        return APS_OK;
    default: /* APS_ASM_TOOL_ERROR */
        v = aps_asm_priv_copy_error(a, &t->c, ev);
        if (v != APS_ASM_OK)
            break;
        aps_asm_priv_tool_close(a, t, 0);
        return APS_OK;
    }
    aps_asm_priv_describe(a, "%s: tool \"%.*s\" exceeds the assembler's size limits", event_names[ev->kind],
                          aps_asm_priv_clip(t->id.len), t->id.ptr);
    return aps_asm_priv_tool_fail(a, t, ev, v);
}
