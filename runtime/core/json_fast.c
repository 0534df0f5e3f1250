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
#if APS_JSON_HAVE_AVX2 || APS_JSON_HAVE_AVX512
#include <immintrin.h>
#endif
#if APS_JSON_HAVE_NEON
#include <arm_neon.h>
#endif

/* ---- string content -----------------------------------------------------
 *
 * A string's content, checked one block of W bytes (16, 32 or 64) a step:
 * each instruction set only loads a block and compares its bytes into bit
 * masks (bit i: byte i); what the masks mean (where the string ends, which
 * bytes are escaped, whether the escapes are right) is decided below in
 * plain C, once for every width. So the SSE2 (16 bytes), NEON (16), AVX2
 * (32) and AVX-512BW (64; both chosen at run time) scans cannot disagree in
 * their rules, only in their compares, and string_scalar, byte by byte, is
 * the reference they are tested against (tests/jsonskip/test_vector.c, fuzz
 * decode_fast). UTF-8 is the exception: SSE2 and NEON check it on masks
 * too (utf8_block), AVX2 and AVX-512 by table lookups with a byte shuffle
 * (utf8_ok_avx512), which SSE2 does not have; the same tests hold both.
 */

/* What one block's bytes are, as masks; the UTF-8 masks (SSE2, NEON) only when it has a byte past ASCII. */
typedef struct str_masks {
    uint64_t q, bs, ctl, high; /* '"', '\\', below 0x20, past ASCII */
    uint64_t letters, u;       /* one of / b f n r t; 'u' */
    uint64_t hex, d;           /* 0-9 a-f A-F; 'd' or 'D' (64-byte blocks only: block_rest) */
} str_masks;

typedef struct utf8_masks {
    /* compared as signed bytes, so that the "below" masks hold no ASCII */
    uint64_t lt_c0, gt_df, gt_ef, lt_a0, lt_90, lt_c2, gt_f4, e0, ed, f0, f4;
} utf8_masks;

/* What a string's scan carries from one block to the next. */
typedef struct str_state {
    uint64_t need;      /* continuations (bits 0-2) and narrower ranges (bits 3-6) still wanted */
    uint64_t carry;     /* the next block's first byte is escaped */
    uint64_t escapes;   /* some byte of the string was escaped */
    uint64_t hex;       /* 64-byte blocks: the next block's first bytes are \u digits (bits 0-3) */
    uint64_t ulast;     /* 64-byte blocks: the block's last byte was the 'u' of an escape */
    const char *paired; /* the 'u' of the low half of a surrogate pair already checked */
} str_state;

/* Out of line, as the one scan before them was: a string past its plain
 * start is long or rare, and each token machine would carry a copy. */
#if defined(__GNUC__) || defined(__clang__)
#define STRING_SCAN static __attribute__((noinline))
#else
#define STRING_SCAN static
#endif

#define BLOCK_BITS(w) ((w) == 64 ? ~(uint64_t)0 : ((uint64_t)1 << (w)) - 1u)

/*
 * UTF-8 of RFC 3629 over one block: every byte past ASCII that needs
 * continuations must be followed by exactly that many, no others may
 * appear, and the second byte after E0, ED, F0 and F4 has a narrower
 * range. Only the bytes in `upto` count. *need carries what a character
 * across the block's end still wants (str_state.need). Returns 0 on bad
 * UTF-8. The masks hold no bits past w (w <= 64).
 */
static inline int utf8_block(const utf8_masks *m, uint64_t high, uint64_t *need, uint64_t upto, unsigned w)
{
    uint64_t cont = m->lt_c0, lead = high & ~cont;
    uint64_t three = high & m->gt_df, four = high & m->gt_ef;
    uint64_t bad = (lead & m->lt_c2) | (high & m->gt_f4); /* C0, C1, F5..FF */
    uint64_t in = *need;
    uint64_t want = (lead << 1 | three << 2 | four << 3) | (in & 7u);
    uint64_t e0 = m->e0 << 1 | (in >> 3 & 1u), ed = m->ed << 1 | (in >> 4 & 1u);
    uint64_t f0 = m->f0 << 1 | (in >> 5 & 1u), f4 = m->f4 << 1 | (in >> 6 & 1u);
    /* Wanted continuations overlap only where one is missing, which the
     * comparison with the continuation bytes finds. */
    bad |= (want ^ cont) | (e0 & m->lt_a0) | (ed & ~m->lt_a0) | (f0 & m->lt_90) | (f4 & ~m->lt_90);
    if (w < 64)
        *need = (want >> (w & 63u)) | (e0 >> (w & 63u)) << 3 | (ed >> (w & 63u)) << 4 | (f0 >> (w & 63u)) << 5 |
                (f4 >> (w & 63u)) << 6;
    else /* the shifts above have dropped what passes the block's end: taken from the masks before them */
        *need = (lead >> 63 | three >> 62 | four >> 61) | (m->e0 >> 63) << 3 | (m->ed >> 63) << 4 |
                (m->f0 >> 63) << 5 | (m->f4 >> 63) << 6;
    return (bad & upto & BLOCK_BITS(w)) == 0;
}

