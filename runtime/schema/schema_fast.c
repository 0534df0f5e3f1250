/*
 * schema_fast.c - the decoder's fast path: one pass over well-formed input
 * of the usual shape, with no error bookkeeping.
 *
 * aps_schema_decode tries it first. It walks the bytes directly, where the
 * exact decoder (schema_decode.c) drives the pull reader, which keeps frames,
 * a stack of member names for duplicate checks and JSON Pointers, and the
 * position of every value for located errors. Most of a decode's time went
 * there, and none of it is needed when the input is right. So this path
 * keeps only what deciding needs: known members are tracked in a bitset,
 * unknown ones compared with each other, and anything wrong or unusual (a
 * syntax error, an escaped member name, an unknown variant, an untagged
 * choice whose first fitting alternative fails, very wide or deep input)
 * makes it give up; the exact decoder then starts over and finds the same
 * value or the located error.
 *
 * The one rule: what this path accepts, the exact decoder accepts, with the
 * same resulting value. Each function below mirrors its exact counterpart
 * and gives up wherever the two could differ; the decode_fast fuzz target
 * (tests/fuzz) checks the rule on every input it tries.
 *
 * Every function returns the position after what it read, or NULL to give up.
 */
#include "aps/fast.h"
#include "aps/json_impl.h"
#include "schema_internal.h"

#include <string.h>

/*
 * Limits past which the exact decoder takes over: JSON nesting (the
 * validating skip's, APS_JSON_FAST_DEPTH, set by aps_fast_begin; the
 * reader's own limit applies when lower), typed nesting (for the stack;
 * the exact decoder allows APS_SCHEMA_MAX_DEPTH), and member names per
 * map or open struct, whose duplicates are checked by comparing with each
 * other.
 */
#define FAST_MAX_TYPED APS_FAST_MAX_TYPED
#define FAST_MAX_NAMES APS_JSON_FAST_NAMES

/* For the few steps of every member: a call there costs more than the code. */
#if defined(__GNUC__) || defined(__clang__)
#define FAST_INLINE inline __attribute__((always_inline))
#else
#define FAST_INLINE inline
#endif

#define FAST_MAX_FIELDS APS_FAST_MAX_FIELDS

/* The context shared with generated decoders (aps/fast.h). */
typedef aps_fast_ctx fast_ctx;

static const char *fast_value(fast_ctx *c, const aps_type *t, const char *p, void *out);

/* ---- bytes ------------------------------------------------------------------ */

/* Index of the lowest set bit of x (x != 0). */
static inline unsigned fast_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned i = 0;
    while (!((x >> i) & 1u))
        i++;
    return i;
#endif
}

/* The byte each one-letter escape stands for, by its letter; 0 for the other bytes (a table: no branch). */
static const char short_escapes[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
};

/*
 * The value of each hex digit by its byte, plus one; 0 for the other bytes
 * (a table, so that four digits cost four loads and no branch).
 */
static const unsigned char hex_plus_one[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * The code point of the escape `\uXXXX` at s (six bytes there), when it is
 * one outside the surrogates; else a value above 0xFFFF, and the caller
 * takes the reader's general path (aps_json_impl_unescape_one: surrogate
 * pairs and the errors).
 */
