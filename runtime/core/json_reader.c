/* json_reader.c - strict RFC 8259 pull reader (see aps/json.h). */
#include "aps/json_impl.h"

#include "aps/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#endif

/* Kind of the value a byte starts. */
static const unsigned char kind_of[256] = {
    ['"'] = APS_JSON_STRING, ['{'] = APS_JSON_OBJECT, ['['] = APS_JSON_ARRAY,
    ['t'] = APS_JSON_BOOL, ['f'] = APS_JSON_BOOL, ['n'] = APS_JSON_NULL,
    ['-'] = APS_JSON_NUMBER, ['0'] = APS_JSON_NUMBER, ['1'] = APS_JSON_NUMBER,
    ['2'] = APS_JSON_NUMBER, ['3'] = APS_JSON_NUMBER, ['4'] = APS_JSON_NUMBER,
    ['5'] = APS_JSON_NUMBER, ['6'] = APS_JSON_NUMBER, ['7'] = APS_JSON_NUMBER,
    ['8'] = APS_JSON_NUMBER, ['9'] = APS_JSON_NUMBER,
};

static const char *const kind_names[] = {
    "an invalid value", "null", "a boolean", "a number", "a string", "an array", "an object"
};

static inline const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (unsigned char)*p <= ' ') {
        if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
            break;
        p++;
    }
    return p;
}

/* ---- errors ------------------------------------------------------------ */

/* Appends `s` to the pointer buffer with RFC 6901 escaping, cutting at the end. */
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

/* Appends the '/' that starts a reference token. */
static size_t ptr_sep(char *buf, size_t n)
{
    if (n + 1 < APS_ERROR_POINTER_MAX) {
        buf[n++] = '/';
        buf[n] = '\0';
    }
    return n;
}

static void build_pointer(const aps_json_reader *r, char *buf, const char *extra)
{
    size_t d, n = 0;
    buf[0] = '\0';
    for (d = 1; d <= r->depth; d++) {
        const aps_json_frame *f = &r->frames[d];
        if (f->count == 0)
            break;
        n = ptr_sep(buf, n);
        if (f->is_object) {
            const aps_slice *k = &r->keys[f->key_base + f->count - 1];
            n = ptr_append(buf, n, k->ptr, k->len);
        } else {
            char num[24];
            int len = snprintf(num, sizeof num, "%zu", f->count - 1);
            n = ptr_append(buf, n, num, (size_t)len);
        }
    }
    if (extra != NULL) {
        n = ptr_sep(buf, n);
        ptr_append(buf, n, extra, strlen(extra));
    }
}

static aps_status vfail(const aps_json_reader *r, aps_error *err, aps_status code, size_t offset,
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

static aps_status fail_at(const aps_json_reader *r, aps_error *err, aps_status code,
                          const char *at, const char *fmt, ...) APS_PRINTF(5, 6);

static aps_status fail_at(const aps_json_reader *r, aps_error *err, aps_status code,
                          const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, (size_t)(at - r->begin), NULL, fmt, ap);
    va_end(ap);
    return code;
}

aps_status aps_json_reader_fail(const aps_json_reader *r, aps_error *err, aps_status code,
                                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, r->value_start, NULL, fmt, ap);
    va_end(ap);
    return code;
}

aps_status aps_json_reader_fail_member(const aps_json_reader *r, aps_error *err, aps_status code,
                                       const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(r, err, code, r->value_start, key, fmt, ap);
    va_end(ap);
    return code;
}

/* Describes what stands at p for "expected X, got Y" messages. */
static aps_status fail_unexpected(const aps_json_reader *r, aps_error *err, const char *p,
                                  const char *expected)
{
    unsigned char c;
    if (p >= r->end)
        return fail_at(r, err, APS_E_SYNTAX, p, "expected %s, got the end of the input", expected);
    c = (unsigned char)*p;
    if (c == 'n' || c == 't' || c == 'f') {
        /* "not json" starts like null: name the value only when it is one */
        const char *lit = c == 'n' ? "null" : c == 't' ? "true" : "false";
        size_t n = strlen(lit);
        if ((size_t)(r->end - p) < n || memcmp(p, lit, n) != 0)
            return fail_at(r, err, APS_E_SYNTAX, p, "expected %s, got '%c' (not a JSON value)", expected, c);
    }
    if (kind_of[c] != APS_JSON_INVALID)
        return fail_at(r, err, APS_E_TYPE, p, "expected %s, got %s", expected, kind_names[kind_of[c]]);
    if (c >= 0x21 && c < 0x7F)
        return fail_at(r, err, APS_E_SYNTAX, p, "expected %s, got '%c'", expected, c);
    return fail_at(r, err, APS_E_SYNTAX, p, "expected %s, got byte 0x%02X", expected, c);
}

