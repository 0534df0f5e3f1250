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
 * and by the decode_fast fuzz target on every input it tries).
 *
 * aps_json_validate is here, above the reader it falls back to, so that
 * the reader's file does not call this one back (json_fast.c uses the
 * reader's number and escape scans).
 */
#include "aps/json_impl.h"

#include <string.h>

const char *aps_scan_string_slow(const char *s, const char *end, int *escaped)
{
    const char *bad, *why;
    aps_status code;
    *escaped = 0;
    /* One pass: plain runs a vector step at a time, then what stopped the
     * scan: its end, an escape, or a UTF-8 character checked where it stands
     * (escapes are ASCII, so checking the raw bytes checks the text). */
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

const char *aps_json_impl_skip_fast(const char *p, const char *end, size_t room, int allow_duplicates)
{
    const char *bad;
    char closer[APS_JSON_FAST_DEPTH];      /* of each open container: '}' or ']' */
    unsigned first_name[APS_JSON_FAST_DEPTH]; /* of each open object, in names[] */
    aps_slice names[APS_JSON_FAST_NAMES];
    unsigned top = 0, nnames = 0, i;
    int escaped, closed;
    if (room > APS_JSON_FAST_DEPTH)
        room = APS_JSON_FAST_DEPTH;
    for (;;) {
        /* At a value. */
        if (p >= end)
            return NULL;
        switch (*p) {
        case '"':
            p = aps_scan_string(p, end, &escaped);
            break;
        case '{':
        case '[':
            if (top == room)
                return NULL;
            closer[top] = *p == '{' ? '}' : ']';
            first_name[top] = nnames;
            p = aps_scan_ws(p + 1, end);
            if (p < end && *p == closer[top]) {
                p++;
                break;
            }
            if (closer[top++] == '}')
                goto name;
            continue;
        case 't':
            p = aps_scan_word(p, end, "true", 4);
            break;
        case 'f':
            p = aps_scan_word(p, end, "false", 5);
            break;
        case 'n':
            p = aps_scan_word(p, end, "null", 4);
            break;
        default: {
            /* Integers are the usual numbers: read inline; the rest, out of line. */
            bool neg;
            uint64_t mag;
            const char *q;
            if (*p != '-' && (unsigned)(*p - '0') > 9)
                return NULL;
            q = aps_scan_integer(p, end, &neg, &mag);
            p = q != NULL ? q : aps_json_impl_scan_number(p, end, &bad);
            break;
        }
        }
        if (p == NULL)
            return NULL;
        /* After a value: close what ends here, go to the next item. */
        for (;;) {
            if (top == 0)
                return p;
            if ((p = aps_scan_next(p, end, closer[top - 1], &closed)) == NULL)
                return NULL;
            if (!closed)
                break;
            nnames = first_name[--top];
        }
        if (closer[top - 1] != '}')
            continue;
    name:
        if (nnames == APS_JSON_FAST_NAMES || (p = aps_scan_name(p, end, &names[nnames])) == NULL)
            return NULL;
        if (!allow_duplicates) {
            for (i = first_name[top - 1]; i < nnames; i++) {
                if (names[i].len == names[nnames].len &&
                    aps_scan_bytes_equal(names[i].ptr, names[nnames].ptr, names[i].len))
                    return NULL;
            }
            nnames++; /* with duplicates allowed no name is kept */
        }
    }
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
