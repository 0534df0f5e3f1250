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
 *   cbor-cddl --random N SEED TYPE
 *
 * prints N `ok HEX` lines instead: random values of TYPE made from its
 * descriptor (every member, alternative, count, size and tag the schema
 * allows, small), valid, encoded by the generated encoder.
 *
 *   cbor-cddl --json TYPE TEXT
 *
 * decodes one JSON text as TYPE with the JSON decoder: `ok`, or the error
 * line above.
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

#include <stdint.h>
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

/* ---- random valid values of a type, from its descriptor ---------------------- */

#define AT(base, off, T) ((T *)(void *)((char *)(base) + (off)))

typedef struct rnd {
    uint64_t s;
    aps_arena *arena;
} rnd;

static uint64_t next(rnd *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}

static size_t pick(rnd *g, size_t n)
{
    return n == 0 ? 0 : (size_t)(next(g) % n);
}

/* A count in [lo, hi], small: at most lo + 3 (fewer when deep). */
static size_t count_in(rnd *g, size_t lo, size_t hi, unsigned depth)
{
    size_t span = hi - lo < 3 ? hi - lo : 3;
    if (depth > 4)
        span = 0;
    return lo + pick(g, span + 1);
}

static int fill(rnd *g, const aps_type *t, void *out, unsigned depth);

static int fill_text(rnd *g, size_t lo, size_t hi, aps_slice *out, int bytes)
{
    size_t n = count_in(g, lo, hi > lo + 12 ? lo + 12 : hi, 0), i;
    char *p = aps_arena_alloc(g->arena, n + 1);
    if (p == NULL)
        return 0;
    for (i = 0; i < n; i++)
        p[i] = bytes ? (char)(next(g) & 0xff) : (char)('a' + pick(g, 26));
    out->ptr = p;
    out->len = n;
    return 1;
}

/* Bytes holding an encoded value of `et` (`.cbor T`), or a sequence of them. */
static int fill_embedded(rnd *g, const aps_type *t, aps_slice *out, unsigned depth)
{
    const aps_type *et = t->u.bytes.embedded;
    aps_cbor_writer w;
    size_t i, n = t->u.bytes.sequence ? pick(g, 3) : 1;
    char *p;
    int ok = 1;
    aps_cbor_writer_init(&w, NULL);
    for (i = 0; i < n && ok; i++) {
        void *v = aps_arena_alloc(g->arena, et->size + 1);
        if (v == NULL)
            break;
        memset(v, 0, et->size + 1);
        if (i > 0)
            aps_cbor_writer_next(&w);
        ok = fill(g, et, v, depth + 1) && aps_schema_encode_cbor(et, v, &w, NULL, NULL) == APS_OK;
    }
    ok = ok && i == n && aps_cbor_writer_finish(&w, NULL) == APS_OK && (p = aps_arena_alloc(g->arena, aps_cbor_writer_len(&w) + 1)) != NULL;
    if (ok) {
        memcpy(p, aps_cbor_writer_data(&w), aps_cbor_writer_len(&w));
        out->ptr = p;
        out->len = aps_cbor_writer_len(&w);
    }
    aps_cbor_writer_deinit(&w);
    return ok;
}

static int fill_fields(rnd *g, const aps_field *f, size_t n, char *base, unsigned depth)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if ((f[i].flags & APS_F_OPTIONAL) && (depth > 3 || pick(g, 2) == 0))
            continue;
        if (f[i].flags & APS_F_OPTIONAL)
            *AT(base, f[i].present_offset, bool) = true;
        if ((f[i].flags & APS_F_NULLABLE) && pick(g, 3) == 0) {
            *AT(base, f[i].null_offset, bool) = true;
            continue;
        }
        if (!(f[i].flags & APS_F_LITERAL) && !fill(g, f[i].type, base + f[i].offset, depth + 1))
            return 0;
    }
    return 1;
}