/*
 * Of the backslashes bs of a block, the bytes they escape: the byte after
 * each backslash run of odd length. *carry says, in and out, whether the
 * block's first byte is escaped by the one before. No branch: each escape
 * costs nothing more than the block it is in.
 */
static inline uint64_t escaped_bytes(uint64_t bs, uint64_t *carry, unsigned w)
{
    const uint64_t even = 0x5555555555555555ull & BLOCK_BITS(w);
    uint64_t follows, odd_starts, sum;
    bs &= ~*carry; /* a backslash escaped by the block before starts nothing */
    follows = bs << 1 | *carry;
    /* Runs starting at an odd bit: adding them to the run carries past its end. */
    odd_starts = bs & ~even & ~follows;
    sum = odd_starts + bs;
    /* bit w of the sum: with 64-byte blocks, the addition's overflow */
    *carry = w == 64 ? (uint64_t)(sum < bs) : sum >> (w & 63u) & 1u;
    /* Every other byte after a run's start is escaped; the sum flips
     * the pattern for the runs that start at an even bit. */
    return (even ^ (sum << 1)) & follows & BLOCK_BITS(w);
}

/*
 * Where the block's string ends: the first unescaped '"', or a control
 * character (an error); 0 when it goes on. *upto: the bytes that count
 * (the block up to and with that byte); *esc: the escaped bytes.
 */
static inline uint64_t block_stop(str_state *st, const str_masks *m, unsigned w, uint64_t *esc, uint64_t *upto)
{
    uint64_t stop;
    *esc = escaped_bytes(m->bs, &st->carry, w);
    stop = (m->q & ~*esc) | m->ctl;
    *upto = stop != 0 ? stop ^ (stop - 1u) : BLOCK_BITS(w);
    st->escapes |= *esc & *upto;
    return stop;
}

/*
 * The \u escape whose 'u' is at `at`: four hex digits, surrogates in pairs
 * (the reader's own check; the digits are plain bytes, so a block's masks
 * stand). 0 when it is wrong.
 */
static inline int u_escape_ok(str_state *st, const char *at, const char *end)
{
    const char *after, *bad, *why;
    aps_status code;
    if (at == st->paired)
        return 1;
    if ((after = aps_json_impl_unescape_one(at - 1, end, NULL, NULL, &code, &bad, &why)) == NULL)
        return 0;
    if (after - (at - 1) == 12)
        st->paired = at + 6;
    return 1;
}

/*
 * The rest of a block at s once its UTF-8 is right: its escapes and its
 * end. Returns 1 to go on with the next block; else 0, the string done,
 * with *out the byte after its closing '"', or NULL (a bad escape, a
 * control character, the end of the input).
 */
static inline int block_rest(str_state *st, const str_masks *m, uint64_t esc, uint64_t stop, uint64_t upto,
                             const char *s, const char *end, const char **out, int *escaped, unsigned w)
{
    /* An escaped byte must be one of " \ / b f n r t u (the first two in q and bs). */
    uint64_t u = esc & m->u & upto;
    uint64_t fails = esc & ~(m->letters | m->q | m->bs) & ~u & upto;
    if (w == 64) {
        /* A \u escape's four digits are checked on the masks, like the
         * UTF-8 continuations (the digits wanted past the block carried in
         * st->hex); only one whose first digit is d or D (a surrogate, or a
         * code point just below them) is left to u_escape_ok, its 'u'
         * perhaps the last byte of the block before. Text with escaped
         * accents has one every few words, and a call and a branch each
         * cost more than these operations once per 64 bytes; per 16 or 32
         * bytes they cost more than they save (docs/benchmarks.md,
         * session 18). */
        uint64_t want = (u << 1 | u << 2 | u << 3 | u << 4) | st->hex;
        uint64_t here = u & m->d >> 1, before = st->ulast & m->d & 1u;
        fails |= want & ~m->hex & upto;
        st->hex = u >> 63 | u >> 62 | u >> 61 | u >> 60;
        st->ulast = u >> 63;
        if (APS_SCAN_LIKELY((stop | fails | here | before) == 0))
            return 1;
        *out = NULL;
        if (fails != 0 || (before != 0 && !u_escape_ok(st, s - 1, end)))
            return 0;
        u = here;
    } else {
        if (APS_SCAN_LIKELY((stop | fails | u) == 0))
            return 1;
        *out = NULL;
        if (fails != 0)
            return 0;
    }
    for (; u != 0; u &= u - 1u) {
        if (!u_escape_ok(st, s + __builtin_ctzll(u), end))
            return 0;
    }
    if (stop == 0)
        return 1;
    s += __builtin_ctzll(stop);
    if (s >= end || *s != '"')
        return 0; /* a control character, or the end of the input */
    *escaped |= st->escapes != 0;
    *out = s + 1;
    return 0;
}