static inline uint32_t hex_escape_bmp(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned a = hex_plus_one[u[2]], b = hex_plus_one[u[3]], c = hex_plus_one[u[4]], d = hex_plus_one[u[5]];
    uint32_t cp = ((uint32_t)(a - 1) << 12) | ((uint32_t)(b - 1) << 8) | ((uint32_t)(c - 1) << 4) | (d - 1);
    if (a == 0 || b == 0 || c == 0 || d == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0x110000;
    return cp;
}

/*
 * Writes the content of the string from s (after its opening '"', in an
 * input that starts at begin) to its closing '"' into buf, unescaped and
 * checked as the reader checks it (escapes, surrogates, UTF-8, no control
 * character), in one pass. Returns its closing '"' with *n the length
 * written; NULL when it is not valid, or with *full set when the `room`
 * bytes of buf were too few. Unescaped text is never longer than its
 * escaped form, so room for that is enough.
 *
 * Each step copies a plain run and ends at a stop ('"', '\\', a control
 * character or a byte past ASCII), which the step's end decides. Escaped
 * text deltas are short runs between escapes, so the step is kept to one
 * 16-byte load and store and a dispatch on the stop's byte.
 */
static const char *unescape_into(const char *begin, const char *s, const char *end, char *buf, size_t room, size_t *n,
                                 bool *full)
{
    const char *t, *bad, *why;
    char one[4]; /* the UTF-8 of one hex escape (or surrogate pair) */
    aps_status code;
    size_t k = 0, w;
    uint32_t cp;
    char e;
    for (;;) {
#if defined(__SSE2__)
        if (end - s >= 16 && room - k >= 16) {
            /* The store may pass the run's end, never the room's. */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
            unsigned m = aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v);
            _mm_storeu_si128((__m128i *)(void *)(buf + k), v);
            if (m == 0) {
                s += 16;
                k += 16;
                continue;
            }
            s += __builtin_ctz(m);
            k += __builtin_ctz(m);
        } else
#endif
#ifdef APS_SCAN_HAVE_STOPS64
        if (room - k >= 8 && end - begin >= 8 && s < end) {
            /* Near the input's end (the string is often a message's last
             * value): eight bytes a step, the last ones from the word of the
             * input's last eight bytes, shifted down (the zeros shifted in
             * are stops). The store may pass the run's end, never the room's. */
            uint64_t word = end - s >= 8 ? aps_scan_load64(s) : aps_scan_load64(end - 8) >> (8 * (8 - (end - s)));
            uint64_t stops = aps_scan_stops64(word);
            memcpy(buf + k, &word, 8);
            if (stops == 0) {
                s += 8;
                k += 8;
                continue;
            }
            s += __builtin_ctzll(stops) / 8;
            k += __builtin_ctzll(stops) / 8;
            if (s >= end)
                return NULL;
        } else
#endif
        {
            /* Near the end of the room: a byte a step. */
            for (; s < end && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x80 && *s != '"' && *s != '\\'; s++) {
                if (k == room)
                    goto full;
                buf[k++] = *s;
            }
            if (s >= end)
                return NULL;
        }
        if (*s == '\\') {
            if (end - s >= 2 && (e = short_escapes[(unsigned char)s[1]]) != 0) {
                if (k == room)
                    goto full;
                buf[k++] = e;
                s += 2;
                continue;
            }
            if (end - s >= 6 && s[1] == 'u' && (cp = hex_escape_bmp(s)) <= 0xFFFF && room - k >= 3) {
                /* One character of the Basic Multilingual Plane, as aps_utf8_encode writes it. */
                if (cp < 0x80) {
                    buf[k++] = (char)cp;
                } else if (cp < 0x800) {
                    buf[k++] = (char)(0xC0 | (cp >> 6));
                    buf[k++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    buf[k++] = (char)(0xE0 | (cp >> 12));
                    buf[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[k++] = (char)(0x80 | (cp & 0x3F));
                }
                s += 6;
                continue;
            }
            if ((s = aps_json_impl_unescape_one(s, end, one, &w, &code, &bad, &why)) == NULL)
                return NULL;
            if (room - k < w)
                goto full;
            memcpy(buf + k, one, w);
            k += w;
        } else if (*s == '"') {
            *n = k;
            return s;
        } else {
            if ((t = aps_scan_utf8_char(s, end)) == NULL)
                return NULL; /* a control character, or bad UTF-8 */
            if (room - k < (size_t)(t - s))
                goto full;
            while (s < t)
                buf[k++] = *s++;
        }
    }
full:
    *full = true;
    return NULL;
}

/* Characters past ASCII checked one by one before a long string's rest goes to the core's 16-byte scan. */
#define FAST_UTF8_ONE_BY_ONE 8

const char *aps_fast_string_slow(fast_ctx *c, const char *p, const char *s, aps_slice *out)
{
    const char *q = p + 1, *e;
    char *buf;
    size_t room, n, len;
    bool full = false;
    int escaped, chars;
    /* Without escapes the content is a slice of the input: its characters
     * past ASCII are checked where they stand, the first few one by one
     * (text with an accent or an emoji here and there), the rest of a
     * string with more of them by the core's scan, 16 bytes a step. */
    for (chars = 0; s < c->end && (unsigned char)*s >= 0x80 && chars < FAST_UTF8_ONE_BY_ONE; chars++) {
        if ((s = aps_scan_utf8_char(s, c->end)) == NULL)
            return NULL;
        s = aps_scan_find_stop_in(c->begin, s, c->end);
    }
    if (s < c->end && *s == '"') {
        out->ptr = q;
        out->len = (size_t)(s - q);
        return s + 1;
    }
    if (chars < FAST_UTF8_ONE_BY_ONE) {
        if (!(s < c->end && *s == '\\'))
            return NULL; /* a control character, or the end of the input */
        /* Escaped text is unescaped in one pass into the arena's free room... */
        buf = aps_arena_room(c->arena, &room);
        if (buf != NULL && (e = unescape_into(c->begin, q, c->end, buf, room, &n, &full)) != NULL) {
            aps_arena_commit(c->arena, n);
            out->ptr = buf;
            out->len = n;
            return e + 1;
        }
        if (buf != NULL && !full)
            return NULL;
    }
    /* ... or, when it is too small (or the string long), into a block of
     * the escaped length, found first. */
    if ((e = aps_scan_string_slow(s, c->end, &escaped)) == NULL)
        return NULL;
    if (!escaped) {
        out->ptr = q;
        out->len = (size_t)(e - 1 - q);
        return e;
    }
    len = (size_t)(e - 1 - q);
    if ((buf = (char *)aps_arena_alloc_aligned(c->arena, len, 1)) == NULL ||
        (e = unescape_into(c->begin, q, c->end, buf, len, &n, &full)) == NULL)
        return NULL;
    aps_arena_realloc(c->arena, buf, len, n, 1); /* the last block: shrinks in place */
    out->ptr = buf;
    out->len = n;
    return e + 1;
}

/* Is s the text literal lit? (aps_schema_priv_text_is without a libc call.) */
static inline bool fast_text_is(const aps_literal *lit, aps_slice s)
{
    return lit->kind == APS_LIT_TEXT && lit->len == s.len && aps_scan_bytes_equal(lit->text, s.ptr, s.len);
}


/* Leaves a container of n items read into an arena array: the counterpart of fast_open. */
static inline const char *fast_close_items(fast_ctx *c, const char *p, void *items, size_t n, size_t min,
                                           aps_array *out)
{
    c->depth--;
    if (n < min)
        return NULL;
    out->items = items;
    out->count = n;
    return p;
}

/* ---- any: a validating skip ---------------------------------------------- */

/* Skips one JSON value, checking what aps_json_skip checks (json_fast.c). */
static inline const char *fast_skip(fast_ctx *c, const char *p)
{
    return aps_json_impl_skip_fast(p, c->end, c->max_depth - c->depth, 0);
}

const char *aps_fast_any(fast_ctx *c, const char *p, aps_json_raw *out)
{
    const char *q = fast_skip(c, p);
    if (q != NULL) {
        out->ptr = p;
        out->len = (size_t)(q - p);
    }
    return q;
}

/* ---- scalars ------------------------------------------------------------------ */

/* Does text s meet t's size and pattern? (Out of line: its message buffer is big.) */
static APS_NOINLINE bool fast_text_ok(const aps_type *t, aps_slice s)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    return aps_schema_priv_check_text(t, s.ptr, s.len, msg, sizeof msg) == APS_OK;
}

const char *aps_fast_text(fast_ctx *c, const aps_type *t, const char *p, aps_slice *out)
{
    if ((p = aps_fast_string(c, p, out)) == NULL)
        return NULL;
    if (APS_UNLIKELY(aps_schema_priv_text_constrained(t, out->len)) && !fast_text_ok(t, *out))
        return NULL;
    return p;
}

static const char *fast_enum(fast_ctx *c, const aps_type *t, const char *p, void *out)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    aps_slice s;
    int k;
    if (aps_schema_priv_enum_of_ints(t) || (p = aps_fast_string(c, p, &s)) == NULL)
        return NULL; /* integers: the exact decoder reads them */
    if (t->u.enm.sorted != NULL && (k = aps_schema_enum_find(t, s.ptr, s.len)) > 0) {
        *(int *)out = k;
        return p;
    }
    for (k = 0; t->u.enm.sorted == NULL && (size_t)k < t->u.enm.count; k++) {
        if (fast_text_is(&t->u.enm.values[k], s)) {
            *(int *)out = k + 1;
            return p;
        }
    }
    if (t->u.enm.other == NULL ||
        aps_schema_priv_check_text(t->u.enm.other, s.ptr, s.len, msg, sizeof msg) != APS_OK)
        return NULL;
    *(int *)out = 0;
    *APS_AT(out, t->u.enm.other_offset, aps_slice) = s;
    return p;
}