static aps_status fail_nomem(const aps_json_reader *r, aps_error *err, const char *p)
{
    aps_status code = aps_arena_failure(r->arena);
    if (code == APS_OK)
        code = APS_E_NOMEM;
    return fail_at(r, err, code, p, "arena allocation failed (%s)", aps_status_str(code));
}

/* ---- lifecycle ------------------------------------------------------- */

void aps_json_reader_init(aps_json_reader *r, const char *json, size_t len, aps_arena *arena,
                          const aps_json_reader_options *options)
{
    uint64_t seed;
    r->begin = r->cur = json;
    r->end = len != 0 ? json + len : json; /* an absent value (NULL, 0) reads as empty input, without NULL + 0 */
    r->arena = arena;
    r->depth = 0;
    r->max_depth = options != NULL && options->max_depth != 0 ? options->max_depth
                                                               : APS_JSON_MAX_DEPTH_DEFAULT;
    r->allow_duplicates = options != NULL && options->allow_duplicates;
    r->frames = r->inline_frames;
    r->frame_cap = APS_JSON_INLINE_FRAMES;
    r->keys = r->inline_keys;
    r->key_top = 0;
    r->key_cap = APS_JSON_INLINE_KEYS;
    r->value_start = 0;
    /* Hash flooding needs the seed; addresses vary per process under ASLR. */
    seed = (uint64_t)(uintptr_t)r ^ ((uint64_t)(uintptr_t)arena << 17) ^ ((uint64_t)(uintptr_t)json << 7);
    seed ^= seed >> 31;
    seed *= 0xBF58476D1CE4E5B9ull;
    r->hash_seed = seed ^ (seed >> 29);
    memset(&r->frames[0], 0, sizeof r->frames[0]);
}

size_t aps_json_reader_offset(const aps_json_reader *r)
{
    return (size_t)(r->cur - r->begin);
}

aps_json_kind aps_json_peek(aps_json_reader *r)
{
    const char *p = skip_ws(r->cur, r->end);
    r->cur = p;
    return p < r->end ? (aps_json_kind)kind_of[(unsigned char)*p] : APS_JSON_INVALID;
}

aps_status aps_json_reader_finish(aps_json_reader *r, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    r->cur = p;
    if (r->depth != 0)
        return fail_at(r, err, APS_E_STATE, p, "the JSON text ends inside %s",
                       r->frames[r->depth].is_object ? "an object" : "an array");
    if (p != r->end)
        return fail_at(r, err, APS_E_SYNTAX, p, "unexpected bytes after the JSON value");
    return APS_OK;
}

void aps_json_reader_save(const aps_json_reader *r, aps_json_pos *pos)
{
    pos->cur = r->cur;
    pos->depth = r->depth;
    pos->frame = r->frames[r->depth];
    pos->frames = r->frames;
    pos->frame_cap = r->frame_cap;
    pos->keys = r->keys;
    pos->key_top = r->key_top;
    pos->key_cap = r->key_cap;
    pos->value_start = r->value_start;
    pos->mark = aps_arena_mark(r->arena);
}

static uint64_t hash_key(const aps_json_reader *r, const char *s, size_t len)
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

/* Puts key number i (relative to the object) into its hash set; 1 if an equal key is there. */
static int hash_insert(const aps_json_reader *r, aps_json_frame *f, size_t i)
{
    const aps_slice *keys = r->keys + f->key_base;
    size_t mask = f->hash_cap - 1;
    size_t h = (size_t)hash_key(r, keys[i].ptr, keys[i].len) & mask;
    for (;; h = (h + 1) & mask) {
        uint32_t e = f->hash[h];
        if (e == 0) {
            f->hash[h] = (uint32_t)(i + 1);
            return 0;
        }
        if (keys[e - 1].len == keys[i].len && memcmp(keys[e - 1].ptr, keys[i].ptr, keys[i].len) == 0)
            return 1;
    }
}

