/*
 * test_schema_cbor.c - the schema engine's CBOR codec (aps_schema_decode_cbor,
 * aps_schema_encode_cbor) on the protocol's own types and corpus.
 *
 *   cbor-schema CORPUS-DIR       (tests/corpus/protocol/valid: MANIFEST.tsv names each file's rule)
 *   cbor-schema --to-cbor RULE   JSON Lines of RULE on standard input -> a CBOR sequence, by the engine
 *   cbor-schema --to-json RULE   a CBOR sequence of RULE on standard input -> JSON Lines, by the engine
 *                                (the two directions cbor2_schema.py checks against Python's cbor2)
 *
 * Every message of the corpus, decoded from its JSON, encodes to CBOR and
 * decodes back to a value that writes the same JSON (JSON-equal: numbers
 * by exact value); its CBOR is well-formed and, encoded in deterministic
 * mode, sorted. Then: errors in CBOR input are located (offset, path),
 * both key spellings are read, an unknown variant keeps its JSON.
 */
#include "ap.h"
#include "aps/cbor.h"

#include "../test.h"
#include "../test_util.h"

#include <stdlib.h>
#include <string.h>

static const aps_type *rule_type(const char *rule)
{
    if (strcmp(rule, "Message") == 0)
        return &ap_message_type;
    if (strcmp(rule, "Command") == 0)
        return &ap_command_type;
    return NULL;
}

/* The value's JSON, by the JSON encoder, into w (reset first). */
static int json_of(const aps_type *t, const void *v, aps_json_writer *w)
{
    aps_json_writer_reset(w);
    return aps_schema_encode(t, v, w, NULL, NULL) == APS_OK && aps_json_writer_finish(w, NULL) == APS_OK;
}

static void round_trip(const char *dir, const char *file, const aps_type *t)
{
    char path[4096];
    size_t len = 0;
    char *json;
    aps_arena arena;
    void *v1, *v2;
    aps_json_writer j1, j2;
    aps_cbor_writer cw, dw;
    aps_cbor_writer_options det;
    aps_cbor_reader_options strict;
    aps_error err = APS_ERROR_INIT;
    aps_json_raw a, b;
    int equal = 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json = test_read_file(path, &len);
    CHECK(json != NULL);
    if (json == NULL)
        return;
    aps_arena_init(&arena, NULL);
    v1 = aps_arena_alloc(&arena, t->size);
    v2 = aps_arena_alloc(&arena, t->size);
    aps_json_writer_init(&j1, NULL);
    aps_json_writer_init(&j2, NULL);
    aps_cbor_writer_init(&cw, NULL);
    memset(&det, 0, sizeof det);
    det.deterministic = true;
    aps_cbor_writer_init(&dw, &det);
    memset(&strict, 0, sizeof strict);
    strict.deterministic = true;
    if (aps_schema_decode(t, json, len, &arena, v1, NULL, &err) != APS_OK || !json_of(t, v1, &j1)) {
        fprintf(stderr, "%s: the JSON side failed: %s\n", file, err.message);
        CHECK(0);
    } else if (aps_schema_encode_cbor(t, v1, &cw, NULL, &err) != APS_OK ||
               aps_cbor_writer_finish(&cw, &err) != APS_OK) {
        fprintf(stderr, "%s: encode_cbor: %s\n", file, err.message);
        CHECK(0);
    } else if (aps_cbor_validate(aps_cbor_writer_data(&cw), aps_cbor_writer_len(&cw), NULL, &err) != APS_OK ||
               aps_schema_decode_cbor(t, aps_cbor_writer_data(&cw), aps_cbor_writer_len(&cw), &arena, v2, NULL,
                                      &err) != APS_OK) {
        fprintf(stderr, "%s: decode_cbor: %s at %zu %s\n", file, err.message, err.offset, err.pointer);
        CHECK(0);
    } else if (!json_of(t, v2, &j2)) {
        fprintf(stderr, "%s: the value decoded from CBOR does not encode as JSON\n", file);
        CHECK(0);
    } else {
        a.ptr = aps_json_writer_data(&j1);
        a.len = aps_json_writer_len(&j1);
        b.ptr = aps_json_writer_data(&j2);
        b.len = aps_json_writer_len(&j2);
        CHECK_INT(aps_json_raw_equal(a, b, &equal), APS_OK);
        if (!equal)
            fprintf(stderr, "%s: after CBOR\n  %.*s\nwas\n  %.*s\n", file, (int)b.len, b.ptr, (int)a.len, a.ptr);
        CHECK(equal);
        /* deterministic mode: sorted maps, accepted by the deterministic reader */
        CHECK_INT(aps_schema_encode_cbor(t, v1, &dw, NULL, &err), APS_OK);
        CHECK_INT(aps_cbor_writer_finish(&dw, &err), APS_OK);
        CHECK_INT(aps_cbor_validate(aps_cbor_writer_data(&dw), aps_cbor_writer_len(&dw), &strict, &err), APS_OK);
    }
    aps_cbor_writer_deinit(&dw);
    aps_cbor_writer_deinit(&cw);
    aps_json_writer_deinit(&j2);
    aps_json_writer_deinit(&j1);
    aps_arena_deinit(&arena);
    free(json);
}

