/*
 * ap-bench: every benchmark of the project in one run, so ratios compare
 * numbers measured on the same machine at the same time.
 * Usage: ap-bench [--mb N] [--seed S] [--repeat R] [AREA...]
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_area {
    const char *name;
    int (*run)(const bench_config *);
} bench_area;

static const bench_area areas[] = {
#ifdef HAVE_BENCH_FRONTEND
    { "frontend", bench_frontend },
#endif
#ifdef HAVE_BENCH_JSON
    { "json", bench_json },
#endif
#ifdef HAVE_BENCH_CODEC
    { "codec", bench_codec },
#endif
#ifdef HAVE_BENCH_SSE
    { "sse", bench_sse },
#endif
#ifdef HAVE_BENCH_ASSEMBLE
    { "assemble", bench_assemble },
#endif
#ifdef HAVE_BENCH_REPLAY
    { "replay", bench_replay },
#endif
#ifdef HAVE_BENCH_REDIS
    { "redis", bench_redis },
#endif
    { NULL, NULL }
};

static int usage(void)
{
    const bench_area *a;
    fprintf(stderr, "usage: ap-bench [--mb N] [--seed S] [--repeat R] [AREA...]\nareas:");
    for (a = areas; a->name != NULL; a++)
        fprintf(stderr, " %s", a->name);
    fprintf(stderr, " (default: all)\n");
    return 2;
}

static const bench_area *area_named(const char *name)
{
    const bench_area *a;
    for (a = areas; a->name != NULL; a++) {
        if (strcmp(a->name, name) == 0)
            return a;
    }
    return NULL;
}

/* Options and area names in any order; an unknown word is a usage error, not a silent no-op. */
int main(int argc, char **argv)
{
    bench_config cfg = { 100u << 20, 42, 3 };
    int wanted[sizeof areas / sizeof *areas] = { 0 }, any = 0, i, rc = 0;
    const bench_area *a;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            (void)usage();
            return 0;
        }
        if (strncmp(arg, "--", 2) == 0) {
            if (i + 1 >= argc)
                return usage();
            if (strcmp(arg, "--mb") == 0)
                cfg.corpus_bytes = (size_t)strtoul(argv[++i], NULL, 10) << 20;
            else if (strcmp(arg, "--seed") == 0)
                cfg.seed = strtoull(argv[++i], NULL, 10);
            else if (strcmp(arg, "--repeat") == 0)
                cfg.repeat = atoi(argv[++i]);
            else
                return usage();
            continue;
        }
        if ((a = area_named(arg)) == NULL) {
            fprintf(stderr, "ap-bench: no benchmark area '%s'\n", arg);
            return usage();
        }
        wanted[a - areas] = any = 1;
    }
    if (cfg.repeat < 1)
        cfg.repeat = 1;
    for (a = areas; a->name != NULL; a++) {
        if (any && !wanted[a - areas])
            continue;
        printf("== %s\n", a->name);
        fflush(stdout);
        rc |= a->run(&cfg);
    }
    return rc;
}