/* Builds f's hash set for `count` keys with room to double; 0 on arena failure. */
static int hash_build(aps_json_reader *r, aps_json_frame *f, size_t count)
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

void aps_json_reader_restore(aps_json_reader *r, const aps_json_pos *pos)
{
    aps_json_frame *f;
    aps_arena_rollback(r->arena, pos->mark);
    r->cur = pos->cur;
    r->depth = pos->depth;
    r->frames = pos->frames;
    r->frame_cap = pos->frame_cap;
    r->keys = pos->keys;
    r->key_top = pos->key_top;
    r->key_cap = pos->key_cap;
    r->value_start = pos->value_start;
    f = &r->frames[r->depth];
    *f = pos->frame;
    /* The set may hold names added after the save (it lives before the mark). */
    if (f->hash != NULL) {
        size_t i;
        memset(f->hash, 0, f->hash_cap * sizeof(uint32_t));
        for (i = 0; i < f->count; i++)
            (void)hash_insert(r, f, i);
    }
}

/* ---- containers ------------------------------------------------------ */

static aps_status push_frame(aps_json_reader *r, const char *p, int is_object, aps_error *err)
{
    aps_json_frame *f;
    if (UNLIKELY(r->depth >= r->max_depth))
        return fail_at(r, err, APS_E_DEPTH, p, "nesting deeper than %zu levels", r->max_depth);
    if (UNLIKELY(r->depth + 1 >= r->frame_cap)) {
        size_t cap = r->frame_cap * 2;
        aps_json_frame *nf = (aps_json_frame *)aps_arena_alloc(r->arena, cap * sizeof *nf);
        if (nf == NULL)
            return fail_nomem(r, err, p);
        memcpy(nf, r->frames, (r->depth + 1) * sizeof *nf);
        r->frames = nf;
        r->frame_cap = cap;
    }
    f = &r->frames[++r->depth];
    f->count = 0;
    f->key_base = r->key_top;
    f->start = (size_t)(p - r->begin);
    f->hash = NULL;
    f->hash_cap = 0;
    f->is_object = is_object;
    return APS_OK;
}

static inline void pop_frame(aps_json_reader *r)
{
    aps_json_frame *f = &r->frames[r->depth--];
    r->key_top = f->key_base;
    r->value_start = f->start;
}

/* Byte equality for short member names without a libc call. */
static inline int same_name(const char *a, const char *b, size_t n)
{
    size_t i;
    if (n > 16)
        return memcmp(a, b, n) == 0;
    for (i = 0; i < n; i++) {
        if (a[i] != b[i])
            return 0;
    }
    return 1;
}

/*
 * Records member name `key` of the innermost object and rejects a name it
 * already has. `at` locates the name for errors.
 */
static aps_status add_key(aps_json_reader *r, aps_slice key, const char *at, aps_error *err)
{
    aps_json_frame *f = &r->frames[r->depth];
    size_t n = f->count, i;
    const aps_slice *keys;
    if (UNLIKELY(r->key_top >= r->key_cap)) {
        size_t cap = r->key_cap * 2;
        aps_slice *nk = (aps_slice *)aps_arena_alloc(r->arena, cap * sizeof *nk);
        if (nk == NULL)
            return fail_nomem(r, err, at);
        memcpy(nk, r->keys, r->key_top * sizeof *nk);
        r->keys = nk;
        r->key_cap = cap;
    }
    r->keys[r->key_top++] = key;
    f->count = n + 1;
    if (r->allow_duplicates)
        return APS_OK;
    keys = r->keys + f->key_base;
    if (LIKELY(f->hash_cap == 0)) {
        for (i = 0; i < n; i++) {
            if (keys[i].len == key.len && same_name(keys[i].ptr, key.ptr, key.len))
                goto duplicate;
        }
        if (n + 1 > APS_JSON_DUP_LINEAR_MAX && !hash_build(r, f, n + 1))
            return fail_nomem(r, err, at);
        return APS_OK;
    }
    if ((n + 1) * 2 > f->hash_cap) {
        if (!hash_build(r, f, n))
            return fail_nomem(r, err, at);
    }
    if (hash_insert(r, f, n))
        goto duplicate;
    return APS_OK;
duplicate:
    return fail_at(r, err, APS_E_DUPLICATE, at, "duplicate member name \"%.*s\"",
                   key.len > 64 ? 64 : (int)key.len, key.ptr);
}

