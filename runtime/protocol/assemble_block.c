/*
 * assemble_block.c - messages, tools and their content blocks (see
 * assemble_internal.h): what is copied at start and end, block start,
 * merge, delta and finish, and closing or failing an item.
 *
 * A block being streamed is a list of members; the member that deltas
 * append to is a growing buffer of unescaped text, written escaped when
 * the block is rendered, so appends cost amortised O(1) per byte.
 */
#include "assemble_internal.h"

#include <stdio.h>

/* ---- messages ----------------------------------------------------------- */

static void block_free_members(aps_assembler *a, asm_common *c, asm_block *b)
{
    size_t i;
    for (i = 0; i < b->n; i++) {
        aps_asm_priv_item_free(a, c, b->mem[i].key, b->mem[i].key_len);
        aps_asm_priv_item_free(a, c, b->mem[i].val, b->mem[i].cap);
    }
    aps_asm_priv_item_free(a, c, b->mem, b->cap * sizeof *b->mem);
    b->mem = NULL;
    b->n = b->cap = 0;
    b->append_kind = APS_ASM_DELTA_UNKNOWN;
}

static void common_free(aps_assembler *a, asm_common *c)
{
    aps_asm_priv_item_free(a, c, c->head, c->head_size);
    aps_asm_priv_item_free(a, c, c->tail, c->tail_size);
    c->head = c->tail = NULL;
}

/* Frees the contents of `m`; the struct stays as its tombstone. */
void aps_asm_priv_message_clear(aps_assembler *a, aps_asm_message *m)
{
    size_t i;
    for (i = 0; i < m->nblocks; i++) {
        block_free_members(a, &m->c, &m->blocks[i]);
        aps_asm_priv_item_free(a, &m->c, m->blocks[i].final, m->blocks[i].final_len);
    }
    aps_asm_priv_item_free(a, &m->c, m->blocks, m->blocks_cap * sizeof *m->blocks);
    m->blocks = NULL;
    m->nblocks = m->blocks_cap = 0;
    for (i = 0; i < m->nalias; i++)
        aps_asm_priv_item_free(a, &m->c, m->alias[i].type, m->alias[i].type_len + 1);
    aps_asm_priv_item_free(a, &m->c, m->alias, m->alias_cap * sizeof *m->alias);
    m->alias = NULL;
    m->nalias = m->alias_cap = 0;
    aps_asm_priv_item_free(a, &m->c, m->usage_buf, m->usage_size);
    m->usage_buf = NULL;
    common_free(a, &m->c);
}

void aps_asm_priv_tool_clear(aps_assembler *a, aps_asm_tool *t)
{
    aps_asm_priv_item_free(a, &t->c, t->out, t->out_cap);
    t->out = NULL;
    common_free(a, &t->c);
}

/* Drops `m` from the caches: it is closing, and its copy of the place is about to be freed. */
static void forget_recent(aps_assembler *a, const aps_asm_message *m)
{
    size_t i;
    if (a->last == m)
        a->last = NULL;
    for (i = 0; i < APS_ASM_RECENT; i++)
        if (a->recent[i] == m)
            a->recent[i] = NULL;
}

/* Delivers `m` and turns it into a tombstone (poisoned when it failed by violation). */
void aps_asm_priv_message_close(aps_assembler *a, aps_asm_message *m, int poisoned)
{
    if (a->cb.on_message_done)
        a->cb.on_message_done(a->cb.ctx, m);
    forget_recent(a, m);
    if (m->place != NULL) { /* its place has no current message any more */
        aps_asm_priv_forget(a, &a->places, &m->place->item);
        m->place = NULL;
    }
    aps_asm_priv_message_clear(a, m);
    aps_asm_priv_list_unlink(&a->open, &m->item);
    a->open_messages--;
    m->item.kind = ITEM_CLOSED;
    m->item.flags = poisoned ? ITEM_POISONED : 0;
    aps_asm_priv_closed_push(a, &m->item);
}

void aps_asm_priv_tool_close(aps_assembler *a, aps_asm_tool *t, int poisoned)
{
    size_t len;
    /*
     * a->key holds 'T' + this id (tool_event built it): look the link up
     * with the same bytes and 'L', then put the 'T' back for the caller.
     */
    a->key[0] = 'L';
    len = t->item.key_len;
    t->link = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, len), a->key, len);
    a->key[0] = 'T';
    if (a->cb.on_tool_done)
        a->cb.on_tool_done(a->cb.ctx, t);
    t->link = NULL;
    aps_asm_priv_tool_clear(a, t);
    aps_asm_priv_list_unlink(&a->open, &t->item);
    a->open_tools--;
    t->item.kind = ITEM_CLOSED;
    t->item.flags = poisoned ? ITEM_POISONED : 0;
    aps_asm_priv_closed_push(a, &t->item);
}

/* Fails `m` for verdict `v` (text in a->text), reports it and delivers it. */
aps_status aps_asm_priv_message_fail(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev,
                                     verdict v)
{
    aps_asm_priv_set_failure(&m->c, a, v);
    aps_asm_priv_report(a, ev, v);
    aps_asm_priv_message_close(a, m, 1);
    return v == APS_ASM_E_NOMEM ? APS_E_NOMEM : APS_OK;
}

aps_status aps_asm_priv_tool_fail(aps_assembler *a, aps_asm_tool *t, const aps_asm_event *ev, verdict v)
{
    aps_asm_priv_set_failure(&t->c, a, v);
    aps_asm_priv_report(a, ev, v);
    aps_asm_priv_tool_close(a, t, 1);
    return v == APS_ASM_E_NOMEM ? APS_E_NOMEM : APS_OK;
}

static int add_size(size_t *total, size_t n)
{
    if (n > SIZE_MAX - *total)
        return 0;
    *total += n;
    return 1;
}

/*
 * Copies the namespace, node and the given slices and raw values into one
 * allocation, `c->head`. `s` and `r` are updated to point at the copies.
 */