static inline const char *fast_int(fast_ctx *c, const aps_type *t, const char *p, void *out)
{
    if (t->kind == APS_K_INT)
        return aps_fast_int(c, p, t->u.i.min, t->u.i.max, (int64_t *)out);
    p = aps_fast_uint(c, p, t->u.u.min, t->u.u.max, (uint64_t *)out);
    return p != NULL && (*(uint64_t *)out & t->u.u.forbidden_bits) != 0 ? NULL : p;
}

static const char *fast_float(const aps_type *t, const char *p, const char *end, double *out)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    const char *e, *bad;
    if (p >= end || (*p != '-' && (unsigned)(*p - '0') > 9) ||
        (e = aps_json_impl_scan_number(p, end, &bad)) == NULL || !aps_json_impl_to_double(p, e, out))
        return NULL;
    if ((t->u.f.has_min || t->u.f.has_max || t->u.f.width != 0) && aps_schema_priv_check_float(t, *out, msg, sizeof msg) != APS_OK)
        return NULL;
    return e;
}

/*
 * Reads a value that must be the literal `lit`: *matched says whether it
 * was. A value of the literal's kind that differs is no match; anything else
 * gives up.
 */
static const char *fast_literal(fast_ctx *c, const aps_literal *lit, const char *p, bool *matched)
{
    const char *end = c->end;
    switch (lit->kind) {
    case APS_LIT_TEXT: {
        aps_slice s;
        if ((p = aps_fast_string(c, p, &s)) == NULL)
            return NULL;
        *matched = fast_text_is(lit, s);
        return p;
    }
    case APS_LIT_INT:
    case APS_LIT_UINT: {
        bool neg;
        uint64_t mag;
        if ((p = aps_scan_integer(p, end, &neg, &mag)) == NULL)
            return NULL;
        if (lit->kind == APS_LIT_UINT)
            *matched = (!neg || mag == 0) && mag == lit->u;
        else if (lit->i < 0)
            *matched = neg && mag == (uint64_t)0 - (uint64_t)lit->i;
        else
            *matched = (!neg || mag == 0) && mag == (uint64_t)lit->i;
        return p;
    }
    case APS_LIT_BOOL: {
        bool b;
        if ((p = aps_fast_bool(c, p, &b)) != NULL)
            *matched = b == (lit->i != 0);
        return p;
    }
    case APS_LIT_NULL:
        *matched = true;
        return aps_scan_word(p, end, "null", 4);
    case APS_LIT_FLOAT:
    case APS_LIT_UNDEFINED:
    case APS_LIT_BYTES:
        break;
    }
    return NULL;
}

/* ---- arrays and maps ------------------------------------------------------------ */

void *aps_fast_grow_full(fast_ctx *c, void *items, size_t *cap, size_t size)
{
    size_t ncap = *cap * 2;
    if (ncap > SIZE_MAX / size ||
        (items = aps_arena_realloc(c->arena, items, *cap * size, ncap * size, APS_ARENA_ALIGN)) == NULL)
        return NULL;
    *cap = ncap;
    return items;
}

static const char *fast_array(fast_ctx *c, const aps_type *t, const char *p, aps_array *out)
{
    const aps_type *et = t->u.arr.elem;
    size_t es = et->size, n = 0, cap = 0;
    void *items = NULL;
    int closed;
    if ((p = aps_fast_open(c, p, '[', &closed)) == NULL)
        return NULL;
    while (!closed) {
        if (n >= t->u.arr.max || (es != 0 && (items = aps_fast_grow(c, items, n, &cap, es)) == NULL) ||
            (p = fast_value(c, et, p, (char *)items + n * es)) == NULL ||
            (p = aps_scan_next(p, c->end, ']', &closed)) == NULL)
            return NULL;
        n++;
    }
    return fast_close_items(c, p, items, n, t->u.arr.min, out);
}

/* Is `name` among the n names kept in `items` (of `size` bytes, name first)? */
static bool fast_name_in(const char *items, size_t n, size_t size, aps_slice name)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const aps_slice *k = (const aps_slice *)(const void *)(items + i * size);
        if (k->len == name.len && aps_scan_bytes_equal(k->ptr, name.ptr, name.len))
            return true;
    }
    return false;
}

