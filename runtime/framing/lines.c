/* lines.c - the SSE parser's line scan and UTF-8 proof (see lines.h). */
#include "lines.h"
#include "aps/scan.h"

#include <string.h>
#if APS_LINES_HAVE_AVX2
#include <immintrin.h>
#elif APS_SCAN_HAVE_NEON
#define APS_LINES_HAVE_NEON 1 /* arm_neon.h and aps_scan_neon_mask come with aps/scan.h */
#endif

/*
 * The marks of block k of the chunk, whose bytes past ASCII are `high`:
 * the characters that start at them are validated in order (a block with
 * none is skipped, it cannot hold the rest of a character).
 */
static uint64_t prove(aps_lines *ls, size_t k, uint64_t high)
{
    const char *block = ls->s + ls->base + k * APS_LINES_BLOCK, *end = ls->s + ls->n;
    uint64_t marks = 0;
    while (high != 0) {
        unsigned i = aps_lines_ctz(high);
        const char *c = block + i;
        high &= high - 1u;
        if (c < ls->ok)
            continue; /* inside a character proven already */
        ls->ok = aps_scan_utf8_char(c, end);
        if (ls->ok == NULL) {
            /* Marked; the proof goes on from the next byte, so that the
             * characters after it (the next line's) are still proven. */
            marks |= (uint64_t)1 << i;
            ls->ok = c + 1;
        }
    }
    return marks;
}

/*
 * Appends to ends[c..] the offsets of the bits of `bits`, a block at
 * offset `off`; returns the new count. Four steps with no branch on how
 * many there are (an event's short lines put three or four ends in a
 * block, and a branch on the count would miss), each writing where the
 * next end goes; one write may land past the last end (the slack of
 * aps_lines.ends). A block with none, inside a data line, is one test.
 */
static inline unsigned put_ends(uint64_t bits, unsigned off, uint16_t *ends, unsigned c)
{
    int i;
    if (bits == 0)
        return c;
    for (i = 0; i < 4; i++) {
        ends[c] = (uint16_t)(off + aps_lines_ctz(bits | (uint64_t)1 << 63));
        c += bits != 0;
        bits &= bits - 1u;
    }
    for (; bits != 0; bits &= bits - 1u)
        ends[c++] = (uint16_t)(off + aps_lines_ctz(bits));
    return c;
}

/* Reads the chunk at base: line ends, masks of bytes past ASCII, proof. */
static void load(aps_lines *ls)
{
    uint64_t high[APS_LINES_BLOCKS];
    size_t left = ls->n - ls->base, blocks, k;
    uint64_t todo;
    unsigned c;
    ls->size = left < APS_LINES_CHUNK ? left : APS_LINES_CHUNK;
    blocks = ls->size / APS_LINES_BLOCK;
    c = aps_lines_index(ls->s + ls->base, blocks, 0, ls->ends, high, &todo);
    if (ls->size % APS_LINES_BLOCK != 0) {
        /* The push's last bytes, padded with zeros: no line end, nothing past ASCII. */
        char tail[APS_LINES_BLOCK] = { 0 };
        uint64_t last;
        memcpy(tail, ls->s + ls->base + blocks * APS_LINES_BLOCK, ls->size % APS_LINES_BLOCK);
        c += aps_lines_index(tail, 1, (unsigned)blocks * APS_LINES_BLOCK, ls->ends + c, high + blocks, &last);
        todo |= last << blocks;
    }
    ls->count = c;
    ls->next = 0;
    ls->marked = 0;
    /* The blocks with text past ASCII (usually none, or one or two), proven in order. */
    for (todo = ls->check ? todo : 0; todo != 0; todo &= todo - 1u) {
        uint64_t m;
        k = aps_lines_ctz(todo);
        if ((m = prove(ls, k, high[k])) == 0)
            continue;
        if (!ls->marked) {
            memset(ls->marks, 0, sizeof ls->marks);
            ls->marked = 1;
        }
        ls->marks[k] = m;
    }
    ls->clean = !ls->marked && !ls->carry;
}