verdict aps_asm_priv_copy_head(aps_assembler *a, asm_common *c, const aps_asm_event *ev,
                               aps_slice **s, size_t ns_count, aps_json_raw **r, size_t nr)
{
    size_t size = 0, i;
    char *p;
    verdict v;
    if (ev->ns_len > SIZE_MAX / sizeof(aps_slice))
        return APS_ASM_E_LIMIT;
    if (!add_size(&size, ev->ns_len * sizeof(aps_slice)) || !add_size(&size, ev->node.len))
        return APS_ASM_E_LIMIT;
    for (i = 0; i < ev->ns_len; i++)
        if (!add_size(&size, ev->ns[i].len))
            return APS_ASM_E_LIMIT;
    for (i = 0; i < ns_count; i++)
        if (!add_size(&size, s[i]->len))
            return APS_ASM_E_LIMIT;
    for (i = 0; i < nr; i++)
        if (!add_size(&size, r[i]->len))
            return APS_ASM_E_LIMIT;
    /* padded, so that the fast path may read the place 16 bytes at a time */
    if (!add_size(&size, APS_PADDING))
        return APS_ASM_E_LIMIT;
    v = aps_asm_priv_item_alloc(a, c, size, (void **)&c->head);
    if (v != APS_ASM_OK)
        return v;
    c->head_size = size;
    c->ns = ev->ns_len ? (aps_slice *)(void *)c->head : NULL;
    c->ns_len = ev->ns_len;
    p = c->head + ev->ns_len * sizeof(aps_slice);
/* dst and src may be the same object. */
#define COPY_INTO(dst, src)                     \
    do {                                        \
        const char *from_ = (src).ptr;          \
        size_t n_ = (src).len;                  \
        (dst).ptr = from_ ? p : NULL;           \
        (dst).len = n_;                         \
        if (n_)                                 \
            memcpy(p, from_, n_);               \
        p += n_;                                \
    } while (0)
    for (i = 0; i < ev->ns_len; i++) {
        /* Segments are never NULL: an empty one still is a string. */
        c->ns[i].ptr = p;
        c->ns[i].len = ev->ns[i].len;
        if (ev->ns[i].len)
            memcpy(p, ev->ns[i].ptr, ev->ns[i].len);
        p += ev->ns[i].len;
    }
    if (ev->ns_len != 0)
        c->seg0 = c->ns[0];
    COPY_INTO(c->node, ev->node);
    for (i = 0; i < ns_count; i++)
        COPY_INTO(*s[i], *s[i]);
    for (i = 0; i < nr; i++)
        COPY_INTO(*r[i], *r[i]);
#undef COPY_INTO
    return APS_ASM_OK;
}

/* Copies message and code (error events) into c->tail and sets the error. */
verdict aps_asm_priv_copy_error(aps_assembler *a, asm_common *c, const aps_asm_event *ev)
{
    size_t size = ev->message.len;
    verdict v;
    if (!add_size(&size, ev->code.len))
        return APS_ASM_E_LIMIT;
    v = aps_asm_priv_item_alloc(a, c, size, (void **)&c->tail);
    if (v != APS_ASM_OK)
        return v;
    c->tail_size = size;
    c->err_message.ptr = c->tail;
    c->err_message.len = ev->message.len;
    if (ev->message.len)
        memcpy(c->tail, ev->message.ptr, ev->message.len);
    c->err_code.ptr = ev->code.ptr ? c->tail + ev->message.len : NULL;
    c->err_code.len = ev->code.len;
    if (ev->code.len)
        memcpy(c->tail + ev->message.len, ev->code.ptr, ev->code.len);
    c->state = APS_ASM_ERROR;
    return APS_ASM_OK;
}

verdict aps_asm_priv_copy_tail_raw(aps_assembler *a, asm_common *c, aps_json_raw in, aps_json_raw *out)
{
    verdict v;
    out->ptr = NULL;
    out->len = 0;
    if (in.ptr == NULL)
        return APS_ASM_OK;
    v = aps_asm_priv_item_dup(a, c, in.ptr, in.len, &c->tail);
    if (v != APS_ASM_OK)
        return v;
    c->tail_size = in.len;
    out->ptr = c->tail;
    out->len = in.len;
    return APS_ASM_OK;
}

static int slice_is(aps_slice s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

static int class_of(aps_slice type)
{
    if (slice_is(type, "text"))
        return CLASS_TEXT;
    if (slice_is(type, "reasoning"))
        return CLASS_REASONING;
    if (slice_is(type, "image") || slice_is(type, "audio") || slice_is(type, "video") ||
        slice_is(type, "file"))
        return CLASS_DATA;
    if (slice_is(type, "tool_call_chunk") || slice_is(type, "server_tool_call_chunk"))
        return CLASS_TOOL_CHUNK;
    return CLASS_OTHER;
}

/* Reads the raw JSON string `raw` unescaped (scratch arena); 0 if it is not a string. */
static int raw_string(aps_assembler *a, aps_json_raw raw, aps_slice *out, verdict *v)
{
    aps_json_reader r;
    aps_status st;
    *v = APS_ASM_OK;
    if (aps_json_raw_kind(raw) != APS_JSON_STRING)
        return 0;
    /* Most strings have no escape: the bytes between the quotes are the text. */
    if (memchr(raw.ptr, '\\', raw.len) == NULL) {
        out->ptr = raw.ptr + 1;
        out->len = raw.len - 2;
        return 1;
    }
    aps_json_raw_reader(&r, raw, &a->scratch);
    st = aps_json_read_string(&r, out, NULL);
    if (st == APS_E_NOMEM || st == APS_E_LIMIT)
        *v = APS_ASM_E_NOMEM;
    return st == APS_OK;
}

/* The class of the block from its `type` member. */
static int block_class(aps_assembler *a, const asm_block *b, verdict *v)
{
    size_t i;
    *v = APS_ASM_OK;
    for (i = 0; i < b->n; i++) {
        const asm_member *mb = &b->mem[i];
        if (mb->key_len == 4 && memcmp(mb->key, "type", 4) == 0) {
            aps_slice s;
            aps_json_raw raw;
            if (mb->text) {
                s.ptr = mb->val;
                s.len = mb->len;
                return class_of(s);
            }
            raw.ptr = mb->val;
            raw.len = mb->len;
            return raw_string(a, raw, &s, v) ? class_of(s) : CLASS_OTHER;
        }
    }
    return CLASS_OTHER;
}

static size_t member_find(const asm_block *b, const char *key, size_t len)
{
    size_t i;
    for (i = 0; i < b->n; i++)
        if (b->mem[i].key_len == len && memcmp(b->mem[i].key, key, len) == 0)
            return i;
    return SIZE_MAX;
}

/* Adds member `key` (value empty) to `b`; sets *at. */
static verdict member_add(aps_assembler *a, asm_common *c, asm_block *b, aps_slice key, size_t *at)
{
    asm_member *mb;
    verdict v;
    if (b->n >= a->opt.max_block_members)
        return APS_ASM_E_LIMIT;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        asm_member *mem;
        if (cap > a->opt.max_block_members)
            cap = a->opt.max_block_members;
        v = aps_asm_priv_item_alloc(a, c, cap * sizeof *mem, (void **)&mem);
        if (v != APS_ASM_OK)
            return v;
        if (b->n)
            memcpy(mem, b->mem, b->n * sizeof *mem);
        aps_asm_priv_item_free(a, c, b->mem, b->cap * sizeof *b->mem);
        b->mem = mem;
        b->cap = cap;
    }
    mb = &b->mem[b->n];
    memset(mb, 0, sizeof *mb);
    v = aps_asm_priv_item_dup(a, c, key.ptr, key.len, &mb->key);
    if (v != APS_ASM_OK)
        return v;
    mb->key_len = key.len;
    *at = b->n++;
    return APS_ASM_OK;
}

