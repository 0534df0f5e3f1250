/* backend.c - see backend.h. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef APS_TEST_REDIS
#include "aps/replay_redis.h"
#include "redis_server.h"

static redis_server server;
static unsigned runs;

int backend_start(void)
{
    return redis_server_start(&server, NULL);
}

aps_replay_store *backend_open(const aps_replay_options *o)
{
    aps_replay_redis_options ro = { 0 };
    aps_replay_store *st = NULL;
    aps_error err = APS_ERROR_INIT;
    char run[32];
    snprintf(run, sizeof run, "test-%u", ++runs);
    ro.url = server.url;
    ro.run = run;
    if (o != NULL)
        ro.replay = *o;
    if (aps_replay_redis_open(&st, &ro, &err) != APS_OK) {
        fprintf(stderr, "cannot open a Redis store: %s\n", err.message);
        exit(1);
    }
    return st;
}

int backend_memory(void)
{
    return 0;
}

const char *backend_name(void)
{
    return "redis";
}
#else
int backend_start(void)
{
    return 0;
}

aps_replay_store *backend_open(const aps_replay_options *o)
{
    aps_replay_store *st = NULL;
    aps_error err = APS_ERROR_INIT;
    if (aps_replay_store_open_memory(&st, o, &err) != APS_OK) {
        fprintf(stderr, "cannot open a memory store: %s\n", err.message);
        exit(1);
    }
    return st;
}

int backend_memory(void)
{
    return 1;
}

const char *backend_name(void)
{
    return "memory";
}
#endif

uint64_t backend_last_seq(aps_replay_store *st)
{
    aps_replay_stats s;
    if (aps_replay_store_stats_get(st, &s, NULL) != APS_OK) {
        fprintf(stderr, "stats failed\n");
        exit(1);
    }
    return s.last_seq;
}