static const char *fast_map(fast_ctx *c, const aps_type *t, const char *p, aps_array *out)
{
    size_t es = t->u.map.entry_size, n = 0, cap = 0;
    void *items = NULL;
    char *entry;
    aps_slice name;
    int closed;
    if ((p = aps_fast_open(c, p, '{', &closed)) == NULL)
        return NULL;
    while (!closed) {
        if (n >= t->u.map.max || n >= FAST_MAX_NAMES || (p = aps_scan_name(p, c->end, &name)) == NULL ||
            fast_name_in((const char *)items, n, es, name) || (items = aps_fast_grow(c, items, n, &cap, es)) == NULL)
            return NULL;
        entry = (char *)items + n * es;
        *(aps_slice *)(void *)entry = name;
        if ((p = fast_value(c, t->u.map.value, p, entry + t->u.map.value_offset)) == NULL ||
            (p = aps_scan_next(p, c->end, '}', &closed)) == NULL)
            return NULL;
        n++;
    }
    return fast_close_items(c, p, items, n, t->u.map.min, out);
}

/* ---- objects: structs, their variants, discriminated unions ---------------- */

/* Does input name k name field f under the decoder's key case? */
static inline bool fast_named(const aps_field *f, aps_slice k, aps_key_case kc)
{
    if (kc != APS_CASE_SNAKE && f->key_len == k.len && aps_scan_bytes_equal(f->key, k.ptr, k.len))
        return true;
    if (kc == APS_CASE_SCHEMA)
        return false;
    if (f->snake == NULL)
        return kc == APS_CASE_SNAKE && f->key_len == k.len && aps_scan_bytes_equal(f->key, k.ptr, k.len);
    return f->snake_len == k.len && aps_scan_bytes_equal(f->snake, k.ptr, k.len);
}

/* Is the name whose '"' is at p exactly `name`? (Plain names only: no scan for escapes.) */
static inline bool fast_is_plain(const char *p, const char *end, const char *name, size_t len)
{
    return (size_t)(end - p) > len + 1 && p[len + 1] == '"' && aps_scan_bytes_equal(p + 1, name, len);
}

/*
 * Members usually come in schema order: is the member at p field f, read
 * byte for byte? Then returns its value's position; NULL when it is not
 * (the caller reads the name the long way).
 */
static FAST_INLINE const char *fast_expected(const aps_field *f, const char *p, const char *end, aps_key_case kc,
                                        aps_slice *name)
{
    if (!(f->flags & APS_F_PLAIN_NAMES) || p >= end || *p != '"')
        return NULL;
    if (kc != APS_CASE_SNAKE && fast_is_plain(p, end, f->key, f->key_len))
        name->len = f->key_len;
    else if (kc != APS_CASE_SCHEMA && f->snake != NULL && fast_is_plain(p, end, f->snake, f->snake_len))
        name->len = f->snake_len;
    else
        return NULL;
    name->ptr = p + 1;
    return aps_scan_colon(p + name->len + 2, end);
}

/* The field named k, looked for from *hint on (members usually come in schema order); SIZE_MAX if none. */
static inline size_t fast_find(const aps_field *fields, size_t n, aps_slice k, aps_key_case kc, size_t *hint)
{
    size_t i;
    for (i = *hint; i < n; i++) {
        if (fast_named(&fields[i], k, kc))
            goto found;
    }
    for (i = 0; i < *hint && i < n; i++) {
        if (fast_named(&fields[i], k, kc))
            goto found;
    }
    return SIZE_MAX;
found:
    *hint = i + 1;
    return i;
}

/* Member-name equality with a NUL-terminated schema name (a discriminant's). */
static inline bool fast_is(const char *name, aps_slice k)
{
    size_t i;
    /* k holds no NUL byte (a name with one is escaped, or invalid), so
     * name[i] == k.ptr[i] also says that name goes on past i. */
    for (i = 0; i < k.len; i++) {
        if (name[i] != k.ptr[i])
            return false;
    }
    return name[k.len] == '\0';
}

/*
 * The member of u's first alternative that is u's discriminant: its
 * spellings are the ones the exact decoder matches. NULL if none.
 */
static FAST_INLINE const aps_field *fast_disc_field(const aps_type *u)
{
    const char *dk = u->u.un.disc_key;
    const aps_type *a;
    size_t i;
    if (u->u.un.nalts == 0 || (a = u->u.un.alts[0])->kind != APS_K_STRUCT)
        return NULL;
    for (i = 0; i < a->u.st.nfields; i++) {
        const aps_field *f = &a->u.st.fields[i];
        if (f->key == dk || strcmp(f->key, dk) == 0)
            return f;
    }
    return NULL;
}

/* Is k the snake_case spelling of union u's discriminant? */
static bool fast_is_disc_snake(const aps_type *u, aps_slice k)
{
    const aps_field *f = fast_disc_field(u);
    return fast_is(f != NULL && f->snake != NULL ? f->snake : u->u.un.disc_key, k);
}

/* Is k the discriminant of union u under the key case? */
static inline bool fast_is_disc(const aps_type *u, aps_slice k, aps_key_case kc)
{
    if (kc != APS_CASE_SNAKE && fast_is(u->u.un.disc_key, k))
        return true;
    return kc != APS_CASE_SCHEMA && fast_is_disc_snake(u, k);
}

/*
 * Is the member at p u's discriminant, read byte for byte as fast_expected
 * reads a field? Then returns its value's position; NULL when it is not
 * (the caller reads the name the long way).
 */
static FAST_INLINE const char *fast_disc_at(const aps_type *u, const char *p, const char *end, aps_key_case kc)
{
    const aps_field *f = fast_disc_field(u);
    aps_slice name;
    return f != NULL ? fast_expected(f, p, end, kc, &name) : NULL;
}

/*
 * Is the string whose '"' is at p the text literal lit, read byte for byte?
 * Only the literal's bytes and then a '"' are compared: the caller checks
 * that lit is plain (fast_plain), else a '"' or '\\' inside it could end
 * or escape the input's string where lit's text goes on.
 */