/* Sets member `at` to a copy of `raw`. */
static verdict member_set_raw(aps_assembler *a, asm_common *c, asm_member *mb, aps_json_raw raw)
{
    char *val;
    verdict v = aps_asm_priv_item_dup(a, c, raw.ptr, raw.len, &val);
    if (v != APS_ASM_OK)
        return v;
    aps_asm_priv_item_free(a, c, mb->val, mb->cap);
    mb->val = val;
    mb->len = mb->cap = raw.len;
    mb->text = 0;
    return APS_ASM_OK;
}

/*
 * Merges the members of the JSON object `obj` onto `b` (content-block-start
 * builds the block this way from nothing, block-delta onto the block).
 */
static verdict block_merge_except(aps_assembler *a, asm_common *c, asm_block *b, aps_json_raw obj,
                                  const char *const *skip, size_t nskip)
{
    aps_json_reader r;
    aps_slice key;
    aps_json_raw val;
    int more, added;
    aps_status st;
    verdict v;
    if (aps_json_raw_kind(obj) != APS_JSON_OBJECT)
        return APS_ASM_E_NOT_OBJECT;
    aps_json_raw_reader(&r, obj, &a->scratch);
    st = aps_json_read_object(&r, NULL);
    while (st == APS_OK && (st = aps_json_next_member(&r, &key, &more, NULL)) == APS_OK && more) {
        size_t at;
        size_t k;
        if ((st = aps_json_read_raw(&r, &val, NULL)) != APS_OK)
            break;
        for (k = 0; k < nskip; k++)
            if (key.len == strlen(skip[k]) && memcmp(key.ptr, skip[k], key.len) == 0)
                break;
        if (k < nskip)
            continue;
        at = member_find(b, key.ptr, key.len);
        added = at == SIZE_MAX;
        if (added && (v = member_add(a, c, b, key, &at)) != APS_ASM_OK)
            return v;
        if ((v = member_set_raw(a, c, &b->mem[at], val)) != APS_ASM_OK) {
            if (added) { /* a member without a value must not be rendered */
                aps_asm_priv_item_free(a, c, b->mem[at].key, b->mem[at].key_len);
                b->n--;
            }
            return v;
        }
    }
    /* Raw values are valid JSON: only memory can fail, unless the caller broke that promise. */
    if (st != APS_OK)
        return st == APS_E_NOMEM || st == APS_E_LIMIT ? APS_ASM_E_NOMEM : APS_ASM_E_NOT_OBJECT;
    b->append_kind = APS_ASM_DELTA_UNKNOWN;
    b->cls = block_class(a, b, &v);
    return v;
}

static verdict block_merge(aps_assembler *a, asm_common *c, asm_block *b, aps_json_raw obj)
{
    return block_merge_except(a, c, b, obj, NULL, 0);
}

/* The member a delta appends to; data-delta: `base64` as the protocol says, `data` as the reference client does. */
static const char *append_field(aps_asm_delta kind, int strict, size_t *len)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: *len = 4; return "text";
    case APS_ASM_DELTA_REASONING: *len = 9; return "reasoning";
    case APS_ASM_DELTA_DATA: *len = strict ? 6 : 4; return strict ? "base64" : "data";
    default: *len = 4; return "args";
    }
}

static int delta_fits(aps_asm_delta kind, int cls)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: return cls == CLASS_TEXT;
    case APS_ASM_DELTA_REASONING: return cls == CLASS_REASONING;
    case APS_ASM_DELTA_DATA: return cls == CLASS_DATA;
    case APS_ASM_DELTA_TOOL_CALL: return cls == CLASS_TOOL_CHUNK;
    default: return 1;
    }
}

static const char *delta_name(aps_asm_delta kind)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: return "text-delta";
    case APS_ASM_DELTA_REASONING: return "reasoning-delta";
    case APS_ASM_DELTA_DATA: return "data-delta";
    case APS_ASM_DELTA_BLOCK: return "block-delta";
    case APS_ASM_DELTA_TOOL_CALL: return "tool-call-delta";
    default: return "delta of unknown type";
    }
}

/* Makes the member that `kind` appends to a text buffer; sets b->append_at. */
static verdict append_target(aps_assembler *a, asm_common *c, asm_block *b, aps_asm_delta kind)
{
    size_t flen, at;
    const char *field = append_field(kind, a->opt.strict, &flen);
    asm_member *mb;
    verdict v;
    at = member_find(b, field, flen);
    if (at == SIZE_MAX) {
        aps_slice key;
        key.ptr = field;
        key.len = flen;
        if ((v = member_add(a, c, b, key, &at)) != APS_ASM_OK)
            return v;
        b->mem[at].text = 1;
    }
    mb = &b->mem[at];
    if (!mb->text) {
        aps_json_raw raw;
        aps_slice s;
        raw.ptr = mb->val;
        raw.len = mb->len;
        if (aps_json_raw_kind(raw) == APS_JSON_NULL) {
            mb->len = 0;
        } else if (raw_string(a, raw, &s, &v)) {
            /* Unescaped text is never longer than its JSON: it fits in place. */
            memmove(mb->val, s.ptr, s.len);
            mb->len = s.len;
        } else {
            if (v != APS_ASM_OK)
                return v;
            aps_asm_priv_describe(a, "%s appends to member \"%s\", which is neither a string nor null",
                                  delta_name(kind), field);
            if (a->opt.strict)
                return APS_ASM_E_FIELD_TYPE;
            aps_asm_priv_report(a, NULL, APS_ASM_E_FIELD_TYPE); /* default mode: the text starts anew */
            mb->len = 0;
        }
        mb->text = 1;
    }
    b->append_kind = kind;
    b->append_at = at;
    return APS_ASM_OK;
}

