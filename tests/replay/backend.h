/*
 * backend.h - the replay store the replay test-suite runs against. Built
 * once per backend from the same test sources: without APS_TEST_REDIS the
 * in-memory store; with it, a fresh run on a redis-server this test process
 * starts (tests/redis/redis_server.h) for every backend_open.
 */
#ifndef CDDLGEN_REPLAY_BACKEND_H
#define CDDLGEN_REPLAY_BACKEND_H

#include "aps/replay_store.h"

/* Starts the backend: 0, or the exit status main should return (77: skipped). */
int backend_start(void);

/* A new, empty store sized by `o` (NULL: defaults); the test exits when it cannot. */
aps_replay_store *backend_open(const aps_replay_options *o);

/* 1 for the in-memory store (whose byte capacity and allocator the tests also check). */
int backend_memory(void);

/* Its name, for messages. */
const char *backend_name(void);

/* The last appended seq of `st`. */
uint64_t backend_last_seq(aps_replay_store *st);

#endif
