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
    { NULL, NULL }
};

static int wanted(int argc, char **argv, int first, const char *name)
{
    int i, any = 0;
    for (i = first; i < argc; i++) {
        any = 1;
        if (strcmp(argv[i], name) == 0)
            return 1;
    }
    return !any;
}

int main(int argc, char **argv)
{
    bench_config cfg = { 100u << 20, 42, 3 };
    int i = 1, rc = 0;
    const bench_area *a;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--mb") == 0)
            cfg.corpus_bytes = (size_t)strtoul(argv[i + 1], NULL, 10) << 20;
        else if (strcmp(argv[i], "--seed") == 0)
            cfg.seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--repeat") == 0)
            cfg.repeat = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: ap-bench [--mb N] [--seed S] [--repeat R] [AREA...]\n");
            return 2;
        }
    }
    if (cfg.repeat < 1)
        cfg.repeat = 1;
    for (a = areas; a->name != NULL; a++) {
        if (!wanted(argc, argv, i, a->name))
            continue;
        printf("== %s\n", a->name);
        fflush(stdout);
        rc |= a->run(&cfg);
    }
    return rc;
}
