/*
 * cbor_writer.c - the RFC 8949 writer (see aps/cbor.h): preferred
 * serialization always, deterministic encoding on request.
 *
 * Deterministic maps are written as they come and sorted when they end:
 * each entry's key and value offsets are kept on a stack, the entries are
 * sorted by their keys' bytes and copied back in that order. Nested maps
 * end (and are sorted) before their parents, so a parent sorts finished
 * bytes.
 */
#include "aps/cbor.h"
#include "cbor_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- buffer and bookkeeping ------------------------------------------------------ */

static void fail(aps_cbor_writer *w, aps_status st)
{
    if (w->status == APS_OK)
        w->status = st;
}

static void init_common(aps_cbor_writer *w, const aps_cbor_writer_options *options)
{
    memset(w, 0, sizeof *w);
    w->allocator = options != NULL && options->allocator.alloc != NULL ? options->allocator
                                                                       : aps_malloc_allocator;
    w->deterministic = options != NULL && options->deterministic;
}

void aps_cbor_writer_init(aps_cbor_writer *w, const aps_cbor_writer_options *options)
{
    init_common(w, options);
}

void aps_cbor_writer_init_fixed(aps_cbor_writer *w, void *buf, size_t cap,
                                const aps_cbor_writer_options *options)
{
    init_common(w, options);
    w->buf = (uint8_t *)buf;
    w->cap = buf != NULL ? cap : 0;
    w->fixed = 1;
}

void aps_cbor_writer_deinit(aps_cbor_writer *w)
{
    if (w == NULL)
        return;
    if (!w->fixed && w->buf != NULL)
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    if (w->frames != NULL)
        w->allocator.free(w->allocator.ctx, w->frames, w->frame_cap * sizeof *w->frames);
    if (w->entries != NULL)
        w->allocator.free(w->allocator.ctx, w->entries, w->entry_cap * sizeof *w->entries);
    w->buf = NULL;
    w->frames = NULL;
    w->entries = NULL;
    w->cap = w->len = w->frame_cap = w->entry_cap = 0;
}

void aps_cbor_writer_reset(aps_cbor_writer *w)
{
    w->len = 0;
    w->status = APS_OK;
    w->done = 0;
    w->depth = 0;
    w->entry_top = 0;
    w->pending_tags = 0;
}

void aps_cbor_writer_next(aps_cbor_writer *w)
{
    if (w->depth == 0 && w->pending_tags == 0)
        w->done = 0;
}

/* Grows a buffer of the allocator to hold `need` elements of `size` bytes; 0 on failure. */
static int grow(aps_cbor_writer *w, void **items, size_t *cap, size_t need, size_t size)
{
    size_t ncap = *cap ? *cap : 16;
    void *n;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / size)
            return 0;
        ncap *= 2;
    }
    if (ncap == *cap)
        return 1;
    n = w->allocator.alloc(w->allocator.ctx, ncap * size);
    if (n == NULL)
        return 0;
    if (*items != NULL) {
        memcpy(n, *items, *cap * size);
        w->allocator.free(w->allocator.ctx, *items, *cap * size);
    }
    *items = n;
    *cap = ncap;
    return 1;
}

/* Room for n more output bytes; 0 (and the status set) when there is none. */
static int reserve(aps_cbor_writer *w, size_t n)
{
    size_t cap;
    uint8_t *nb;
    if (w->cap - w->len >= n)
        return 1;
    if (w->fixed || n > SIZE_MAX / 2 - w->len) {
        fail(w, w->fixed ? APS_E_LIMIT : APS_E_NOMEM);
        return 0;
    }
    cap = w->cap ? w->cap * 2 : 256;
    while (cap < w->len + n)
        cap *= 2;
    nb = (uint8_t *)w->allocator.alloc(w->allocator.ctx, cap);
    if (nb == NULL) {
        fail(w, APS_E_NOMEM);
        return 0;
    }
    if (w->buf != NULL) {
        memcpy(nb, w->buf, w->len);
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    }
    w->buf = nb;
    w->cap = cap;
    return 1;
}

