/*
 * rest.h - the Agent Protocol REST API of `apstream serve` (docs/rest.md):
 * threads, runs, assistants and the store, over the thread server's REST
 * hook (ap_server_options.api). Every request body is decoded and every
 * answer encoded with the bindings of cddl/agent-api.cddl (generated/aa.h).
 *
 * The runs are serve's: the REST layer keeps their records and their
 * classic streams (one feed per run) and asks serve, through rest_hooks, to
 * play, resume or stop them; serve gives it every protocol event a run
 * publishes (rest_event), which it maps to the classic stream modes. So a
 * run is one run whether it is watched on the protocol's thread stream or
 * on runs.stream.
 *
 * Thread-safety: one lock inside; rest_api runs on the service thread,
 * rest_event and rest_external_run on any. The hooks are called without
 * that lock held: they may take serve's. With Redis (rest_use_redis) each
 * request and each event is also a section, one at a time across the
 * replicas; rest_external_run, called under serve's lock, only queues
 * (the next section records it).
 */
#ifndef APSTREAM_REST_H
#define APSTREAM_REST_H

#include "ap_server.h"

typedef struct rest rest;

/* What the REST layer asks of the runs' player (serve.c). */
typedef struct rest_hooks {
    /*
     * Plays run `run_id` on thread `thread_id`: the next script of graph
     * `graph`, or, with `resume`, answers the input the thread's paused run
     * waits for (with `resume_json`, the command's resume value). 0, or -1
     * (the run fails).
     */
    int (*start)(void *user, const char *thread_id, const char *run_id, const char *graph, int resume,
                 const char *resume_json);
    /* Stops whatever plays on thread `thread_id`, without waiting for it. */
    void (*cancel)(void *user, const char *thread_id);
    void *user;
} rest_hooks;

/*
 * A REST layer whose assistants are the graphs `graphs[0..ngraphs)` (each
 * an assistant whose graph_id and name are the graph's), NULL out of
 * memory.
 */
rest *rest_new(const rest_hooks *hooks, const char *const *graphs, size_t ngraphs);

/*
 * Closes every run's stream (their streams and long polls end): before the
 * server stops, since what is left is freed after it.
 */
void rest_close(rest *r);

/* Frees it (after rest_close, and after the server stopped). NULL-safe. */
void rest_free(rest *r);

/*
 * Keeps the records (threads with their states, runs, store items) on the
 * Redis at `url` (redis://HOST[:PORT][/DB]) under keys starting with
 * `prefix`, shared with every replica on it (docs/rest.md, "Where the
 * records live"): call before serving. Built with hiredis only
 * (rest_redis.c). 0; -1 with the reason in why[cap] (a bad URL, Redis
 * unreachable).
 */
int rest_use_redis(rest *r, const char *url, const char *prefix, char *why, size_t cap);

/* The server whose feeds the runs stream on: set before the server serves. */
void rest_set_server(rest *r, ap_server *srv);

/* ap_server_api_fn: `user` is the rest. */
void rest_api(void *user, ap_server *srv, const ap_server_request *req, ap_server_reply *reply);

/*
 * A protocol event (JSON) that run `run_id` of thread `thread_id`
 * published: mapped to its classic stream, and to the thread's state. An
 * event of a run that is no longer the thread's (cancelled) is dropped.
 */
void rest_event(rest *r, const char *thread_id, const char *run_id, const char *json, size_t len);

/*
 * Run `run_id` of thread `thread_id` pauses for input (after its
 * input.requested): the run ends, the thread is interrupted, and a run
 * with command.resume goes on with the rest of the script.
 */
void rest_paused(rest *r, const char *thread_id, const char *run_id);

/*
 * A run started without the REST API (a protocol run.start): its thread
 * and run records are made so that the REST API sees it too.
 */
void rest_external_run(rest *r, const char *thread_id, const char *run_id);

#endif /* APSTREAM_REST_H */