/* Whether the chunk has a mark in [a, b) (offsets in it, a <= b <= size). */
static int marked(const aps_lines *ls, size_t a, size_t b)
{
    size_t k;
    for (k = a / APS_LINES_BLOCK; k * APS_LINES_BLOCK < b; k++) {
        uint64_t m = ls->marks[k];
        if (k == a / APS_LINES_BLOCK)
            m &= ~(uint64_t)0 << (a % APS_LINES_BLOCK);
        if ((k + 1) * APS_LINES_BLOCK > b)
            m &= ((uint64_t)1 << (b % APS_LINES_BLOCK)) - 1u;
        if (m != 0)
            return 1;
    }
    return 0;
}

int aps_lines_unmarked(const aps_lines *ls, size_t from, size_t eol)
{
    if (from < ls->base && ls->carry)
        return 0;
    return ls->check && !(ls->marked && marked(ls, from < ls->base ? 0 : from - ls->base, eol - ls->base));
}

void aps_lines_init(aps_lines *ls, const char *s, size_t n, int check)
{
    ls->s = s;
    ls->n = n;
    ls->base = 0;
    ls->check = check;
    ls->carry = 0;
    ls->ok = s;
    ls->size = 0;
    ls->next = ls->count = 0;
    ls->clean = 1;
    ls->marked = 0;
    if (n > 0)
        load(ls);
}

size_t aps_lines_next_far(aps_lines *ls, size_t from, int *proven)
{
    for (;;) {
        /* the line open at the chunk's end: does it hold a mark so far? */
        size_t a = from > ls->base ? from - ls->base : 0;
        int open_marked = (from < ls->base && ls->carry) ||
                          (ls->marked && marked(ls, a < ls->size ? a : ls->size, ls->size));
        if (ls->base + ls->size >= ls->n) {
            *proven = ls->check && !open_marked; /* the push ends inside the line */
            return ls->n;
        }
        ls->carry = open_marked;
        ls->base += ls->size;
        load(ls);
        while (ls->next < ls->count) {
            size_t eol = ls->base + ls->ends[ls->next++];
            if (eol >= from) {
                *proven = ls->clean ? ls->check : aps_lines_unmarked(ls, from, eol);
                return eol;
            }
        }
    }
}

/*
 * The loop every variant of aps_lines_index shares: MASKS(p, &brk, &high)
 * gives the 64-byte block at p's line ends and bytes past ASCII, the only
 * thing an instruction set changes; what is done with them is here, once.
 */
#define LINES_INDEX_LOOP(MASKS)                                               \
    size_t k;                                                                 \
    unsigned c = 0;                                                           \
    uint64_t todo = 0;                                                        \
    for (k = 0; k < blocks; k++, p += APS_LINES_BLOCK, off += APS_LINES_BLOCK) { \
        uint64_t brk, h;                                                      \
        MASKS(p, &brk, &h);                                                   \
        high[k] = h;                                                          \
        todo |= (uint64_t)(h != 0) << k;                                      \
        c = put_ends(brk, off, ends, c);                                      \
    }                                                                         \
    *past_ascii = todo;                                                       \
    return c;

static inline void masks_bytes(const char *p, uint64_t *brk, uint64_t *high)
{
    unsigned i;
    *brk = *high = 0;
    for (i = 0; i < APS_LINES_BLOCK; i++) {
        unsigned char ch = (unsigned char)p[i];
        *brk |= (uint64_t)(ch == '\n' || ch == '\r') << i;
        *high |= (uint64_t)(ch >> 7) << i;
    }
}

unsigned aps_lines_index_bytes(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                               uint64_t *past_ascii)
{
    LINES_INDEX_LOOP(masks_bytes)
}

