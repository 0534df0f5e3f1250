/*
 * cbor_reader.c - the RFC 8949 pull reader (see aps/cbor.h).
 *
 * One loop of frames serves both the caller's walk and aps_cbor_skip: a
 * container pushes a frame, `advance` moves to its next item or pops it, so
 * nothing recurses on input. A map frame counts its items (keys and values
 * alike); an odd count means a key has just ended, which is when the key is
 * made canonical and checked against the map's other keys.
 */
#include "aps/cbor.h"
#include "aps/utf8.h"
#include "cbor_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- errors and paths ------------------------------------------------------ */

/* Appends `len` bytes of a path token, with RFC 6901's "~0" and "~1". */
static size_t ptr_append(char *buf, size_t n, const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len && n + 1 < APS_ERROR_POINTER_MAX; i++) {
        if (s[i] == '~' || s[i] == '/') {
            if (n + 2 >= APS_ERROR_POINTER_MAX)
                break;
            buf[n++] = '~';
            buf[n++] = s[i] == '~' ? '0' : '1';
        } else {
            buf[n++] = s[i];
        }
    }
    buf[n] = '\0';
    return n;
}

/* The path token of a canonical map key: its text, an integer in decimal, else its diagnostic notation (cut). */
static size_t key_token(aps_cbor_raw key, char *out, size_t cap)
{
    aps_cbor_head h;
    const uint8_t *end = key.ptr + key.len;
    if (aps_cbor_impl_head(key.ptr, end, &h) != 0)
        return 0;
    if (h.major == 3 && !h.indefinite && h.arg <= (uint64_t)(end - h.next)) {
        size_t n = (size_t)h.arg < cap ? (size_t)h.arg : cap;
        memcpy(out, h.next, n);
        return n;
    }
    return aps_cbor_impl_diag_short(key, out, cap);
}

static void build_pointer(const aps_cbor_reader *r, char *buf, const char *extra)
{
    size_t d, n = 0;
    buf[0] = '\0';
    for (d = 1; d <= r->depth; d++) {
        const aps_cbor_frame *f = &r->frames[d];
        char tok[96];
        size_t len;
        if (f->count == 0)
            break;
        if (f->is_map) {
            const aps_cbor_raw *k = &r->keys[f->key_base + (f->count - 1) / 2];
            if (k->ptr == NULL || (f->count & 1))
                break; /* at a key: the error is the map's */
            len = key_token(*k, tok, sizeof tok);
        } else {
            len = (size_t)snprintf(tok, sizeof tok, "%llu", (unsigned long long)(f->count - 1));
        }
        if (n + 1 < APS_ERROR_POINTER_MAX)
            buf[n++] = '/';
        n = ptr_append(buf, n, tok, len);
    }
    if (extra != NULL) {
        if (n + 1 < APS_ERROR_POINTER_MAX)
            buf[n++] = '/';
        n = ptr_append(buf, n, extra, strlen(extra));
    }
    buf[n] = '\0';
}

static aps_status vfail(const aps_cbor_reader *r, aps_error *err, aps_status code, size_t offset,
                        const char *extra, const char *fmt, va_list ap)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    if (err == NULL || err->code != APS_OK)
        return code;
    vsnprintf(msg, sizeof msg, fmt, ap);
    aps_error_set(err, code, offset, "%s", msg);
    build_pointer(r, err->pointer, extra);
    return code;
}

static aps_status fail_at(const aps_cbor_reader *r, aps_error *err, aps_status code,
                          const uint8_t *at, const char *fmt, ...) APS_PRINTF(5, 6);

static aps_status fail_at(const aps_cbor_reader *r, aps_error *err, aps_status code,
                          const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, (size_t)(at - r->begin), NULL, fmt, ap);
    va_end(ap);
    return code;
}

aps_status aps_cbor_reader_fail(const aps_cbor_reader *r, aps_error *err, aps_status code,
                                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, r->item_start, NULL, fmt, ap);
    va_end(ap);
    return code;
}

