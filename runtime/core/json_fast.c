/*
 * json_fast.c - a validating skip straight from the bytes, for the decoder's
 * fast path (schema_fast.c: `any` values, unknown members, look aheads) and
 * for aps_json_validate.
 *
 * The pull reader (json_reader.c) keeps frames, a stack of member names and
 * the position of everything, so that an error can say where it is. A text
 * that is right needs none of that: this skip checks the same things with a
 * small fixed stack, and gives up (NULL) on every error and past its limits;
 * the reader then reads the text again and reports. The rule, as for the
 * fast decoder: what this accepts, the reader accepts (checked by
 * apstream-fast-validate over the JSON test suite and the reader's corpus,
 * by jsonskip-split where its 16-byte string steps split what they check,
 * and by the decode_fast fuzz target on every input it tries).
 *
 * aps_json_validate is here, above the reader it falls back to, so that
 * the reader's file does not call this one back (json_fast.c uses the
 * reader's number and escape scans).
 */
#include "aps/json_impl.h"

#include <string.h>

#if defined(__SSE2__)
/*
 * UTF-8 of RFC 3629 over one 16-byte block of string content, as bit masks
 * (bit i: byte i): every byte past ASCII that needs continuations must be
 * followed by exactly that many, no others may appear, and the second byte
 * after E0, ED, F0 and F4 has a narrower range. Only the bytes in `upto`
 * count (the block up to and with the byte that ends the run). *need
 * carries the continuations (bits 0-2) and the narrower ranges (bits 3-6)
 * a character across the block's end still wants. Returns 0 on bad UTF-8.
 */
static inline int utf8_block(__m128i v, unsigned high, unsigned *need, unsigned upto)
{
#define MASK_LT(x) ((unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8((char)(x)))))
#define MASK_GT(x) ((unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(x)))))
#define MASK_EQ(x) ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)(x)))))
    /* Bytes compare as signed: 0x80..0xFF are -128..-1, ASCII is not below 0. */
    unsigned cont = MASK_LT(0xC0), lead = high & ~cont;
    unsigned three = high & MASK_GT(0xDF), four = high & MASK_GT(0xEF);
    unsigned lt_a0 = MASK_LT(0xA0), lt_90 = MASK_LT(0x90);
    unsigned bad = (lead & MASK_LT(0xC2)) | (high & MASK_GT(0xF4)); /* C0, C1, F5..FF */
    unsigned in = *need;
    uint32_t want = ((uint32_t)lead << 1 | (uint32_t)three << 2 | (uint32_t)four << 3) | (in & 7u);
    uint32_t e0 = (uint32_t)(MASK_EQ(0xE0) << 1) | (in >> 3 & 1u), ed = (uint32_t)(MASK_EQ(0xED) << 1) | (in >> 4 & 1u);
    uint32_t f0 = (uint32_t)(MASK_EQ(0xF0) << 1) | (in >> 5 & 1u), f4 = (uint32_t)(MASK_EQ(0xF4) << 1) | (in >> 6 & 1u);
#undef MASK_LT
#undef MASK_GT
#undef MASK_EQ
    /* Wanted continuations overlap only where one is missing, which the
     * comparison with the continuation bytes finds. */
    bad |= (want ^ cont) | (e0 & lt_a0) | (ed & ~lt_a0) | (f0 & lt_90) | (f4 & ~lt_90);
    *need = (want >> 16) | (e0 >> 16) << 3 | (ed >> 16) << 4 | (f0 >> 16) << 5 | (f4 >> 16) << 6;
    return (bad & upto) == 0;
}

/*
 * Of the backslashes bs of a 16-byte block (bit i: byte i), the bytes they
 * escape: the byte after each backslash run of odd length. *carry says, in
 * and out, whether the block's first byte is escaped by the one before.
 * No branch: each escape costs nothing more than the block it is in.
 */
static inline unsigned escaped_bytes(unsigned bs, unsigned *carry)
{
    const uint32_t even = 0x5555u;
    uint32_t follows, odd_starts, sum;
    bs &= ~*carry; /* a backslash escaped by the block before starts nothing */
    follows = (uint32_t)bs << 1 | *carry;
    /* Runs starting at an odd bit: adding them to the run carries past its end. */
    odd_starts = bs & ~even & ~follows;
    sum = odd_starts + bs;
    *carry = sum >> 16 & 1u;
    /* Every other byte after a run's start is escaped; the sum flips
     * the pattern for the runs that start at an even bit. */
    return (unsigned)((even ^ (sum << 1)) & follows) & 0xFFFFu;
}
#endif

