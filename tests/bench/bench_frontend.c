/*
 * bench_frontend.c - parse + check time of the cddlgen front end on a
 * schema of about 10,000 lines: copies of the newest upstream schema, each
 * with every rule it defines renamed (`Foo` becomes `Foo-c3` in copy 3, at
 * its definition and at every use), so the copies coexist as one schema.
 *
 * The schema is read from $CDDLGEN_SHARED_DIR/cddl/upstream/ (the shared
 * test material, as CMake's variable of that name), or
 * ../shared/cddl/upstream/ relative to the current directory when the
 * variable is unset. Target: under 50 ms.
 */
#include "bench.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cddl.h"
#include "frontend.h"
#include "test_cddl.h"
#include "test_util.h"

#define TARGET_LINES 10000

/* The upstream file whose name sorts last: names start with their date. */
static int newest_schema(const char *dir, char *path, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char best[256] = "";
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 5 && n < sizeof best && strcmp(e->d_name + n - 5, ".cddl") == 0 &&
            strcmp(e->d_name, best) > 0)
            memcpy(best, e->d_name, n + 1);
    }
    closedir(d);
    if (best[0] == '\0')
        return -1;
    snprintf(path, size, "%s/%s", dir, best);
    return 0;
}

/* ---- renaming ------------------------------------------------------------ */

static int str_compare(const void *a, const void *b)
{
    const ast_str *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* The names the schema defines and the prelude does not, sorted for bsearch. */
typedef struct name_set {
    ast_str *names;
    size_t count;
} name_set;

static int is_ealpha(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '@' || c == '_' || c == '$';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Length of the RFC 8610 id at s[i]: EALPHA *(*("-" / ".") (EALPHA / DIGIT)). */
static size_t id_length(const char *s, size_t i, size_t n)
{
    size_t j = i + 1, k;
    for (;;) {
        k = j;
        while (k < n && (s[k] == '-' || s[k] == '.'))
            k++;
        if (k < n && (is_ealpha((unsigned char)s[k]) || is_digit((unsigned char)s[k])))
            j = k + 1;
        else
            return j - i;
    }
}

/* Skips a quoted literal starting at s[i] == quote; returns the index after it. */
static size_t skip_quoted(const char *s, size_t i, size_t n, char quote)
{
    for (i++; i < n && s[i] != quote; i++)
        if (s[i] == '\\')
            i++;
    return i < n ? i + 1 : n;
}

/*
 * Appends `text` with every name in `set` suffixed by `-c<copy>`. A scan of
 * the token kinds that can hold letters (comments, strings, numbers, control
 * operators, names) is enough: the schema is known to be valid CDDL.
 */
static void append_renamed(tlog *out, const char *s, size_t n, const name_set *set, int copy)
{
    size_t i = 0, start = 0;
    char suffix[16];
    int slen = snprintf(suffix, sizeof suffix, "-c%d", copy);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == ';') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (c == '"' || c == '\'') {
            i = skip_quoted(s, i, n, (char)c);
        } else if (is_digit(c)) {
            /* numbers, including 0x1.8p3 and 1.5e-3, but not the `..` after 1 */
            while (i < n && (is_digit((unsigned char)s[i]) || is_ealpha((unsigned char)s[i]) ||
                             (s[i] == '.' && i + 1 < n && is_digit((unsigned char)s[i + 1]))))
                i++;
        } else if (c == '.' && i + 1 < n && is_ealpha((unsigned char)s[i + 1])) {
            i += 1 + id_length(s, i + 1, n); /* a control operator such as .size */
        } else if (is_ealpha(c)) {
            ast_str id;
            size_t len = id_length(s, i, n);
            id.ptr = s + i;
            id.len = len;
            i += len;
            if (i < n && s[i] == '\'')
                continue; /* h'..' or b64'..' */
            if (bsearch(&id, set->names, set->count, sizeof id, str_compare) != NULL) {
                tlog_add(out, s + start, i - start);
                tlog_add(out, suffix, (size_t)slen);
                start = i;
            }
        } else {
            i++;
        }
    }
    tlog_add(out, s + start, n - start);
}

/* ---- the timed work ------------------------------------------------------- */

static int defined_in(const ast_document *doc, ast_str name)
{
    size_t i;
    for (i = 0; i < doc->nrules; i++)
        if (ast_str_same(doc->rules[i]->name, name))
            return 1;
    return 0;
}