static void put(aps_cbor_writer *w, const void *p, size_t n)
{
    if (n != 0 && reserve(w, n)) {
        memcpy(w->buf + w->len, p, n);
        w->len += n;
    }
}

/*
 * Accounts for an item about to be written (its head first): the root may
 * hold one, a definite container its announced count, an indefinite string
 * only chunks of its own type (`major`; -1 for a tag's item check). Records
 * a deterministic map's entry offsets. 0 when the item is not allowed here.
 */
static int begin_item(aps_cbor_writer *w, int major)
{
    aps_cbor_wframe *f;
    if (w->status != APS_OK)
        return 0;
    if (w->pending_tags > 0) {
        if (major != 6)
            w->pending_tags = 0;
        return 1; /* a tag's item: counted with its tag */
    }
    if (w->depth == 0) {
        if (w->done) {
            fail(w, APS_E_STATE);
            return 0;
        }
        w->done = 1; /* a tag's item completes it: finish checks pending_tags */
        return 1;
    }
    f = &w->frames[w->depth - 1];
    if (f->is_string) {
        if (major != (f->is_string == 2 ? 2 : 3)) {
            fail(w, APS_E_STATE);
            return 0;
        }
        return 1;
    }
    if (!f->indefinite) {
        if (f->left == 0) {
            fail(w, APS_E_STATE);
            return 0;
        }
        f->left--;
    } else {
        f->left++; /* items so far: an indefinite map must end after a value */
    }
    if (f->is_map && w->deterministic) {
        if (!grow(w, (void **)&w->entries, &w->entry_cap, w->entry_top + 1, sizeof *w->entries)) {
            fail(w, APS_E_NOMEM);
            return 0;
        }
        w->entries[w->entry_top++] = w->len; /* a key's or a value's start, alternately */
    }
    return 1;
}

static void head(aps_cbor_writer *w, unsigned major, uint64_t arg)
{
    uint8_t h[9];
    put(w, h, aps_cbor_impl_put_head(h, major, arg));
}

/* ---- scalars --------------------------------------------------------------------- */

void aps_cbor_write_uint(aps_cbor_writer *w, uint64_t v)
{
    if (begin_item(w, 0))
        head(w, 0, v);
}

void aps_cbor_write_negint(aps_cbor_writer *w, uint64_t n)
{
    if (begin_item(w, 1))
        head(w, 1, n);
}

void aps_cbor_write_int(aps_cbor_writer *w, int64_t v)
{
    if (v >= 0)
        aps_cbor_write_uint(w, (uint64_t)v);
    else
        aps_cbor_write_negint(w, (uint64_t)(-1 - v));
}

void aps_cbor_write_bytes(aps_cbor_writer *w, const void *p, size_t len)
{
    if (begin_item(w, 2)) {
        head(w, 2, len);
        put(w, p, len);
    }
}

void aps_cbor_write_text(aps_cbor_writer *w, const char *s, size_t len)
{
    if (begin_item(w, 3)) {
        head(w, 3, len);
        put(w, s, len);
    }
}

void aps_cbor_write_tag(aps_cbor_writer *w, uint64_t tag)
{
    if (begin_item(w, 6)) {
        head(w, 6, tag);
        w->pending_tags++;
    }
}

static void simple(aps_cbor_writer *w, unsigned v)
{
    if (begin_item(w, 7))
        head(w, 7, v);
}

void aps_cbor_write_bool(aps_cbor_writer *w, int v)
{
    simple(w, v ? 21 : 20);
}

void aps_cbor_write_null(aps_cbor_writer *w)
{
    simple(w, 22);
}

void aps_cbor_write_undefined(aps_cbor_writer *w)
{
    simple(w, 23);
}