static int corpus(const char *dir)
{
    char path[1024], line[2048];
    FILE *f;
    int n = 0;
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *tab = strchr(line, '\t'), *rule, *end;
        const aps_type *t;
        if (tab == NULL || strncmp(line, "file\t", 5) == 0)
            continue;
        *tab = '\0';
        rule = tab + 1;
        end = strchr(rule, '\t');
        if (end != NULL)
            *end = '\0';
        if ((t = rule_type(rule)) == NULL)
            continue;
        round_trip(dir, line, t);
        n++;
    }
    fclose(f);
    return n;
}

/* Decodes hex CBOR as `t`; returns the status, the error in err. */
static aps_status decode_hex(const aps_type *t, const char *hex, aps_arena *arena, void *out, aps_error *err)
{
    static uint8_t buf[512];
    size_t n = 0;
    while (hex[0] && hex[1] && n < sizeof buf) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        buf[n++] = (uint8_t)v;
        hex += 2;
    }
    return aps_schema_decode_cbor(t, buf, n, arena, out, NULL, err);
}

/* Hex of the CBOR of a JSON text (our conversion), for building test inputs. */
static char *cbor_hex(const char *json)
{
    aps_arena a;
    aps_json_reader r;
    aps_cbor_writer w;
    char *hex;
    size_t i;
    aps_arena_init(&a, NULL);
    aps_json_reader_init(&r, json, strlen(json), &a, NULL);
    aps_cbor_writer_init(&w, NULL);
    if (aps_json_to_cbor(&r, &w, NULL) != APS_OK || aps_cbor_writer_finish(&w, NULL) != APS_OK)
        abort();
    hex = (char *)malloc(aps_cbor_writer_len(&w) * 2 + 1);
    for (i = 0; i < aps_cbor_writer_len(&w); i++)
        sprintf(hex + 2 * i, "%02x", aps_cbor_writer_data(&w)[i]);
    hex[2 * i] = '\0';
    aps_cbor_writer_deinit(&w);
    aps_arena_deinit(&a);
    return hex;
}