void aps_asm_priv_describe_message(aps_assembler *a, const aps_asm_message *m, const char *what)
{
    aps_asm_priv_describe(a, "%s (message \"%.*s\")", what, aps_asm_priv_clip(m->id.len), m->id.ptr ? m->id.ptr : "");
}

/* Checks that ev->index is the open block; describes the violation if not. */
static verdict check_open_block(aps_assembler *a, const aps_asm_message *m, const aps_asm_event *ev,
                                const char *what)
{
    char buf[160];
    if (m->block_open && ev->index == m->nblocks - 1)
        return APS_ASM_OK;
    if (ev->index >= m->nblocks) {
        snprintf(buf, sizeof buf, "%s for block %llu, which was never started", what,
                 (unsigned long long)ev->index);
        aps_asm_priv_describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_NOT_STARTED;
    }
    snprintf(buf, sizeof buf, "%s for block %llu, which is already finished", what,
             (unsigned long long)ev->index);
    aps_asm_priv_describe_message(a, m, buf);
    return APS_ASM_E_BLOCK_FINISHED;
}

static verdict strict_block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    char buf[160];
    asm_block *b;
    verdict v;
    if (m->block_open) {
        snprintf(buf, sizeof buf, "content-block-start for block %llu while block %llu is open",
                 (unsigned long long)ev->index, (unsigned long long)(m->nblocks - 1));
        aps_asm_priv_describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_OPEN;
    }
    if (ev->index != m->nblocks) {
        snprintf(buf, sizeof buf, "content-block-start for block %llu, expected block %llu",
                 (unsigned long long)ev->index, (unsigned long long)m->nblocks);
        aps_asm_priv_describe_message(a, m, buf);
        return APS_ASM_E_BLOCK_INDEX;
    }
    if (m->nblocks == m->blocks_cap) {
        size_t cap = m->blocks_cap ? m->blocks_cap * 2 : 4;
        asm_block *blocks;
        if (cap > SIZE_MAX / sizeof *blocks)
            return APS_ASM_E_LIMIT;
        v = aps_asm_priv_item_alloc(a, &m->c, cap * sizeof *blocks, (void **)&blocks);
        if (v != APS_ASM_OK)
            goto fail;
        if (m->nblocks)
            memcpy(blocks, m->blocks, m->nblocks * sizeof *blocks);
        aps_asm_priv_item_free(a, &m->c, m->blocks, m->blocks_cap * sizeof *m->blocks);
        m->blocks = blocks;
        m->blocks_cap = cap;
    }
    b = &m->blocks[m->nblocks++];
    memset(b, 0, sizeof *b);
    b->present = b->open = 1;
    m->block_open = 1;
    v = block_merge(a, &m->c, b, ev->content);
    if (v == APS_ASM_E_NOT_OBJECT)
        aps_asm_priv_describe_message(a, m, "content-block-start whose content is not an object");
fail:
    if (v == APS_ASM_E_LIMIT)
        aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
    return v;
}

/* Whether a finished block of this type may be the tool_call block of a tool. */
static int linkable(aps_slice type)
{
    static const char *const never[] = { "text", "reasoning", "image", "audio", "video",
                                         "file", "non_standard", "server_tool_result" };
    size_t i;
    for (i = 0; i < sizeof never / sizeof never[0]; i++)
        if (slice_is(type, never[i]))
            return 0;
    return 1;
}

/* Remembers the finished block `content` under its `id`, if it may be a tool call's. */
static verdict link_block(aps_assembler *a, aps_json_raw content)
{
    aps_json_raw type_raw, id_raw;
    aps_slice type, id;
    size_t key_len;
    asm_link *l;
    aps_asm_item *old;
    verdict v;
    aps_status st = aps_json_raw_member(content, "id", 2, &a->scratch, &id_raw, NULL);
    if (st == APS_OK)
        st = aps_json_raw_member(content, "type", 4, &a->scratch, &type_raw, NULL);
    if (st != APS_OK)
        return st == APS_E_NOMEM || st == APS_E_LIMIT ? APS_ASM_E_NOMEM : APS_ASM_OK;
    if (!raw_string(a, type_raw, &type, &v) || !linkable(type))
        return v;
    if (!raw_string(a, id_raw, &id, &v))
        return v;
    if (content.len > a->opt.max_link_bytes)
        return APS_ASM_OK;
    if (aps_asm_priv_id_key(a, 'L', id, &key_len) != APS_OK)
        return APS_ASM_E_NOMEM;
    old = aps_asm_priv_map_find(&a->map, aps_asm_priv_hash_bytes(a->seed, a->key, key_len), a->key, key_len);
    if (old != NULL)
        aps_asm_priv_forget(a, &a->links, old);
    if (content.len > SIZE_MAX - sizeof *l - key_len)
        return APS_ASM_OK;
    l = (asm_link *)aps_asm_priv_item_new(a, ITEM_LINK, sizeof *l + content.len, key_len);
    if (l == NULL)
        return APS_ASM_E_NOMEM;
    /* The JSON sits right after the struct; item_new put the key after it. */
    l->json = (const char *)(l + 1);
    memcpy((char *)(l + 1), content.ptr, content.len);
    l->len = content.len;
    if (aps_asm_priv_map_insert(a, &l->item) != APS_OK) {
        aps_asm_priv_mem_free(a, l, l->item.size);
        return APS_ASM_E_NOMEM;
    }
    aps_asm_priv_list_push(&a->links, &l->item);
    while (a->links.bytes > a->opt.max_link_bytes)
        aps_asm_priv_forget(a, &a->links, a->links.head);
    return APS_ASM_OK;
}

static verdict strict_block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    asm_block *b;
    verdict v = check_open_block(a, m, ev, "content-block-finish");
    if (v != APS_ASM_OK)
        return v;
    if (aps_json_raw_kind(ev->content) != APS_JSON_OBJECT) {
        aps_asm_priv_describe_message(a, m, "content-block-finish whose content is not an object");
        return APS_ASM_E_NOT_OBJECT;
    }
    b = &m->blocks[m->nblocks - 1];
    v = aps_asm_priv_item_dup(a, &m->c, ev->content.ptr, ev->content.len, &b->final);
    if (v == APS_ASM_E_LIMIT)
        aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
    if (v != APS_ASM_OK)
        return v;
    b->final_len = ev->content.len;
    block_free_members(a, &m->c, b);
    b->open = 0;
    m->block_open = 0;
    return link_block(a, ev->content);
}