/* ---- strings --------------------------------------------------------- */

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            v |= (uint32_t)((c | 0x20) - 'a' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

const char *aps_json_impl_unescape_one(const char *p, const char *end, char *out, size_t *out_len,
                                       aps_status *code, const char **bad, const char **why)
{
    uint32_t cp, lo;
    uint8_t buf[4];
    size_t n;
    char c;
    *bad = p;
    *code = APS_E_SYNTAX;
    if (end - p < 2) {
        *why = "unterminated escape";
        return NULL;
    }
    c = p[1];
    switch (c) {
    case '"': case '\\': case '/': buf[0] = (uint8_t)c; n = 1; break;
    case 'b': buf[0] = '\b'; n = 1; break;
    case 'f': buf[0] = '\f'; n = 1; break;
    case 'n': buf[0] = '\n'; n = 1; break;
    case 'r': buf[0] = '\r'; n = 1; break;
    case 't': buf[0] = '\t'; n = 1; break;
    case 'u':
        if (end - p < 6 || !hex4(p + 2, &cp)) {
            *why = "\\u needs four hex digits";
            return NULL;
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            *code = APS_E_UTF8;
            *why = "lone low surrogate escape";
            return NULL;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || !hex4(p + 8, &lo) || lo < 0xDC00 ||
                lo > 0xDFFF) {
                *code = APS_E_UTF8;
                *why = "high surrogate escape without a low surrogate after it";
                return NULL;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
        }
        n = aps_utf8_encode(cp, buf);
        p += 4;
        break;
    default:
        *bad = p + 1;
        *why = "invalid escape";
        return NULL;
    }
    if (out != NULL) {
        memcpy(out, buf, n);
        *out_len = n;
    }
    return p + 2;
}

const char *aps_scan_find_special_tail(const char *s, const char *end, unsigned *high)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (end - s >= 8) {
        uint64_t w, q, b, t;
        memcpy(&w, s, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        /* A zero byte of q or b, or a byte below 0x20 in w, sets its high bit in t;
         * false flags only sit above a true one, so the first flag is exact. */
        t = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
        if (t != 0) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* the first flag is the lowest: the bytes below it are content */
            *high |= (w & highs & ((t & (0 - t)) - 1u)) != 0 ? 0x80u : 0u;
            return s + __builtin_ctzll(t) / 8;
#else
            break;
#endif
        }
        *high |= (w & highs) != 0 ? 0x80u : 0u;
        s += 8;
    }
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c < 0x20)
            break;
        *high |= c;
        s++;
    }
    return s;
}

/*
 * Unescapes the string content [q, s), whose escapes are known to be valid,
 * into buf (room for s - q bytes: unescaped text is never longer). Returns
 * the unescaped length.
 */
static size_t unescape(const char *q, const char *s, char *buf)
{
    size_t n = 0, k;
    aps_status code;
    const char *bad, *why;
    while (q < s) {
        const char *bs = (const char *)memchr(q, '\\', (size_t)(s - q));
        if (bs == NULL)
            bs = s;
        memcpy(buf + n, q, (size_t)(bs - q));
        n += (size_t)(bs - q);
        if (bs == s)
            break;
        q = aps_json_impl_unescape_one(bs, s, buf + n, &k, &code, &bad, &why);
        n += k;
    }
    return n;
}

/*
 * Scans the string whose opening quote is at p. Sets *out to its content:
 * zero-copy when it has no escapes; unescaped into the arena when `decode`
 * (else out->ptr is NULL for escaped strings, which skipping allows).
 * Moves *pp past the closing quote.
 */
