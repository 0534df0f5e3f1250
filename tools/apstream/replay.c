/*
 * replay.c - `apstream replay`: load the events of FILE into a replay
 * buffer of the given capacity, then answer an EventStreamRequest as a new
 * subscriber would see it: `missed N oldest S` when events were lost, then
 * the seq of each delivered event, one per line.
 *
 * Seqs are the buffer's: the 1-based position of each event in FILE (the
 * buffer numbers what it is given; a capture's own `seq` may skip). Without
 * `since` or `sinceEventId` the subscriber is new: it receives the values
 * baseline of the namespaces it matches whose state is older than the
 * current run, then the run's events from its start (the last root
 * lifecycle `started`/`running` that began a run; the whole buffer when
 * there is none), as the reference client expects (aps/replay.h,
 * APS_REPLAY_FROM_RUN). A request with `depth` and no `namespaces` gets a
 * warning (an error with --strict): the reference client reads that depth
 * as no limit, an easy thing to ask for by mistake. Events the schema rejects are reported on stderr and buffered all
 * the same, from their envelope, so that seqs stay positions in FILE; a line
 * that is not an event at all (not JSON, no method) is reported and not
 * buffered, so later seqs count events, not lines. The exit status is then 1.
 *
 * With --redis URL the buffer is a run on Redis Streams (aps/replay_redis.h)
 * instead: the events are appended to a fresh run, named after this
 * process, and the request is answered from Redis, with the same output.
 * The run's keys expire a minute later.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/channel.h"
#include "aps/filter.h"
#include "aps/namespace.h"
#include "aps/replay_store.h"
#ifdef APSTREAM_HAVE_REDIS
#include "aps/replay_redis.h"
#include <time.h>
#include <unistd.h>
#endif
#include "ap_replay.h"
#include "apstream.h"

typedef struct load_state {
    const apstream_options *o;
    aps_replay_store *rb;
    aps_arena arena;
    int io_failed;      /* the store failed (Redis down): stop, exit 2 */
    uint64_t invalid;
    uint64_t records;
} load_state;

static int load_event(void *user, const aps_record *rec)
{
    load_state *s = user;
    aps_status st;
    ap_event_t ev;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_replay_meta meta;
    s->records++;
    aps_arena_reset(&s->arena);
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = s->o->case_given ? s->o->key_case : APS_CASE_EITHER;
    if (ap_event_decode_opts(rec->text, rec->len, &s->arena, &ev, &dopt, &err) != APS_OK) {
        (void)apstream_report(stderr, rec->line, "schema", NULL, &err);
        s->invalid++;
        aps_arena_reset(&s->arena);
        /* buffered all the same, from its envelope, so that seqs stay positions in FILE */
        if (ap_event_replay_meta_text(rec->text, rec->len, NULL, &s->arena, &meta, NULL) != APS_OK) {
            (void)apstream_diag(stderr, rec->line, "error", "schema", NULL, NULL, "not an event at all: not buffered");
            return 0;
        }
    } else if (ap_event_replay_meta_text(rec->text, rec->len, &ev, &s->arena, &meta, NULL) != APS_OK) {
        ap_event_replay_meta(&ev, &meta); /* a method the schema does not know, with no namespace */
    }
    st = aps_replay_store_append(s->rb, rec->text, rec->len, &meta, NULL, &err);
    if (st == APS_E_IO) {
        fprintf(stderr, "apstream: error: %s\n", err.message);
        s->io_failed = 1;
        return 1;
    }
    if (st != APS_OK) {
        (void)apstream_report(stderr, rec->line, "replay", NULL, &err);
        s->invalid++;
    }
    return 0;
}

static void load_error(void *user, uint64_t line, const aps_error *err)
{
    load_state *s = user;
    (void)apstream_report(stderr, line, "framing", NULL, err);
    s->invalid++;
}

static int print_seq(void *ctx, const aps_replay_event *ev)
{
    (void)ctx;
    printf("%" PRIu64 "\n", ev->seq);
    return 0;
}

/*
 * The request's filter (channel names as the schema spells them). 0, or -1
 * after saying why. A depth with no namespace to count from limits nothing
 * (aps/filter.h): said as a warning, or with --strict refused.
 */
static int make_filter(const apstream_options *o, const ap_event_stream_request_t *req, aps_arena *arena,
                       aps_filter *f)
{
    aps_error err = APS_ERROR_INIT;
    if (req->has_depth && (!req->has_namespaces || req->namespaces.count == 0)) {
        fprintf(stderr, "apstream: request: %s: `depth` without `namespaces` limits nothing (the reference "
                        "client reads it so); say \"namespaces\": [[]] to count from the root\n",
                o->strict ? "error" : "warning");
        if (o->strict)
            return -1;
    }
    if (ap_filter_init_request(f, req, arena, &err) == APS_OK)
        return 0;
    fprintf(stderr, "apstream: request: %s\n", err.message);
    return -1;
}

