/*
 * cddl_tool.c - the CBOR codecs `cddlgen generate --cbor` gives CBOR-first
 * schemas (zcbor's COSE, SenML, its optional and serial-recovery cases, and
 * RFC 8610's examples in schemas/rfc8610.cddl), driven by
 * cddl_schemas.py, which has Python's cbor2 build the instances.
 *
 *   cbor-cddl TYPE FILE
 *
 * FILE is an RFC 8742 sequence; each item is decoded as TYPE by the
 * generated decoder, encoded again by the generated encoder, and one line
 * goes out per item:
 *
 *   ok HEX JSON          our encoding, and the JSON encoding of the same C
 *                        value (or "-" and the JSON encoder's refusal)
 *   error OFFSET POINTER [STATUS] MESSAGE
 *
 * With libcbor (Debian libcbor-dev) found at configure time, each
 * encoding is also loaded by libcbor's cbor_load and serialized back: the
 * bytes must be the same ("libcbor-differs" otherwise), a second oracle
 * beside cbor2.
 */
#include "cddl_types.h"
#include "aps/cbor.h"
#include "aps/schema.h"

#ifdef APS_HAVE_LIBCBOR
#include <cbor.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            unsigned char *p = realloc(buf, cap = cap ? cap * 2 : 4096);
            if (p == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void put_hex(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        printf("%02x", p[i]);
}

#ifdef APS_HAVE_LIBCBOR
/* libcbor loads our bytes and serializes them back: the same bytes, or 0. */
static int libcbor_same(const unsigned char *p, size_t n)
{
    struct cbor_load_result res;
    cbor_item_t *item;
    unsigned char *out = NULL;
    size_t size = 0, len;
    int same;
    /* libcbor 0.8 refuses tags 6..20 in the initial byte (0xc6..0xd4, COSE's 16, 17 and 18), which
     * RFC 8949 leaves well-formed (see docs/cbor.md): such an outer tag is left out of its check */
    while (n > 1 && p[0] >= 0xc6 && p[0] <= 0xd4) {
        p++;
        n--;
    }
    item = cbor_load(p, n, &res);
    if (item == NULL || res.error.code != CBOR_ERR_NONE || res.read != n)
        return 0;
    len = cbor_serialize_alloc(item, &out, &size);
    same = len == n && memcmp(out, p, n) == 0;
    free(out);
    cbor_decref(&item);
    return same;
}
#endif

int main(int argc, char **argv)
{
    const aps_type *t = NULL;
    unsigned char *data;
    size_t len, i, off = 0;
    aps_arena arena;
    int rc = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: cbor-cddl TYPE FILE\n");
        return 2;
    }
    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, argv[1]) == 0)
            t = types[i].type;
    if (t == NULL || (data = read_all(argv[2], &len)) == NULL) {
        fprintf(stderr, "cbor-cddl: unknown type %s or unreadable %s\n", argv[1], argv[2]);
        return 2;
    }
    aps_arena_init(&arena, NULL);
    while (off < len) {
        aps_cbor_reader r;
        aps_cbor_raw item;
        aps_error err;
        void *value;
        aps_cbor_reader_options ro;
        memset(&ro, 0, sizeof ro);
        ro.sequence = true;
        /* one item of the sequence at a time: its bytes, then the generated decoder on them */
        aps_cbor_reader_init(&r, data + off, len - off, &arena, &ro);
        if (aps_cbor_read_raw(&r, &item, &err) != APS_OK) {
            fprintf(stderr, "cbor-cddl: the sequence is malformed at byte %zu: %s\n", off + err.offset, err.message);
            rc = 2;
            break;
        }
        off += item.len;
        value = aps_arena_alloc(&arena, t->size ? t->size : 1);
        if (value == NULL) {
            rc = 2;
            break;
        }
        if (aps_schema_decode_cbor(t, item.ptr, item.len, &arena, value, NULL, &err) != APS_OK) {
            printf("error %zu %s [%s] %s\n", err.offset, err.pointer[0] ? err.pointer : "(root)",
                   aps_status_str(err.code), err.message);
        } else {
            aps_cbor_writer w;
            aps_json_writer jw;
            aps_error jerr;
            aps_cbor_writer_init(&w, NULL);
            if (aps_schema_encode_cbor(t, value, &w, NULL, &err) != APS_OK ||
                aps_cbor_writer_finish(&w, NULL) != APS_OK) {
                printf("encode-error %s %s\n", aps_status_str(err.code), err.message);
            } else {
                printf("ok ");
                put_hex(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w));
#ifdef APS_HAVE_LIBCBOR
                if (!libcbor_same(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w)))
                    printf(" libcbor-differs");
#endif
                aps_json_writer_init(&jw, NULL);
                if (aps_schema_encode(t, value, &jw, NULL, &jerr) == APS_OK && aps_json_writer_finish(&jw, NULL) == APS_OK)
                    printf(" %.*s\n", (int)aps_json_writer_len(&jw), aps_json_writer_data(&jw));
                else
                    printf(" - %s\n", aps_status_str(jerr.code));
                aps_json_writer_deinit(&jw);
            }
            aps_cbor_writer_deinit(&w);
        }
        aps_arena_reset(&arena);
    }
    aps_arena_deinit(&arena);
    free(data);
    return rc;
}