aps_status aps_cbor_reader_fail_member(const aps_cbor_reader *r, aps_error *err,
                                       aps_status code, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, r->item_start, key, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- heads ----------------------------------------------------------------------- */

/* True when the head's argument could have been written shorter (RFC 8949 section 4.2.1). */
static int head_is_long(const aps_cbor_head *h)
{
    if (h->indefinite || h->ai < 24)
        return 0;
    switch (h->ai) {
    case 24: return h->arg < 24;
    case 25: return h->arg <= 0xff;
    case 26: return h->arg <= 0xffff;
    default: return h->arg <= 0xffffffffull;
    }
}

static const char *const major_names[8] = {
    "an unsigned integer", "a negative integer", "a byte string", "a text string",
    "an array", "a map", "a tag", "a simple value or float"
};

static const char *describe(const aps_cbor_head *h)
{
    if (h->major != 7)
        return major_names[h->major];
    switch (h->ai) {
    case 20: case 21: return "a boolean";
    case 22: return "null";
    case 23: return "undefined";
    case 25: case 26: case 27: return "a float";
    case 31: return "a break";
    default: return "a simple value";
    }
}

/* Reads the head of the item at r->cur with every well-formedness check; r->cur is not moved. */
static aps_status read_head(aps_cbor_reader *r, aps_cbor_head *h, aps_error *err)
{
    const uint8_t *p = r->cur;
    int e = aps_cbor_impl_head(p, r->end, h);
    r->item_start = (size_t)(p - r->begin);
    if (e == APS_CBOR_HEAD_TRUNCATED)
        return fail_at(r, err, APS_E_SYNTAX, p, "%s", p >= r->end ? "unexpected end of input: a data item was expected"
                                                                  : "truncated head: its argument runs past the end");
    if (e == APS_CBOR_HEAD_RESERVED)
        return fail_at(r, err, APS_E_SYNTAX, p, "reserved additional information %u in major type %u",
                       h->ai, h->major);
    if (e == APS_CBOR_HEAD_BAD_SIMPLE)
        return fail_at(r, err, APS_E_SYNTAX, p, "simple value %u written in two bytes", (unsigned)h->arg);
    if (r->deterministic && h->major != 7 && head_is_long(h))
        return fail_at(r, err, APS_E_SYNTAX, p,
                       "deterministic encoding: argument %llu written longer than it needs",
                       (unsigned long long)h->arg);
    if (r->deterministic && h->indefinite)
        return fail_at(r, err, APS_E_SYNTAX, p, "deterministic encoding: an indefinite length");
    if (h->major == 7 && h->ai == 31)
        return fail_at(r, err, APS_E_SYNTAX, p, "a break (0xff) outside an indefinite-length item");
    return APS_OK;
}

/* ---- floats ---------------------------------------------------------------------- */

/* Deterministic mode: is the float of h in its shortest exact width (NaN only as f97e00)? */
static int float_is_preferred(const aps_cbor_head *h)
{
    double v = aps_cbor_impl_float(h);
    uint16_t half;
    if (isnan(v))
        return h->ai == 25 && h->arg == 0x7e00;
    if (h->ai == 25)
        return 1;
    if (aps_cbor_impl_to_half(v, &half))
        return 0;
    return h->ai == 26 || !aps_cbor_impl_fits_single(v);
}

/* ---- frames and keys ------------------------------------------------------------ */

void aps_cbor_reader_init(aps_cbor_reader *r, const void *data, size_t len, aps_arena *arena,
                          const aps_cbor_reader_options *options)
{
    uint64_t seed;
    r->begin = (const uint8_t *)data;
    r->cur = r->begin;
    r->end = r->begin != NULL ? r->begin + len : r->begin;
    r->arena = arena;
    r->depth = 0;
    r->max_depth = options != NULL && options->max_depth != 0 ? options->max_depth
                                                               : APS_CBOR_MAX_DEPTH_DEFAULT;
    r->deterministic = options != NULL && options->deterministic;
    r->allow_duplicates = options != NULL && options->allow_duplicates;
    r->sequence = options != NULL && options->sequence;
    r->frames = r->inline_frames;
    r->frame_cap = APS_CBOR_INLINE_FRAMES;
    r->keys = r->inline_keys;
    r->key_top = 0;
    r->key_cap = APS_CBOR_INLINE_KEYS;
    r->item_start = 0;
    /* Hash flooding needs the seed; addresses vary per process under ASLR. */
    seed = (uint64_t)(uintptr_t)r ^ ((uint64_t)(uintptr_t)arena << 17) ^ ((uint64_t)(uintptr_t)data << 7);
    seed ^= seed >> 31;
    seed *= 0xBF58476D1CE4E5B9ull;
    r->hash_seed = seed ^ (seed >> 29);
    memset(&r->frames[0], 0, sizeof r->frames[0]);
}

size_t aps_cbor_reader_offset(const aps_cbor_reader *r)
{
    return (size_t)(r->cur - r->begin);
}

bool aps_cbor_reader_at_end(const aps_cbor_reader *r)
{
    return r->depth == 0 && r->cur >= r->end;
}

aps_cbor_type aps_cbor_peek(const aps_cbor_reader *r)
{
    return aps_cbor_impl_type(r->cur, r->end);
}

aps_cbor_type aps_cbor_raw_type(aps_cbor_raw raw)
{
    return raw.ptr != NULL ? aps_cbor_impl_type(raw.ptr, raw.ptr + raw.len) : APS_CBOR_INVALID;
}

bool aps_cbor_raw_text(aps_cbor_raw raw, aps_slice *out)
{
    aps_cbor_head h;
    if (raw.ptr == NULL || aps_cbor_impl_head(raw.ptr, raw.ptr + raw.len, &h) != 0 || h.major != 3 ||
        h.indefinite || h.arg != (uint64_t)(raw.ptr + raw.len - h.next))
        return false;
    out->ptr = (const char *)h.next;
    out->len = (size_t)h.arg;
    return true;
}

bool aps_cbor_raw_is_text(aps_cbor_raw raw, const char *text, size_t len)
{
    uint8_t head[9];
    size_t n = aps_cbor_impl_put_head(head, 3, len);
    return raw.len == n + len && memcmp(raw.ptr, head, n) == 0 && memcmp(raw.ptr + n, text, len) == 0;
}

/* Opens a container frame after its head (h) was consumed. */
static aps_status push(aps_cbor_reader *r, const aps_cbor_head *h, const uint8_t *at, aps_error *err)
{
    aps_cbor_frame *f;
    if (r->depth >= r->max_depth)
        return fail_at(r, err, APS_E_DEPTH, at, "nesting deeper than %zu", r->max_depth);
    if (r->depth + 1 >= r->frame_cap) {
        size_t cap = r->frame_cap * 2;
        aps_cbor_frame *nf = (aps_cbor_frame *)aps_arena_alloc_aligned(r->arena, cap * sizeof *nf,
                                                                       sizeof(void *));
        if (nf == NULL)
            return fail_at(r, err, r->arena->failure ? r->arena->failure : APS_E_NOMEM, at,
                           "out of memory for nesting");
        memcpy(nf, r->frames, (r->depth + 1) * sizeof *nf);
        r->frames = nf;
        r->frame_cap = cap;
    }
    f = &r->frames[++r->depth];
    memset(f, 0, sizeof *f);
    f->is_map = h->major == 5;
    f->indefinite = (uint8_t)h->indefinite;
    f->start = (size_t)(at - r->begin);
    f->key_base = r->key_top;
    if (!h->indefinite) {
        size_t left = (size_t)(r->end - r->cur);
        /* Every item takes a byte at least: a longer count is a lie, refused before any work. */
        if (h->arg > left || (f->is_map && h->arg > left / 2)) {
            r->depth--;
            return fail_at(r, err, APS_E_SYNTAX, at, "%s of %llu %s runs past the end (%zu bytes left)",
                           f->is_map ? "a map" : "an array", (unsigned long long)h->arg,
                           f->is_map ? (h->arg == 1 ? "entry" : "entries") : (h->arg == 1 ? "item" : "items"),
                           left);
        }
        f->left = f->is_map ? h->arg * 2 : h->arg;
    }
    return APS_OK;
}

/* Leaves the innermost container: its keys are forgotten. */
static void pop(aps_cbor_reader *r)
{
    r->key_top = r->frames[r->depth].key_base;
    r->depth--;
}

static uint64_t hash_key(const aps_cbor_reader *r, const uint8_t *s, size_t len)
{
    uint64_t h = r->hash_seed ^ (len * 0x9E3779B97F4A7C15ull);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        s += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t w = 0;
        memcpy(&w, s, len);
        h = (h ^ w) * 0x94D049BB133111EBull;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 32);
}