/* One random value of `t` encoded by the engine into the arena: the CBOR a decoder would have kept. */
static int fill_cbor(rnd *g, const aps_type *t, aps_cbor_raw *out, unsigned depth)
{
    aps_cbor_writer w;
    void *v = aps_arena_alloc(g->arena, t->size + 1);
    unsigned char *p = NULL;
    int ok;
    if (v == NULL)
        return 0;
    memset(v, 0, t->size + 1);
    aps_cbor_writer_init(&w, NULL);
    ok = fill(g, t, v, depth + 1) && aps_schema_encode_cbor(t, v, &w, NULL, NULL) == APS_OK &&
         aps_cbor_writer_finish(&w, NULL) == APS_OK &&
         (p = aps_arena_alloc(g->arena, aps_cbor_writer_len(&w))) != NULL;
    if (ok) {
        memcpy(p, aps_cbor_writer_data(&w), aps_cbor_writer_len(&w));
        out->ptr = p;
        out->len = aps_cbor_writer_len(&w);
    }
    aps_cbor_writer_deinit(&w);
    return ok;
}

/*
 * The unknown members of a tail whose keys are typed (`* label => values`)
 * or counted (`1*1 [tstr] => T`): keys of the key type (a text one kept as
 * text, as the decoder keeps it), values of the tail's type as CBOR.
 */
static int fill_tail(rnd *g, const aps_type *t, aps_json_members *x, unsigned depth)
{
    size_t hi = t->u.st.extras_max != 0 ? t->u.st.extras_max : t->u.st.extras_min + 3, i;
    size_t n = count_in(g, t->u.st.extras_min, hi, depth);
    x->count = n;
    x->items = n ? aps_arena_alloc(g->arena, n * sizeof *x->items) : NULL;
    if (n && x->items == NULL)
        return 0;
    for (i = 0; i < n; i++) {
        aps_json_member *m = &x->items[i];
        memset(m, 0, sizeof *m);
        if (t->u.st.extras_key != NULL) {
            if (!fill_cbor(g, t->u.st.extras_key, &m->cbor_key, depth))
                return 0;
            if (aps_cbor_raw_text(m->cbor_key, &m->key))
                m->cbor_key.ptr = NULL, m->cbor_key.len = 0;
        } else {
            char *k = aps_arena_alloc(g->arena, 24);
            if (k == NULL)
                return 0;
            m->key.len = (size_t)snprintf(k, 24, "x%zu", i);
            m->key.ptr = k;
        }
        if (t->u.st.extras_type != NULL) {
            if (!fill_cbor(g, t->u.st.extras_type, &m->cbor_value, depth))
                return 0;
        } else {
            m->value.ptr = "[1,\"x\"]";
            m->value.len = 7;
        }
    }
    return 1;
}