static aps_status scan_string(aps_json_reader *r, const char **pp, aps_slice *out, int decode,
                              aps_error *err)
{
    const char *p = *pp, *s = p + 1, *end = r->end, *content = s, *bad, *why;
    unsigned high = 0;
    int escaped = 0;
    aps_status code;
    for (;;) {
        s = aps_scan_find_special(s, end, &high);
        if (UNLIKELY(s >= end))
            return fail_at(r, err, APS_E_SYNTAX, p, "unterminated string");
        if (LIKELY(*s == '"'))
            break;
        if (*s == '\\') {
            escaped = 1;
            s = aps_json_impl_unescape_one(s, end, NULL, NULL, &code, &bad, &why);
            if (s == NULL)
                return fail_at(r, err, code, bad, "%s", why);
            continue;
        }
        return fail_at(r, err, APS_E_SYNTAX, s, "control character 0x%02X in a string (escape it)",
                (unsigned char)*s);
    }
    if (high & 0x80u) {
        size_t at = aps_utf8_check((const uint8_t *)content, (size_t)(s - content));
        if (at != SIZE_MAX)
            return fail_at(r, err, APS_E_UTF8, content + at, "invalid UTF-8 in a string");
    }
    if (LIKELY(!escaped)) {
        out->ptr = content;
        out->len = (size_t)(s - content);
        *pp = s + 1;
        return APS_OK;
    }
    if (!decode) {
        out->ptr = NULL;
        out->len = 0;
        *pp = s + 1;
        return APS_OK;
    }
    {
        /* Unescaped text is never longer than the escaped text. */
        size_t cap = (size_t)(s - content), n;
        char *buf = (char *)aps_arena_alloc_aligned(r->arena, cap, 1);
        if (buf == NULL)
            return fail_nomem(r, err, p);
        n = unescape(content, s, buf);
        out->ptr = aps_arena_realloc(r->arena, buf, cap, n, 1);
        out->len = n;
    }
    *pp = s + 1;
    return APS_OK;
}

aps_status aps_json_read_string(aps_json_reader *r, aps_slice *out, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st;
    r->value_start = (size_t)(p - r->begin);
    if (UNLIKELY(p >= r->end || *p != '"'))
        return fail_unexpected(r, err, p, "a string");
    if ((st = scan_string(r, &p, out, 1, err)) != APS_OK)
        return st;
    r->cur = p;
    return APS_OK;
}

/* ---- literals and numbers ------------------------------------------- */

static aps_status read_literal(aps_json_reader *r, const char *p, const char *word, size_t n,
                               aps_error *err)
{
    if ((size_t)(r->end - p) < n || memcmp(p, word, n) != 0)
        return fail_at(r, err, APS_E_SYNTAX, p, "invalid literal (expected %s)", word);
    r->cur = p + n;
    return APS_OK;
}

aps_status aps_json_read_null(aps_json_reader *r, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    r->value_start = (size_t)(p - r->begin);
    if (UNLIKELY(p >= r->end || *p != 'n'))
        return fail_unexpected(r, err, p, "null");
    return read_literal(r, p, "null", 4, err);
}

aps_status aps_json_read_bool(aps_json_reader *r, int *out, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st;
    r->value_start = (size_t)(p - r->begin);
    if (p < r->end && *p == 't') {
        if ((st = read_literal(r, p, "true", 4, err)) == APS_OK)
            *out = 1;
        return st;
    }
    if (p < r->end && *p == 'f') {
        if ((st = read_literal(r, p, "false", 5, err)) == APS_OK)
            *out = 0;
        return st;
    }
    return fail_unexpected(r, err, p, "a boolean");
}

const char *aps_json_impl_scan_number(const char *p, const char *end, const char **bad)
{
    if (p < end && *p == '-')
        p++;
    if (p >= end || (unsigned)(*p - '0') > 9) {
        *bad = p;
        return NULL;
    }
    if (*p == '0') {
        p++;
    } else {
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || (unsigned)(*p - '0') > 9) {
            *bad = p;
            return NULL;
        }
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || (unsigned)(*p - '0') > 9) {
            *bad = p;
            return NULL;
        }
        while (p < end && (unsigned)(*p - '0') <= 9)
            p++;
    }
    /* "01": a leading zero followed by digits ends the number early; the
     * caller sees the digit where a delimiter should be, so reject it here. */
    if (p < end && (unsigned)(*p - '0') <= 9) {
        *bad = p;
        return NULL;
    }
    return p;
}