/*
 * The string content from s (after the opening '"', or inside the content
 * after plain ASCII) to its closing '"', byte by byte: the byte after it, or
 * NULL on a control character, a bad escape, bad UTF-8 or the end of the
 * input. The reference the block scans are held to, and the scan where no
 * vector unit is known.
 */
STRING_SCAN const char *string_scalar(const char *s, const char *end, int *escaped)
{
    const char *bad, *why;
    aps_status code;
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
}

/*
 * The block loop of one instruction set, W bytes a step: LOAD(v, p) loads
 * the block at p, CLASSIFY(v, &m) compares it, UTF8_OK(v, &prev, &m, &st,
 * upto) checks its UTF-8 (prev: the block before). The last
 * bytes are copied into a block of zeros (never read past end); the zeros
 * are control characters, so a scan reaching them fails. One branch per
 * step, taken at the string's end or on what needs a closer look (a \u
 * escape, an error): a text of accented words and escapes costs little
 * more than plain ASCII.
 */
/*
 * UTF8_OK by the masks of utf8_block, for a UTF8(v, &u) that compares the
 * block: only where a byte past ASCII is (or was wanted), so that ASCII
 * text costs one test a block.
 */
#define UTF8_BY_MASKS(ATTR, VEC, W, UTF8, NAME)                                                           \
    static inline ATTR int NAME(VEC v, VEC *prev, const str_masks *m, str_state *st, uint64_t upto)       \
    {                                                                                                     \
        utf8_masks um;                                                                                    \
        (void)prev;                                                                                       \
        if (APS_SCAN_LIKELY((m->high | st->need) == 0))                                                   \
            return 1;                                                                                     \
        UTF8(v, &um);                                                                                     \
        return utf8_block(&um, m->high, &st->need, upto, (W));                                            \
    }

#define STRING_LOOP(VEC, W, LOAD, CLASSIFY, UTF8_OK)                                                        \
    str_state st;                                                                                       \
    VEC prev; /* the block before, for UTF8_OK's look back; zeros (ASCII) before the first */           \
    memset(&st, 0, sizeof st);                                                                          \
    memset(&prev, 0, sizeof prev);                                                                      \
    for (;; s += (W)) {                                                                                 \
        char tail[W];                                                                                   \
        VEC v;                                                                                          \
        str_masks m;                                                                                    \
        uint64_t esc, stop, upto;                                                                       \
        const char *out;                                                                                \
        if (APS_SCAN_LIKELY(end - s >= (W))) {                                                          \
            v = LOAD(s);                                                                                \
        } else {                                                                                        \
            if (s >= end)                                                                               \
                return NULL;                                                                            \
            memset(tail, 0, sizeof tail);                                                               \
            memcpy(tail, s, (size_t)(end - s));                                                         \
            v = LOAD(tail);                                                                             \
        }                                                                                               \
        CLASSIFY(v, &m);                                                                                \
        stop = block_stop(&st, &m, (W), &esc, &upto);                                                   \
        if (!UTF8_OK(v, &prev, &m, &st, upto))                                                          \
            return NULL;                                                                                \
        if (!block_rest(&st, &m, esc, stop, upto, s, end, &out, escaped, (W)))                          \
            return out;                                                                                 \
    }

#if defined(__SSE2__)
#define SSE_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define SSE_MASK(x) ((uint64_t)(unsigned)_mm_movemask_epi8(x))
#define SSE_EQ(c) SSE_MASK(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)(c))))

