/*
 * cbor_diag.c - aps_cbor_diag (see aps/cbor.h): the input is checked by the
 * reader first (aps_cbor_validate's checks), so the printer (cbor_print.c)
 * walks bytes known to be well-formed and bounded in depth.
 */
#include "aps/cbor.h"
#include "cbor_internal.h"

#include <string.h>

aps_status aps_cbor_diag(const void *data, size_t len, bool sequence, aps_arena *arena,
                         aps_slice *out, aps_error *err)
{
    aps_cbor_reader_options o;
    const uint8_t *p = (const uint8_t *)data, *end = p + len;
    aps_status st;
    aps_error_clear(err);
    if (arena == NULL || out == NULL || (data == NULL && len != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "aps_cbor_diag needs data, an arena and out");
    memset(&o, 0, sizeof o);
    o.sequence = sequence;
    o.allow_duplicates = 1; /* diagnostic notation shows what is there */
    if ((st = aps_cbor_validate(data, len, &o, err)))
        return st;
    return aps_cbor_impl_diag_items(p, end, arena, out, err);
}
