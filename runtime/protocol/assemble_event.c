/*
 * assemble_event.c - one event by the general path (see
 * assemble_internal.h): finds the message of its place (caches first, then
 * the map) or its tool, and applies it; events for no open item are
 * reported through the tombstones.
 */
#include "assemble_internal.h"

#include <stdio.h>

/* ---- messages ------------------------------------------------------------ */

/* The `event` of each aps_asm_kind, for the reports. */
static const char *const event_names[] = {
    "event", "message-start", "content-block-start", "content-block-delta",
    "content-block-finish", "message-finish", "error", "tool-started", "tool-output-delta",
    "tool-finished", "tool-error", "usage",
};

/* The run id that routes the event: none in strict mode, which routes by place alone. */
static aps_slice run_of(const aps_assembler *a, const aps_asm_event *ev)
{
    aps_slice none = { NULL, 0 };
    return a->opt.strict ? none : ev->run_id;
}

/*
 * The open message of the event's place when the caches have it, else
 * NULL: the message of the previous event (a token stream), or one of
 * a->recent (streams interleaved). Only the current message of a place
 * is taken, and only for an event without a run id or with its run id.
 * This spares most events building the key, hashing it and probing the map.
 */
static aps_asm_message *cached_message(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message **set;
    aps_slice run = run_of(a, ev);
    if (a->last != NULL && a->last->place != NULL && same_run(a->last, run) && same_place(&a->last->c, ev, 0))
        return a->last;
    set = place_set(a, ev->ns, ev->ns_len, ev->node.len);
    if (set[0] != NULL && set[0]->place != NULL && same_run(set[0], run) && same_place(&set[0]->c, ev, 0))
        return a->last = set[0];
    if (set[1] != NULL && set[1]->place != NULL && same_run(set[1], run) && same_place(&set[1]->c, ev, 0))
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

/* The place whose key is the first `place_len` bytes of a->key (after its 'M'); NULL when none. */
static asm_place *find_place(aps_assembler *a, size_t place_len)
{
    aps_asm_item *it;
    a->key[0] = 'P';
    it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, place_len), a->key, place_len);
    a->key[0] = 'M';
    return it != NULL ? (asm_place *)(void *)it : NULL;
}

/* Makes `m` the current message of its place (key: the first `place_len` bytes of a->key). */
static aps_status make_current(aps_assembler *a, aps_asm_message *m, size_t place_len)
{
    asm_place *pl = find_place(a, place_len);
    if (pl == NULL) {
        a->key[0] = 'P';
        pl = (asm_place *)(void *)aps_asm_priv_item_new(a, ITEM_PLACE, sizeof *pl, place_len);
        a->key[0] = 'M';
        if (pl == NULL)
            return APS_E_NOMEM;
        if (aps_asm_priv_map_insert(a, &pl->item) != APS_OK) {
            aps_asm_priv_mem_free(a, pl, pl->item.size);
            return APS_E_NOMEM;
        }
        aps_asm_priv_list_push(&a->places, &pl->item);
    } else if (pl->cur != NULL) { /* it stays open; only its run id routes to it now */
        pl->cur->place = NULL;
        pl->cur->hot = NULL;
    }
    pl->cur = m;
    m->place = pl;
    remember(a, m);
    return APS_OK;
}

/*
 * A new open message under the key in a->key (`key_len` bytes, its place
 * the first `place_len`), from the event that opens it: a message-start,
 * or in the default mode any other event of a place with no message for it.
 */
