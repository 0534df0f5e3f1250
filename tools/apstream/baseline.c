/*
 * baseline.c - accepted findings (`--baseline FILE`) and the record of a
 * run's findings (`--write-baseline FILE`), for `validate` and `connect`
 * alike (docs/apstream.md, "Baselines").
 *
 * A finding is known by its key: the rule id, the method of the event or
 * command it is about, and the JSON Pointer of what is wrong, with every
 * array index written `*` (the same defect sits at another index in the
 * next event) and, for a missing member, the member's own name appended
 * (so that a second missing member is a new finding, not the first one
 * again). Line numbers, seqs and ids are no part of it: they change from
 * run to run.
 *
 * The file is JSON Lines: one object per accepted finding, with `rule`,
 * `method` and `pointer` (strings; "" for none), and what a person wrote
 * of it: `reason`, `cddl` (the rule of the schema it breaks), `example`.
 * Blank lines and lines starting with `#` are comments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

/* Distinct keys kept: a run past it stops recording (said once); accepting still works. */
#define BASELINE_MAX_KEYS 4096
#define KEY_PART_MAX 256

typedef struct baseline_entry {
    char rule[48];
    char method[48];
    char pointer[KEY_PART_MAX];
    char *reason, *cddl;      /* from the file (owned), or NULL */
    char example[200];        /* the first message seen */
    int accepted;             /* listed in --baseline */
    uint64_t seen;            /* findings of this key in this run */
} baseline_entry;

static struct {
    baseline_entry *v;
    size_t n, cap;
    int full_said;
    int active;               /* a baseline is loaded or is to be written: findings are kept */
    const char *accept_path;  /* --baseline */
    size_t accepted_entries;
} bl;

/* The key's pointer: array indices as `*`, a missing member's name appended. */
static void key_pointer(char *out, size_t cap, const char *pointer, const char *missing)
{
    size_t o = 0;
    const char *p = pointer != NULL ? pointer : "";
    while (*p != '\0' && o + 2 < cap) {
        const char *seg = p + 1, *end = strchr(seg, '/');
        size_t len = end != NULL ? (size_t)(end - seg) : strlen(seg), i;
        int digits = len > 0;
        for (i = 0; i < len; i++)
            if (seg[i] < '0' || seg[i] > '9')
                digits = 0;
        out[o++] = '/';
        if (digits) {
            out[o++] = '*';
        } else {
            for (i = 0; i < len && o + 1 < cap; i++)
                out[o++] = seg[i];
        }
        p = seg + len;
    }
    if (missing != NULL && o + 2 < cap) {
        out[o++] = '/';
        for (; *missing != '\0' && o + 2 < cap; missing++) { /* RFC 6901: ~ as ~0, / as ~1 */
            if (*missing == '~' || *missing == '/') {
                out[o++] = '~';
                out[o++] = *missing == '~' ? '0' : '1';
            } else {
                out[o++] = *missing;
            }
        }
    }
    out[o < cap ? o : cap - 1] = '\0';
}

static baseline_entry *find(const char *rule, const char *method, const char *pointer)
{
    size_t i;
    for (i = 0; i < bl.n; i++)
        if (strcmp(bl.v[i].rule, rule) == 0 && strcmp(bl.v[i].method, method) == 0 &&
            strcmp(bl.v[i].pointer, pointer) == 0)
            return &bl.v[i];
    return NULL;
}

static baseline_entry *add(const char *rule, const char *method, const char *pointer)
{
    baseline_entry *e;
    if (bl.n == bl.cap) {
        size_t cap = bl.cap ? 2 * bl.cap : 32;
        baseline_entry *v = cap <= BASELINE_MAX_KEYS ? realloc(bl.v, cap * sizeof *v) : NULL;
        if (v == NULL)
            return NULL;
        bl.v = v;
        bl.cap = cap;
    }
    e = &bl.v[bl.n++];
    memset(e, 0, sizeof *e);
    snprintf(e->rule, sizeof e->rule, "%s", rule);
    snprintf(e->method, sizeof e->method, "%s", method);
    snprintf(e->pointer, sizeof e->pointer, "%s", pointer);
    return e;
}

int apstream_baseline_note(const char *rule, const char *method, const char *pointer, const char *missing,
                           const char *example)
{
    char key[KEY_PART_MAX];
    baseline_entry *e;
    if (!bl.active)
        return 1;
    key_pointer(key, sizeof key, pointer, missing);
    if (method == NULL)
        method = "";
    if ((e = find(rule, method, key)) == NULL && (e = add(rule, method, key)) == NULL) {
        if (!bl.full_said)
            fprintf(stderr, "apstream: warning: more than %d kinds of finding: the rest are not recorded\n",
                    BASELINE_MAX_KEYS);
        bl.full_said = 1;
        return 1;
    }
    if (e->seen++ == 0 && e->example[0] == '\0' && example != NULL)
        snprintf(e->example, sizeof e->example, "%s", example);
    return !e->accepted;
}

/* A string member of a baseline line: a copy in `out`, or the heap copy in *heap. 0, or -1 when missing/wrong. */
static int member(aps_arena *arena, const char *line, size_t len, const char *name, char *out, size_t cap,
                  char **heap)
{
    aps_json_raw obj = { line, len };
    aps_slice s;
    if (apstream_string_member(obj, name, arena, &s) != 0)
        return -1;
    if (heap != NULL) {
        if ((*heap = malloc(s.len + 1)) == NULL)
            return -1;
        memcpy(*heap, s.ptr, s.len);
        (*heap)[s.len] = '\0';
        return 0;
    }
    if (s.len >= cap)
        return -1;
    memcpy(out, s.ptr, s.len);
    out[s.len] = '\0';
    return 0;
}