static void test_errors(void)
{
    aps_arena arena;
    ap_message_t m;
    ap_command_t c;
    aps_error err = APS_ERROR_INIT;
    char *hex;
    aps_arena_init(&arena, NULL);

    /* a wrong kind deep inside: located by offset and path */
    hex = cbor_hex("{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[1],"
                   "\"timestamp\":1,\"data\":{\"event\":\"message-start\",\"role\":\"ai\"}}}");
    CHECK(decode_hex(&ap_message_type, hex, &arena, &m, &err) != APS_OK);
    CHECK_STR(err.pointer, "/params/namespace/0");
    CHECK(strstr(err.message, "expected a text string, got an unsigned integer") != NULL);
    free(hex);

    /* a member missing */
    aps_error_clear(&err);
    hex = cbor_hex("{\"id\":1,\"method\":\"run.start\"}");
    CHECK_INT(decode_hex(&ap_command_type, hex, &arena, &c, &err), APS_E_MISSING);
    CHECK(strstr(err.message, "missing required member 'params'") != NULL);
    free(hex);

    /* snake_case is read as the schema's camelCase, as in JSON */
    hex = cbor_hex("{\"id\":7,\"method\":\"subscription.reconnect\",\"params\":{\"run_id\":\"r-1\",\"last_event_id\":\"e-5\"}}");
    CHECK_INT(decode_hex(&ap_command_type, hex, &arena, &c, &err), APS_OK);
    CHECK_INT(c.id, 7);
    free(hex);

    /* not well-formed bytes: the reader's error */
    CHECK_INT(decode_hex(&ap_command_type, "a3626964", &arena, &c, &err), APS_E_SYNTAX);

    /* an integer out of the schema's range */
    hex = cbor_hex("{\"id\":-1,\"method\":\"agent.getTree\",\"params\":{}}");
    CHECK_INT(decode_hex(&ap_command_type, hex, &arena, &c, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/id");
    free(hex);

    /* an unknown variant inside a known one (an event of a method to come): kept whole as JSON, and written back */
    {
        static const char json[] = "{\"type\":\"event\",\"method\":\"future.method\",\"params\":{\"x\":[1,2.5]}}";
        aps_json_writer w;
        hex = cbor_hex(json);
        CHECK_INT(decode_hex(&ap_message_type, hex, &arena, &m, &err), APS_OK);
        CHECK_INT(ap_message_validate(&m, false, &err), APS_OK);
        aps_json_writer_init(&w, NULL);
        CHECK(json_of(&ap_message_type, &m, &w));
        CHECK(aps_json_writer_len(&w) == sizeof json - 1 && memcmp(aps_json_writer_data(&w), json, sizeof json - 1) == 0);
        aps_json_writer_deinit(&w);
        free(hex);
    }

    /* a byte string where an `any` keeps JSON: refused with its path */
    CHECK(decode_hex(&ap_message_type,
                     "a4647479706565657665" "6e74666d6574686f646676616c756573" "66706172616d73a3696e616d6573706163"
                     "6580697469" "6d657374616d700164646174614101", &arena, &m, &err) != APS_OK);
    aps_arena_deinit(&arena);
}

/* The CBOR of hex into buf: its length. */
static size_t unhex(const char *hex, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (hex[0] && hex[1] && n < cap) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        buf[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

/* Encodes v to CBOR (deterministic or not): the status, and the bytes' hex in out. */
static aps_status cbor_out(const aps_type *t, const void *v, bool det, char *out, size_t cap)
{
    aps_cbor_writer w;
    aps_cbor_writer_options o;
    aps_status st;
    size_t i;
    memset(&o, 0, sizeof o);
    o.deterministic = det;
    aps_cbor_writer_init(&w, &o);
    st = aps_schema_encode_cbor(t, v, &w, NULL, NULL);
    if (st == APS_OK)
        st = aps_cbor_writer_finish(&w, NULL);
    out[0] = '\0';
    for (i = 0; st == APS_OK && i < aps_cbor_writer_len(&w) && 2 * i + 2 < cap; i++)
        sprintf(out + 2 * i, "%02x", aps_cbor_writer_data(&w)[i]);
    aps_cbor_writer_deinit(&w);
    return st;
}

/*
 * Unknown members decoded from CBOR keep their bytes (issue 44): a value
 * with no JSON form is kept (JSON refuses it), values come back byte for
 * byte, a deterministic writer sorts what it must rewrite, and a value
 * built in C with a CBOR key is checked and written.
 */
static void test_kept_members(void)
{
    aps_arena arena;
    ap_unsubscribe_params_t p;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer jw;
    aps_json_member m;
    uint8_t buf[128];
    char hex[256];
    size_t n;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&jw, NULL);

    /* {"subscriptionId": "s", "x": h'0102'}: kept, the same bytes out; JSON has no byte strings */
    n = unhex("a26e737562736372697074696f6e49646173617842" "0102", buf, sizeof buf);
    CHECK_INT(aps_schema_decode_cbor(&ap_unsubscribe_params_type, buf, n, &arena, &p, NULL, &err), APS_OK);
    CHECK(p.extras.count == 1 && p.extras.items[0].value.ptr == NULL && p.extras.items[0].cbor_value.len == 3);
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, false, hex, sizeof hex), APS_OK);
    CHECK_STR(hex, "a26e737562736372697074696f6e496461736178420102");
    CHECK_INT(aps_schema_encode(&ap_unsubscribe_params_type, &p, &jw, NULL, &err), APS_E_TYPE);

    /* {"subscriptionId": "s", "x": {"b": 1, "a": 2.5}}: as written; a deterministic writer sorts it (from its JSON) */
    n = unhex("a26e737562736372697074696f6e4964617361" "78a2616201616" "1f94100", buf, sizeof buf);
    CHECK_INT(aps_schema_decode_cbor(&ap_unsubscribe_params_type, buf, n, &arena, &p, NULL, &err), APS_OK);
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, false, hex, sizeof hex), APS_OK);
    CHECK_STR(hex, "a26e737562736372697074696f6e496461736178a261620161" "61f94100");
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, true, hex, sizeof hex), APS_OK);
    CHECK_STR(hex, "a26178a26161f94100616201" "6e737562736372697074696f6e49646173");
    aps_json_writer_reset(&jw);
    CHECK_INT(aps_schema_encode(&ap_unsubscribe_params_type, &p, &jw, NULL, &err), APS_OK);

    /* a byte string that is not deterministic (a two-byte head), with no JSON: a deterministic writer refuses */
    n = unhex("a26e737562736372697074696f6e4964617361" "7858020102", buf, sizeof buf);
    CHECK_INT(aps_schema_decode_cbor(&ap_unsubscribe_params_type, buf, n, &arena, &p, NULL, &err), APS_OK);
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, false, hex, sizeof hex), APS_OK);
    CHECK_STR(hex, "a26e737562736372697074696f6e4964617361" "7858020102");
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, true, hex, sizeof hex), APS_E_TYPE);

    /* no key type in this schema: an integer key is still refused where names are text */
    n = unhex("a26e737562736372697074696f6e49646173" "2001", buf, sizeof buf);
    CHECK_INT(aps_schema_decode_cbor(&ap_unsubscribe_params_type, buf, n, &arena, &p, NULL, &err), APS_E_TYPE);
    CHECK(strstr(err.message, "expected a text string as the member name") != NULL);

    /* built in C: an integer CBOR key -1 is "-1" in JSON; a byte-string key has no JSON name; malformed bytes fail */
    memset(&p, 0, sizeof p);
    memset(&m, 0, sizeof m);
    p.subscription_id.ptr = "s";
    p.subscription_id.len = 1;
    p.extras.items = &m;
    p.extras.count = 1;
    m.cbor_key.ptr = (const uint8_t *)"\x20";
    m.cbor_key.len = 1;
    m.value.ptr = "[1]";
    m.value.len = 3;
    CHECK_INT(ap_unsubscribe_params_validate(&p, true, &err), APS_OK);
    aps_json_writer_reset(&jw);
    CHECK_INT(aps_schema_encode(&ap_unsubscribe_params_type, &p, &jw, NULL, &err), APS_OK);
    CHECK_INT(aps_json_writer_finish(&jw, NULL), APS_OK);
    CHECK(aps_json_writer_len(&jw) == 31 && memcmp(aps_json_writer_data(&jw), "{\"subscriptionId\":\"s\",\"-1\":[1]}", 31) == 0);
    CHECK_INT(cbor_out(&ap_unsubscribe_params_type, &p, false, hex, sizeof hex), APS_OK);
    CHECK_STR(hex, "a26e737562736372697074696f6e49646173" "208101");
    m.cbor_key.ptr = (const uint8_t *)"\x41\x01";
    m.cbor_key.len = 2;
    aps_json_writer_reset(&jw);
    CHECK_INT(aps_schema_encode(&ap_unsubscribe_params_type, &p, &jw, NULL, &err), APS_E_TYPE);
    m.cbor_key.len = 1; /* h'01' cut short */
    CHECK_INT(ap_unsubscribe_params_validate(&p, true, &err), APS_E_SYNTAX);
    aps_json_writer_deinit(&jw);
    aps_arena_deinit(&arena);
}