static int same_key(aps_cbor_raw a, aps_cbor_raw b)
{
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

/* Puts key i (relative to the map) into its hash set; 1 if an equal key is there. */
static int hash_insert(const aps_cbor_reader *r, aps_cbor_frame *f, size_t i)
{
    const aps_cbor_raw *keys = r->keys + f->key_base;
    size_t mask = f->hash_cap - 1;
    size_t h = (size_t)hash_key(r, keys[i].ptr, keys[i].len) & mask;
    for (;; h = (h + 1) & mask) {
        uint32_t e = f->hash[h];
        if (e == 0) {
            f->hash[h] = (uint32_t)(i + 1);
            return 0;
        }
        if (same_key(keys[e - 1], keys[i]))
            return 1;
    }
}

/* (Re)builds f's hash set for its first `count` keys, with room to double; 0 on arena failure. */
static int hash_build(aps_cbor_reader *r, aps_cbor_frame *f, size_t count)
{
    size_t cap = 64, i;
    while (cap < count * 4)
        cap *= 2;
    if (cap > (size_t)UINT32_MAX || cap > SIZE_MAX / sizeof(uint32_t))
        return 0;
    f->hash = (uint32_t *)aps_arena_alloc_aligned(r->arena, cap * sizeof(uint32_t), sizeof(uint32_t));
    if (f->hash == NULL) {
        f->hash_cap = 0;
        return 0;
    }
    memset(f->hash, 0, cap * sizeof(uint32_t));
    f->hash_cap = cap;
    for (i = 0; i < count; i++)
        (void)hash_insert(r, f, i);
    return 1;
}

void aps_cbor_reader_save(const aps_cbor_reader *r, aps_cbor_pos *pos)
{
    pos->cur = r->cur;
    pos->depth = r->depth;
    pos->frame = r->frames[r->depth];
    pos->frames = r->frames;
    pos->frame_cap = r->frame_cap;
    pos->keys = r->keys;
    pos->key_top = r->key_top;
    pos->key_cap = r->key_cap;
    pos->item_start = r->item_start;
    pos->mark = aps_arena_mark(r->arena);
}

void aps_cbor_reader_restore(aps_cbor_reader *r, const aps_cbor_pos *pos)
{
    aps_cbor_frame *f;
    aps_arena_rollback(r->arena, pos->mark);
    r->cur = pos->cur;
    r->depth = pos->depth;
    r->frames = pos->frames;
    r->frame_cap = pos->frame_cap;
    r->keys = pos->keys;
    r->key_top = pos->key_top;
    r->key_cap = pos->key_cap;
    r->item_start = pos->item_start;
    f = &r->frames[r->depth];
    *f = pos->frame;
    /* The set may hold keys added after the save (it lives before the mark). */
    if (f->hash != NULL) {
        size_t i;
        memset(f->hash, 0, f->hash_cap * sizeof(uint32_t));
        for (i = 0; i < (size_t)(f->count / 2); i++)
            (void)hash_insert(r, f, i);
    }
}

/* Reserves the key slot of a map entry that starts now (its key not read yet). */
static aps_status push_key_slot(aps_cbor_reader *r, aps_error *err)
{
    if (r->key_top == r->key_cap) {
        size_t cap = r->key_cap * 2;
        aps_cbor_raw *nk = (aps_cbor_raw *)aps_arena_alloc_aligned(r->arena, cap * sizeof *nk,
                                                                   sizeof(void *));
        if (nk == NULL)
            return fail_at(r, err, r->arena->failure ? r->arena->failure : APS_E_NOMEM, r->cur,
                           "out of memory for map keys");
        memcpy(nk, r->keys, r->key_top * sizeof *nk);
        r->keys = nk;
        r->key_cap = cap;
    }
    r->keys[r->key_top].ptr = NULL;
    r->keys[r->key_top].len = 0;
    r->key_top++;
    return APS_OK;
}

/*
 * The key that just ended at r->cur (it began at `start`) in canonical form:
 * a scalar with a long head, an indefinite string or a float wider than it
 * needs is re-encoded into the arena; anything else is its own bytes.
 */
static aps_status canonical_key(aps_cbor_reader *r, const uint8_t *start, aps_cbor_raw *out,
                                aps_error *err)
{
    aps_cbor_head h;
    size_t n;
    uint8_t *buf;
    out->ptr = start;
    out->len = (size_t)(r->cur - start);
    if (*start >= 0x60 && *start < 0x78)
        return APS_OK; /* a short text string is canonical as written */
    if (aps_cbor_impl_head(start, r->cur, &h) != 0)
        return APS_OK; /* cannot happen: the key was read */
    if (h.major == 7 && h.ai >= 25 && h.ai <= 27) {
        uint8_t tmp[9];
        n = aps_cbor_impl_put_float(tmp, aps_cbor_impl_float(&h));
        if (n == out->len && memcmp(tmp, start, n) == 0)
            return APS_OK;
        buf = (uint8_t *)aps_arena_alloc_aligned(r->arena, n, 1);
        if (buf == NULL)
            return fail_at(r, err, APS_E_NOMEM, start, "out of memory for a map key");
        memcpy(buf, tmp, n);
        out->ptr = buf;
        out->len = n;
        return APS_OK;
    }
    if (h.major <= 1 && head_is_long(&h)) {
        buf = (uint8_t *)aps_arena_alloc_aligned(r->arena, 9, 1);
        if (buf == NULL)
            return fail_at(r, err, APS_E_NOMEM, start, "out of memory for a map key");
        out->ptr = buf;
        out->len = aps_cbor_impl_put_head(buf, h.major, h.arg);
        return APS_OK;
    }
    if ((h.major == 2 || h.major == 3) && (h.indefinite || head_is_long(&h))) {
        /* join the chunks (they were checked when the key was read) */
        const uint8_t *p = h.next;
        size_t total = 0, at;
        aps_cbor_head c;
        if (!h.indefinite) {
            total = (size_t)h.arg;
        } else {
            while (*p != 0xff) {
                (void)aps_cbor_impl_head(p, r->cur, &c);
                total += (size_t)c.arg;
                p = c.next + c.arg;
            }
        }
        buf = (uint8_t *)aps_arena_alloc_aligned(r->arena, total + 9, 1);
        if (buf == NULL)
            return fail_at(r, err, APS_E_NOMEM, start, "out of memory for a map key");
        at = aps_cbor_impl_put_head(buf, h.major, total);
        if (!h.indefinite) {
            memcpy(buf + at, h.next, total);
        } else {
            for (p = h.next; *p != 0xff; p = c.next + c.arg) {
                (void)aps_cbor_impl_head(p, r->cur, &c);
                memcpy(buf + at, c.next, (size_t)c.arg);
                at += (size_t)c.arg;
            }
        }
        out->ptr = buf;
        out->len = at;
    }
    return APS_OK;
}

/* The key of f's current entry has ended: make it canonical, refuse a repeat or (deterministic) disorder. */
static aps_status finish_key(aps_cbor_reader *r, aps_cbor_frame *f, aps_error *err)
{
    size_t i = (size_t)(f->count - 1) / 2;
    const uint8_t *start = r->begin + f->key_start;
    aps_cbor_raw key;
    aps_status st = canonical_key(r, start, &key, err);
    aps_cbor_raw *keys = r->keys + f->key_base;
    if (st)
        return st;
    keys[i] = key;
    if (r->deterministic) {
        if (i > 0) {
            aps_cbor_raw prev = keys[i - 1];
            size_t n = prev.len < key.len ? prev.len : key.len;
            int c = memcmp(prev.ptr, key.ptr, n);
            if (c == 0 && prev.len == key.len)
                return fail_at(r, err, APS_E_DUPLICATE, start, "a map key given twice");
            if (c > 0 || (c == 0 && prev.len > key.len))
                return fail_at(r, err, APS_E_SYNTAX, start, "deterministic encoding: map keys out of bytewise order");
        }
        return APS_OK;
    }
    if (r->allow_duplicates)
        return APS_OK;
    if (i < APS_CBOR_DUP_LINEAR_MAX) {
        size_t j;
        for (j = 0; j < i; j++)
            if (same_key(keys[j], key))
                return fail_at(r, err, APS_E_DUPLICATE, start, "a map key given twice");
        return APS_OK;
    }
    if (f->hash_cap == 0 || (i + 1) * 2 > f->hash_cap) {
        if (!hash_build(r, f, i))
            return fail_at(r, err, APS_E_NOMEM, start, "out of memory for a map's keys");
    }
    if (hash_insert(r, f, i))
        return fail_at(r, err, APS_E_DUPLICATE, start, "a map key given twice");
    return APS_OK;
}

/*
 * Moves to the next item of the innermost container: *more = 1 and the
 * reader stands at it, or *more = 0 and the container is left. A map's
 * value follows its key without a check of the end; the key is finished
 * then.
 */
static aps_status advance(aps_cbor_reader *r, int *more, aps_error *err)
{
    aps_cbor_frame *f = &r->frames[r->depth];
    if (f->is_map && (f->count & 1)) {
        aps_status st = finish_key(r, f, err);
        if (st)
            return st;
        if (f->indefinite) {
            if (r->cur >= r->end)
                return fail_at(r, err, APS_E_SYNTAX, r->cur, "unexpected end of input: a map value was expected");
            if (*r->cur == 0xff)
                return fail_at(r, err, APS_E_SYNTAX, r->cur, "the map ends after a key, without its value");
        } else {
            f->left--;
        }
        f->count++;
        *more = 1;
        return APS_OK;
    }
    if (f->indefinite) {
        if (r->cur >= r->end)
            return fail_at(r, err, APS_E_SYNTAX, r->cur, "unexpected end of input inside an indefinite-length %s",
                           f->is_map ? "map" : "array");
        if (*r->cur == 0xff) {
            r->cur++;
            pop(r);
            *more = 0;
            return APS_OK;
        }
    } else if (f->left == 0) {
        pop(r);
        *more = 0;
        return APS_OK;
    } else {
        f->left--;
    }
    f->count++;
    if (f->is_map) {
        aps_status st = push_key_slot(r, err);
        if (st)
            return st;
        f->key_start = (size_t)(r->cur - r->begin);
    }
    *more = 1;
    return APS_OK;
}

/* ---- items ----------------------------------------------------------------------- */

/* Checks the string of head h (definite) ending inside the input; for text, its UTF-8. */
static aps_status check_chunk(aps_cbor_reader *r, const aps_cbor_head *h, const uint8_t *at,
                              aps_error *err)
{
    size_t off;
    if (h->arg > (uint64_t)(r->end - h->next))
        return fail_at(r, err, APS_E_SYNTAX, at, "%s of %llu bytes runs past the end (%zu bytes left)",
                       major_names[h->major], (unsigned long long)h->arg, (size_t)(r->end - h->next));
    if (h->major == 3 && (off = aps_utf8_check(h->next, (size_t)h->arg)) != SIZE_MAX)
        return fail_at(r, err, APS_E_UTF8, h->next + off, "invalid UTF-8 in a text string");
    return APS_OK;
}

/*
 * Reads the string whose head h is at r->cur (definite or not), leaving the
 * reader after it; *total gets its length. An indefinite string's chunks
 * must be definite strings of the same major type.
 */
static aps_status string_item(aps_cbor_reader *r, const aps_cbor_head *h, size_t *total,
                              aps_error *err)
{
    const uint8_t *at = r->cur;
    aps_status st;
    if (!h->indefinite) {
        if ((st = check_chunk(r, h, at, err)))
            return st;
        *total = (size_t)h->arg;
        r->cur = h->next + h->arg;
        return APS_OK;
    }
    *total = 0;
    r->cur = h->next;
    for (;;) {
        aps_cbor_head c;
        const uint8_t *p = r->cur;
        int e = aps_cbor_impl_head(p, r->end, &c);
        if (e == 0 && c.major == 7 && c.ai == 31) {
            r->cur = p + 1;
            return APS_OK;
        }
        if (p >= r->end)
            return fail_at(r, err, APS_E_SYNTAX, p, "unexpected end of input inside an indefinite-length string");
        if (e != 0 || c.major != h->major || c.indefinite)
            return fail_at(r, err, APS_E_SYNTAX, p, "a chunk of an indefinite-length %s must be a definite %s",
                           major_names[h->major], major_names[h->major]);
        if ((st = check_chunk(r, &c, p, err)))
            return st;
        *total += (size_t)c.arg;
        r->cur = c.next + c.arg;
    }
}

/*
 * Reads one item's head and what belongs to it (a scalar's content, every
 * tag in front of it); a container is entered (pushed), not walked.
 */
static aps_status item(aps_cbor_reader *r, aps_error *err)
{
    size_t tags = 0;
    for (;;) {
        aps_cbor_head h;
        aps_status st = read_head(r, &h, err);
        const uint8_t *at = r->cur;
        size_t total;
        if (st)
            return st;
        switch (h.major) {
        case 0: case 1:
            r->cur = h.next;
            return APS_OK;
        case 2: case 3:
            return string_item(r, &h, &total, err);
        case 4: case 5:
            r->cur = h.next;
            return push(r, &h, at, err);
        case 6:
            if (++tags + r->depth > r->max_depth)
                return fail_at(r, err, APS_E_DEPTH, at, "tags nested deeper than %zu", r->max_depth);
            r->cur = h.next;
            continue;
        default:
            if (h.ai >= 25 && h.ai <= 27 && r->deterministic && !float_is_preferred(&h))
                return fail_at(r, err, APS_E_SYNTAX, at,
                               "deterministic encoding: a float written wider than its value needs");
            r->cur = h.next;
            return APS_OK;
        }
    }
}

aps_status aps_cbor_skip(aps_cbor_reader *r, aps_error *err)
{
    size_t base = r->depth;
    for (;;) {
        aps_status st = item(r, err);
        if (st)
            return st;
        while (r->depth > base) {
            int more;
            if ((st = advance(r, &more, err)))
                return st;
            if (more)
                break;
        }
        if (r->depth == base)
            return APS_OK;
    }
}

aps_status aps_cbor_read_raw(aps_cbor_reader *r, aps_cbor_raw *out, aps_error *err)
{
    const uint8_t *start = r->cur;
    aps_status st = aps_cbor_skip(r, err);
    if (st)
        return st;
    out->ptr = start;
    out->len = (size_t)(r->cur - start);
    return APS_OK;
}

/* Reads the head of the next item and checks its kind; fails with "expected <what>, got ...". */
static aps_status expect(aps_cbor_reader *r, const aps_cbor_head *h, int ok, const char *what,
                         aps_error *err)
{
    return ok ? APS_OK : fail_at(r, err, APS_E_TYPE, r->cur, "expected %s, got %s", what, describe(h));
}

aps_status aps_cbor_read_integer(aps_cbor_reader *r, int *negative, uint64_t *value, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major <= 1, "an integer", err)))
        return st;
    r->cur = h.next;
    *negative = h.major == 1;
    *value = h.arg;
    return APS_OK;
}