void aps_cbor_write_simple(aps_cbor_writer *w, uint8_t v)
{
    if (v >= 20 && v < 32) {
        fail(w, APS_E_ARGUMENT);
        return;
    }
    simple(w, v);
}

void aps_cbor_write_float(aps_cbor_writer *w, double v)
{
    uint8_t b[9];
    if (begin_item(w, 7))
        put(w, b, aps_cbor_impl_put_float(b, v));
}

void aps_cbor_write_float_width(aps_cbor_writer *w, double v, int width)
{
    uint8_t b[9];
    uint16_t half;
    size_t n;
    if (width == 2 && !aps_cbor_impl_to_half(v, &half)) {
        fail(w, APS_E_RANGE);
        return;
    }
    if (width == 4 && !aps_cbor_impl_fits_single(v)) {
        fail(w, APS_E_RANGE);
        return;
    }
    if (width != 2 && width != 4 && width != 8) {
        fail(w, APS_E_ARGUMENT);
        return;
    }
    if (!begin_item(w, 7))
        return;
    n = width == 2 ? aps_cbor_impl_put_bits(b, 25, half, 2) : width == 4 ? aps_cbor_impl_put_single(b, v) : aps_cbor_impl_put_double(b, v);
    put(w, b, n);
}

void aps_cbor_write_raw(aps_cbor_writer *w, aps_cbor_raw raw)
{
    if (raw.ptr == NULL || raw.len == 0) {
        fail(w, APS_E_ARGUMENT);
        return;
    }
    /* a whole tagged item is one item: not counted as a tag whose item is still to come */
    if (begin_item(w, (int)(raw.ptr[0] >> 5) == 6 ? 7 : (int)(raw.ptr[0] >> 5)))
        put(w, raw.ptr, raw.len);
}

/* ---- containers ------------------------------------------------------------------ */

static void open_frame(aps_cbor_writer *w, unsigned major, uint64_t count, uint8_t is_string)
{
    aps_cbor_wframe *f;
    int indefinite = count == APS_CBOR_INDEFINITE;
    if (indefinite && w->deterministic) {
        fail(w, APS_E_ARGUMENT);
        return;
    }
    if (major == 5 && !indefinite && count > UINT64_MAX / 2) {
        fail(w, APS_E_ARGUMENT);
        return;
    }
    if (w->depth >= APS_CBOR_WRITER_MAX_DEPTH) {
        fail(w, APS_E_DEPTH);
        return;
    }
    if (!begin_item(w, (int)major))
        return;
    if (!grow(w, (void **)&w->frames, &w->frame_cap, w->depth + 1, sizeof *w->frames)) {
        fail(w, APS_E_NOMEM);
        return;
    }
    if (indefinite) {
        uint8_t b = (uint8_t)(major << 5 | 31);
        put(w, &b, 1);
    } else {
        head(w, major, count);
    }
    f = &w->frames[w->depth++];
    memset(f, 0, sizeof *f);
    f->indefinite = (uint8_t)indefinite;
    f->is_map = major == 5;
    f->is_string = is_string;
    f->left = indefinite ? 0 : major == 5 ? count * 2 : count;
    f->start = w->len;
    f->entry_base = w->entry_top;
}

void aps_cbor_write_array_begin(aps_cbor_writer *w, uint64_t count)
{
    open_frame(w, 4, count, 0);
}

void aps_cbor_write_map_begin(aps_cbor_writer *w, uint64_t count)
{
    open_frame(w, 5, count, 0);
}

void aps_cbor_write_bytes_begin(aps_cbor_writer *w)
{
    open_frame(w, 2, APS_CBOR_INDEFINITE, 2);
}

void aps_cbor_write_text_begin(aps_cbor_writer *w)
{
    open_frame(w, 3, APS_CBOR_INDEFINITE, 3);
}