static int fill(rnd *g, const aps_type *t, void *out, unsigned depth)
{
    static const char *const anys[] = { "1", "\"x\"", "null", "[true,2.5]", "{\"k\":-3}" };
    static const double floats[] = { 0.0, 0.5, -2.0, 1.5, 100.0, 65504.0, 0.25 };
    size_t i, n;
    if (depth > 12)
        return 0;
    switch (t->kind) {
    case APS_K_ANY: {
        const char *a = anys[pick(g, 5)];
        ((aps_json_raw *)out)->ptr = a;
        ((aps_json_raw *)out)->len = strlen(a);
        return 1;
    }
    case APS_K_BOOL: *(bool *)out = pick(g, 2) != 0; return 1;
    case APS_K_INT: {
        int64_t lo = t->u.i.min, hi = t->u.i.max, v;
        v = (lo <= 0 && hi >= 0) ? (int64_t)pick(g, 1000) - 500 : lo;
        if (v < lo || v > hi)
            v = pick(g, 2) ? lo : hi;
        *(int64_t *)out = v;
        return 1;
    }
    case APS_K_UINT: {
        uint64_t lo = t->u.u.min, hi = t->u.u.max, v;
        v = pick(g, 4) == 0 ? hi : lo + (uint64_t)pick(g, 100000);
        if (v > hi)
            v = lo;
        *(uint64_t *)out = v & ~t->u.u.forbidden_bits;
        return *(uint64_t *)out >= lo;
    }
    case APS_K_FLOAT: {
        double v = floats[pick(g, sizeof floats / sizeof floats[0])];
        if (t->u.f.has_min && v < t->u.f.min)
            v = t->u.f.min + 1;
        if (t->u.f.has_max && v > t->u.f.max)
            v = t->u.f.max;
        *(double *)out = v;
        return 1;
    }
    case APS_K_TEXT:
        return t->u.text.pattern == NULL && fill_text(g, t->u.text.min_len, t->u.text.max_len, (aps_slice *)out, 0);
    case APS_K_BYTES:
        if (t->u.bytes.embedded != NULL)
            return fill_embedded(g, t, (aps_slice *)out, depth);
        return fill_text(g, t->u.bytes.min_len, t->u.bytes.max_len, (aps_slice *)out, 1);
    case APS_K_LITERAL: return 1;
    case APS_K_ENUM:
        if (t->u.enm.count == 0)
            return 0;
        *(int *)out = 1 + (int)pick(g, t->u.enm.count);
        return 1;
    case APS_K_TAG: return fill(g, t->u.tag.content, out, depth + 1);
    case APS_K_ARRAY: {
        aps_array *a = (aps_array *)out;
        const aps_type *et = t->u.arr.elem;
        n = count_in(g, t->u.arr.min, t->u.arr.max, depth);
        a->count = n;
        a->items = n && et->size ? aps_arena_alloc(g->arena, n * et->size) : NULL;
        if (n && et->size && a->items == NULL)
            return 0;
        if (a->items != NULL)
            memset(a->items, 0, n * et->size);
        for (i = 0; i < n && et->size; i++)
            if (!fill(g, et, (char *)a->items + i * et->size, depth + 1))
                return 0;
        return 1;
    }
    case APS_K_MAP: {
        aps_array *a = (aps_array *)out;
        size_t es = t->u.map.entry_size;
        n = count_in(g, t->u.map.min, t->u.map.max, depth);
        a->count = n;
        a->items = n ? aps_arena_alloc(g->arena, n * es) : NULL;
        if (n && a->items == NULL)
            return 0;
        if (n)
            memset(a->items, 0, n * es);
        for (i = 0; i < n; i++) {
            char *e = (char *)a->items + i * es;
            char *k = aps_arena_alloc(g->arena, 24);
            if (k == NULL)
                return 0;
            ((aps_slice *)(void *)e)->len = (size_t)snprintf(k, 24, "k%zu", i); /* distinct keys */
            ((aps_slice *)(void *)e)->ptr = k;
            if (!fill(g, t->u.map.value, e + t->u.map.value_offset, depth + 1))
                return 0;
        }
        return 1;
    }
    case APS_K_STRUCT: {
        char *base = (char *)out;
        if (!fill_fields(g, t->u.st.fields, t->u.st.nfields, base, depth))
            return 0;
        if (t->u.st.open && (t->u.st.extras_key != NULL || t->u.st.extras_min > 0) &&
            !fill_tail(g, t, AT(base, t->u.st.extras_offset, aps_json_members), depth))
            return 0;
        if (t->u.st.variants != NULL) {
            const aps_type *vt = t->u.st.variants;
            int k = 1 + (int)pick(g, vt->u.un.nalts);
            const aps_type *alt = vt->u.un.alts[k - 1];
            *AT(base, t->u.st.variants_offset + vt->u.un.kind_offset, int) = k;
            return fill_fields(g, alt->u.st.fields, alt->u.st.nfields,
                               base + t->u.st.variants_offset + vt->u.un.payload_offset, depth);
        }
        return 1;
    }
    case APS_K_TUPLE: /* a positional array, or a group in one: its entries */
        return fill_fields(g, t->u.st.fields, t->u.st.nfields, (char *)out, depth);
    case APS_K_UNION: {
        int k = 1 + (int)pick(g, t->u.un.nalts);
        if (t->u.un.nalts == 0)
            return 0;
        *AT(out, t->u.un.kind_offset, int) = k;
        return fill(g, t->u.un.alts[k - 1], (char *)out + t->u.un.payload_offset, depth + 1);
    }
    }
    return 0;
}