static inline bool fast_literal_at(const char *p, const char *end, const aps_literal *lit)
{
    return lit->kind == APS_LIT_TEXT && (size_t)(end - p) > lit->len + 1 && p[lit->len + 1] == '"' &&
           aps_scan_bytes_equal(p + 1, lit->text, lit->len);
}

/* High bit set in each byte of w that is '"', '\\', a control or non-ASCII
 * (and maybe in bytes above such a one: fine for "is there any"). */
static inline uint64_t fast_special8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull;
    uint64_t q = w ^ (ones * '"'), k = w ^ (ones * '\\');
    return ((q - ones) & ~q) | ((k - ones) & ~k) | ((w - ones * 0x20) & ~w) | w;
}

/*
 * Are the n bytes at s string content standing for themselves: no '"',
 * '\\', control or non-ASCII byte? Words of eight, the last one
 * overlapping; below eight bytes two overlapping halves, below four byte by byte.
 */
static FAST_INLINE bool fast_plain(const char *s, size_t n)
{
    uint64_t w, any = 0;
    size_t i;
    if (n >= 8) {
        for (i = 0; i + 8 <= n; i += 8) {
            memcpy(&w, s + i, 8);
            any |= fast_special8(w);
        }
        memcpy(&w, s + n - 8, 8);
        return ((any | fast_special8(w)) & 0x8080808080808080ull) == 0;
    }
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        return (fast_special8(lo | (uint64_t)hi << 32) & 0x8080808080808080ull) == 0;
    }
    for (i = 0; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\')
            return false;
    }
    return true;
}

/* fast_pick for values not read byte for byte: read as strings, escapes and all. */
static APS_NOINLINE const char *fast_pick_slow(fast_ctx *c, const aps_type *u, const char *p, size_t *alt)
{
    aps_slice v;
    size_t i;
    if ((p = aps_fast_string(c, p, &v)) == NULL)
        return NULL;
    for (i = 0; i < u->u.un.nalts; i++) {
        if (fast_text_is(&u->u.un.disc[i], v)) {
            *alt = i;
            return u->u.un.alts[i]->kind == APS_K_STRUCT ? p : NULL;
        }
    }
    return NULL;
}

/*
 * Reads a discriminant value at p and picks u's alternative by it (0-based
 * into *alt). Unknown values give up: tolerant or strict, the exact decoder
 * handles them.
 */
static FAST_INLINE const char *fast_pick(fast_ctx *c, const aps_type *u, const char *p, size_t *alt)
{
    const aps_literal *disc = u->u.un.disc;
    size_t i, n = u->u.un.nalts;
    if (p >= c->end || *p != '"')
        return NULL;
    /* Byte for byte against each literal: no scan of the value, and a
     * literal of another length costs one byte's test. */
    for (i = 0; i < n; i++) {
        if (fast_literal_at(p, c->end, &disc[i])) {
            if (!fast_plain(disc[i].text, disc[i].len))
                break; /* the long way decides */
            *alt = i;
            return u->u.un.alts[i]->kind == APS_K_STRUCT ? p + disc[i].len + 2 : NULL;
        }
    }
    return fast_pick_slow(c, u, p, alt);
}

/*
 * Looks ahead from the value at p, through the rest of the object, for the
 * discriminant of u; picks the alternative by it. The object is read again
 * for real afterwards.
 */
static bool fast_look_ahead(fast_ctx *c, const aps_type *u, const char *p, size_t *alt)
{
    const aps_field *f = fast_disc_field(u);
    const char *key = u->u.un.disc_key, *snake = f != NULL && f->snake != NULL ? f->snake : key;
    unsigned depth = c->depth;
    if ((p = aps_fast_look_ahead(c, p, key, strlen(key), snake, strlen(snake))) == NULL)
        return false;
    c->depth = depth;
    return fast_pick(c, u, p, alt) != NULL;
}

static FAST_INLINE const char *fast_field(fast_ctx *c, const aps_field *f, const char *p, char *base)
{
    unsigned fl = f->flags;
    if ((fl & APS_F_NULLABLE) && p < c->end && *p == 'n') {
        if ((p = aps_scan_word(p, c->end, "null", 4)) == NULL)
            return NULL;
        *APS_AT(base, f->null_offset, bool) = true;
    } else if (fl & APS_F_LITERAL) {
        bool matched;
        if ((p = fast_literal(c, &f->type->u.lit, p, &matched)) == NULL || !matched)
            return NULL;
    } else {
        /* The usual member types read here, the rest through the dispatcher. */
        const aps_type *t = f->type;
        void *out = base + f->offset;
        switch (t->kind) {
        case APS_K_TEXT: p = aps_fast_text(c, t, p, (aps_slice *)out); break;
        case APS_K_INT:
        case APS_K_UINT: p = fast_int(c, t, p, out); break;
        default: p = fast_value(c, t, p, out); break;
        }
        if (p == NULL)
            return NULL;
    }
    if (fl & APS_F_OPTIONAL)
        *APS_AT(base, f->present_offset, bool) = true;
    return p;
}

/* Were all required fields among the n seen? Only the unseen ones are looked at. */
static bool fast_has_required(const aps_field *f, size_t n, uint64_t seen)
{
    uint64_t missing = ~seen & (n < 64 ? ((uint64_t)1 << n) - 1u : ~(uint64_t)0);
    while (missing != 0) {
        unsigned i = fast_ctz64(missing);
        if (!(f[i].flags & APS_F_OPTIONAL))
            return false;
        missing &= missing - 1u;
    }
    return true;
}

/* Decodes field f, number i in the object's seen-set, unless it was seen already. */
static FAST_INLINE const char *fast_member(fast_ctx *c, const aps_field *f, size_t i, uint64_t *seen,
                                      const char *p, char *base)
{
    if (i >= FAST_MAX_FIELDS || ((*seen >> i) & 1u))
        return NULL;
    *seen |= (uint64_t)1 << i;
    return fast_field(c, f, p, base);
}