static aps_status message_new(aps_assembler *a, const aps_asm_event *ev, size_t key_len, size_t place_len,
                              aps_asm_message **out)
{
    aps_asm_message *m;
    aps_slice *s[3];
    aps_json_raw *r[1];
    verdict v;
    *out = NULL;
    if (a->open_messages >= a->opt.max_open_messages) {
        if (ev->kind == APS_ASM_MESSAGE_START)
            aps_asm_priv_describe(a, "message-start of \"%.*s\": more than %zu messages open",
                                  aps_asm_priv_clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "", a->opt.max_open_messages);
        else
            aps_asm_priv_describe(a, "%s: more than %zu messages open", event_names[ev->kind], a->opt.max_open_messages);
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
    if (ev->kind == APS_ASM_MESSAGE_START) {
        m->id = ev->id;
        m->role = ev->role;
        m->metadata = ev->metadata;
    }
    m->run_id = ev->run_id;
    s[0] = &m->id;
    s[1] = &m->role;
    s[2] = &m->run_id;
    r[0] = &m->metadata;
    v = aps_asm_priv_copy_head(a, &m->c, ev, s, 3, r, 1);
    if (v == APS_ASM_OK && ev->kind == APS_ASM_MESSAGE_START && !a->opt.strict)
        v = aps_asm_priv_set_usage(a, m, ev->usage);
    if (v != APS_ASM_OK) {
        m->id.ptr = m->role.ptr = m->run_id.ptr = NULL; /* the copy failed: nothing to show but the state */
        m->id.len = m->role.len = m->run_id.len = m->metadata.len = 0;
        m->metadata.ptr = NULL;
        aps_asm_priv_describe(a, "message-start: the message exceeds the assembler's size limits");
        return aps_asm_priv_message_fail(a, m, ev, v);
    }
    if (make_current(a, m, place_len) != APS_OK)
        return aps_asm_priv_message_fail(a, m, ev, APS_ASM_E_NOMEM);
    *out = m;
    return APS_OK;
}

/* Appends the part of the message key after the place: "" in strict mode, else the run id or `id`. */
static aps_status key_sub(aps_assembler *a, const aps_asm_event *ev, aps_slice id, size_t *len)
{
    aps_slice sub = { "", 0 };
    if (!a->opt.strict)
        sub = ev->run_id.ptr != NULL ? ev->run_id : id.ptr != NULL ? id : sub;
    return aps_asm_priv_key_sub(a, sub, len);
}

static aps_status message_start(aps_assembler *a, const aps_asm_event *ev, size_t place_len)
{
    aps_asm_item *it;
    asm_place *pl;
    aps_asm_message *m;
    size_t key_len = place_len;
    aps_status st;
    if (key_sub(a, ev, ev->id, &key_len) != APS_OK)
        return APS_E_NOMEM;
    it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (it != NULL && it->kind == ITEM_MESSAGE) { /* its key is taken: it fails, the new one opens */
        aps_asm_message *old = (aps_asm_message *)(void *)it;
        char buf[160];
        snprintf(buf, sizeof buf, "message-start of \"%.*s\" while this message is open",
                 aps_asm_priv_clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "");
        aps_asm_priv_describe_message(a, old, buf);
        st = aps_asm_priv_message_fail(a, old, ev, APS_ASM_E_MESSAGE_OPEN);
        if (st != APS_OK)
            return st;
    } else if ((pl = find_place(a, place_len)) != NULL && pl->cur != NULL) {
        char buf[200]; /* default mode, another run id or id: both stay open */
        snprintf(buf, sizeof buf, "message-start of \"%.*s\" while this message is open (it stays open)",
                 aps_asm_priv_clip(ev->id.len), ev->id.ptr ? ev->id.ptr : "");
        aps_asm_priv_describe_message(a, pl->cur, buf);
        aps_asm_priv_report(a, ev, APS_ASM_E_MESSAGE_OPEN);
    }
    if (it != NULL)
        aps_asm_priv_forget(a, &a->closed, it); /* a new message replaces the tombstone */
    return message_new(a, ev, key_len, place_len, &m);
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

/*
 * The open message of an event other than message-start, by the reference
 * client's routing: its run id's message, else (no run id, or neither has
 * one) the place's current message. With none: strict mode reports it and
 * drops the event; the default mode reports it and opens a message for it
 * (*m NULL when the event is dropped).
 */
static aps_status route(aps_assembler *a, const aps_asm_event *ev, size_t place_len, aps_asm_message **m)
{
    aps_slice run = run_of(a, ev), none = { NULL, 0 };
    asm_place *pl = find_place(a, place_len);
    aps_asm_message *cur = pl != NULL ? pl->cur : NULL;
    aps_asm_item *it;
    size_t key_len = place_len;
    *m = NULL;
    if (run.ptr != NULL) {
        if (key_sub(a, ev, none, &key_len) != APS_OK)
            return APS_E_NOMEM;
        it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
        if (it != NULL && it->kind == ITEM_MESSAGE) {
            *m = (aps_asm_message *)(void *)it;
            return APS_OK;
        }
    }
    if (cur != NULL && (run.ptr == NULL || cur->run_id.ptr == NULL)) {
        *m = cur;
        return APS_OK;
    }
    key_len = place_len;
    if (key_sub(a, ev, none, &key_len) != APS_OK)
        return APS_E_NOMEM;
    it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (a->opt.strict || (it != NULL && (it->flags & ITEM_POISONED)))
        return no_item(a, ev, it, key_len, APS_ASM_E_MESSAGE_FINISHED, APS_ASM_E_NO_MESSAGE, event_names[ev->kind]);
    if (it != NULL && it->kind == ITEM_MESSAGE) {
        /* open under this key but not current (its place moved on): it gives way, as in the reference */
        aps_asm_message *old = (aps_asm_message *)(void *)it;
        aps_status st;
        aps_asm_priv_describe_message(a, old, "a message opened for a later event replaces this one");
        if ((st = aps_asm_priv_message_fail(a, old, ev, APS_ASM_E_MESSAGE_OPEN)) != APS_OK)
            return st;
    } else {
        aps_asm_priv_describe(a, "%s %s: a message is opened for it", event_names[ev->kind],
                              it != NULL ? "after the message finished or failed" : "with no open message");
        aps_asm_priv_report(a, ev, it != NULL ? APS_ASM_E_MESSAGE_FINISHED : APS_ASM_E_NO_MESSAGE);
    }
    if (it != NULL) /* the tombstone (the closed message's struct) gives its key to the new one */
        aps_asm_priv_forget(a, &a->closed, it);
    return message_new(a, ev, key_len, place_len, m);
}

aps_status aps_asm_priv_message_event(aps_assembler *a, const aps_asm_event *ev)
{
    aps_asm_message *m;
    size_t place_len = 0;
    verdict v;
    aps_status st;
    if (ev->kind == APS_ASM_MESSAGE_USAGE && a->opt.strict)
        return APS_OK; /* not a protocol event */
    m = ev->kind == APS_ASM_MESSAGE_START ? NULL : cached_message(a, ev);
    if (m == NULL) {
        if (aps_asm_priv_message_key(a, ev, &place_len) != APS_OK)
            return APS_E_NOMEM;
        if (ev->kind == APS_ASM_MESSAGE_START)
            return message_start(a, ev, place_len);
        if ((st = route(a, ev, place_len, &m)) != APS_OK || m == NULL)
            return st;
        remember(a, m);
    }
    /*
     * A delta that the fast path would have taken had its member had room:
     * its deviation, if any, was reported for the first of the run.
     */
    m->continuing = ev->kind == APS_ASM_BLOCK_DELTA && ev->content.ptr == NULL && ev->fields.len == 0 &&
                    ((m->hot != NULL && m->hot_kind == ev->delta && m->hot_index == ev->index) ||
                     (m->skip_kind != APS_ASM_DELTA_UNKNOWN && m->skip_kind == ev->delta && m->skip_index == ev->index));
    m->hot = NULL;
    m->skip_kind = APS_ASM_DELTA_UNKNOWN;
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
    case APS_ASM_MESSAGE_USAGE:
        v = aps_asm_priv_set_usage(a, m, ev->usage);
        if (v == APS_ASM_OK)
            return APS_OK;
        aps_asm_priv_describe_message(a, m, "usage: the usage exceeds the assembler's size limits");
        break;
    case APS_ASM_MESSAGE_FINISH:
        if (m->block_open || m->open_blocks != 0) {
            char buf[160];
            size_t i = m->nblocks - 1;
            if (!a->opt.strict)
                for (i = 0; i < m->nblocks && !m->blocks[i].open; i++)
                    ;
            snprintf(buf, sizeof buf, "message-finish while block %llu is open", (unsigned long long)i);
            aps_asm_priv_describe_message(a, m, buf);
            if (a->opt.strict) {
                v = APS_ASM_E_FINISH_BLOCK_OPEN;
                break;
            }
            aps_asm_priv_report(a, ev, APS_ASM_E_FINISH_BLOCK_OPEN);
        }
        v = aps_asm_priv_set_usage(a, m, ev->usage);
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

/* A new running tool under the key in a->key, from the event that opens it (*out NULL when it cannot). */
static aps_status tool_new(aps_assembler *a, const aps_asm_event *ev, size_t key_len, aps_asm_tool **out)
{
    aps_slice *s[2];
    aps_json_raw *r[1];
    aps_asm_tool *t;
    verdict v;
    *out = NULL;
    if (a->open_tools >= a->opt.max_open_tools) {
        aps_asm_priv_describe(a, "%s for \"%.*s\": more than %zu tools running", event_names[ev->kind],
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
    if (ev->kind == APS_ASM_TOOL_STARTED) {
        t->name = ev->tool_name;
        t->input = ev->input;
    }
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
        aps_asm_priv_describe(a, "%s: the tool exceeds the assembler's size limits", event_names[ev->kind]);
        return aps_asm_priv_tool_fail(a, t, ev, v);
    }
    *out = t;
    return APS_OK;
}

aps_status aps_asm_priv_tool_event(aps_assembler *a, const aps_asm_event *ev)
{
    size_t key_len;
    aps_asm_item *it;
    aps_asm_tool *t;
    aps_status st;
    verdict v = APS_ASM_OK;
    if (aps_asm_priv_id_key(a, 'T', ev->tool_call_id, &key_len) != APS_OK)
        return APS_E_NOMEM;
    it = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (ev->kind == APS_ASM_TOOL_STARTED) {
        if (it != NULL && it->kind == ITEM_TOOL) {
            aps_asm_priv_describe(a, "tool-started for toolCallId \"%.*s\", which is already running",
                                  aps_asm_priv_clip(ev->tool_call_id.len), ev->tool_call_id.ptr);
            st = aps_asm_priv_tool_fail(a, (aps_asm_tool *)(void *)it, ev, APS_ASM_E_TOOL_STARTED);
            if (st != APS_OK)
                return st;
            aps_asm_priv_forget(a, &a->closed, it);
            it = NULL;
        }
        if (it != NULL && (a->opt.strict || (it->flags & ITEM_POISONED)))
            return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                           "tool-started");
        if (it != NULL) { /* default mode: a second run of a finished toolCallId is a run of its own */
            aps_asm_priv_describe(a, "tool-started for toolCallId \"%.*s\", which already finished",
                                  aps_asm_priv_clip(ev->tool_call_id.len), ev->tool_call_id.ptr);
            aps_asm_priv_report(a, ev, APS_ASM_E_TOOL_FINISHED);
            aps_asm_priv_forget(a, &a->closed, it);
        }
        return tool_new(a, ev, key_len, &t);
    }
    if (it == NULL || it->kind != ITEM_TOOL) {
        if (a->opt.strict || (it != NULL && (it->flags & ITEM_POISONED)))
            return no_item(a, ev, it, key_len, APS_ASM_E_TOOL_FINISHED, APS_ASM_E_TOOL_UNKNOWN,
                           event_names[ev->kind]);
        /* default mode: nothing is dropped; the run is opened by the event */
        aps_asm_priv_describe(a, "%s for toolCallId \"%.*s\" %s: a tool run is opened for it", event_names[ev->kind],
                              aps_asm_priv_clip(ev->tool_call_id.len), ev->tool_call_id.ptr,
                              it != NULL ? "after the tool finished or failed" : "with no tool started");
        aps_asm_priv_report(a, ev, it != NULL ? APS_ASM_E_TOOL_FINISHED : APS_ASM_E_TOOL_UNKNOWN);
        if (it != NULL)
            aps_asm_priv_forget(a, &a->closed, it);
        if ((st = tool_new(a, ev, key_len, &t)) != APS_OK || t == NULL)
            return st;
        it = &t->item;
    }
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
