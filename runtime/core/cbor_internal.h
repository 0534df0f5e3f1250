/*
 * cbor_internal.h - what the CBOR reader, writer and diagnostic printer
 * share: the decoded head of an item, and the float conversions of
 * preferred serialization. Not installed; APS_INTERNAL keeps these out of
 * the core library's exports.
 */
#ifndef APS_CBOR_INTERNAL_H
#define APS_CBOR_INTERNAL_H

#include "aps/cbor.h"

/* Maps with more keys than this check duplicates with a hash set. */
#define APS_CBOR_DUP_LINEAR_MAX 16

/* The head of a data item: initial byte and argument. */
typedef struct aps_cbor_head {
    unsigned major;      /* 0..7 */
    unsigned ai;         /* additional information, 0..31 */
    int indefinite;      /* ai 31 in major 2..5 */
    uint64_t arg;        /* the argument (a float's bits for major 7, ai 25..27) */
    const uint8_t *next; /* first byte after the head */
} aps_cbor_head;

/* Why aps_cbor_impl_head refused a head. */
enum {
    APS_CBOR_HEAD_TRUNCATED = 1, /* the input ends inside it (or before it) */
    APS_CBOR_HEAD_RESERVED,      /* additional information 28..30, or 31 where it means nothing */
    APS_CBOR_HEAD_BAD_SIMPLE     /* a simple value below 32 written in two bytes */
};

/* Decodes the head at p (p < end not required): 0, or one of the reasons above. */
APS_INTERNAL int aps_cbor_impl_head(const uint8_t *p, const uint8_t *end, aps_cbor_head *h);

/* Writes the shortest head of major type `major` with argument `arg` into out[9]; returns its length. */
APS_INTERNAL size_t aps_cbor_impl_put_head(uint8_t *out, unsigned major, uint64_t arg);

/* Writes v as a float in its preferred width into out[9]; returns the length (3, 5 or 9). */
APS_INTERNAL size_t aps_cbor_impl_put_float(uint8_t *out, double v);

/* The value of the float of head h (major 7, additional information 25, 26 or 27). */
APS_INTERNAL double aps_cbor_impl_float(const aps_cbor_head *h);

/* The value of a half-precision float. */
APS_INTERNAL double aps_cbor_impl_half(uint16_t h);

/* 1 and *out set when half precision holds v exactly (NaN as 0x7e00), else 0. */
APS_INTERNAL int aps_cbor_impl_to_half(double v, uint16_t *out);

/* 1 when single precision holds v exactly (infinities and NaN included). */
APS_INTERNAL int aps_cbor_impl_fits_single(double v);

/* The kind of the item at p. */
APS_INTERNAL aps_cbor_type aps_cbor_impl_type(const uint8_t *p, const uint8_t *end);

/*
 * A short diagnostic-notation rendering of one well-formed item into
 * out[cap] (not NUL-terminated; containers abbreviated), for error paths.
 * Returns the bytes written.
 */
APS_INTERNAL size_t aps_cbor_impl_diag_short(aps_cbor_raw item, char *out, size_t cap);

/*
 * Prints the well-formed items from p to end (one, or a sequence separated
 * by ", ") as diagnostic notation into *out, NUL-terminated, in `arena`.
 */
APS_INTERNAL aps_status aps_cbor_impl_diag_items(const uint8_t *p, const uint8_t *end,
                                                 aps_arena *arena, aps_slice *out, aps_error *err);

/* Writes the major-7 head of a float's `n` bytes of bits (a half, single or double) into out. */
APS_INTERNAL size_t aps_cbor_impl_put_bits(uint8_t *out, unsigned ai, uint64_t bits, size_t n);

/* Writes v as a single-precision float (its value must fit; NaN as 0x7fc00000). */
APS_INTERNAL size_t aps_cbor_impl_put_single(uint8_t *out, double v);

/* Writes v as a double-precision float (NaN as 0x7ff8000000000000). */
APS_INTERNAL size_t aps_cbor_impl_put_double(uint8_t *out, double v);

/*
 * Formats a double as diagnostic notation does: the shortest decimal that
 * reads back as v, always with a '.' or an exponent ("1.0", "1.0e+300",
 * "5.960464477539063e-8"), "Infinity", "-Infinity", "NaN". Returns the
 * length written into out[32] (NUL-terminated).
 */
APS_INTERNAL size_t aps_cbor_impl_format_double(double v, char out[32]);

#endif /* APS_CBOR_INTERNAL_H */