/*
 * Keeps the unknown member `name`, whose value is at p, in the list of open
 * struct `owner` at `obase`, as keep_extra does; *cap is the list's room.
 * Names kept are compared with each other: no known field has theirs.
 */
int aps_fast_extra(fast_ctx *c, const aps_type *owner, void *obase, aps_slice name, const char **pp, size_t *cap)
{
    aps_json_members *x = APS_AT(obase, owner->u.st.extras_offset, aps_json_members);
    const aps_type *xt = owner->u.st.extras_type;
    aps_json_member *m;
    const char *start = *pp, *p = start;
    if (x->count >= FAST_MAX_NAMES || fast_name_in((const char *)x->items, x->count, sizeof *m, name))
        return -1;
    if (xt == NULL) {
        p = fast_skip(c, p);
    } else {
        /* A typed tail: the value must decode as its type; only its raw text is kept. */
        aps_arena_marker mark = aps_arena_mark(c->arena);
        void *scratch = aps_arena_alloc(c->arena, xt->size);
        if (scratch == NULL)
            return -1;
        memset(scratch, 0, xt->size);
        p = fast_value(c, xt, p, scratch);
        aps_arena_rollback(c->arena, mark);
    }
    if (p == NULL || (m = (aps_json_member *)aps_fast_grow(c, x->items, x->count, cap, sizeof *m)) == NULL)
        return -1;
    x->items = m;
    m += x->count;
    memset(m, 0, sizeof *m); /* no CBOR form kept: JSON is all there is */
    m->key = name;
    m->value.ptr = start;
    m->value.len = (size_t)(p - start);
    x->count++;
    *pp = p;
    return 1;
}

const char *aps_fast_compact_extras_read(fast_ctx *c, const char *p, char *sep, const aps_type *owner, void *out,
                                         int (*index)(const fast_ctx *, aps_slice))
{
    size_t cap = 0;
    aps_slice k;
    while (c->end - p > 1 && p[0] == *sep && p[1] == '"') {
        if ((p = aps_scan_name(p + 1, c->end, &k)) == NULL || index(c, k) >= 0 ||
            aps_fast_extra(c, owner, out, k, &p, &cap) <= 0)
            return NULL;
        *sep = ',';
    }
    return p;
}

const char *aps_fast_compact_retry(fast_ctx *c, const char *p, void *out, size_t size,
                                   const char *(*full)(fast_ctx *, const char *, void *), unsigned depth,
                                   unsigned typed)
{
    if (typed == 0 || c->compact_retries != 0)
        return NULL;
    c->depth = depth;
    c->typed = typed;
    c->compact_retries++;
    memset(out, 0, size);
    return full(c, p, out);
}

/* Records the alternative a union value took and its raw text. */
static void fast_set_union(const aps_type *t, char *out, size_t alt, const char *start, const char *end)
{
    aps_json_raw *raw = APS_AT(out, t->u.un.raw_offset, aps_json_raw);
    *APS_AT(out, t->u.un.kind_offset, int) = (int)(alt + 1);
    raw->ptr = start;
    raw->len = (size_t)(end - start);
}

/* Marks alternative `alt`'s discriminant member seen: it was read to pick the alternative. */
static void fast_see_disc(const aps_type *alt, const char *disc_key, size_t first, uint64_t *seen,
                          size_t *hint)
{
    size_t i;
    for (i = 0; i < alt->u.st.nfields; i++) {
        const char *key = alt->u.st.fields[i].key;
        if (key == disc_key || strcmp(key, disc_key) == 0) {
            *seen |= (uint64_t)1 << (first + i);
            *hint = i + 1;
            return;
        }
    }
}

/*
 * An object being read as struct `st` (at `base`), with the alternative of
 * st's variants union `u` (at `ubase`) once it is known: what struct_body
 * keeps in locals.
 */
typedef struct fast_object {
    const aps_type *st, *u, *at; /* at: the alternative, NULL until known */
    const aps_field *pf, *af;    /* st's fields and at's */
    size_t np, na, phint, ahint, alt, xcap;
    char *base, *ubase, *abase;
    uint64_t seen;               /* st's fields, then at's from bit np */
    const char *first;           /* the first member the body reads, and what */
    uint64_t first_seen;         /* was seen then: where a look ahead restarts */
    bool restart;
} fast_object;

/* Takes alternative o->alt of o->u as the object's. */
static bool fast_take_alt(fast_object *o)
{
    o->at = o->u->u.un.alts[o->alt];
    o->af = o->at->u.st.fields;
    o->na = o->at->u.st.nfields;
    return o->np + o->na <= FAST_MAX_FIELDS;
}

/*
 * Reads one member (its name at p) of the object, as struct_body does:
 * st's own fields first, then while the alternative is unknown the
 * discriminant picks it (or a look ahead does, at the first member that is
 * neither), then the alternative's fields, then the open map's list.
 * Returns the position after the member's value.
 */