int apstream_baseline_load(const char *path)
{
    char *data, *p, *end;
    size_t len;
    uint64_t line = 0;
    aps_arena arena;
    int rc = 0;
    bl.active = 1;
    if (apstream_read_file(path, &data, &len) != 0)
        return -1;
    aps_arena_init(&arena, NULL);
    for (p = data, end = data + len; p < end && rc == 0; p++) {
        char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
        size_t n = (nl != NULL ? nl : end) - p;
        char rule[48], method[48], pointer[KEY_PART_MAX];
        baseline_entry *e;
        line++;
        while (q < p + n && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < p + n && *q != '#') {
            aps_arena_reset(&arena);
            if (aps_json_validate(q, (size_t)(p + n - q), NULL, NULL) != APS_OK ||
                member(&arena, q, (size_t)(p + n - q), "rule", rule, sizeof rule, NULL) != 0 ||
                member(&arena, q, (size_t)(p + n - q), "method", method, sizeof method, NULL) != 0 ||
                member(&arena, q, (size_t)(p + n - q), "pointer", pointer, sizeof pointer, NULL) != 0) {
                fprintf(stderr,
                        "apstream: %s:%" PRIu64 ": error: a baseline line is a JSON object with string members "
                        "\"rule\", \"method\" and \"pointer\"\n",
                        path, line);
                rc = -1;
            } else if (find(rule, method, pointer) == NULL) {
                if ((e = add(rule, method, pointer)) == NULL) {
                    fprintf(stderr, "apstream: %s: error: more than %d entries\n", path, BASELINE_MAX_KEYS);
                    rc = -1;
                } else {
                    e->accepted = 1;
                    (void)member(&arena, q, (size_t)(p + n - q), "reason", NULL, 0, &e->reason);
                    (void)member(&arena, q, (size_t)(p + n - q), "cddl", NULL, 0, &e->cddl);
                    bl.accepted_entries++;
                }
            }
        }
        if (nl == NULL)
            break;
        p = nl;
    }
    aps_arena_deinit(&arena);
    free(data);
    bl.accept_path = path;
    return rc;
}

/* One string member of a written line. */
static void put(aps_json_writer *w, const char *key, const char *value)
{
    aps_json_write_key(w, key, strlen(key));
    aps_json_write_string(w, value, strlen(value));
}

void apstream_baseline_keep(void)
{
    bl.active = 1;
}

int apstream_baseline_write(const char *path)
{
    FILE *f = fopen(path, "w");
    size_t i;
    int rc = 0;
    if (f == NULL) {
        perror(path);
        return -1;
    }
    fputs("# apstream baseline: one accepted finding a line (docs/apstream.md, \"Baselines\").\n"
          "# Matched by rule, method and pointer; say in `reason` why it is accepted and in `cddl`\n"
          "# which rule of the schema it breaks.\n",
          f);
    for (i = 0; i < bl.n; i++) {
        const baseline_entry *e = &bl.v[i];
        aps_json_writer w;
        if (e->seen == 0)
            continue; /* accepted before, no longer found: not carried over */
        aps_json_writer_init(&w, NULL);
        aps_json_write_object_begin(&w);
        put(&w, "rule", e->rule);
        put(&w, "method", e->method);
        put(&w, "pointer", e->pointer);
        put(&w, "reason", e->reason != NULL ? e->reason : "");
        put(&w, "cddl", e->cddl != NULL ? e->cddl : "");
        put(&w, "example", e->example);
        aps_json_write_object_end(&w);
        if (aps_json_writer_status(&w) == APS_OK) {
            fwrite(aps_json_writer_data(&w), 1, aps_json_writer_len(&w), f);
            fputc('\n', f);
        } else {
            rc = -1;
        }
        aps_json_writer_deinit(&w);
    }
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "apstream: error: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

void apstream_baseline_summary(void)
{
    size_t i, used = 0, stale = 0;
    uint64_t accepted = 0;
    if (bl.accept_path == NULL)
        return;
    for (i = 0; i < bl.n; i++)
        if (bl.v[i].accepted) {
            if (bl.v[i].seen > 0) {
                used++;
                accepted += bl.v[i].seen;
            } else {
                stale++;
            }
        }
    fprintf(stderr, "apstream: baseline %s: %" PRIu64 " findings accepted by %zu of its %zu entries\n", bl.accept_path,
            accepted, used, bl.accepted_entries);
    if (stale == 0)
        return;
    /* so that a baseline shrinks as the server is fixed */
    fprintf(stderr, "apstream: baseline %s: %zu entries no longer occur (remove them):\n", bl.accept_path, stale);
    for (i = 0; i < bl.n; i++)
        if (bl.v[i].accepted && bl.v[i].seen == 0)
            fprintf(stderr, "  %s %s %s\n", bl.v[i].rule, bl.v[i].method[0] ? bl.v[i].method : "\"\"",
                    bl.v[i].pointer[0] ? bl.v[i].pointer : "\"\"");
}

void apstream_baseline_free(void)
{
    size_t i;
    for (i = 0; i < bl.n; i++) {
        free(bl.v[i].reason);
        free(bl.v[i].cddl);
    }
    free(bl.v);
    memset(&bl, 0, sizeof bl);
}

int apstream_baseline_begin(const apstream_options *o)
{
    if (o->write_baseline != NULL)
        apstream_baseline_keep();
    return o->baseline != NULL ? apstream_baseline_load(o->baseline) : 0;
}

int apstream_baseline_end(const apstream_options *o)
{
    int rc = 0;
    apstream_baseline_summary();
    if (o->write_baseline != NULL && apstream_baseline_write(o->write_baseline) != 0)
        rc = -1;
    apstream_baseline_free();
    return rc;
}