static inline void classify_sse2(__m128i v, str_masks *m)
{
    const __m128i ctl = _mm_set1_epi8(0x1F);
    m->q = SSE_EQ('"');
    m->bs = SSE_EQ('\\');
    m->ctl = SSE_MASK(_mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
    m->high = SSE_MASK(v);
    /* the escape letters OR-ed as vectors: one mask move, not six */
#define SSE_V(c) _mm_cmpeq_epi8(v, _mm_set1_epi8(c))
    m->letters = SSE_MASK(_mm_or_si128(_mm_or_si128(SSE_V('/'), SSE_V('b')),
                                       _mm_or_si128(_mm_or_si128(SSE_V('f'), SSE_V('n')),
                                                    _mm_or_si128(SSE_V('r'), SSE_V('t')))));
#undef SSE_V
    m->u = SSE_EQ('u');
}

static inline void utf8_sse2(__m128i v, utf8_masks *m)
{
    /* Bytes compare as signed: 0x80..0xFF are -128..-1, ASCII is not below 0. */
#define SSE_LT(x) SSE_MASK(_mm_cmplt_epi8(v, _mm_set1_epi8((char)(x))))
#define SSE_GT(x) SSE_MASK(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(x))))
    m->lt_c0 = SSE_LT(0xC0);
    m->gt_df = SSE_GT(0xDF);
    m->gt_ef = SSE_GT(0xEF);
    m->lt_a0 = SSE_LT(0xA0);
    m->lt_90 = SSE_LT(0x90);
    m->lt_c2 = SSE_LT(0xC2);
    m->gt_f4 = SSE_GT(0xF4);
    m->e0 = SSE_EQ(0xE0);
    m->ed = SSE_EQ(0xED);
    m->f0 = SSE_EQ(0xF0);
    m->f4 = SSE_EQ(0xF4);
#undef SSE_LT
#undef SSE_GT
}

UTF8_BY_MASKS(, __m128i, 16, utf8_sse2, utf8_ok_sse2)

STRING_SCAN const char *string_sse2(const char *s, const char *end, int *escaped)
{
    STRING_LOOP(__m128i, 16, SSE_LOAD, classify_sse2, utf8_ok_sse2)
}
#endif

#if APS_JSON_HAVE_AVX2 || APS_JSON_HAVE_AVX512
/* What a pair of bytes (byte 1, then byte 2) can be wrong in, one bit each,
 * looked up by byte 1's high and low nibble and byte 2's high nibble: the
 * pair is wrong where all three lookups share a bit (Keiser and Lemire,
 * "Validating UTF-8 in less than one instruction per byte", 2021; simdjson's
 * tables). */
enum {
    U_TOO_SHORT = 1 << 0,  /* a lead byte (or ASCII) followed by a lead byte or ASCII */
    U_TOO_LONG = 1 << 1,   /* ASCII followed by a continuation */
    U_OVERLONG_3 = 1 << 2, /* E0 80..9F */
    U_TOO_LARGE = 1 << 3,  /* F4 90..BF, F5..FF 80..BF */
    U_SURROGATE = 1 << 4,  /* ED A0..BF */
    U_OVERLONG_2 = 1 << 5, /* C0, C1 */
    U_TOO_LARGE_1000 = 1 << 6, /* F5..FF 80..8F; shares its bit with U_OVERLONG_4 (F0 80..8F) */
    U_OVERLONG_4 = 1 << 6,
    U_TWO_CONTS = 1 << 7, /* a continuation followed by a continuation: right only after a 3- or 4-byte lead */
    U_CARRY = U_TOO_SHORT | U_TOO_LONG | U_TWO_CONTS
};
/* by byte 1's high nibble */
#define UTF8_BYTE1_HIGH                                                                                       \
    U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TOO_LONG, U_TWO_CONTS, \
        U_TWO_CONTS, U_TWO_CONTS, U_TWO_CONTS, U_TOO_SHORT | U_OVERLONG_2, U_TOO_SHORT,                       \
        U_TOO_SHORT | U_OVERLONG_3 | U_SURROGATE, U_TOO_SHORT | U_TOO_LARGE | U_TOO_LARGE_1000 | U_OVERLONG_4
/* by byte 1's low nibble */
#define UTF8_BYTE1_LOW                                                                                        \
    U_CARRY | U_OVERLONG_3 | U_OVERLONG_2 | U_OVERLONG_4, U_CARRY | U_OVERLONG_2, U_CARRY, U_CARRY,            \
        U_CARRY | U_TOO_LARGE, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000, \
        U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000,                    \
        U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000,                    \
        U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000,                    \
        U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000 | U_SURROGATE, U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000,      \
        U_CARRY | U_TOO_LARGE | U_TOO_LARGE_1000
/* by byte 2's high nibble */
#define UTF8_BYTE2_HIGH                                                                                       \
    U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT, U_TOO_SHORT,    \
        U_TOO_LONG | U_OVERLONG_2 | U_TWO_CONTS | U_OVERLONG_3 | U_TOO_LARGE_1000 | U_OVERLONG_4,             \
        U_TOO_LONG | U_OVERLONG_2 | U_TWO_CONTS | U_OVERLONG_3 | U_TOO_LARGE,                                 \
        U_TOO_LONG | U_OVERLONG_2 | U_TWO_CONTS | U_SURROGATE | U_TOO_LARGE,                                  \
        U_TOO_LONG | U_OVERLONG_2 | U_TWO_CONTS | U_SURROGATE | U_TOO_LARGE, U_TOO_SHORT, U_TOO_SHORT,        \
        U_TOO_SHORT, U_TOO_SHORT
#endif

#if APS_JSON_HAVE_AVX2
#define AVX_TARGET __attribute__((target("avx2")))
#define AVX_MASK(x) ((uint64_t)(uint32_t)_mm256_movemask_epi8(x))
#define AVX_EQ(c) AVX_MASK(_mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)(c))))

static inline AVX_TARGET __m256i avx2_load(const char *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

static inline AVX_TARGET void classify_avx2(__m256i v, str_masks *m)
{
    const __m256i ctl = _mm256_set1_epi8(0x1F);
    m->q = AVX_EQ('"');
    m->bs = AVX_EQ('\\');
    m->ctl = AVX_MASK(_mm256_cmpeq_epi8(_mm256_max_epu8(v, ctl), ctl));
    m->high = 0; /* not asked: utf8_ok_avx2 checks every block */
#define AVX_V(c) _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))
    m->letters = AVX_MASK(_mm256_or_si256(_mm256_or_si256(AVX_V('/'), AVX_V('b')),
                                          _mm256_or_si256(_mm256_or_si256(AVX_V('f'), AVX_V('n')),
                                                          _mm256_or_si256(AVX_V('r'), AVX_V('t')))));
#undef AVX_V
    m->u = AVX_EQ('u');
}

/* utf8_ok_avx512 with 32 bytes (the tables there). */
static inline AVX_TARGET int utf8_ok_avx2(__m256i v, __m256i *prev, const str_masks *m, str_state *st, uint64_t upto)
{
    static const uint8_t tables[3][32] __attribute__((aligned(32))) = {
        { UTF8_BYTE1_HIGH, UTF8_BYTE1_HIGH }, { UTF8_BYTE1_LOW, UTF8_BYTE1_LOW }, { UTF8_BYTE2_HIGH, UTF8_BYTE2_HIGH }
    };
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i byte1_high_table = _mm256_load_si256((const __m256i *)(const void *)tables[0]);
    const __m256i byte1_low_table = _mm256_load_si256((const __m256i *)(const void *)tables[1]);
    const __m256i byte2_high_table = _mm256_load_si256((const __m256i *)(const void *)tables[2]);
    /* the block shifted by 1, 2, 3 bytes, the block before's last bytes shifted in */
    __m256i joined = _mm256_permute2x128_si256(*prev, v, 0x21);
    __m256i prev1 = _mm256_alignr_epi8(v, joined, 15), prev2 = _mm256_alignr_epi8(v, joined, 14);
    __m256i prev3 = _mm256_alignr_epi8(v, joined, 13);
    __m256i byte1_high = _mm256_shuffle_epi8(byte1_high_table, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble));
    __m256i byte1_low = _mm256_shuffle_epi8(byte1_low_table, _mm256_and_si256(prev1, nibble));
    __m256i byte2_high = _mm256_shuffle_epi8(byte2_high_table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    __m256i special = _mm256_and_si256(_mm256_and_si256(byte1_high, byte1_low), byte2_high);
    __m256i must = _mm256_and_si256(_mm256_or_si256(_mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80))),
                                                    _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)))),
                                    _mm256_set1_epi8((char)0x80));
    __m256i bad = _mm256_xor_si256(must, special);
    (void)m;
    (void)st;
    *prev = v;
    return (~AVX_MASK(_mm256_cmpeq_epi8(bad, _mm256_setzero_si256())) & upto & BLOCK_BITS(32)) == 0;
}

