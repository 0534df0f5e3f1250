/* test_util.c - the helpers of test_util.h. */
#include "test_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlog_add(tlog *l, const char *bytes, size_t n)
{
    if (l->len + n + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        char *s;
        while (cap < l->len + n + 1)
            cap *= 2;
        s = realloc(l->s, cap);
        if (s == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        l->s = s;
        l->cap = cap;
    }
    if (n > 0)
        memcpy(l->s + l->len, bytes, n);
    l->len += n;
    l->s[l->len] = '\0';
}

void tlog_str(tlog *l, const char *s)
{
    tlog_add(l, s, strlen(s));
}

void tlog_printf(tlog *l, const char *fmt, ...)
{
    char buf[512];
    int n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        tlog_add(l, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void tlog_escaped(tlog *l, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            tlog_add(l, "\\n", 2);
        else if (c == '\r')
            tlog_add(l, "\\r", 2);
        else if (c == '\\')
            tlog_add(l, "\\\\", 2);
        else if (c < 0x20 || c == 0x7F)
            tlog_printf(l, "\\x%02x", c);
        else
            tlog_add(l, (const char *)&c, 1);
    }
}

const char *tlog_get(tlog *l)
{
    if (l->s == NULL)
        tlog_add(l, "", 0);
    return l->s;
}

void tlog_clear(tlog *l)
{
    l->len = 0;
    if (l->s != NULL)
        l->s[0] = '\0';
}

void tlog_free(tlog *l)
{
    free(l->s);
    memset(l, 0, sizeof *l);
}

char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (f == NULL)
        return NULL;
    /* Read in growing pieces rather than trusting a size from fseek:
     * it works for pipes and files that change size too. */
    do {
        if (cap - n < 2) {
            char *grown = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    } else {
        buf[n] = '\0';
        if (len != NULL)
            *len = n;
    }
    fclose(f);
    return buf;
}

void test_alloc_init(test_alloc *t, long fail_at, int fail_rest)
{
    memset(t, 0, sizeof *t);
    t->fail_at = fail_at;
    t->fail_rest = fail_rest;
}

static void *test_alloc_alloc(void *ctx, size_t size)
{
    test_alloc *t = (test_alloc *)ctx;
    long call = t->calls++;
    void *p;
    if (t->fail_at >= 0 && (call == t->fail_at || (t->fail_rest && call > t->fail_at))) {
        t->failed++;
        return NULL;
    }
    p = malloc(size);
    if (p != NULL) {
        t->allocs++;
        t->live += (long)size;
        t->total += (long)size;
    }
    return p;
}

static void test_alloc_free(void *ctx, void *ptr, size_t size)
{
    test_alloc *t = (test_alloc *)ctx;
    t->frees++;
    t->live -= (long)size;
    free(ptr);
}

aps_allocator test_alloc_hooks(test_alloc *t)
{
    aps_allocator a;
    a.alloc = test_alloc_alloc;
    a.free = test_alloc_free;
    a.ctx = t;
    return a;
}

static int name_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int wanted(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = suffix != NULL ? strlen(suffix) : 0;
    return name[0] != '.' && n >= k && strcmp(name + n - k, suffix != NULL ? suffix : "") == 0;
}

long test_for_each_file(const char *dir, const char *suffix,
                        void (*fn)(void *ctx, const char *path, const char *name), void *ctx)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL, path[4096];
    size_t count = 0, cap = 0, i;
    int ok = 1;
    if (d == NULL)
        return -1;
    while (ok && (e = readdir(d)) != NULL) {
        if (!wanted(e->d_name, suffix))
            continue;
        if (count == cap) {
            char **grown = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (grown == NULL) {
                ok = 0;
                break;
            }
            names = grown;
        }
        if ((names[count] = malloc(strlen(e->d_name) + 1)) == NULL)
            ok = 0;
        else
            strcpy(names[count++], e->d_name);
    }
    closedir(d);
    if (ok && count > 0)
        qsort(names, count, sizeof *names, name_order);
    for (i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (ok)
            fn(ctx, path, names[i]);
        free(names[i]);
    }
    free(names);
    return ok ? (long)count : -1;
}