/* One entry of a deterministic map while sorting: its key's and its whole entry's bytes. */
typedef struct map_entry {
    const uint8_t *key;
    size_t key_len;
    size_t len; /* key and value */
} map_entry;

static int compare_entries(const void *a, const void *b)
{
    const map_entry *x = (const map_entry *)a, *y = (const map_entry *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

/* Sorts the entries of the deterministic map f (its bytes end at w->len) by key. */
static void sort_map(aps_cbor_writer *w, const aps_cbor_wframe *f)
{
    size_t n = (w->entry_top - f->entry_base) / 2, i, at, bytes = w->len - f->start;
    const size_t *offs = w->entries + f->entry_base;
    map_entry *es;
    uint8_t *copy;
    if (n < 2)
        return;
    es = (map_entry *)w->allocator.alloc(w->allocator.ctx, n * sizeof *es);
    copy = (uint8_t *)w->allocator.alloc(w->allocator.ctx, bytes);
    if (es == NULL || copy == NULL) {
        if (es != NULL)
            w->allocator.free(w->allocator.ctx, es, n * sizeof *es);
        if (copy != NULL)
            w->allocator.free(w->allocator.ctx, copy, bytes);
        fail(w, APS_E_NOMEM);
        return;
    }
    memcpy(copy, w->buf + f->start, bytes);
    for (i = 0; i < n; i++) {
        size_t k = offs[2 * i], v = offs[2 * i + 1];
        size_t end = i + 1 < n ? offs[2 * i + 2] : w->len;
        es[i].key = copy + (k - f->start);
        es[i].key_len = v - k;
        es[i].len = end - k;
    }
    qsort(es, n, sizeof *es, compare_entries);
    for (i = 1; i < n; i++)
        if (compare_entries(&es[i - 1], &es[i]) == 0)
            fail(w, APS_E_DUPLICATE);
    for (i = 0, at = f->start; i < n && w->status == APS_OK; i++) {
        memcpy(w->buf + at, es[i].key, es[i].len);
        at += es[i].len;
    }
    w->allocator.free(w->allocator.ctx, es, n * sizeof *es);
    w->allocator.free(w->allocator.ctx, copy, bytes);
}

/* Closes the innermost frame, which must be of the kind `want` (0 array, 1 map, 2 string). */
static void close_frame(aps_cbor_writer *w, int want)
{
    aps_cbor_wframe *f;
    if (w->status != APS_OK)
        return;
    if (w->depth == 0 || w->pending_tags > 0) {
        fail(w, APS_E_STATE);
        return;
    }
    f = &w->frames[w->depth - 1];
    if ((want == 2) != (f->is_string != 0) || (want == 1) != (f->is_map != 0) ||
        (!f->indefinite && f->left != 0) || (f->indefinite && f->is_map && (f->left & 1))) {
        fail(w, APS_E_STATE);
        return;
    }
    if (f->indefinite) {
        uint8_t brk = 0xff;
        put(w, &brk, 1);
    } else if (f->is_map && w->deterministic) {
        sort_map(w, f);
    }
    w->entry_top = f->entry_base;
    w->depth--;
}

void aps_cbor_write_array_end(aps_cbor_writer *w)
{
    close_frame(w, 0);
}

void aps_cbor_write_map_end(aps_cbor_writer *w)
{
    close_frame(w, 1);
}

void aps_cbor_write_string_end(aps_cbor_writer *w)
{
    close_frame(w, 2);
}

aps_status aps_cbor_writer_finish(aps_cbor_writer *w, aps_error *err)
{
    if (w->status != APS_OK)
        return aps_error_set(err, w->status, w->len, "CBOR writer failed: %s",
                             aps_status_str(w->status));
    if (w->depth != 0 || w->pending_tags != 0 || !w->done)
        return aps_error_set(err, APS_E_STATE, w->len, "%s",
                             w->done ? "a container or tag is still open" : "nothing was written");
    return APS_OK;
}