/* Collects the names `text` defines that the prelude does not define. */
static int defined_names(FILE *sink, const char *text, size_t len, name_set *set)
{
    static const cddl_compile_options to_parse = { .stop_after = CDDL_STAGE_PARSE };
    diag_ctx d;
    cddl_ctx ctx;
    cddl_unit u;
    const ast_document *doc;
    size_t i, k = 0;
    int rc = -1;
    diag_init(&d, sink);
    cddl_ctx_init(&ctx, &d);
    /* no copy: the names the AST holds point into `text`, which outlives ctx */
    cddl_unit_init_text(&u, "<schema>", text, len);
    doc = cddl_compile(&ctx, &u, &to_parse) == CDDL_COMPILE_OK ? u.doc : NULL;
    if (doc != NULL && (set->names = malloc((doc->nrules + 1) * sizeof *set->names)) != NULL) {
        for (i = 0; i < doc->nrules; i++)
            if (!defined_in(u.prelude, doc->rules[i]->name))
                set->names[k++] = doc->rules[i]->name;
        qsort(set->names, k, sizeof *set->names, str_compare);
        /* a name extended with /= or //= is defined more than once */
        set->count = 0;
        for (i = 0; i < k; i++)
            if (set->count == 0 || str_compare(&set->names[set->count - 1], &set->names[i]) != 0)
                set->names[set->count++] = set->names[i];
        rc = 0;
    }
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return rc;
}

int bench_frontend(const bench_config *cfg)
{
    const char *env = getenv("CDDLGEN_SHARED_DIR");
    const char *shared = env != NULL && env[0] != '\0' ? env : "../shared";
    char dir[4096], path[4096 + 256];
    char *schema;
    size_t len = 0, lines = 0, i, nrules = 0, rules_one = 0;
    tlog big = { NULL, 0, 0 };
    name_set set = { NULL, 0 };
    FILE *sink = fopen("/dev/null", "w");
    double best = 1e30;
    int copies, copy, r, rc = 1;
    snprintf(dir, sizeof dir, "%s/cddl/upstream", shared);
    printf("frontend: schemas from %s (%s)\n", dir,
           env != NULL && env[0] != '\0' ? "$CDDLGEN_SHARED_DIR"
                                           : "CDDLGEN_SHARED_DIR unset: ../shared from the current directory");
    if (sink == NULL || newest_schema(dir, path, sizeof path) != 0 ||
        (schema = test_read_file(path, &len)) == NULL) {
        printf("frontend: no upstream schema found; set CDDLGEN_SHARED_DIR to the shared test material\n");
        if (sink != NULL)
            fclose(sink);
        return 1;
    }
    for (i = 0; i < len; i++)
        lines += schema[i] == '\n';
    if (lines == 0 || defined_names(sink, schema, len, &set) != 0) {
        printf("frontend: %s does not parse\n", path);
        goto done;
    }
    copies = (int)((TARGET_LINES + lines - 1) / lines);
    for (copy = 1; copy <= copies; copy++) {
        append_renamed(&big, schema, len, &set, copy);
        tlog_add(&big, "\n", 1);
    }
    lines = 0;
    for (i = 0; i < big.len; i++)
        lines += big.s[i] == '\n';
    if (test_cddl_check(sink, "<bench>", schema, len, &rules_one, NULL) != 0) {
        printf("frontend: %s has errors\n", path);
        goto done;
    }
    for (r = 0; r < cfg->repeat; r++) {
        double t0 = bench_now(), t;
        unsigned errors = test_cddl_check(sink, "<bench>", big.s, big.len, &nrules, NULL);
        t = bench_now() - t0;
        if (errors != 0 || nrules != rules_one * (size_t)copies) {
            printf("frontend: the renamed copies do not check clean (%u errors, %zu rules)\n", errors, nrules);
            goto done;
        }
        if (t < best)
            best = t;
    }
    printf("frontend: parse+check of %d renamed copies of %s: %zu lines, %zu bytes, %zu rules\n",
           copies, strrchr(path, '/') + 1, lines, big.len, nrules);
    printf("frontend: best of %d: %.2f ms, %.0f lines/s, %.1f MB/s (target: under 50 ms)\n",
           cfg->repeat, best * 1e3, (double)lines / best, (double)big.len / best / 1e6);
    rc = 0;
done:
    free(set.names);
    tlog_free(&big);
    free(schema);
    fclose(sink);
    return rc;
}
