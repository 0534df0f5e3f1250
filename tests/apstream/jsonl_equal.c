/*
 * jsonl_equal.c - test tool: are two JSONL files the same JSON values, line
 * by line? jansson decides (member order and spelling of numbers and
 * escapes do not matter); a line jansson cannot load (a number beyond its
 * range) is compared with the runtime's aps_json_raw_equal instead.
 *
 * Usage: jsonl-equal A.jsonl B.jsonl   exit 0 when equal, 1 otherwise
 * (naming the first differing line), 2 when a file cannot be read.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/json.h"
#include "test_util.h"

/* The next line of [*p, end), its '\n' (and a '\r' before it) excluded; NULL at the end. */
static const char *next_line(const char **p, const char *end, size_t *len)
{
    const char *s = *p, *nl;
    if (s >= end)
        return NULL;
    nl = memchr(s, '\n', (size_t)(end - s));
    *len = (size_t)((nl ? nl : end) - s);
    *p = nl ? nl + 1 : end;
    if (*len > 0 && s[*len - 1] == '\r')
        --*len;
    return s;
}

static int same_value(const char *a, size_t alen, const char *b, size_t blen)
{
    json_error_t je;
    json_t *ja = json_loadb(a, alen, JSON_ALLOW_NUL, &je);
    json_t *jb = json_loadb(b, blen, JSON_ALLOW_NUL, &je);
    int eq;
    if (ja != NULL && jb != NULL) {
        eq = json_equal(ja, jb);
    } else {
        aps_json_raw ra = { a, alen }, rb = { b, blen };
        eq = 0;
        if (aps_json_raw_equal(ra, rb, &eq) != APS_OK)
            eq = 0;
    }
    json_decref(ja);
    json_decref(jb);
    return eq;
}

int main(int argc, char **argv)
{
    size_t alen, blen, la, lb;
    char *a, *b;
    const char *pa, *pb, *ea, *eb, *sa, *sb;
    unsigned long line = 0;
    int rc = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: jsonl-equal A.jsonl B.jsonl\n");
        return 2;
    }
    a = test_read_file(argv[1], &alen);
    b = test_read_file(argv[2], &blen);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "jsonl-equal: cannot read %s\n", a == NULL ? argv[1] : argv[2]);
        free(a);
        free(b);
        return 2;
    }
    pa = a, ea = a + alen, pb = b, eb = b + blen;
    for (;;) {
        sa = next_line(&pa, ea, &la);
        sb = next_line(&pb, eb, &lb);
        line++;
        if (sa == NULL && sb == NULL)
            break;
        if (sa == NULL || sb == NULL) {
            printf("line %lu: only %s has it\n", line, sa ? argv[1] : argv[2]);
            rc = 1;
            break;
        }
        if (!same_value(sa, la, sb, lb)) {
            printf("line %lu differs:\n  %.*s\n  %.*s\n", line, (int)la, sa, (int)lb, sb);
            rc = 1;
            break;
        }
    }
    free(a);
    free(b);
    return rc;
}
