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
static verdict block_merge(aps_assembler *a, asm_common *c, asm_block *b, aps_json_raw obj)
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
        if ((st = aps_json_read_raw(&r, &val, NULL)) != APS_OK)
            break;
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

static const char *append_field(aps_asm_delta kind, size_t *len)
{
    switch (kind) {
    case APS_ASM_DELTA_TEXT: *len = 4; return "text";
    case APS_ASM_DELTA_REASONING: *len = 9; return "reasoning";
    case APS_ASM_DELTA_DATA: *len = 6; return "base64";
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
    const char *field = append_field(kind, &flen);
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
            return APS_ASM_E_FIELD_TYPE;
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

verdict aps_asm_priv_block_start(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
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

verdict aps_asm_priv_block_finish(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
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
    m->block_open = 0;
    return link_block(a, ev->content);
}

verdict aps_asm_priv_block_delta(aps_assembler *a, aps_asm_message *m, const aps_asm_event *ev)
{
    asm_block *b;
    asm_member *mb;
    verdict v;
    char buf[160];
    if (!m->block_open || ev->index != m->nblocks - 1)
        return check_open_block(a, m, ev, "content-block-delta");
    b = &m->blocks[m->nblocks - 1];
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
    if (b->append_kind != ev->delta) {
        if (!delta_fits(ev->delta, b->cls)) {
            snprintf(buf, sizeof buf, "%s on block %llu, whose type does not take it",
                     delta_name(ev->delta), (unsigned long long)ev->index);
            aps_asm_priv_describe_message(a, m, buf);
            return APS_ASM_E_DELTA_MISMATCH;
        }
        v = append_target(a, &m->c, b, ev->delta);
        if (v == APS_ASM_E_LIMIT)
            aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    mb = &b->mem[b->append_at];
    if (ev->text.len > mb->cap - mb->len) {
        if (ev->text.len > SIZE_MAX - mb->len)
            v = APS_ASM_E_LIMIT;
        else
            v = aps_asm_priv_grow(a, &m->c, &mb->val, mb->len, &mb->cap, mb->len + ev->text.len);
        if (v == APS_ASM_E_LIMIT)
            aps_asm_priv_describe_message(a, m, "message exceeds the assembler's size limits");
        if (v != APS_ASM_OK)
            return v;
    }
    if (ev->text.len) {
        memcpy(mb->val + mb->len, ev->text.ptr, ev->text.len);
        mb->len += ev->text.len;
    }
    m->hot = mb;
    m->hot_kind = ev->delta;
    m->hot_index = ev->index;
    if (a->cb.on_append)
        a->cb.on_append(a->cb.ctx, m, ev->index, ev->delta, ev->text);
    return APS_ASM_OK;
}
