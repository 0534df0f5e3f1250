/*
 * bytes_internal.h - byte equality of short runs on hot paths, shared by
 * the JSON fast paths (json_internal.h) and the assembler (assemble.c).
 * Private to the runtime: not installed, not part of the API.
 */
#ifndef APR_BYTES_INTERNAL_H
#define APR_BYTES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Forced inline where it is asked for: a call costs more than these bodies. */
#if defined(__GNUC__) || defined(__clang__)
#define APR_PRIV_INLINE inline __attribute__((always_inline))
#else
#define APR_PRIV_INLINE inline
#endif

static APR_PRIV_INLINE uint64_t apr_priv_load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static APR_PRIV_INLINE uint32_t apr_priv_load32(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/*
 * memcmp(x, y, n) == 0 without a library call: loads overlapping at the
 * ends, 16 bytes a step with SSE2 (8 without). The last 16 bytes are
 * compared first: names of one shape ("model_request:<uuid>") differ there.
 */
static APR_PRIV_INLINE int apr_priv_bytes_equal(const char *x, const char *y, size_t n)
{
    uint64_t acc;
    size_t i;
    if (n >= 16) {
#if defined(__SSE2__)
        __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + n - 16)),
                                    _mm_loadu_si128((const __m128i *)(const void *)(y + n - 16)));
        for (i = 0; i + 16 < n; i += 16)
            eq = _mm_and_si128(eq, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + i)),
                                                  _mm_loadu_si128((const __m128i *)(const void *)(y + i))));
        return _mm_movemask_epi8(eq) == 0xFFFF;
#else
        acc = (apr_priv_load64(x + n - 16) ^ apr_priv_load64(y + n - 16)) |
              (apr_priv_load64(x + n - 8) ^ apr_priv_load64(y + n - 8));
        if (acc != 0)
            return 0;
        for (i = 0; i + 16 < n; i += 16)
            acc |= (apr_priv_load64(x + i) ^ apr_priv_load64(y + i)) |
                   (apr_priv_load64(x + i + 8) ^ apr_priv_load64(y + i + 8));
        return acc == 0;
#endif
    }
    if (n >= 8)
        return ((apr_priv_load64(x) ^ apr_priv_load64(y)) |
                (apr_priv_load64(x + n - 8) ^ apr_priv_load64(y + n - 8))) == 0;
    if (n >= 4)
        return ((apr_priv_load32(x) ^ apr_priv_load32(y)) |
                (apr_priv_load32(x + n - 4) ^ apr_priv_load32(y + n - 4))) == 0;
    for (acc = 0, i = 0; i < n; i++)
        acc |= (unsigned char)x[i] ^ (unsigned char)y[i];
    return acc == 0;
}

#endif