static const char *fast_object_member(fast_ctx *c, fast_object *o, const char *p)
{
    aps_key_case kc = c->key_case;
    bool choosing = o->u != NULL && o->at == NULL, in_place;
    const aps_field *f;
    const char *q;
    char *base = o->base;
    aps_slice k;
    size_t i, bit;
    /* The expected member, byte for byte (unless it would be the discriminant). */
    if (o->phint < o->np && (q = fast_expected(&o->pf[o->phint], p, c->end, kc, &k)) != NULL &&
        !(choosing && fast_is_disc(o->u, k, kc))) {
        p = q;
        bit = o->phint++;
        f = &o->pf[bit];
        goto known;
    }
    /* The alternative's expected member, byte for byte, unless one of st's
     * own fields has its name (they come first, as in struct_body). */
    if (o->at != NULL && o->ahint < o->na && (q = fast_expected(&o->af[o->ahint], p, c->end, kc, &k)) != NULL &&
        (i = 0, fast_find(o->pf, o->np, k, kc, &i)) == SIZE_MAX) {
        p = q;
        i = o->ahint++;
        f = &o->af[i];
        bit = o->np + i;
        base = o->abase;
        goto known;
    }
    /* The discriminant while the alternative is unknown, byte for byte. */
    if (choosing && (q = fast_disc_at(o->u, p, c->end, kc)) != NULL) {
        in_place = true;
        p = q;
    } else {
        if ((p = aps_scan_name(p, c->end, &k)) == NULL)
            return NULL;
        in_place = choosing && fast_is_disc(o->u, k, kc);
    }
    if (!in_place && (bit = fast_find(o->pf, o->np, k, kc, &o->phint)) != SIZE_MAX) {
        f = &o->pf[bit];
        goto known;
    }
    if (in_place) {
        /* The discriminant is the alternative's literal member: it held. */
        if ((p = fast_pick(c, o->u, p, &o->alt)) == NULL || !fast_take_alt(o))
            return NULL;
        fast_see_disc(o->at, o->u->u.un.disc_key, o->np, &o->seen, &o->ahint);
        return p;
    }
    if (choosing) {
        /* Picked by a look ahead: the object is read again from its first
         * member with the alternative known, as struct_body does after its
         * restore (the same search hints, so the same fields whatever the
         * names). */
        if (!fast_look_ahead(c, o->u, p, &o->alt) || !fast_take_alt(o))
            return NULL;
        o->restart = true;
        return o->first;
    }
    if (o->at != NULL && (i = fast_find(o->af, o->na, k, kc, &o->ahint)) != SIZE_MAX) {
        f = &o->af[i];
        bit = o->np + i;
        base = o->abase;
        goto known;
    }
    if (o->st->u.st.open)
        return aps_fast_extra(c, o->st, o->base, k, &p, &o->xcap) > 0 ? p : NULL;
    return NULL;
known:
    /* Two members one name could reach: the seen bits would miss the name
     * given twice, which the exact decoder reports. */
    if (APS_FAST_UNLIKELY(f->flags & APS_F_SHARED_NAME) && kc != APS_CASE_SCHEMA)
        return NULL;
    /* One place decodes a known field's value: the code is inlined. */
    return fast_member(c, f, bit, &o->seen, p, base);
}

/*
 * The members of an object, as struct_body reads them, into struct `st` at
 * `base`. p stands at the next member name, or after the object when
 * `closed`; `seen` and `hint` carry what the caller read already (a
 * discriminant); `start` is the object's '{', for the variants' raw text.
 */
static const char *fast_body(fast_ctx *c, const char *p, int closed, const char *start,
                             const aps_type *st, char *base, uint64_t seen, size_t hint)
{
    fast_object o;
    memset(&o, 0, sizeof o);
    o.st = st;
    o.u = st->u.st.variants;
    o.pf = st->u.st.fields;
    o.np = st->u.st.nfields;
    o.phint = hint;
    o.base = base;
    o.ubase = o.u != NULL ? base + st->u.st.variants_offset : NULL;
    o.abase = o.u != NULL ? o.ubase + o.u->u.un.payload_offset : NULL;
    o.seen = o.first_seen = seen;
    o.first = p;
    /* a counted tail (`1*3 text => T`) is counted by the exact decoder, which says where it fails */
    if (o.np > FAST_MAX_FIELDS || st->u.st.extras_min != 0 || st->u.st.extras_max != 0)
        return NULL;
    while (!closed) {
        if ((p = fast_object_member(c, &o, p)) == NULL)
            return NULL;
        if (o.restart) {
            o.restart = false;
            o.seen = o.first_seen;
            o.phint = 0;
            continue;
        }
        if ((p = aps_scan_next(p, c->end, '}', &closed)) == NULL)
            return NULL;
    }
    c->depth--;
    if (!fast_has_required(o.pf, o.np, o.seen) || !fast_has_required(o.af, o.na, o.seen >> o.np))
        return NULL;
    if (o.u != NULL) {
        if (o.at == NULL)
            return NULL; /* no discriminant */
        fast_set_union(o.u, o.ubase, o.alt, start, p);
    }
    return p;
}

/* A struct: its object, entered here. */
static const char *fast_struct(fast_ctx *c, const aps_type *t, const char *p, char *out)
{
    const char *start = p;
    int closed;
    if ((p = aps_fast_open(c, p, '{', &closed)) == NULL)
        return NULL;
    return fast_body(c, p, closed, start, t, out, 0, 0);
}

/*
 * A discriminated union, as decode_discriminated reads it: the alternative
 * is picked by the discriminant when it is the first member (the rest of
 * the object is the alternative's body), else by a look ahead, and the
 * object is read as the alternative's from its start.
 */
static const char *fast_discriminated(fast_ctx *c, const aps_type *u, const char *p, char *out)
{
    const char *start = p, *q;
    const aps_type *at;
    uint64_t seen = 0;
    size_t alt, hint = 0;
    aps_slice k;
    int closed;
    bool first;
    if ((p = aps_fast_open(c, p, '{', &closed)) == NULL || closed)
        return NULL; /* an empty object has no discriminant */
    /* Is the discriminant first? Usually, and its name plain. */
    if ((q = fast_disc_at(u, p, c->end, c->key_case)) != NULL)
        first = true;
    else if ((q = aps_scan_name(p, c->end, &k)) == NULL)
        return NULL;
    else
        first = fast_is_disc(u, k, c->key_case);
    if (first) {
        /* (an alternative of more fields than the seen-set word holds: fast_body gives up on it anyway) */
        if ((q = fast_pick(c, u, q, &alt)) == NULL || u->u.un.alts[alt]->u.st.nfields > FAST_MAX_FIELDS ||
            (q = aps_scan_next(q, c->end, '}', &closed)) == NULL)
            return NULL;
        fast_see_disc(u->u.un.alts[alt], u->u.un.disc_key, 0, &seen, &hint);
        p = q;
    } else if (!fast_look_ahead(c, u, q, &alt)) {
        return NULL;
    }
    at = u->u.un.alts[alt];
    if ((p = fast_body(c, p, closed, start, at, out + u->u.un.payload_offset, seen, hint)) == NULL)
        return NULL;
    fast_set_union(u, out, alt, start, p);
    return p;
}