/*
 * Appends `text` to the member of block `b` that deltas of `kind` append
 * to. `index` is the event's: the fast path takes the next delta of the
 * same kind and index straight to this member, which is only right while
 * `m` is the current message of its place and when `hot` (the default
 * mode's content-shaped deltas are not).
 */
static verdict append(aps_assembler *a, aps_asm_message *m, asm_block *b, aps_asm_delta kind, aps_slice text,
                      uint64_t index, int hot)
{
    asm_member *mb;
    verdict v;
    if (b->append_kind != kind) {
        v = append_target(a, &m->c, b, kind);
        if (v == APS_ASM_E_LIMIT)
            aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    mb = &b->mem[b->append_at];
    if (text.len > mb->cap - mb->len) {
        if (text.len > SIZE_MAX - mb->len)
            v = APS_ASM_E_LIMIT;
        else
            v = aps_asm_priv_grow(a, &m->c, &mb->val, mb->len, &mb->cap, mb->len + text.len);
        if (v == APS_ASM_E_LIMIT)
            aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    if (text.len) {
        memcpy(mb->val + mb->len, text.ptr, text.len);
        mb->len += text.len;
    }
    if (hot && m->place != NULL) {
        m->hot = mb;
        m->hot_kind = kind;
        m->hot_index = index;
    }
    if (a->cb.on_append)
        a->cb.on_append(a->cb.ctx, m, index, kind, text);
    return APS_ASM_OK;
}

static verdict strict_block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    asm_block *b;
    verdict v;
    char buf[160];
    if (!m->block_open || ev->index != m->nblocks - 1)
        return check_open_block(a, m, ev, "content-block-delta");
    b = &m->blocks[m->nblocks - 1];
    if (ev->content.ptr != NULL) {
        aps_asm_priv_describe_message(a, m, "content-block-delta with `content` instead of `delta`");
        return APS_ASM_E_LEGACY_DELTA;
    }
    switch (ev->delta) {
    case APS_ASM_DELTA_TEXT:
    case APS_ASM_DELTA_REASONING:
    case APS_ASM_DELTA_DATA:
    case APS_ASM_DELTA_TOOL_CALL:
        break;
    case APS_ASM_DELTA_BLOCK:
        v = block_merge(a, &m->c, b, ev->fields);
        if (v == APS_ASM_E_NOT_OBJECT)
            aps_asm_priv_describe_message(a, m, "block-delta whose fields are not an object");
        else if (v == APS_ASM_E_LIMIT)
            aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
        return v;
    default:
        return APS_ASM_OK; /* unknown delta types are skipped, as the spec asks */
    }
    if (b->append_kind != ev->delta && !delta_fits(ev->delta, b->cls)) {
        snprintf(buf, sizeof buf, "%s on block %llu, whose type does not take it",
                 delta_name(ev->delta), (unsigned long long)ev->index);
        aps_asm_priv_describe_message(a, m, buf);
        return APS_ASM_E_DELTA_MISMATCH;
    }
    return append(a, m, b, ev->delta, ev->text, ev->index, 1);
}

/* ---- the default mode: the reference client's rules (docs/assembly.md) ------ */

/* A block's or a delta's `type`: has == 0 for none; a string unescaped, another value as its JSON. */
typedef struct asm_type {
    int has;
    aps_slice s;
} asm_type;

static verdict type_of_raw(aps_assembler *a, aps_json_raw raw, asm_type *t)
{
    verdict v;
    t->has = 1;
    if (raw_string(a, raw, &t->s, &v) || v != APS_ASM_OK)
        return v;
    t->s.ptr = raw.ptr;
    t->s.len = raw.len;
    return APS_ASM_OK;
}

/* The `type` member of the JSON object `obj`. */
static verdict type_of_object(aps_assembler *a, aps_json_raw obj, asm_type *t)
{
    aps_json_raw raw;
    aps_status st = aps_json_raw_member(obj, "type", 4, &a->scratch, &raw, NULL);
    t->has = 0;
    if (st == APS_E_NOMEM || st == APS_E_LIMIT)
        return APS_ASM_E_NOMEM;
    return st == APS_OK ? type_of_raw(a, raw, t) : APS_ASM_OK;
}

static verdict type_of_block(aps_assembler *a, const asm_block *b, asm_type *t)
{
    size_t at;
    aps_json_raw raw;
    t->has = 0;
    if (!b->present)
        return APS_ASM_OK;
    if (b->final != NULL) {
        raw.ptr = b->final;
        raw.len = b->final_len;
        return type_of_object(a, raw, t);
    }
    if ((at = member_find(b, "type", 4)) == SIZE_MAX)
        return APS_ASM_OK;
    if (b->mem[at].text) {
        t->has = 1;
        t->s.ptr = b->mem[at].val ? b->mem[at].val : "";
        t->s.len = b->mem[at].len;
        return APS_ASM_OK;
    }
    raw.ptr = b->mem[at].val;
    raw.len = b->mem[at].len;
    return type_of_raw(a, raw, t);
}

static int type_same(asm_type x, asm_type y)
{
    return x.has == y.has && (!x.has || (x.s.len == y.s.len && memcmp(x.s.ptr, y.s.ptr, x.s.len) == 0));
}

static int type_is(asm_type t, const char *lit)
{
    return t.has && slice_is(t.s, lit);
}

/* Types whose chunks the reference client lets share an index. */
static int compatible(asm_type x, asm_type y)
{
    static const char *const tool[] = { "tool_call", "tool_call_chunk", "tool_use", "input_json_delta" };
    int xt = 0, yt = 0;
    size_t i;
    for (i = 0; i < sizeof tool / sizeof tool[0]; i++) {
        xt |= type_is(x, tool[i]);
        yt |= type_is(y, tool[i]);
    }
    if (xt && yt)
        return 1;
    xt = type_is(x, "server_tool_call") || type_is(x, "server_tool_call_chunk");
    yt = type_is(y, "server_tool_call") || type_is(y, "server_tool_call_chunk");
    return xt && yt;
}

static int is_chunk(asm_type t)
{
    return type_is(t, "tool_call_chunk") || type_is(t, "server_tool_call_chunk");
}

static size_t alias_find(const aps_asm_message *m, uint64_t index, asm_type t)
{
    size_t i;
    for (i = 0; i < m->nalias; i++) {
        asm_type at;
        at.has = m->alias[i].type != NULL;
        at.s.ptr = m->alias[i].type;
        at.s.len = m->alias[i].type_len;
        if (m->alias[i].index == index && type_same(at, t))
            return i;
    }
    return SIZE_MAX;
}

/* Block (index, type) goes to block `target` from now on. */
static verdict alias_set(aps_assembler *a, aps_asm_message *m, uint64_t index, asm_type t, size_t target)
{
    size_t at = alias_find(m, index, t);
    asm_alias *al;
    verdict v;
    if (at != SIZE_MAX) {
        m->alias[at].target = target;
        return APS_ASM_OK;
    }
    if (m->nalias == m->alias_cap) {
        size_t cap = m->alias_cap ? m->alias_cap * 2 : 4;
        if (cap > SIZE_MAX / sizeof *al)
            return APS_ASM_E_LIMIT;
        v = aps_asm_priv_item_alloc(a, &m->c, cap * sizeof *al, (void **)&al);
        if (v != APS_ASM_OK)
            return v;
        if (m->nalias)
            memcpy(al, m->alias, m->nalias * sizeof *al);
        aps_asm_priv_item_free(a, &m->c, m->alias, m->alias_cap * sizeof *m->alias);
        m->alias = al;
        m->alias_cap = cap;
    }
    al = &m->alias[m->nalias];
    memset(al, 0, sizeof *al);
    if (t.has) { /* one byte more, so that the type "" has a copy too */
        v = aps_asm_priv_item_alloc(a, &m->c, t.s.len + 1, (void **)&al->type);
        if (v != APS_ASM_OK)
            return v;
        if (t.s.len)
            memcpy(al->type, t.s.ptr, t.s.len);
        al->type_len = t.s.len;
    }
    al->index = index;
    al->target = target;
    m->nalias++;
    return APS_ASM_OK;
}

/* Makes block `i` exist (holes between are empty); blocks are placed by index. */
static verdict blocks_reserve(aps_assembler *a, aps_asm_message *m, uint64_t i)
{
    size_t need;
    asm_block *blocks;
    verdict v;
    if (i >= SIZE_MAX / sizeof *blocks - 1)
        return APS_ASM_E_LIMIT;
    need = (size_t)i + 1;
    if (need > m->blocks_cap) {
        size_t cap = m->blocks_cap ? m->blocks_cap * 2 : 4;
        if (cap < need || cap > SIZE_MAX / sizeof *blocks)
            cap = need;
        v = aps_asm_priv_item_alloc(a, &m->c, cap * sizeof *blocks, (void **)&blocks);
        if (v != APS_ASM_OK)
            return v;
        if (m->nblocks)
            memcpy(blocks, m->blocks, m->nblocks * sizeof *blocks);
        aps_asm_priv_item_free(a, &m->c, m->blocks, m->blocks_cap * sizeof *m->blocks);
        m->blocks = blocks;
        m->blocks_cap = cap;
    }
    if (need > m->nblocks) {
        memset(m->blocks + m->nblocks, 0, (need - m->nblocks) * sizeof *m->blocks);
        m->nblocks = need;
    }
    return APS_ASM_OK;
}

/* Empties block `b` (members and final content); its place in the lifecycle stays. */
static void block_empty(aps_assembler *a, aps_asm_message *m, asm_block *b)
{
    block_free_members(a, &m->c, b);
    aps_asm_priv_item_free(a, &m->c, b->final, b->final_len);
    b->final = NULL;
    b->final_len = 0;
    b->cls = CLASS_OTHER;
}

/* Block `b` counts as started (a delta, or a start, made it). */
static void block_opened(aps_asm_message *m, asm_block *b)
{
    b->present = 1;
    if (!b->open) {
        b->open = 1;
        m->open_blocks++;
    }
}

/* A finished block that a delta changes goes back to members, as the reference edits its object. */
static verdict block_reopen(aps_assembler *a, aps_asm_message *m, asm_block *b)
{
    aps_json_raw fin;
    char *keep = b->final;
    size_t keep_len = b->final_len;
    verdict v;
    if (b->final == NULL)
        return APS_ASM_OK;
    fin.ptr = keep;
    fin.len = keep_len;
    b->final = NULL;
    v = block_merge(a, &m->c, b, fin);
    aps_asm_priv_item_free(a, &m->c, keep, keep_len);
    b->final_len = 0;
    return v;
}

/* The text a value appends, as a template string would give it, but null and absent as "". */
static verdict text_of_raw(aps_assembler *a, aps_json_raw raw, aps_slice *out)
{
    verdict v;
    out->ptr = "";
    out->len = 0;
    if (raw.ptr == NULL || aps_json_raw_kind(raw) == APS_JSON_NULL)
        return APS_ASM_OK;
    if (raw_string(a, raw, out, &v) || v != APS_ASM_OK)
        return v;
    out->ptr = raw.ptr;
    out->len = raw.len;
    return APS_ASM_OK;
}

/* Member `name` of `obj`; ptr NULL when absent. */
static verdict member_of(aps_assembler *a, aps_json_raw obj, const char *name, aps_json_raw *out)
{
    aps_status st = aps_json_raw_member(obj, name, strlen(name), &a->scratch, out, NULL);
    if (st == APS_E_NOMEM || st == APS_E_LIMIT)
        return APS_ASM_E_NOMEM;
    if (st != APS_OK)
        out->ptr = NULL, out->len = 0;
    return APS_ASM_OK;
}

static int raw_absent_or_null(aps_json_raw r)
{
    return r.ptr == NULL || aps_json_raw_kind(r) == APS_JSON_NULL;
}

/* Whether block `b` has member `name` with a value other than null. */
static int has_value(const asm_block *b, const char *name)
{
    size_t at = member_find(b, name, strlen(name));
    aps_json_raw r;
    if (at == SIZE_MAX)
        return 0;
    if (b->mem[at].text)
        return 1;
    r.ptr = b->mem[at].val;
    r.len = b->mem[at].len;
    return !raw_absent_or_null(r);
}

/*
 * A content-shaped delta `c` (of type `ct`) onto block `b`: a block of
 * another type is replaced; text and reasoning append their text; tool
 * call chunks append `args` and keep an id and name the chunk does not
 * give; other blocks take the chunk's members.
 */
static verdict legacy_apply(aps_assembler *a, aps_asm_message *m, asm_block *b, aps_json_raw c, asm_type ct,
                            uint64_t index)
{
    const char *skip[3];
    size_t nskip = 0;
    aps_asm_delta kind;
    aps_json_raw part;
    aps_slice text;
    asm_type bt;
    verdict v = type_of_block(a, b, &bt);
    if (v != APS_ASM_OK)
        return v;
    if (!b->present || !type_same(bt, ct)) {
        block_empty(a, m, b);
        return block_merge(a, &m->c, b, c);
    }
    if ((v = block_reopen(a, m, b)) != APS_ASM_OK)
        return v;
    if (type_is(ct, "text")) {
        kind = APS_ASM_DELTA_TEXT;
        skip[nskip++] = "text";
    } else if (type_is(ct, "reasoning")) {
        kind = APS_ASM_DELTA_REASONING;
        skip[nskip++] = "reasoning";
    } else if (is_chunk(ct)) {
        aps_json_raw id, name;
        kind = APS_ASM_DELTA_TOOL_CALL;
        skip[nskip++] = "args";
        if ((v = member_of(a, c, "id", &id)) != APS_ASM_OK || (v = member_of(a, c, "name", &name)) != APS_ASM_OK)
            return v;
        if (raw_absent_or_null(id) && has_value(b, "id"))
            skip[nskip++] = "id";
        if (raw_absent_or_null(name) && has_value(b, "name"))
            skip[nskip++] = "name";
    } else {
        return block_merge(a, &m->c, b, c);
    }
    if ((v = member_of(a, c, skip[0], &part)) != APS_ASM_OK || (v = text_of_raw(a, part, &text)) != APS_ASM_OK)
        return v;
    /* the text is in the scratch arena or in the event: both outlive the merge */
    if ((v = block_merge_except(a, &m->c, b, c, skip, nskip)) != APS_ASM_OK)
        return v;
    return append(a, m, b, kind, text, index, 0);
}

static void warn(aps_assembler *a, const aps_asm_event *ev, verdict v)
{
    aps_asm_priv_report(a, ev, v);
}

static verdict limit_text(aps_assembler *a, const aps_asm_message *m, verdict v)
{
    if (v == APS_ASM_E_LIMIT)
        aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
    return v;
}

static verdict lenient_block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    char buf[160];
    asm_block *b;
    asm_type t;
    verdict v;
    size_t i;
    if (aps_json_raw_kind(ev->content) != APS_JSON_OBJECT) {
        aps_asm_priv_describe_message(a, m, "content-block-start whose content is not an object: ignored");
        warn(a, ev, APS_ASM_E_NOT_OBJECT);
        return APS_ASM_OK;
    }
    if (m->open_blocks != 0) {
        for (i = 0; i < m->nblocks && !m->blocks[i].open; i++)
            ;
        snprintf(buf, sizeof buf, "content-block-start for block %llu while block %llu is open",
                 (unsigned long long)ev->index, (unsigned long long)i);
        aps_asm_priv_describe_message(a, m, buf);
        warn(a, ev, APS_ASM_E_BLOCK_OPEN);
    } else if (ev->index != m->nblocks) {
        snprintf(buf, sizeof buf, "content-block-start for block %llu, expected block %llu",
                 (unsigned long long)ev->index, (unsigned long long)m->nblocks);
        aps_asm_priv_describe_message(a, m, buf);
        warn(a, ev, APS_ASM_E_BLOCK_INDEX);
    }
    if ((v = type_of_object(a, ev->content, &t)) != APS_ASM_OK ||
        (v = blocks_reserve(a, m, ev->index)) != APS_ASM_OK)
        return limit_text(a, m, v);
    b = &m->blocks[ev->index];
    block_empty(a, m, b);
    block_opened(m, b);
    if ((v = block_merge(a, &m->c, b, ev->content)) != APS_ASM_OK)
        return limit_text(a, m, v);
    return limit_text(a, m, alias_set(a, m, ev->index, t, (size_t)ev->index));
}