/*
 * Reads the magnitude of a JSON integer at p (after any '-') into *v.
 * Moves *pp past it.
 */
static aps_status read_magnitude(aps_json_reader *r, const char *start, const char **pp,
                                 uint64_t *v, int *overflow, aps_error *err)
{
    const char *end = r->end, *bad, *p = *pp;
    uint64_t x;
    if (UNLIKELY(p >= end || (unsigned)(*p - '0') > 9))
        return fail_at(r, err, APS_E_SYNTAX, p, "expected a digit");
    x = (uint64_t)(*p++ - '0');
    *overflow = 0;
    if (x == 0) {
        if (p < end && (unsigned)(*p - '0') <= 9)
            return fail_at(r, err, APS_E_SYNTAX, p, "leading zero in a number");
    } else {
        int digits = 1;
        while (p < end && (unsigned)(*p - '0') <= 9) {
            unsigned d = (unsigned)(*p - '0');
            if (digits < 19) {
                x = x * 10 + d;
            } else if (digits == 19 && (x < 1844674407370955161ull ||
                                        (x == 1844674407370955161ull && d <= 5))) {
                x = x * 10 + d;
            } else {
                *overflow = 1;
            }
            digits++;
            p++;
        }
    }
    if (UNLIKELY(p < end && (*p == '.' || *p == 'e' || *p == 'E'))) {
        if (aps_json_impl_scan_number(start, end, &bad) == NULL)
            return fail_at(r, err, APS_E_SYNTAX, bad, "malformed number");
        return fail_at(r, err, APS_E_TYPE, start, "expected an integer, got a number with a %s",
                       *p == '.' ? "fraction" : "exponent");
    }
    *v = x;
    *pp = p;
    return APS_OK;
}

/*
 * The part of reading an integer that int64 and uint64 share: the sign and
 * the magnitude (*overflow when it exceeds 64 bits). *start is the number's
 * first byte, *end one past its last.
 */
static aps_status read_signed_magnitude(aps_json_reader *r, const char **start, const char **end, int *neg,
                                        uint64_t *v, int *overflow, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st;
    *start = p;
    r->value_start = (size_t)(p - r->begin);
    if (UNLIKELY(p >= r->end || kind_of[(unsigned char)*p] != APS_JSON_NUMBER))
        return fail_unexpected(r, err, p, "an integer");
    *neg = *p == '-';
    p += *neg;
    if ((st = read_magnitude(r, *start, &p, v, overflow, err)) != APS_OK)
        return st;
    *end = p;
    return APS_OK;
}

aps_status aps_json_read_int64(aps_json_reader *r, int64_t *out, aps_error *err)
{
    const char *start, *end;
    uint64_t v;
    int neg, overflow;
    aps_status st = read_signed_magnitude(r, &start, &end, &neg, &v, &overflow, err);
    if (st != APS_OK)
        return st;
    if (overflow || v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return fail_at(r, err, APS_E_RANGE, start, "integer %.*s is outside the 64-bit signed range",
                       (int)(end - start > 40 ? 40 : end - start), start);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    r->cur = end;
    return APS_OK;
}

aps_status aps_json_read_uint64(aps_json_reader *r, uint64_t *out, aps_error *err)
{
    const char *start, *end;
    uint64_t v;
    int neg, overflow;
    aps_status st = read_signed_magnitude(r, &start, &end, &neg, &v, &overflow, err);
    if (st != APS_OK)
        return st;
    if (overflow || (neg && v != 0))
        return fail_at(r, err, APS_E_RANGE, start, "integer %.*s is outside the 64-bit unsigned range",
                       (int)(end - start > 40 ? 40 : end - start), start);
    *out = v;
    r->cur = end;
    return APS_OK;
}

aps_status aps_json_read_number(aps_json_reader *r, aps_slice *out, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end), *e, *bad;
    r->value_start = (size_t)(p - r->begin);
    if (UNLIKELY(p >= r->end || kind_of[(unsigned char)*p] != APS_JSON_NUMBER))
        return fail_unexpected(r, err, p, "a number");
    e = aps_json_impl_scan_number(p, r->end, &bad);
    if (e == NULL)
        return fail_at(r, err, APS_E_SYNTAX, bad, "malformed number");
    out->ptr = p;
    out->len = (size_t)(e - p);
    r->cur = e;
    return APS_OK;
}