/* ---- choices by kind and untagged ------------------------------------------- */

/*
 * A kind union (decode_by_kind) or an untagged one (decode_untagged): the
 * alternatives the value's JSON kind fits are the candidates, in order. A
 * literal that differs passes the value on to a later candidate, as in the
 * exact decoder; any other failure gives up, since only the exact decoder
 * knows whether the failure was the value's or this path's.
 */
static const char *fast_choice(fast_ctx *c, const aps_type *t, const char *p, char *out)
{
    const char *end = c->end, *q;
    aps_json_kind jk = p < end ? aps_json_impl_kind_of(*p) : APS_JSON_INVALID;
    bool is_int = false, matched;
    size_t i, j;
    if (jk == APS_JSON_NUMBER) {
        q = p + (*p == '-');
        while (q < end && (unsigned)(*q - '0') <= 9)
            q++;
        is_int = !(q < end && (*q == '.' || *q == 'e' || *q == 'E'));
    }
    for (i = 0; i < t->u.un.nalts; i++) {
        const aps_type *alt = t->u.un.alts[i];
        if (!aps_schema_priv_kind_fits(alt, jk, is_int, 0))
            continue;
        if (t->u.un.cls == APS_U_KIND && alt->kind == APS_K_LITERAL) {
            for (j = i + 1; j < t->u.un.nalts && !aps_schema_priv_kind_fits(t->u.un.alts[j], jk, is_int, 0); j++)
                ;
            if (j < t->u.un.nalts) {
                if ((q = fast_literal(c, &alt->u.lit, p, &matched)) == NULL)
                    return NULL;
                if (!matched)
                    continue;
                fast_set_union(t, out, i, p, q);
                return q;
            }
        }
        if (t->u.un.cls == APS_U_UNTAGGED)
            memset(out + t->u.un.payload_offset, 0, alt->size);
        if ((q = fast_value(c, alt, p, out + t->u.un.payload_offset)) == NULL)
            return NULL;
        fast_set_union(t, out, i, p, q);
        return q;
    }
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------ */

static const char *fast_nested(fast_ctx *c, const aps_type *t, const char *p, char *out)
{
    const char *q;
    if (c->generated && t->fast != NULL)
        return t->fast(c, p, out);
    if (++c->typed > FAST_MAX_TYPED)
        return NULL;
    switch (t->kind) {
    case APS_K_STRUCT: q = fast_struct(c, t, p, out); break;
    case APS_K_ARRAY: q = fast_array(c, t, p, (aps_array *)(void *)out); break;
    case APS_K_MAP: q = fast_map(c, t, p, (aps_array *)(void *)out); break;
    default:
        q = t->u.un.cls == APS_U_DISCRIMINATED ? fast_discriminated(c, t, p, out) : fast_choice(c, t, p, out);
        break;
    }
    c->typed--;
    return q;
}

static const char *fast_value(fast_ctx *c, const aps_type *t, const char *p, void *out)
{
    const char *end = c->end;
    bool matched;
    switch (t->kind) {
    case APS_K_ANY: return aps_fast_any(c, p, (aps_json_raw *)out);
    case APS_K_BOOL: return aps_fast_bool(c, p, (bool *)out);
    case APS_K_INT:
    case APS_K_UINT: return fast_int(c, t, p, out);
    case APS_K_FLOAT: return fast_float(t, p, end, (double *)out);
    case APS_K_TEXT: return aps_fast_text(c, t, p, (aps_slice *)out);
    case APS_K_LITERAL: return (p = fast_literal(c, &t->u.lit, p, &matched)) != NULL && matched ? p : NULL;
    case APS_K_ENUM: return fast_enum(c, t, p, out);
    case APS_K_STRUCT:
    case APS_K_ARRAY:
    case APS_K_MAP:
    case APS_K_UNION:
        return fast_nested(c, t, p, (char *)out);
    case APS_K_BYTES:
    case APS_K_TAG:
    case APS_K_TUPLE:
        return NULL; /* the exact decoder says what JSON makes of them */
    }
    return NULL;
}

const char *aps_fast_look_ahead(fast_ctx *c, const char *p, const char *key, size_t key_len, const char *snake,
                                size_t snake_len)
{
    aps_slice k;
    int closed;
    for (;;) {
        if ((p = fast_skip(c, p)) == NULL || (p = aps_scan_next(p, c->end, '}', &closed)) == NULL || closed ||
            (p = aps_scan_name(p, c->end, &k)) == NULL)
            return NULL;
        if (aps_fast_named(c, k, key, key_len, snake, snake_len))
            return p;
    }
}

const char *aps_fast_value(fast_ctx *c, const aps_type *t, const char *p, void *out)
{
    return fast_value(c, t, p, out);
}

bool aps_schema_priv_decode_fast(const aps_type *type, const char *json, size_t len, aps_arena *arena,
                                 void *out, const aps_decode_options *options, bool generated)
{
    fast_ctx c;
    const char *p;
    aps_fast_begin(&c, json, len, arena, options, generated);
    if (type->size != 0)
        memset(out, 0, type->size);
    p = aps_scan_ws(json, c.end);
    p = generated && type->fast != NULL ? type->fast(&c, p, out) : fast_value(&c, type, p, out);
    return p != NULL && aps_scan_ws(p, c.end) == c.end;
}

void aps_fast_zero(void *out, size_t size)
{
    memset(out, 0, size);
}