#if APS_LINES_HAVE_AVX2
static inline void masks_sse2(const char *p, uint64_t *brk, uint64_t *high)
{
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    int j;
    *brk = *high = 0;
    for (j = 0; j < 4; j++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * j));
        __m128i e = _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr));
        *brk |= (uint64_t)(unsigned)_mm_movemask_epi8(e) << (16 * j);
        *high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << (16 * j);
    }
}

unsigned aps_lines_index_sse2(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                              uint64_t *past_ascii)
{
    LINES_INDEX_LOOP(masks_sse2)
}

/* With BMI too (every AVX2 CPU has it): put_ends's steps become tzcnt and blsr. */
#define TARGET_AVX2 __attribute__((target("avx2,bmi")))

static inline TARGET_AVX2 void masks_avx2(const char *p, uint64_t *brk, uint64_t *high)
{
    const __m256i lf = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i ends_a = _mm256_or_si256(_mm256_cmpeq_epi8(a, lf), _mm256_cmpeq_epi8(a, cr));
    __m256i ends_b = _mm256_or_si256(_mm256_cmpeq_epi8(b, lf), _mm256_cmpeq_epi8(b, cr));
    *brk = (uint32_t)_mm256_movemask_epi8(ends_a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(ends_b) << 32;
    *high = (uint32_t)_mm256_movemask_epi8(a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
}

TARGET_AVX2 unsigned aps_lines_index_avx2(const char *p, size_t blocks, unsigned off, uint16_t *ends,
                                          uint64_t *high, uint64_t *past_ascii)
{
    LINES_INDEX_LOOP(masks_avx2)
}

/*
 * With AVX-512BW the compares give bit masks themselves: one 64-byte load
 * and three compares a block, half the instructions of AVX2 (the machines
 * measured in docs/benchmarks.md have it).
 */
#define TARGET_AVX512 __attribute__((target("avx512bw,bmi")))

static inline TARGET_AVX512 void masks_avx512(const char *p, uint64_t *brk, uint64_t *high)
{
    const __m512i lf = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r');
    __m512i v = _mm512_loadu_si512((const void *)p);
    *brk = _mm512_cmpeq_epi8_mask(v, lf) | _mm512_cmpeq_epi8_mask(v, cr);
    *high = _mm512_movepi8_mask(v);
}

TARGET_AVX512 unsigned aps_lines_index_avx512(const char *p, size_t blocks, unsigned off, uint16_t *ends,
                                              uint64_t *high, uint64_t *past_ascii)
{
    LINES_INDEX_LOOP(masks_avx512)
}
#endif

#ifdef APS_LINES_HAVE_NEON
static inline void masks_neon(const char *p, uint64_t *brk, uint64_t *high)
{
    const uint8x16_t lf = vdupq_n_u8('\n'), cr = vdupq_n_u8('\r'), top = vdupq_n_u8(0x80);
    int j;
    *brk = *high = 0;
    for (j = 0; j < 4; j++) {
        uint8x16_t v = vld1q_u8((const uint8_t *)(const void *)(p + 16 * j));
        *brk |= aps_scan_neon_mask(vorrq_u8(vceqq_u8(v, lf), vceqq_u8(v, cr))) << (16 * j);
        *high |= aps_scan_neon_mask(vcgeq_u8(v, top)) << (16 * j);
    }
}

static unsigned index_neon(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                           uint64_t *past_ascii)
{
    LINES_INDEX_LOOP(masks_neon)
}
#endif

unsigned aps_lines_index(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                             uint64_t *past_ascii)
{
#if APS_LINES_HAVE_AVX2
    /* Asked once a chunk: a load and a test of what start-up found. */
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi"))
        return aps_lines_index_avx512(p, blocks, off, ends, high, past_ascii);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi"))
        return aps_lines_index_avx2(p, blocks, off, ends, high, past_ascii);
    return aps_lines_index_sse2(p, blocks, off, ends, high, past_ascii);
#elif defined(APS_LINES_HAVE_NEON)
    return index_neon(p, blocks, off, ends, high, past_ascii);
#else
    return aps_lines_index_bytes(p, blocks, off, ends, high, past_ascii);
#endif
}