STRING_SCAN AVX_TARGET const char *string_avx2(const char *s, const char *end, int *escaped)
{
    STRING_LOOP(__m256i, 32, avx2_load, classify_avx2, utf8_ok_avx2)
}
#endif

#if APS_JSON_HAVE_AVX512
/* AVX-512BW compares straight into 64-bit masks: no mask moves, and the
 * block's mask logic (escapes, ends) runs once per 64 bytes instead of
 * twice. Its UTF-8 check is not utf8_block's but table lookups on the
 * bytes themselves (below), a fixed 20 instructions a block. */
#define AVX512_TARGET __attribute__((target("avx512bw")))

/* The bytes compared with and the lookup tables, each in a 64-byte row
 * that the instructions read from memory: set1 constants were broadcast
 * from a register again in every block (the loop's calls clobber every
 * vector register). ROWS hides the rows' contents from the compiler, which
 * otherwise turns the loads back into those broadcasts. */
#define SPLAT_ROW(c) { APS_JSON_R64((unsigned char)(c)) }
#define APS_JSON_R4(c) c, c, c, c
#define APS_JSON_R16(c) APS_JSON_R4(c), APS_JSON_R4(c), APS_JSON_R4(c), APS_JSON_R4(c)
#define APS_JSON_R64(c) APS_JSON_R16(c), APS_JSON_R16(c), APS_JSON_R16(c), APS_JSON_R16(c)
#define TABLE_ROW(...) { __VA_ARGS__, __VA_ARGS__, __VA_ARGS__, __VA_ARGS__ } /* a 16-byte table in each lane */
enum {
    K_CTL, K_CASE, K_D, K_NIBBLE, K_THIRD, K_FOURTH, K_BIT7, K_BYTE1_HIGH, K_BYTE1_LOW, K_BYTE2_HIGH, K_CLASS_HIGH,
    K_CLASS_LOW, K_C_QUOTE, K_C_BACKSLASH, K_C_LETTERS, K_C_U, K_C_HEX, K_COUNT
};
/* What a byte is for a string's escapes, one bit each, looked up by its
 * high and low nibble like the UTF-8 tables: each class is one set of high
 * nibbles by one set of low nibbles, so that the two lookups' AND has the
 * bit exactly for the class's bytes. One lookup and a test per mask instead
 * of a compare per byte value (six for the escape letters). */
