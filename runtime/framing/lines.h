/*
 * lines.h - where the lines of a push end, and which of them are proven
 * well-formed UTF-8: the SSE parser's scan. Internal to the framing layer.
 *
 * A push is read a chunk of 4 KiB at a time, in two short passes that
 * leave the lines to the parser as a list of their ends:
 *
 *  1. a vector pass (SSE2, AVX2 or AVX-512BW where the CPU has it, NEON on
 *     Arm, a byte loop elsewhere) reads every 64-byte block: its line ends
 *     (CR, LF) go onto the list, four per block without a branch on how
 *     many there are, and its bytes past ASCII into a mask;
 *  2. the UTF-8 proof, only for blocks with bytes past ASCII: each character
 *     starting at one is validated where it lies (aps_scan_utf8_char), and
 *     one that is not whole and valid within the push leaves a mark.
 *
 * Lines have every length, so a scan that stops at each line end pays a
 * mispredicted branch or two per line, and an event is four lines: the
 * list moves that work into step 1, where nothing depends on the lengths
 * (docs/benchmarks.md, SSE).
 *
 * A line with no mark is proven. That is sound (a valid character never
 * spans a line end, which is ASCII) but not complete: a character cut by
 * the end of the push is unproven, and the parser runs the exact check
 * (aps_utf8_check) on what is unproven, so verdicts and error offsets are
 * always the exact check's.
 */
#ifndef APS_FRAMING_LINES_H
#define APS_FRAMING_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APS_LINES_BLOCK 64  /* bytes per mask */
#define APS_LINES_BLOCKS 64 /* blocks per chunk: 4 KiB */
#define APS_LINES_CHUNK (APS_LINES_BLOCK * APS_LINES_BLOCKS)

/*
 * A scan of one push s[0..n). Lives on the caller's stack for one push
 * (about 8.5 KiB, most of it the list of line ends of one chunk).
 */
typedef struct aps_lines {
    const char *s;
    size_t n;
    size_t base;     /* the chunk in hand: s[base..base+size) */
    size_t size;
    unsigned next;   /* the next of its line ends in ends[] */
    unsigned count;  /* how many there are */
    int check;       /* prove UTF-8 (else nothing is proven) */
    int clean;       /* proven: every line that ends in this chunk */
    int carry;       /* a mark in the line open at base, before base */
    int marked;      /* marks[] holds a mark (else it is not filled in) */
    const char *ok;  /* the proof's end: every byte before it is checked */
    uint64_t marks[APS_LINES_BLOCKS];
    uint16_t ends[APS_LINES_CHUNK + 4]; /* offsets in the chunk; 4 for the writes past the last */
} aps_lines;

/* Starts a scan of s[0..n); `check`: prove UTF-8. */
APS_INTERNAL void aps_lines_init(aps_lines *ls, const char *s, size_t n, int check);

/* aps_lines_next when no line end at or after `from` is left in the chunk. */
APS_INTERNAL size_t aps_lines_next_far(aps_lines *ls, size_t from, int *proven);

/* Whether s[from..eol) holds no mark (eol ends in the chunk in hand). */
APS_INTERNAL int aps_lines_unmarked(const aps_lines *ls, size_t from, size_t eol);

/*
 * The vector pass over the `blocks` 64-byte blocks at p, block k at offset
 * off + 64k of the chunk: appends the offsets of its line ends (CR, LF) to
 * ends, in order, sets high[k] to its bytes past ASCII (bit i: byte
 * 64k+i) and bit k of *past_ascii when there are any (blocks <= 64);
 * returns how many ends it appended (ends needs one entry of slack). The
 * instruction set is chosen at run time; the variants are exported for
 * the test that holds them to one another.
 */
APS_INTERNAL unsigned aps_lines_index(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                             uint64_t *past_ascii);
APS_INTERNAL unsigned aps_lines_index_bytes(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                             uint64_t *past_ascii);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define APS_LINES_HAVE_AVX2 1
APS_INTERNAL unsigned aps_lines_index_sse2(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                             uint64_t *past_ascii);
APS_INTERNAL unsigned aps_lines_index_avx2(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                             uint64_t *past_ascii);
APS_INTERNAL unsigned aps_lines_index_avx512(const char *p, size_t blocks, unsigned off, uint16_t *ends, uint64_t *high,
                               uint64_t *past_ascii);
#else
#define APS_LINES_HAVE_AVX2 0
#endif

/* The lowest set bit's index (m != 0). */
static inline unsigned aps_lines_ctz(uint64_t m)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned i = 0;
    while (!(m & 1u)) {
        m >>= 1;
        i++;
    }
    return i;
#endif
}

/*
 * The offset of the first CR or LF at or after `from`, or n when there is
 * none; *proven: s[from..that offset) is proven well-formed UTF-8. `from`
 * is where a line starts (0, or after a line end that this scan returned),
 * below n. Inline: the usual line ends in the chunk in hand.
 */
static inline size_t aps_lines_next(aps_lines *ls, size_t from, int *proven)
{
    while (ls->next < ls->count) {
        size_t eol = ls->base + ls->ends[ls->next++];
        if (eol >= from) { /* not the LF of a CRLF the parser took whole */
            *proven = ls->clean ? ls->check : aps_lines_unmarked(ls, from, eol);
            return eol;
        }
    }
    return aps_lines_next_far(ls, from, proven);
}

#ifdef __cplusplus
}
#endif
#endif /* APS_FRAMING_LINES_H */