/* The in-memory ring, or with --redis a fresh run on Redis. 0, or -1 after saying why. */
static int open_store(const apstream_options *o, const aps_replay_options *ropt,
                      aps_replay_store **rb)
{
    aps_error err = APS_ERROR_INIT;
    if (o->redis == NULL) {
        if (aps_replay_store_open_memory(rb, ropt, &err) == APS_OK)
            return 0;
        fprintf(stderr, "apstream: error: replay buffer: %s\n", err.message);
        return -1;
    }
#ifdef APSTREAM_HAVE_REDIS
    {
        aps_replay_redis_options ro;
        char run[64];
        struct timespec t;
        if (o->bytes != 0) {
            fprintf(stderr, "apstream: error: --bytes sizes the in-memory ring; a Redis log is "
                            "bounded by --capacity events\n");
            return -1;
        }
        clock_gettime(CLOCK_REALTIME, &t);
        snprintf(run, sizeof run, "apstream-%ld-%ld.%09ld", (long)getpid(), (long)t.tv_sec,
                 (long)t.tv_nsec);
        memset(&ro, 0, sizeof ro);
        ro.url = o->redis;
        ro.run = run;
        ro.replay = *ropt;
        ro.connect_timeout_ms = 2000;
        ro.command_timeout_ms = 5000;
        if (aps_replay_redis_open(rb, &ro, &err) == APS_OK)
            return 0;
        fprintf(stderr, "apstream: error: %s\n", err.message);
        return -1;
    }
#else
    fprintf(stderr, "apstream: error: --redis: this apstream was built without hiredis\n");
    return -1;
#endif
}

int apstream_replay(const apstream_options *o)
{
    char *req_text = NULL;
    size_t req_len;
    aps_arena req_arena;
    ap_event_stream_request_t req;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_replay_options ropt;
    aps_replay_store *rb = NULL;
    aps_filter filter;
    aps_replay_cursor cur;
    aps_replay_start start;
    load_state s;
    apstream_gate gate;
    int rc = 0;
    if (o->capacity == 0 || o->request == NULL) {
        fprintf(stderr, "apstream: error: replay needs --capacity N (N > 0) and --request FILE\n");
        return 2;
    }
    if (apstream_read_file(o->request, &req_text, &req_len) != 0)
        return 2;
    aps_arena_init(&req_arena, NULL);
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = o->case_given ? o->key_case : APS_CASE_EITHER;
    if (ap_event_stream_request_decode_opts(req_text, req_len, &req_arena, &req, &dopt, &err) != APS_OK) {
        fprintf(stderr, "apstream: %s: error: %s: %s\n", o->request, err.pointer[0] ? err.pointer : "(root)",
                err.message);
        rc = 2;
        goto out_req;
    }
    if (make_filter(o, &req, &req_arena, &filter) != 0) {
        rc = 2;
        goto out_req;
    }
    memset(&ropt, 0, sizeof ropt);
    ropt.max_events = (size_t)o->capacity;
    ropt.max_bytes = o->bytes ? (size_t)o->bytes : (size_t)1 << 30;
    /* a ring of what the events take, not of the most they could take */
    ropt.grow = 1;
    if (open_store(o, &ropt, &rb) != 0) {
        rc = 2;
        goto out_filter;
    }
    memset(&s, 0, sizeof s);
    s.o = o;
    s.rb = rb;
    aps_arena_init(&s.arena, NULL);
    apstream_diag_setup(o, 0);
    gate = apstream_read_records(o, o->format == APS_FORMAT_AUTO ? APS_FORMAT_JSONL : o->format, load_event,
                                 load_error, &s);
    aps_arena_deinit(&s.arena);
    if (gate == APSTREAM_INPUT_ERROR || s.io_failed)
        rc = 2;
    else if (gate == APSTREAM_INPUT_REJECTED)
        rc = 1;
    else if (apstream_check_records(o, s.records) != 0 || gate == APSTREAM_INPUT_FAILED)
        s.invalid++;
    start = ap_replay_start_request(&req);
    if (rc == 0 && aps_replay_store_cursor_init(rb, &cur, &filter, &start, &err) != APS_OK) {
        fprintf(stderr, "apstream: error: %s\n", err.message);
        rc = 2;
    }
    while (rc == 0) {
        size_t delivered = 0;
        aps_replay_gap gap;
        aps_status st = aps_replay_store_read(rb, &cur, 4096, print_seq, NULL, &delivered, &gap, &err);
        if (st == APS_E_MISSED) {
            printf("missed %" PRIu64 " oldest %" PRIu64 "\n", gap.lost, gap.oldest_seq);
            continue;
        }
        if (st != APS_OK) {
            fprintf(stderr, "apstream: error: %s\n", err.message);
            rc = 2;
        }
        if (st != APS_OK || delivered == 0)
            break;
    }
    if (rc == 0 && s.invalid > 0)
        rc = 1;
    apstream_diag_end();
#ifdef APSTREAM_HAVE_REDIS
    if (o->redis != NULL && aps_replay_redis_expire(rb, 60, NULL) != APS_OK)
        fprintf(stderr, "apstream: warning: the Redis run's keys were not set to expire\n");
#endif
    aps_replay_store_close(rb);
out_filter:
    aps_filter_deinit(&filter);
out_req:
    aps_arena_deinit(&req_arena);
    free(req_text);
    return rc;
}