static verdict lenient_block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    char buf[160];
    const asm_block *cur;
    asm_block *b;
    asm_type t;
    size_t at, target;
    verdict v;
    if (aps_json_raw_kind(ev->content) != APS_JSON_OBJECT) {
        aps_asm_priv_describe_message(a, m, "content-block-finish whose content is not an object: ignored");
        warn(a, ev, APS_ASM_E_NOT_OBJECT);
        return APS_ASM_OK;
    }
    if ((v = type_of_object(a, ev->content, &t)) != APS_ASM_OK)
        return v;
    cur = ev->index < m->nblocks && m->blocks[ev->index].present ? &m->blocks[ev->index] : NULL;
    if (cur == NULL || !cur->open) {
        snprintf(buf, sizeof buf, "content-block-finish for block %llu, which %s", (unsigned long long)ev->index,
                 cur == NULL ? "was never started" : "is already finished");
        aps_asm_priv_describe_message(a, m, buf);
        warn(a, ev, cur == NULL ? APS_ASM_E_BLOCK_NOT_STARTED : APS_ASM_E_BLOCK_FINISHED);
    }
    /* the block a delta of this type went to, if one did */
    at = alias_find(m, ev->index, t);
    target = at != SIZE_MAX ? m->alias[at].target : (size_t)ev->index;
    if (at == SIZE_MAX && (v = alias_set(a, m, ev->index, t, target)) != APS_ASM_OK)
        return limit_text(a, m, v);
    if ((v = blocks_reserve(a, m, target)) != APS_ASM_OK)
        return limit_text(a, m, v);
    b = &m->blocks[target];
    block_empty(a, m, b);
    if ((v = aps_asm_priv_item_dup(a, &m->c, ev->content.ptr, ev->content.len, &b->final)) != APS_ASM_OK)
        return limit_text(a, m, v);
    b->final_len = ev->content.len;
    b->present = 1;
    if (b->open) {
        b->open = 0;
        m->open_blocks--;
    }
    return link_block(a, ev->content);
}

