/*
 * throughput.c - decode+check speed of the schema engine on synthetic
 * protocol messages, against aps_json_validate (parse-only, no types) on
 * the same bytes, and encode speed. Prints MB/s and the ratios; never fails
 * on a time. Usage: schema-throughput [MB]
 */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const samples[] = {
    "{\"type\":\"event\",\"eventId\":\"ev-000123\",\"seq\":123,\"method\":\"messages\",\"params\":{\"namespace\":[],"
    "\"timestamp\":1755072000123,\"node\":\"agent\",\"data\":{\"event\":\"content-block-delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text-delta\",\"text\":\"Hello\"}}}}",
    "{\"type\":\"event\",\"seq\":124,\"method\":\"messages\",\"params\":{\"namespace\":[\"tools:1\"],"
    "\"timestamp\":1755072000124,\"data\":{\"event\":\"content-block-delta\",\"index\":1,"
    "\"delta\":{\"type\":\"text-delta\",\"text\":\" w\\u00f6rld, \\\"quoted\\\"\\n\"}}}}",
    "{\"type\":\"event\",\"seq\":125,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1755072000125,"
    "\"node\":\"agent\",\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"msg_01\",\"metadata\":"
    "{\"provider\":\"anthropic\",\"model\":\"claude\",\"temperature\":0.2}}}}",
    ("{\"type\":\"event\",\"seq\":126,\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1755072000126,"
     "\"data\":{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"ai\",\"content\":\"hello\"}],\"step\":3}}}"),
    "{\"type\":\"success\",\"id\":17,\"result\":{\"runId\":\"run-42\"}}",
};

int main(int argc, char **argv)
{
    size_t target = (size_t)(argc > 1 ? atof(argv[1]) : 20.0) * 1000000, total = 0, count = 0, i, k;
    size_t *offs, *lens, cap = 1 << 16;
    char *corpus;
    aps_arena arena;
    aps_json_writer w;
    Message m;
    double t0, best_dec = 1e30, best_val = 1e30, best_enc = 1e30, best_pure = 1e30;
    int rep;
    size_t enc_bytes = 0, malloc_before;
    corpus = (char *)malloc(target + 4096);
    offs = (size_t *)malloc(cap * sizeof *offs);
    lens = (size_t *)malloc(cap * sizeof *lens);
    /* Mostly small deltas, as real traffic is. */
    while (total < target) {
        static const int mix[] = { 0, 0, 0, 1, 0, 0, 1, 0, 2, 0, 0, 3, 0, 1, 0, 4 };
        const char *s = samples[mix[count % 16]];
        size_t n = strlen(s);
        if (count == cap) {
            cap *= 2;
            offs = (size_t *)realloc(offs, cap * sizeof *offs);
            lens = (size_t *)realloc(lens, cap * sizeof *lens);
        }
        memcpy(corpus + total, s, n);
        offs[count] = total;
        lens[count] = n;
        total += n;
        count++;
    }
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);
    if (argc > 2 && strcmp(argv[2], "decode") == 0) { /* for a profiler: decode only */
        for (rep = 0; rep < 20; rep++) {
            for (i = 0; i < count; i++) {
                aps_arena_reset(&arena);
                if (aps_schema_decode(&T_Message, corpus + offs[i], lens[i], &arena, &m, NULL, NULL) != APS_OK)
                    return 1;
            }
        }
        return 0;
    }
    for (rep = 0; rep < 5; rep++) {
        t0 = now();
        for (i = 0; i < count; i++) {
            aps_arena_reset(&arena);
            if (aps_schema_decode(&T_Message, corpus + offs[i], lens[i], &arena, &m, NULL, NULL) != APS_OK)
                return 1;
        }
        t0 = now() - t0;
        best_dec = t0 < best_dec ? t0 : best_dec;
        t0 = now();
        for (i = 0; i < count; i++) {
            if (aps_json_validate(corpus + offs[i], lens[i], NULL, NULL) != APS_OK)
                return 1;
        }
        t0 = now() - t0;
        best_val = t0 < best_val ? t0 : best_val;
        /* The reader alone with a warm arena: the floor the engine builds on. */
        t0 = now();
        for (i = 0; i < count; i++) {
            aps_json_reader r;
            aps_arena_reset(&arena);
            aps_json_reader_init(&r, corpus + offs[i], lens[i], &arena, NULL);
            if (aps_json_skip(&r, NULL) != APS_OK)
                return 1;
        }
        t0 = now() - t0;
        best_pure = t0 < best_pure ? t0 : best_pure;
    }
    /* Encode: decode once per message, then time the encoder alone. */
    {
        Message *all = (Message *)malloc(16 * sizeof *all);
        aps_arena keep;
        aps_arena_init(&keep, NULL);
        for (k = 0; k < 16; k++) {
            if (aps_schema_decode(&T_Message, corpus + offs[k], lens[k], &keep, &all[k], NULL, NULL) != APS_OK)
                return 1;
        }
        for (rep = 0; rep < 5; rep++) {
            enc_bytes = 0;
            t0 = now();
            for (i = 0; i < count; i++) {
                aps_json_writer_reset(&w);
                if (aps_schema_encode(&T_Message, &all[i % 16], &w, NULL, NULL) != APS_OK)
                    return 1;
                enc_bytes += aps_json_writer_len(&w);
            }
            t0 = now() - t0;
            best_enc = t0 < best_enc ? t0 : best_enc;
        }
        aps_arena_deinit(&keep);
        free(all);
    }
    malloc_before = aps_arena_malloc_calls(&arena);
    for (i = 0; i < count; i++) {
        aps_arena_reset(&arena);
        if (aps_schema_decode(&T_Message, corpus + offs[i], lens[i], &arena, &m, NULL, NULL) != APS_OK)
            return 1;
    }
    printf("corpus: %zu messages, %.1f MB (best of 5)\n", count, (double)total / 1e6);
    printf("schema decode+check (Message) %8.1f MB/s %10.0f msg/s\n", (double)total / 1e6 / best_dec, (double)count / best_dec);
    printf("aps_json_validate             %8.1f MB/s\n", (double)total / 1e6 / best_val);
    printf("reader skip (warm arena)      %8.1f MB/s\n", (double)total / 1e6 / best_pure);
    printf("schema encode (Message)       %8.1f MB/s %10.0f msg/s\n", (double)enc_bytes / 1e6 / best_enc, (double)count / best_enc);
    printf("ratio decode/validate %.2f\n", best_val / best_dec);
    printf("ratio decode/skip %.2f\n", best_pure / best_dec);
    printf("arena malloc calls per message when warm: %.6f\n",
           (double)(aps_arena_malloc_calls(&arena) - malloc_before) / (double)count);
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
    free(corpus);
    free(offs);
    free(lens);
    return 0;
}