/*
 * The string content from s (after the opening '"', or inside the content
 * after plain ASCII) to its closing '"': the byte after it, or NULL on a
 * control character, a bad escape, bad UTF-8 or the end of the input.
 */
static inline const char *scan_string_from(const char *s, const char *end, int *escaped)
{
    const char *bad, *why;
    aps_status code;
#if defined(__SSE2__)
    /* Sixteen bytes a step with every check done on bit masks, and one
     * branch per step, taken at the string's end or on what needs a closer
     * look (a \u escape, an error): a text of accented words and escapes
     * costs little more than plain ASCII. */
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    const char *paired = NULL; /* the 'u' of the low half of a surrogate pair already checked */
    unsigned need = 0, carry = 0, any_escape = 0;
    for (;; s += 16) {
        char tail[16];
        __m128i v, letters;
        unsigned q, bs, esc, stop, upto, high, fails, u;
        if (APS_SCAN_LIKELY(end - s >= 16)) {
            v = _mm_loadu_si128((const __m128i *)(const void *)s);
        } else {
            /* The last bytes, copied: never read past end. The zeros after
             * them are control characters, so a scan reaching them fails. */
            if (s >= end)
                return NULL;
            memset(tail, 0, sizeof tail);
            memcpy(tail, s, (size_t)(end - s));
            v = _mm_loadu_si128((const __m128i *)(const void *)tail);
        }
        q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
        bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash));
        esc = escaped_bytes(bs, &carry);
        /* The end: the first unescaped '"', or a control character (an error). */
        stop = (q & ~esc) | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
        upto = stop != 0 ? stop ^ (stop - 1u) : 0xFFFFu;
        high = (unsigned)_mm_movemask_epi8(v);
        /* An escaped byte must be one of " \ / b f n r t u (the first two in q and bs). */
        letters = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('/')), _mm_cmpeq_epi8(v, _mm_set1_epi8('b'))),
                               _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('f')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8('n'))),
                                            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('r')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8('t')))));
        u = esc & (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('u'))) & upto;
        fails = esc & ~((unsigned)_mm_movemask_epi8(letters) | q | bs) & ~u & upto;
        any_escape |= esc & upto;
        if (APS_SCAN_UNLIKELY((high | need) != 0) && !utf8_block(v, high, &need, upto))
            return NULL;
        if (APS_SCAN_LIKELY((stop | fails | u) == 0))
            continue;
        if (fails != 0)
            return NULL;
        /* \u escapes: four hex digits, surrogates in pairs (the reader's
         * own check; the digits are plain bytes, so the masks stand). */
        for (; u != 0; u &= u - 1u) {
            const char *at = s + __builtin_ctz(u), *after;
            if (at == paired)
                continue;
            if ((after = aps_json_impl_unescape_one(at - 1, end, NULL, NULL, &code, &bad, &why)) == NULL)
                return NULL;
            if (after - (at - 1) == 12)
                paired = at + 6;
        }
        if (stop != 0) {
            s += __builtin_ctz(stop);
            if (s >= end || *s != '"')
                return NULL; /* a control character, or the end of the input */
            *escaped |= any_escape != 0;
            return s + 1;
        }
    }
#else
    /* Plain runs a word step at a time, then what stopped the scan: its
     * end, an escape, or a UTF-8 character checked where it stands. */
    for (;; s = aps_scan_find_stop(s, end)) {
        if (s >= end)
            return NULL;
        if (*s == '"')
            return s + 1;
        if (*s == '\\') {
            *escaped = 1;
            if (end - s >= 2 && aps_scan_short_escape(s[1]))
                s += 2;
            else if ((s = aps_json_impl_unescape_one(s, end, NULL, NULL, &code, &bad, &why)) == NULL)
                return NULL;
        } else if ((s = aps_scan_utf8_char(s, end)) == NULL) {
            return NULL; /* a control character, or bad UTF-8 */
        }
    }
#endif
}

const char *aps_scan_string_slow(const char *s, const char *end, int *escaped)
{
    *escaped = 0;
    return scan_string_from(s, end, escaped);
}