aps_status aps_json_read_double(aps_json_reader *r, double *out, aps_error *err)
{
    aps_slice text;
    aps_status st = aps_json_read_number(r, &text, err);
    if (st != APS_OK)
        return st;
    if (!aps_json_impl_to_double(text.ptr, text.ptr + text.len, out))
        return fail_at(r, err, APS_E_RANGE, text.ptr, "number %.*s is too large for a double",
                       (int)(text.len > 40 ? 40 : text.len), text.ptr);
    return APS_OK;
}

/* ---- objects and arrays --------------------------------------------- */

/* Enters a container opened by `open` ('{' or '['), named `what` in errors. */
static aps_status read_open(aps_json_reader *r, char open, const char *what, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st;
    r->value_start = (size_t)(p - r->begin);
    if (UNLIKELY(p >= r->end || *p != open))
        return fail_unexpected(r, err, p, what);
    if ((st = push_frame(r, p, open == '{', err)) != APS_OK)
        return st;
    r->cur = p + 1;
    return APS_OK;
}

aps_status aps_json_read_object(aps_json_reader *r, aps_error *err)
{
    return read_open(r, '{', "an object", err);
}

aps_status aps_json_read_array(aps_json_reader *r, aps_error *err)
{
    return read_open(r, '[', "an array", err);
}

/* Parses `"name" :` at *pp inside the innermost object; moves *pp past ':' and whitespace. */
static aps_status read_key(aps_json_reader *r, const char **pp, aps_slice *key, aps_error *err)
{
    const char *end = r->end, *p = *pp, *q = p;
    aps_status st;
    if (UNLIKELY(p >= end || *p != '"'))
        return fail_at(r, err, APS_E_SYNTAX, p, p >= end ? "unterminated object" : "expected a member name");
    if ((st = scan_string(r, &q, key, 1, err)) != APS_OK || (st = add_key(r, *key, p, err)) != APS_OK)
        return st;
    q = skip_ws(q, end);
    if (UNLIKELY(q >= end || *q != ':'))
        return fail_at(r, err, APS_E_SYNTAX, q, "expected ':' after a member name");
    *pp = skip_ws(q + 1, end);
    return APS_OK;
}

/*
 * The step members and elements share: after the first item a ',' must come,
 * or `closer` ends the container (then the frame is popped and *more = 0).
 * Returns 1 when the container ended, 0 when an item follows at *pp, or -1
 * after recording the syntax error in *st.
 */
static inline int next_item(aps_json_reader *r, char closer, const char *what, const char **pp,
                            aps_status *st, aps_error *err)
{
    const char *p = *pp, *end = r->end;
    if (r->frames[r->depth].count != 0) {
        if (LIKELY(p < end && *p == ',')) {
            *pp = skip_ws(p + 1, end);
            return 0;
        }
        if (!(p < end && *p == closer)) {
            *st = fail_at(r, err, APS_E_SYNTAX, p, "expected ',' or '%c' after %s", closer, what);
            return -1;
        }
    } else if (!(p < end && *p == closer)) {
        return 0;
    }
    pop_frame(r);
    r->cur = p + 1;
    return 1;
}

aps_status aps_json_next_member(aps_json_reader *r, aps_slice *key, int *more, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st = APS_OK;
    int ended;
    if (UNLIKELY(!r->frames[r->depth].is_object))
        return fail_at(r, err, APS_E_STATE, p, "aps_json_next_member called outside an object");
    if ((ended = next_item(r, '}', "an object member", &p, &st, err)) != 0) {
        *more = 0;
        return ended < 0 ? st : APS_OK;
    }
    if ((st = read_key(r, &p, key, err)) != APS_OK)
        return st;
    r->cur = p;
    r->value_start = (size_t)(p - r->begin);
    *more = 1;
    return APS_OK;
}

