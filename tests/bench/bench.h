/*
 * bench.h - shared pieces of ap-bench. Each area adds one file
 * tests/bench/bench_<area>.c defining `int bench_<area>(const bench_config *)`;
 * CMake compiles every such file in and defines HAVE_BENCH_<AREA> so main.c
 * calls it. Benchmarks print their results; they never fail on a time.
 */
#ifndef AP_BENCH_H
#define AP_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "test_util.h" /* test_rand */

typedef struct bench_config {
    size_t corpus_bytes; /* approximate size of generated corpora */
    uint64_t seed;       /* PRNG seed: same seed, same corpus */
    int repeat;          /* timed repetitions; the best is reported */
} bench_config;

/* Monotonic seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Keeps the process on the CPU it runs on until bench_unpin (Linux; -1
 * elsewhere or when it cannot): the runs of a ratio's two sides then share
 * one core, where a shared machine's cores can differ in speed by a third
 * and the scheduler moves a process between them. Returns the CPU.
 */
int bench_pin(void);
void bench_unpin(void);

int bench_json(const bench_config *cfg);
int bench_sse(const bench_config *cfg);
int bench_replay(const bench_config *cfg);
int bench_assemble(const bench_config *cfg);
int bench_frontend(const bench_config *cfg);
int bench_codec(const bench_config *cfg);
int bench_cbor(const bench_config *cfg);
int bench_size(const bench_config *cfg);
/* Only the codec's state snapshots block (issue 34's row), for quick measurements. */
int bench_snapshots(const bench_config *cfg);
int bench_redis(const bench_config *cfg);
int bench_server(const bench_config *cfg);
int bench_client(const bench_config *cfg);
/* The REST API of apstream serve against the reference server (bench_rest.c). */
int bench_rest(const bench_config *cfg);

#endif