aps_status aps_cbor_read_uint(aps_cbor_reader *r, uint64_t *out, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st)
        return st;
    if (h.major == 1)
        return fail_at(r, err, APS_E_RANGE, r->cur, "expected an unsigned integer, got -1-%llu",
                       (unsigned long long)h.arg);
    if ((st = expect(r, &h, h.major == 0, "an unsigned integer", err)))
        return st;
    r->cur = h.next;
    *out = h.arg;
    return APS_OK;
}

aps_status aps_cbor_read_int(aps_cbor_reader *r, int64_t *out, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major <= 1, "an integer", err)))
        return st;
    if (h.arg > (uint64_t)INT64_MAX)
        return fail_at(r, err, APS_E_RANGE, r->cur, "integer %s%llu is outside 64-bit signed",
                       h.major == 1 ? "-1-" : "", (unsigned long long)h.arg);
    r->cur = h.next;
    *out = h.major == 0 ? (int64_t)h.arg : -1 - (int64_t)h.arg;
    return APS_OK;
}

/* A byte or text string (major `major`), joined into the arena when indefinite. */
static aps_status read_string(aps_cbor_reader *r, unsigned major, aps_slice *out, aps_error *err)
{
    aps_cbor_head h;
    const uint8_t *start = r->cur;
    size_t total, at = 0;
    char *buf;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == major, major_names[major], err)))
        return st;
    if ((st = string_item(r, &h, &total, err)))
        return st;
    if (!h.indefinite) {
        out->ptr = (const char *)h.next;
        out->len = total;
        return APS_OK;
    }
    buf = (char *)aps_arena_alloc_aligned(r->arena, total + 1, 1);
    if (buf == NULL)
        return fail_at(r, err, r->arena->failure ? r->arena->failure : APS_E_NOMEM, start,
                       "out of memory for an indefinite-length string");
    for (start = h.next; *start != 0xff;) {
        aps_cbor_head c;
        (void)aps_cbor_impl_head(start, r->end, &c);
        memcpy(buf + at, c.next, (size_t)c.arg);
        at += (size_t)c.arg;
        start = c.next + c.arg;
    }
    buf[at] = '\0';
    out->ptr = buf;
    out->len = at;
    return APS_OK;
}