enum {
    C_DIGIT = 1 << 0,     /* 0-9 */
    C_HEX_LETTER = 1 << 1, /* A-F a-f */
    C_SLASH = 1 << 2,     /* / */
    C_QUOTE = 1 << 3,     /* " */
    C_BACKSLASH = 1 << 4, /* \ */
    C_BFN = 1 << 5,       /* b f n */
    C_RT = 1 << 6,        /* r t */
    C_U = 1 << 7          /* u */
};
#define CLASS_HIGH 0, 0, C_SLASH | C_QUOTE, C_DIGIT, C_HEX_LETTER, C_BACKSLASH, C_HEX_LETTER | C_BFN, C_RT | C_U, \
    0, 0, 0, 0, 0, 0, 0, 0
#define CLASS_LOW                                                                                              \
    C_DIGIT, C_DIGIT | C_HEX_LETTER, C_DIGIT | C_HEX_LETTER | C_QUOTE | C_BFN | C_RT, C_DIGIT | C_HEX_LETTER,    \
        C_DIGIT | C_HEX_LETTER | C_RT, C_DIGIT | C_HEX_LETTER | C_U, C_DIGIT | C_HEX_LETTER | C_BFN, C_DIGIT,   \
        C_DIGIT, C_DIGIT, 0, 0, C_BACKSLASH, 0, C_BFN, C_SLASH
static const uint8_t avx512_rows[K_COUNT][64] __attribute__((aligned(64))) = {
    SPLAT_ROW(0x1F), SPLAT_ROW(0x20), SPLAT_ROW('d'), SPLAT_ROW(0x0F),
    SPLAT_ROW(0xE0 - 0x80), /* a byte 2 after an E0..FF saturates to 0x80 or more: a third byte */
    SPLAT_ROW(0xF0 - 0x80), /* the same 3 after F0..FF: a fourth */
    SPLAT_ROW(0x80),
    TABLE_ROW(UTF8_BYTE1_HIGH), TABLE_ROW(UTF8_BYTE1_LOW), TABLE_ROW(UTF8_BYTE2_HIGH), TABLE_ROW(CLASS_HIGH),
    TABLE_ROW(CLASS_LOW), SPLAT_ROW(C_QUOTE), SPLAT_ROW(C_BACKSLASH), SPLAT_ROW(C_SLASH | C_BFN | C_RT), SPLAT_ROW(C_U),
    SPLAT_ROW(C_DIGIT | C_HEX_LETTER)
};
#undef CLASS_HIGH
#undef CLASS_LOW
#undef SPLAT_ROW
#undef TABLE_ROW
#undef APS_JSON_R4
#undef APS_JSON_R16
#undef APS_JSON_R64
#define ROWS(r)                         \
    const uint8_t(*r)[64] = avx512_rows; \
    __asm__("" : "+r"(r))
#define K(i) _mm512_load_si512((const void *)rows[i])
#define AVX512_EQ(i) ((uint64_t)_mm512_cmpeq_epi8_mask(v, K(i)))

static inline AVX512_TARGET __m512i avx512_load(const char *p)
{
    return _mm512_loadu_si512((const void *)p);
}

static inline AVX512_TARGET void classify_avx512(__m512i v, str_masks *m)
{
    ROWS(rows);
    __m512i nibble = K(K_NIBBLE);
    __m512i cls = _mm512_and_si512(_mm512_shuffle_epi8(K(K_CLASS_HIGH), _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble)),
                                   _mm512_shuffle_epi8(K(K_CLASS_LOW), _mm512_and_si512(v, nibble)));
#define CLASS(i) ((uint64_t)_mm512_test_epi8_mask(cls, K(i)))
    m->q = CLASS(K_C_QUOTE);
    m->bs = CLASS(K_C_BACKSLASH);
    m->ctl = (uint64_t)_mm512_cmple_epu8_mask(v, K(K_CTL));
    m->high = 0; /* not asked: utf8_ok_avx512 checks every block */
    m->letters = CLASS(K_C_LETTERS);
    m->u = CLASS(K_C_U);
    m->hex = CLASS(K_C_HEX); /* for block_rest's \u check */
    m->d = (uint64_t)_mm512_cmpeq_epi8_mask(_mm512_or_si512(v, K(K_CASE)), K(K_D));
#undef CLASS
}