/*
 * `cbor-cddl --random N SEED TYPE`: N random values of TYPE that validate,
 * each encoded by the generated encoder, printed as `ok` lines (with the
 * libcbor check). Values the walk cannot make valid (patterns, an
 * untagged choice whose alternatives overlap) are drawn again.
 */
static int random_values(const aps_type *t, unsigned long count, uint64_t seed)
{
    rnd g;
    aps_arena arena;
    unsigned long made = 0, tries = 0;
    aps_arena_init(&arena, NULL);
    g.s = seed * 2654435761u + 1;
    g.arena = &arena;
    while (made < count && tries < count * 50) {
        void *v;
        aps_cbor_writer w;
        tries++;
        aps_arena_reset(&arena);
        if ((v = aps_arena_alloc(&arena, t->size + 1)) == NULL)
            break;
        memset(v, 0, t->size + 1);
        if (!fill(&g, t, v, 0) || aps_schema_validate(t, v, true, NULL) != APS_OK)
            continue;
        aps_cbor_writer_init(&w, NULL);
        if (aps_schema_encode_cbor(t, v, &w, NULL, NULL) == APS_OK && aps_cbor_writer_finish(&w, NULL) == APS_OK) {
            aps_arena scratch;
            void *back;
            aps_status st;
            /* what we wrote must read back here too: a choice whose alternatives overlap may read it as
             * another alternative, which is the schema's reading, not a fault: drawn again */
            aps_arena_init(&scratch, NULL);
            back = aps_arena_alloc(&scratch, t->size + 1);
            st = back != NULL ? aps_schema_decode_cbor(t, aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), &scratch,
                                                       back, NULL, NULL) : APS_E_NOMEM;
            aps_arena_deinit(&scratch);
            if (st == APS_OK) {
                printf("ok ");
                put_hex(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w));
#ifdef APS_HAVE_LIBCBOR
                if (!libcbor_same(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w)))
                    printf(" libcbor-differs");
#endif
                printf("\n");
                made++;
            }
        }
        aps_cbor_writer_deinit(&w);
    }
    aps_arena_deinit(&arena);
    return made == count ? 0 : 1;
}

int main(int argc, char **argv)
{
    const aps_type *t = NULL;
    unsigned char *data;
    size_t len, i, off = 0;
    aps_arena arena;
    int rc = 0;
    if (argc == 5 && strcmp(argv[1], "--random") == 0) {
        for (i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strcmp(types[i].name, argv[4]) == 0)
                return random_values(types[i].type, strtoul(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
        fprintf(stderr, "cbor-cddl: unknown type %s\n", argv[4]);
        return 2;
    }
    if (argc == 4 && strcmp(argv[1], "--json") == 0) {
        /* the JSON decoder of the same type on one JSON text: what has no JSON form is refused, located */
        aps_error err;
        void *v;
        int found = 0;
        for (i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strcmp(types[i].name, argv[2]) == 0 && (found = 1) != 0)
                t = types[i].type;
        if (!found)
            return 2;
        aps_arena_init(&arena, NULL);
        if ((v = aps_arena_alloc(&arena, t->size + 1)) != NULL &&
            aps_schema_decode(t, argv[3], strlen(argv[3]), &arena, v, NULL, &err) == APS_OK)
            printf("ok\n");
        else
            printf("error %zu %s [%s] %s\n", err.offset, err.pointer[0] ? err.pointer : "(root)",
                   aps_status_str(err.code), err.message);
        aps_arena_deinit(&arena);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: cbor-cddl TYPE FILE | --random N SEED TYPE | --json TYPE TEXT\n");
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