aps_status aps_cbor_read_bytes(aps_cbor_reader *r, aps_slice *out, aps_error *err)
{
    return read_string(r, 2, out, err);
}

aps_status aps_cbor_read_text(aps_cbor_reader *r, aps_slice *out, aps_error *err)
{
    return read_string(r, 3, out, err);
}

aps_status aps_cbor_read_float(aps_cbor_reader *r, double *out, int *width, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 7 && h.ai >= 25 && h.ai <= 27, "a float", err)))
        return st;
    if (r->deterministic && !float_is_preferred(&h))
        return fail_at(r, err, APS_E_SYNTAX, r->cur,
                       "deterministic encoding: a float written wider than its value needs");
    r->cur = h.next;
    *out = aps_cbor_impl_float(&h);
    if (width != NULL)
        *width = 1 << (h.ai - 24);
    return APS_OK;
}

aps_status aps_cbor_read_simple(aps_cbor_reader *r, uint8_t *out, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 7 && h.ai <= 24, "a simple value", err)))
        return st;
    r->cur = h.next;
    *out = (uint8_t)h.arg;
    return APS_OK;
}

aps_status aps_cbor_read_bool(aps_cbor_reader *r, int *out, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 7 && (h.ai == 20 || h.ai == 21), "a boolean", err)))
        return st;
    r->cur = h.next;
    *out = h.ai == 21;
    return APS_OK;
}