/*
 * UTF-8 of RFC 3629 over the block v, *prev the block before (zeros before
 * the string's first): each byte is judged with the one to three before it
 * by the lookups above, so an error shows at or before the first byte that
 * cannot follow (a closing quote after a lead byte included) and only the
 * bytes in `upto` count, as in utf8_block. No branch: in text with accented
 * words most blocks have a byte past ASCII, and a branch on it was
 * mispredicted where the mask check's cost would have needed it.
 */
static inline AVX512_TARGET int utf8_ok_avx512(__m512i v, __m512i *prev, const str_masks *m, str_state *st,
                                              uint64_t upto)
{
    ROWS(rows);
    /* the block shifted by 1, 2, 3 bytes, the block before's last bytes shifted in */
    __m512i joined = _mm512_permutex2var_epi64(*prev, _mm512_set_epi64(13, 12, 11, 10, 9, 8, 7, 6), v);
    __m512i prev1 = _mm512_alignr_epi8(v, joined, 15), prev2 = _mm512_alignr_epi8(v, joined, 14);
    __m512i prev3 = _mm512_alignr_epi8(v, joined, 13), nibble = K(K_NIBBLE);
    __m512i byte1_high = _mm512_shuffle_epi8(K(K_BYTE1_HIGH), _mm512_and_si512(_mm512_srli_epi16(prev1, 4), nibble));
    __m512i byte1_low = _mm512_shuffle_epi8(K(K_BYTE1_LOW), _mm512_and_si512(prev1, nibble));
    __m512i byte2_high = _mm512_shuffle_epi8(K(K_BYTE2_HIGH), _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble));
    __m512i special = _mm512_and_si512(_mm512_and_si512(byte1_high, byte1_low), byte2_high);
    /* a third or fourth byte of a character must be a continuation: that
     * is what U_TWO_CONTS (bit 7) says it is, so the two cancel */
    __m512i must = _mm512_and_si512(_mm512_or_si512(_mm512_subs_epu8(prev2, K(K_THIRD)), _mm512_subs_epu8(prev3, K(K_FOURTH))),
                                    K(K_BIT7));
    __m512i bad = _mm512_xor_si512(must, special);
    (void)m;
    (void)st;
    *prev = v;
    return ((uint64_t)_mm512_test_epi8_mask(bad, bad) & upto) == 0;
}

STRING_SCAN AVX512_TARGET const char *string_avx512(const char *s, const char *end, int *escaped)
{
    STRING_LOOP(__m512i, 64, avx512_load, classify_avx512, utf8_ok_avx512)
}
#undef K
#undef ROWS
#undef AVX512_EQ
#endif

#if APS_JSON_HAVE_NEON
#define NEON_LOAD(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define NEON_EQ(c) aps_scan_neon_mask(vceqq_u8(v, vdupq_n_u8((uint8_t)(c))))

static inline void classify_neon(uint8x16_t v, str_masks *m)
{
    m->q = NEON_EQ('"');
    m->bs = NEON_EQ('\\');
    m->ctl = aps_scan_neon_mask(vcleq_u8(v, vdupq_n_u8(0x1F)));
    m->high = aps_scan_neon_mask(vcgeq_u8(v, vdupq_n_u8(0x80)));
#define NEON_V(c) vceqq_u8(v, vdupq_n_u8(c))
    m->letters = aps_scan_neon_mask(vorrq_u8(vorrq_u8(NEON_V('/'), NEON_V('b')),
                                    vorrq_u8(vorrq_u8(NEON_V('f'), NEON_V('n')), vorrq_u8(NEON_V('r'), NEON_V('t')))));
#undef NEON_V
    m->u = NEON_EQ('u');
}

static inline void utf8_neon(uint8x16_t v, utf8_masks *m)
{
    /* Signed compares, as in utf8_sse2. */
    int8x16_t sv = vreinterpretq_s8_u8(v);
#define NEON_LT(x) aps_scan_neon_mask(vcltq_s8(sv, vdupq_n_s8((int8_t)(x))))
#define NEON_GT(x) aps_scan_neon_mask(vcgtq_s8(sv, vdupq_n_s8((int8_t)(x))))
    m->lt_c0 = NEON_LT(0xC0);
    m->gt_df = NEON_GT(0xDF);
    m->gt_ef = NEON_GT(0xEF);
    m->lt_a0 = NEON_LT(0xA0);
    m->lt_90 = NEON_LT(0x90);
    m->lt_c2 = NEON_LT(0xC2);
    m->gt_f4 = NEON_GT(0xF4);
    m->e0 = NEON_EQ(0xE0);
    m->ed = NEON_EQ(0xED);
    m->f0 = NEON_EQ(0xF0);
    m->f4 = NEON_EQ(0xF4);
#undef NEON_LT
#undef NEON_GT
}

UTF8_BY_MASKS(, uint8x16_t, 16, utf8_neon, utf8_ok_neon)

STRING_SCAN const char *string_neon(const char *s, const char *end, int *escaped)
{
    STRING_LOOP(uint8x16_t, 16, NEON_LOAD, classify_neon, utf8_ok_neon)
}
#endif