/*
 * The string whose '"' is at p when its content is plain ASCII: the byte
 * after its closing '"'. Else NULL, with *stop where plain content ends.
 * Which byte stopped the scan comes from the load's masks, not from memory:
 * the next token waits on this answer.
 */
static inline const char *plain_string(const char *p, const char *end, const char **stop)
{
    const char *s = p + 1;
#if defined(__SSE2__)
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v);
        if (m != 0) {
            unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
            s += __builtin_ctz(m);
            if ((m & (0u - m) & q) != 0)
                return s + 1;
            *stop = s;
            return NULL;
        }
        s += 16;
    }
#endif
    s = aps_scan_find_stop(s, end);
    if (s < end && *s == '"')
        return s + 1;
    *stop = s;
    return NULL;
}

/*
 * A JSON number's syntax from p (a '-' or a digit): the byte after it, or
 * NULL. What follows is the caller's to judge, as after any value.
 */
static inline const char *scan_number(const char *p, const char *end)
{
    p += *p == '-';
    if (p >= end)
        return NULL;
    if (*p == '0')
        p++;
    else if ((unsigned)(*p - '1') < 9)
        do
            p++;
        while (p < end && (unsigned)(*p - '0') <= 9);
    else
        return NULL;
    if (p < end && *p == '.') {
        if (++p >= end || (unsigned)(*p - '0') > 9)
            return NULL;
        do
            p++;
        while (p < end && (unsigned)(*p - '0') <= 9);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        p += p < end && (*p == '+' || *p == '-');
        if (p >= end || (unsigned)(*p - '0') > 9)
            return NULL;
        do
            p++;
        while (p < end && (unsigned)(*p - '0') <= 9);
    }
    return p;
}

/* `word` (n = 4 or 5 bytes: true, false, null) at p, or NULL: one or two word compares. */
static inline const char *scan_word(const char *p, const char *end, const char *word, size_t n)
{
    return (size_t)(end - p) >= n && aps_scan_load32(p) == aps_scan_load32(word) && p[n - 1] == word[n - 1]
               ? p + n
               : NULL;
}

/*
 * A state machine over the tokens, one label per state (a value, after a
 * value, a member name), with each open container a bit (object or
 * array) so that no state asks what it is in more than once. `compact`
 * (a constant where it is inlined): whitespace between tokens is refused
 * (WS and COLON take none), which says the text is its own compact form.
 */
#if defined(__GNUC__) || defined(__clang__)
#define SKIP_INLINE static inline __attribute__((always_inline))
#else
#define SKIP_INLINE static inline
#endif
#define WS(q) (compact ? (q) : aps_scan_ws((q), end))
#define COLON(q) (compact ? ((q) < end && *(q) == ':' ? (q) + 1 : NULL) : aps_scan_colon((q), end))
SKIP_INLINE const char *skip_impl(const char *p, const char *end, size_t room, int allow_duplicates, int compact)
{
    unsigned first_name[APS_JSON_FAST_DEPTH]; /* of each open object, in names[] */
    uint64_t lengths[APS_JSON_FAST_DEPTH];    /* of each open object: bit len % 64 of its names' */
    aps_slice names[APS_JSON_FAST_NAMES];
    uint64_t in_object = 0; /* bit d: the container at depth d + 1 is an object */
    unsigned top = 0, nnames = 0, i;
    int escaped;
    const char *s, *stop;
    if (room > APS_JSON_FAST_DEPTH)
        room = APS_JSON_FAST_DEPTH;
value:
    if (APS_SCAN_UNLIKELY(p >= end))
        return NULL;
    switch (*p) {
    case '"':
        if ((s = plain_string(p, end, &stop)) == NULL && (s = scan_string_from(stop, end, &escaped)) == NULL)
            return NULL;
        p = s;
        goto after;
    case '{':
        if (top == room)
            return NULL;
        p = WS(p + 1);
        if (p < end && *p == '}') {
            p++;
            goto after;
        }
        in_object |= (uint64_t)1 << top;
        lengths[top] = 0;
        first_name[top++] = nnames;
        goto name;
    case '[':
        if (top == room)
            return NULL;
        p = WS(p + 1);
        if (p < end && *p == ']') {
            p++;
            goto after;
        }
        in_object &= ~((uint64_t)1 << top);
        top++;
        goto value;
    case 't':
        p = scan_word(p, end, "true", 4);
        break;
    case 'f':
        p = scan_word(p, end, "false", 5);
        break;
    case 'n':
        p = scan_word(p, end, "null", 4);
        break;
    default:
        p = scan_number(p, end);
        break;
    }
    if (p == NULL)
        return NULL;
after:
    /* After a value: the next item, or close what ends here. */
    if (top == 0)
        return p;
    if (APS_SCAN_UNLIKELY(!(p < end && *p == ','))) {
        p = WS(p);
        if (p >= end)
            return NULL;
        if (*p != ',') {
            top--;
            if (*p++ != ((in_object >> top & 1u) ? '}' : ']'))
                return NULL;
            if (in_object >> top & 1u)
                nnames = first_name[top];
            goto after;
        }
    }
    p = WS(p + 1);
    if (!(in_object >> (top - 1) & 1u))
        goto value;
name:
    /* A member name, plain ASCII in one scan; escaped names give up
     * (unescaping them changes what duplicates are). */
    if (nnames == APS_JSON_FAST_NAMES || p >= end || *p != '"')
        return NULL;
#if defined(__SSE2__)
    /* The usual name, its '"' and ':' within 16 bytes: all read from one
     * load's masks, no byte loaded again (the next token waits on this one). */
    if (APS_SCAN_LIKELY(end - p > 16)) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        unsigned m = aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v);
        unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
        unsigned colon = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')));
        if (APS_SCAN_LIKELY((m & (0u - m) & q & colon >> 1) != 0)) {
            i = (unsigned)__builtin_ctz(m);
            names[nnames].ptr = p + 1;
            names[nnames].len = i;
            p = WS(p + i + 3);
            goto named;
        }
    }