aps_status aps_json_next_element(aps_json_reader *r, int *more, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end);
    aps_status st = APS_OK;
    int ended;
    if (UNLIKELY(r->frames[r->depth].is_object || r->depth == 0))
        return fail_at(r, err, APS_E_STATE, p, "aps_json_next_element called outside an array");
    if ((ended = next_item(r, ']', "an array element", &p, &st, err)) != 0) {
        *more = 0;
        return ended < 0 ? st : APS_OK;
    }
    r->frames[r->depth].count++;
    r->cur = p;
    r->value_start = (size_t)(p - r->begin);
    *more = 1;
    return APS_OK;
}

/* ---- skipping -------------------------------------------------------- */

/*
 * Skips one value starting at (or after whitespace from) r->cur, walking
 * nested containers with the frame stack instead of recursion.
 */
aps_status aps_json_skip(aps_json_reader *r, aps_error *err)
{
    const char *p = skip_ws(r->cur, r->end), *end = r->end, *bad;
    const size_t base = r->depth;
    aps_slice key;
    aps_status st;
    r->value_start = (size_t)(p - r->begin);
    for (;;) {
        /* At a value. */
        if (UNLIKELY(p >= end))
            return fail_unexpected(r, err, p, "a value");
        switch (*p) {
        case '"':
            if ((st = scan_string(r, &p, &key, 0, err)) != APS_OK)
                return st;
            break;
        case '{':
            if ((st = push_frame(r, p, 1, err)) != APS_OK)
                return st;
            p = skip_ws(p + 1, end);
            if (p < end && *p == '}') {
                pop_frame(r);
                p++;
                break;
            }
            if ((st = read_key(r, &p, &key, err)) != APS_OK)
                return st;
            continue;
        case '[':
            if ((st = push_frame(r, p, 0, err)) != APS_OK)
                return st;
            p = skip_ws(p + 1, end);
            if (p < end && *p == ']') {
                pop_frame(r);
                p++;
                break;
            }
            r->frames[r->depth].count = 1;
            continue;
        case 't':
            if ((size_t)(end - p) < 4 || memcmp(p, "true", 4) != 0)
                return fail_at(r, err, APS_E_SYNTAX, p, "invalid literal (expected true)");
            p += 4;
            break;
        case 'f':
            if ((size_t)(end - p) < 5 || memcmp(p, "false", 5) != 0)
                return fail_at(r, err, APS_E_SYNTAX, p, "invalid literal (expected false)");
            p += 5;
            break;
        case 'n':
            if ((size_t)(end - p) < 4 || memcmp(p, "null", 4) != 0)
                return fail_at(r, err, APS_E_SYNTAX, p, "invalid literal (expected null)");
            p += 4;
            break;
        default:
            if (kind_of[(unsigned char)*p] != APS_JSON_NUMBER)
                return fail_unexpected(r, err, p, "a value");
            p = aps_json_impl_scan_number(p, end, &bad);
            if (p == NULL)
                return fail_at(r, err, APS_E_SYNTAX, bad, "malformed number");
            break;
        }
        /* After a value: close finished containers, move to the next value. */
        for (;;) {
            aps_json_frame *f;
            if (r->depth == base) {
                r->cur = p;
                return APS_OK;
            }
            f = &r->frames[r->depth];
            p = skip_ws(p, end);
            if (p < end && *p == ',') {
                p = skip_ws(p + 1, end);
                if (f->is_object) {
                    if ((st = read_key(r, &p, &key, err)) != APS_OK)
                        return st;
                } else {
                    f->count++;
                }
                break;
            }
            if (p < end && *p == (f->is_object ? '}' : ']')) {
                pop_frame(r);
                p++;
                continue;
            }
            return fail_at(r, err, APS_E_SYNTAX, p, f->is_object
                               ? "expected ',' or '}' after an object member"
                               : "expected ',' or ']' after an array element");
        }
    }
}

aps_status aps_json_read_raw(aps_json_reader *r, aps_json_raw *out, aps_error *err)
{
    const char *start = skip_ws(r->cur, r->end);
    aps_status st;
    r->cur = start;
    if ((st = aps_json_skip(r, err)) != APS_OK)
        return st;
    out->ptr = start;
    out->len = (size_t)(r->cur - start);
    r->value_start = (size_t)(start - r->begin);
    return APS_OK;
}