/* The widest scan this build and CPU have. */
static inline aps_json_isa best_isa(void)
{
#if APS_JSON_HAVE_AVX512
    /* Only where 512-bit work does not slow the core down (Ice Lake and
     * Zen 4 on, which is also simdjson's test: VBMI2 came with them). */
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2"))
        return APS_JSON_ISA_AVX512;
#endif
#if APS_JSON_HAVE_AVX2
    if (__builtin_cpu_supports("avx2"))
        return APS_JSON_ISA_AVX2;
#endif
#if defined(__SSE2__)
    return APS_JSON_ISA_SSE2;
#elif APS_JSON_HAVE_NEON
    return APS_JSON_ISA_NEON;
#else
    return APS_JSON_ISA_SCALAR;
#endif
}

/*
 * The string scan `isa` names (the build's and the CPU's permitting: else
 * the widest there is, which tests learn from aps_json_impl_skip_isa).
 */
static inline const char *scan_string_isa(aps_json_isa isa, const char *s, const char *end, int *escaped)
{
#if APS_JSON_HAVE_AVX512
    if (isa == APS_JSON_ISA_AVX512)
        return string_avx512(s, end, escaped);
#endif
#if APS_JSON_HAVE_AVX2
    if (isa == APS_JSON_ISA_AVX2)
        return string_avx2(s, end, escaped);
#endif
    if (isa == APS_JSON_ISA_SCALAR)
        return string_scalar(s, end, escaped);
#if defined(__SSE2__)
    return string_sse2(s, end, escaped);
#elif APS_JSON_HAVE_NEON
    return string_neon(s, end, escaped);
#else
    return string_scalar(s, end, escaped);
#endif
}

const char *aps_scan_string_slow(const char *s, const char *end, int *escaped)
{
    *escaped = 0;
    return scan_string_isa(best_isa(), s, end, escaped);
}

/*
 * The string whose '"' is at p when its content is plain ASCII: the byte
 * after its closing '"'. Else NULL, with *stop where plain content ends.
 * Which byte stopped the scan comes from the load's masks, not from memory:
 * the next token waits on this answer.
 */
static inline const char *plain_string(const char *p, const char *end, const char **stop, int vec)
{
    const char *s = p + 1;
#if defined(__SSE2__)
    while (vec && end - s >= 16) {
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
#else
    (void)vec;
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
SKIP_INLINE const char *skip_impl(const char *p, const char *end, size_t room, int allow_duplicates, int compact,
                                  int vec, aps_json_isa isa)
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
        if ((s = plain_string(p, end, &stop, vec)) == NULL && (s = scan_string_isa(isa, stop, end, &escaped)) == NULL)
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
    if (vec && APS_SCAN_LIKELY(end - p > 16)) {
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
        if ((s = scan_string_isa(isa, s, end, &escaped)) == NULL || escaped)
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
    return skip_impl(p, end, room, allow_duplicates, 0, 1, best_isa());
}

const char *aps_json_impl_skip_compact(const char *p, const char *end, size_t room)
{
    return skip_impl(p, end, room, 0, 1, 1, best_isa());
}

aps_json_isa aps_json_impl_skip_isa(aps_json_isa isa)
{
    if (isa == APS_JSON_ISA_AUTO)
        return best_isa();
    if (isa == APS_JSON_ISA_SCALAR)
        return isa;
#if APS_JSON_HAVE_AVX512
    if (isa == APS_JSON_ISA_AVX512 && __builtin_cpu_supports("avx512bw"))
        return isa;
#endif
#if APS_JSON_HAVE_AVX2
    if (isa == APS_JSON_ISA_AVX2 && __builtin_cpu_supports("avx2"))
        return isa;
#endif
#if defined(__SSE2__)
    return isa == APS_JSON_ISA_SSE2 ? isa : APS_JSON_ISA_AUTO;
#elif APS_JSON_HAVE_NEON
    return isa == APS_JSON_ISA_NEON ? isa : APS_JSON_ISA_AUTO;
#else
    return APS_JSON_ISA_AUTO;
#endif
}

const char *aps_json_impl_skip_with(aps_json_isa isa, const char *p, const char *end, size_t room,
                                    int allow_duplicates, int compact)
{
    /* Each instantiation with constants, as the entries above; the scalar
     * one (no vector step anywhere) only here, for tests. */
    isa = aps_json_impl_skip_isa(isa);
    if (isa == APS_JSON_ISA_AUTO)
        return NULL;
    if (isa == APS_JSON_ISA_SCALAR)
        return compact ? skip_impl(p, end, room, 0, 1, 0, isa) : skip_impl(p, end, room, allow_duplicates, 0, 0, isa);
    return compact ? skip_impl(p, end, room, 0, 1, 1, isa) : skip_impl(p, end, room, allow_duplicates, 0, 1, isa);
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