/* --to-cbor and --to-json: one record per line or item; a failing one is named on stderr, exit 1. */
static int convert(const char *mode, const char *rule)
{
    const aps_type *t = rule_type(rule);
    size_t len = 0, at = 0;
    char *in = test_read_file("/dev/stdin", &len);
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_cbor_writer cw;
    aps_json_writer jw;
    int to_cbor = strcmp(mode, "--to-cbor") == 0, rc = 0;
    uint64_t n = 0;
    if (t == NULL || in == NULL || (!to_cbor && strcmp(mode, "--to-json") != 0)) {
        fprintf(stderr, "usage: cbor-schema --to-cbor|--to-json Message|Command < INPUT\n");
        free(in);
        return 2;
    }
    aps_arena_init(&arena, NULL);
    aps_cbor_writer_init(&cw, NULL);
    aps_json_writer_init(&jw, NULL);
    while (at < len && rc == 0) {
        void *v;
        size_t end;
        aps_status st;
        aps_arena_reset(&arena);
        v = aps_arena_alloc(&arena, t->size);
        n++;
        if (to_cbor) {
            const char *nl = memchr(in + at, '\n', len - at);
            end = nl != NULL ? (size_t)(nl - in) : len;
            st = aps_schema_decode(t, in + at, end - at, &arena, v, NULL, &err);
            aps_cbor_writer_reset(&cw);
            if (st == APS_OK && (st = aps_schema_encode_cbor(t, v, &cw, NULL, &err)) == APS_OK &&
                (st = aps_cbor_writer_finish(&cw, &err)) == APS_OK)
                fwrite(aps_cbor_writer_data(&cw), 1, aps_cbor_writer_len(&cw), stdout);
            end = nl != NULL ? end + 1 : end;
        } else {
            aps_cbor_reader r;
            aps_cbor_reader_options o;
            memset(&o, 0, sizeof o);
            o.sequence = true;
            aps_cbor_reader_init(&r, in + at, len - at, &arena, &o);
            st = aps_cbor_skip(&r, &err);
            end = at + aps_cbor_reader_offset(&r);
            if (st == APS_OK)
                st = aps_schema_decode_cbor(t, in + at, end - at, &arena, v, NULL, &err);
            if (st == APS_OK && json_of(t, v, &jw)) {
                fwrite(aps_json_writer_data(&jw), 1, aps_json_writer_len(&jw), stdout);
                fputc('\n', stdout);
            } else if (st == APS_OK) {
                st = APS_E_ARGUMENT;
            }
        }
        if (st != APS_OK) {
            fprintf(stderr, "cbor-schema: record %llu: %s at %zu %s\n", (unsigned long long)n, err.message,
                    err.offset, err.pointer);
            rc = 1;
        }
        at = end;
    }
    aps_json_writer_deinit(&jw);
    aps_cbor_writer_deinit(&cw);
    aps_arena_deinit(&arena);
    free(in);
    return rc;
}

int main(int argc, char **argv)
{
    int n;
    if (argc == 3)
        return convert(argv[1], argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: cbor-schema CORPUS-DIR | --to-cbor RULE | --to-json RULE\n");
        return 2;
    }
    n = corpus(argv[1]);
    CHECK(n > 100);
    test_errors();
    test_kept_members();
    printf("%d corpus messages through CBOR\n", n);
    return test_report();
}