aps_status aps_cbor_read_null(aps_cbor_reader *r, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 7 && h.ai == 22, "null", err)))
        return st;
    r->cur = h.next;
    return APS_OK;
}

aps_status aps_cbor_read_undefined(aps_cbor_reader *r, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 7 && h.ai == 23, "undefined", err)))
        return st;
    r->cur = h.next;
    return APS_OK;
}

aps_status aps_cbor_read_tag(aps_cbor_reader *r, uint64_t *tag, aps_error *err)
{
    aps_cbor_head h;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == 6, "a tag", err)))
        return st;
    r->cur = h.next;
    *tag = h.arg;
    return APS_OK;
}

static aps_status enter(aps_cbor_reader *r, unsigned major, uint64_t *count, aps_error *err)
{
    aps_cbor_head h;
    const uint8_t *at = r->cur;
    aps_status st = read_head(r, &h, err);
    if (st || (st = expect(r, &h, h.major == major, major_names[major], err)))
        return st;
    r->cur = h.next;
    if ((st = push(r, &h, at, err))) {
        r->cur = at;
        return st;
    }
    if (count != NULL)
        *count = h.indefinite ? APS_CBOR_INDEFINITE : h.arg;
    return APS_OK;
}

aps_status aps_cbor_read_array(aps_cbor_reader *r, uint64_t *count, aps_error *err)
{
    return enter(r, 4, count, err);
}