#endif
    s = aps_scan_find_stop(p + 1, end);
    if (APS_SCAN_UNLIKELY(!(s < end && *s == '"'))) {
        escaped = 0;
        if ((s = scan_string_from(s, end, &escaped)) == NULL || escaped)
            return NULL;
        s--;
    }
    names[nnames].ptr = p + 1;
    names[nnames].len = (size_t)(s - p) - 1;
    if ((p = COLON(s + 1)) == NULL)
        return NULL;
#if defined(__SSE2__)
named:
#endif
    if (!allow_duplicates) {
        /* Names of a length not seen in this object yet need no comparing. */
        uint64_t bit = (uint64_t)1 << (names[nnames].len & 63u);
        if ((lengths[top - 1] & bit) != 0) {
            for (i = first_name[top - 1]; i < nnames; i++) {
                if (names[i].len == names[nnames].len &&
                    aps_scan_bytes_equal(names[i].ptr, names[nnames].ptr, names[i].len))
                    return NULL;
            }
        }
        lengths[top - 1] |= bit;
        nnames++; /* with duplicates allowed no name is kept */
    }
    goto value;
}

#undef WS
#undef COLON

const char *aps_json_impl_skip_fast(const char *p, const char *end, size_t room, int allow_duplicates)
{
    return skip_impl(p, end, room, allow_duplicates, 0);
}

const char *aps_json_impl_skip_compact(const char *p, const char *end, size_t room)
{
    return skip_impl(p, end, room, 0, 1);
}

aps_status aps_json_validate(const char *json, size_t len, const aps_json_reader_options *options,
                             aps_error *err)
{
    /* Small texts validate without touching the heap. */
    union {
        char bytes[4096];
        uint64_t align;
    } scratch;
    aps_arena_options ao;
    aps_arena arena;
    aps_json_reader r;
    aps_status st;
    size_t max_depth = options != NULL && options->max_depth != 0 ? options->max_depth : APS_JSON_MAX_DEPTH_DEFAULT;
    const char *end = json + len, *p;
    /* Most texts are right: the validating skip above says so
     * several times faster. When it gives up, the reader decides and
     * locates the error. */
    if (json != NULL && (p = aps_json_impl_skip_fast(aps_scan_ws(json, end), end, max_depth,
                                                     options != NULL && options->allow_duplicates)) != NULL &&
        aps_scan_ws(p, end) == end)
        return APS_OK;
    memset(&ao, 0, sizeof ao);
    ao.initial = scratch.bytes;
    ao.initial_size = sizeof scratch.bytes;
    aps_arena_init(&arena, &ao);
    aps_json_reader_init(&r, json, len, &arena, options);
    st = aps_json_skip(&r, err);
    if (st == APS_OK)
        st = aps_json_reader_finish(&r, err);
    aps_arena_deinit(&arena);
    return st;
}