static verdict lenient_block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    static const aps_json_raw text_block = { "{\"type\":\"text\"}", 15 };
    static const aps_json_raw reasoning_block = { "{\"type\":\"reasoning\"}", 20 };
    const uint64_t i = ev->index;
    asm_block *cur = i < m->nblocks && m->blocks[i].present ? &m->blocks[i] : NULL, *b;
    asm_type t, ct;
    size_t target, at;
    int was_open, hot;
    char buf[200];
    verdict v = APS_ASM_OK;
    t.has = ct.has = 0;
    if (cur != NULL && (v = type_of_block(a, cur, &ct)) != APS_ASM_OK)
        return v;
    if (ev->content.ptr != NULL) {
        if (aps_json_raw_kind(ev->content) != APS_JSON_OBJECT) {
            aps_asm_priv_describe_message(a, m, "content-block-delta whose content is not an object: ignored");
            warn(a, ev, APS_ASM_E_NOT_OBJECT);
            return APS_ASM_OK;
        }
        v = type_of_object(a, ev->content, &t);
    } else {
        switch (ev->delta) {
        case APS_ASM_DELTA_TEXT:
            t.has = 1, t.s.ptr = "text", t.s.len = 4;
            break;
        case APS_ASM_DELTA_REASONING:
            t.has = 1, t.s.ptr = "reasoning", t.s.len = 9;
            break;
        case APS_ASM_DELTA_DATA: /* a data chunk takes the type of the block at its index */
            t = ct;
            break;
        case APS_ASM_DELTA_BLOCK:
            if (aps_json_raw_kind(ev->fields) != APS_JSON_OBJECT) {
                aps_asm_priv_describe_message(a, m, "block-delta whose fields are not an object: ignored");
                warn(a, ev, APS_ASM_E_NOT_OBJECT);
                return APS_ASM_OK;
            }
            v = type_of_object(a, ev->fields, &t);
            break;
        case APS_ASM_DELTA_TOOL_CALL:
            if (!is_chunk(ct)) { /* reported once for a run of them, as a coalesced run would be */
                snprintf(buf, sizeof buf, "tool-call-delta on block %llu, which is no tool call chunk: ignored",
                         (unsigned long long)i);
                aps_asm_priv_describe_message(a, m, buf);
                if (!m->continuing)
                    warn(a, ev, APS_ASM_E_DELTA_MISMATCH);
                m->skip_kind = ev->delta;
                m->skip_index = i;
                return APS_ASM_OK;
            }
            t = ct;
            break;
        default:
            return APS_ASM_OK; /* unknown delta types are skipped */
        }
    }
    if (v != APS_ASM_OK)
        return v;
    /* A type that differs from the block's goes to a block of its own, at the end. */
    if (cur == NULL || type_same(ct, t) || compatible(ct, t)) {
        target = (size_t)i;
        v = alias_set(a, m, i, t, target);
    } else if ((at = alias_find(m, i, t)) != SIZE_MAX) {
        target = m->alias[at].target;
    } else {
        target = m->nblocks;
        v = alias_set(a, m, i, t, target);
    }
    if (v != APS_ASM_OK)
        return limit_text(a, m, v);
    if (m->continuing) {
        /* reported with the first delta of the run, as the fast path reports the rest: not at all */
    } else if (cur == NULL || !cur->open) {
        snprintf(buf, sizeof buf, "content-block-delta for block %llu, which %s", (unsigned long long)i,
                 cur == NULL ? "was never started" : "is already finished");
        aps_asm_priv_describe_message(a, m, buf);
        warn(a, ev, cur == NULL ? APS_ASM_E_BLOCK_NOT_STARTED : APS_ASM_E_BLOCK_FINISHED);
    } else if (target != i) {
        snprintf(buf, sizeof buf, "content-block-delta for block %llu, whose type does not take it: assembled as block %zu",
                 (unsigned long long)i, target);
        aps_asm_priv_describe_message(a, m, buf);
        warn(a, ev, APS_ASM_E_DELTA_MISMATCH);
    } else if (ev->content.ptr != NULL) {
        aps_asm_priv_describe_message(a, m, "content-block-delta with `content` instead of `delta`");
        warn(a, ev, APS_ASM_E_LEGACY_DELTA);
    }
    if ((v = blocks_reserve(a, m, target)) != APS_ASM_OK)
        return limit_text(a, m, v);
    b = &m->blocks[target];
    was_open = b->present && b->open;
    /* Later deltas of this kind and index go to the same member: the fast path may take them (not content-shaped ones, which merge members). */
    hot = ev->content.ptr == NULL;
    if (ev->content.ptr != NULL) {
        v = legacy_apply(a, m, b, ev->content, t, i);
    } else {
        if (b->present && (v = block_reopen(a, m, b)) != APS_ASM_OK)
            return limit_text(a, m, v);
        switch (ev->delta) {
        case APS_ASM_DELTA_TEXT:
        case APS_ASM_DELTA_REASONING: {
            /* onto a block of another type (an alias kept from before a restart), a new block */
            asm_type bt;
            int fresh = !b->present;
            if (!fresh && (v = type_of_block(a, b, &bt)) == APS_ASM_OK && !type_same(bt, t)) {
                block_empty(a, m, b);
                fresh = 1;
            }
            if (v == APS_ASM_OK && fresh)
                v = block_merge(a, &m->c, b, ev->delta == APS_ASM_DELTA_TEXT ? text_block : reasoning_block);
            if (v == APS_ASM_OK)
                v = append(a, m, b, ev->delta, ev->text, i, hot);
            break;
        }
        case APS_ASM_DELTA_BLOCK:
            v = block_merge(a, &m->c, b, ev->fields);
            break;
        default: /* data, tool call */
            v = append(a, m, b, ev->delta, ev->text, i, hot);
            break;
        }
    }
    if (!was_open)
        block_opened(m, b);
    return limit_text(a, m, v);
}