aps_status aps_cbor_read_map(aps_cbor_reader *r, uint64_t *count, aps_error *err)
{
    return enter(r, 5, count, err);
}

aps_status aps_cbor_next_element(aps_cbor_reader *r, int *more, aps_error *err)
{
    if (r->depth == 0 || r->frames[r->depth].is_map)
        return fail_at(r, err, APS_E_STATE, r->cur, "aps_cbor_next_element outside an array");
    return advance(r, more, err);
}

aps_status aps_cbor_next_entry(aps_cbor_reader *r, aps_cbor_raw *key, int *more, aps_error *err)
{
    aps_cbor_frame *f;
    aps_status st;
    if (r->depth == 0 || !r->frames[r->depth].is_map || (r->frames[r->depth].count & 1))
        return fail_at(r, err, APS_E_STATE, r->cur, "aps_cbor_next_entry outside a map or before a value");
    if ((st = advance(r, more, err)) || !*more)
        return st;
    if (r->cur < r->end && *r->cur >= 0x60 && *r->cur < 0x78 && (size_t)(r->end - r->cur) > (size_t)(*r->cur - 0x60) &&
        aps_utf8_check(r->cur + 1, (size_t)(*r->cur - 0x60)) == SIZE_MAX) {
        /* the usual member name, a short text string: read here rather than as any item */
        r->item_start = (size_t)(r->cur - r->begin);
        r->cur += 1 + (*r->cur - 0x60);
    } else if ((st = aps_cbor_skip(r, err))) {
        return st;
    }
    if ((st = advance(r, more, err)))
        return st;
    f = &r->frames[r->depth];
    *key = r->keys[f->key_base + (f->count - 1) / 2];
    return APS_OK;
}

aps_status aps_cbor_reader_finish(aps_cbor_reader *r, aps_error *err)
{
    if (r->depth != 0)
        return fail_at(r, err, APS_E_STATE, r->cur, "the input ends inside %s",
                       r->frames[r->depth].is_map ? "a map" : "an array");
    if (r->cur != r->end)
        return fail_at(r, err, APS_E_SYNTAX, r->cur, "unexpected bytes after the data item");
    return APS_OK;
}

aps_status aps_cbor_validate(const void *data, size_t len, const aps_cbor_reader_options *options,
                             aps_error *err)
{
    aps_arena arena;
    aps_cbor_reader r;
    aps_status st = APS_OK;
    aps_error_clear(err);
    aps_arena_init(&arena, NULL);
    aps_cbor_reader_init(&r, data, len, &arena, options);
    if (r.sequence) {
        while (!st && !aps_cbor_reader_at_end(&r))
            st = aps_cbor_skip(&r, err);
    } else {
        st = aps_cbor_skip(&r, err);
    }
    if (!st)
        st = aps_cbor_reader_finish(&r, err);
    aps_arena_deinit(&arena);
    return st;
}
