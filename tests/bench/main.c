/*
 * ap-bench: every benchmark of the project in one run, so ratios compare
 * numbers measured on the same machine at the same time.
 * Usage: ap-bench [--mb N] [--seed S] [--repeat R] [AREA...]
 */
#define _POSIX_C_SOURCE 200809L
#ifdef __linux__
#define _GNU_SOURCE 1 /* sched_getcpu, sched_setaffinity (bench_pin) */
#endif
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>

static cpu_set_t unpinned; /* the affinity before bench_pin */
static int pinned;

int bench_pin(void)
{
    cpu_set_t one;
    int cpu = sched_getcpu();
    if (pinned || cpu < 0 || sched_getaffinity(0, sizeof unpinned, &unpinned) != 0)
        return -1;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return -1;
    pinned = 1;
    return cpu;
}

void bench_unpin(void)
{
    if (pinned)
        (void)sched_setaffinity(0, sizeof unpinned, &unpinned);
    pinned = 0;
}
#else
int bench_pin(void)
{
    return -1;
}

void bench_unpin(void)
{
}
#endif

typedef struct bench_area {
    const char *name;
    int (*run)(const bench_config *);
    int pin; /* run on one core (bench_pin); not redis, whose server is another process, nor server */
    int part; /* a block of another area: run only when named, so a default run times it once */
} bench_area;

static const bench_area areas[] = {
#ifdef HAVE_BENCH_FRONTEND
    { "frontend", bench_frontend, 1, 0 },
#endif
#ifdef HAVE_BENCH_JSON
    { "json", bench_json, 1, 0 },
#endif
#ifdef HAVE_BENCH_CODEC
    { "codec", bench_codec, 1, 0 },
    { "snapshots", bench_snapshots, 1, 1 },
#endif
#ifdef HAVE_BENCH_CBOR
    { "cbor", bench_cbor, 1, 0 },
#endif
#ifdef HAVE_BENCH_SSE
    { "sse", bench_sse, 1, 0 },
#endif
#ifdef HAVE_BENCH_ASSEMBLE
    { "assemble", bench_assemble, 1, 0 },
#endif
#ifdef HAVE_BENCH_REPLAY
    { "replay", bench_replay, 1, 0 },
#endif
#ifdef HAVE_BENCH_SIZE
    { "size", bench_size, 1, 0 },
#endif
#ifdef HAVE_BENCH_REDIS
    { "redis", bench_redis, 0, 0 },
#endif
#ifdef HAVE_BENCH_SERVER
    { "server", bench_server, 0, 0 }, /* a service thread, a client thread and the publisher */
#endif
#if defined(HAVE_BENCH_CLIENT) && defined(APS_BENCH_HAVE_CLIENT)
    { "client", bench_client, 0, 0 }, /* the client and a server thread writing the socket */
#endif
#if defined(HAVE_BENCH_REST) && defined(APS_BENCH_APSTREAM)
    { "rest", bench_rest, 0, 0 }, /* two server processes, one at a time, and the client */
#endif
    { NULL, NULL, 0, 0 }
};

static int usage(void)
{
    const bench_area *a;
    fprintf(stderr, "usage: ap-bench [--mb N] [--seed S] [--repeat R] [AREA...]\nareas:");
    for (a = areas; a->name != NULL; a++)
        fprintf(stderr, " %s%s", a->name, a->part ? "*" : "");
    fprintf(stderr, " (default: all but those marked *, which another area runs)\n");
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
    int wanted[sizeof areas / sizeof *areas] = { 0 }, any = 0, i, rc = 0, cpu;
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
        if (any ? !wanted[a - areas] : a->part)
            continue;
        printf("== %s\n", a->name);
        if (a->pin && (cpu = bench_pin()) >= 0)
            printf("pinned to CPU %d\n", cpu);
        fflush(stdout);
        rc |= a->run(&cfg);
        bench_unpin();
    }
    return rc;
}