verdict aps_asm_priv_block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    return a->opt.strict ? strict_block_start(a, m, ev) : lenient_block_start(a, m, ev);
}

verdict aps_asm_priv_block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    return a->opt.strict ? strict_block_finish(a, m, ev) : lenient_block_finish(a, m, ev);
}

verdict aps_asm_priv_block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    return a->opt.strict ? strict_block_delta(a, m, ev) : lenient_block_delta(a, m, ev);
}

/* The message's usage from now on (message-start, usage, message-finish may each give one). */
verdict aps_asm_priv_set_usage(aps_assembler *a, aps_asm_message *m, aps_json_raw usage)
{
    char *buf;
    verdict v;
    if (usage.ptr == NULL)
        return APS_ASM_OK;
    if ((v = aps_asm_priv_item_dup(a, &m->c, usage.ptr, usage.len, &buf)) != APS_ASM_OK)
        return v;
    aps_asm_priv_item_free(a, &m->c, m->usage_buf, m->usage_size);
    m->usage_buf = buf;
    m->usage_size = usage.len;
    m->usage.ptr = buf;
    m->usage.len = usage.len;
    return APS_ASM_OK;
}

/* An item still open at the end of the stream, as the reference client reports it (default mode). */
void aps_asm_priv_abandon(asm_common *c, const char *what)
{
    snprintf(c->err_text, sizeof c->err_text, "%s", what);
    c->err_message.ptr = c->err_text;
    c->err_message.len = strlen(c->err_text);
    c->err_code.ptr = "aborted";
    c->err_code.len = 7;
    c->state = APS_ASM_ERROR;
}
