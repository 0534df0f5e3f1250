/*
 * rest_internal.h - what the files of serve's REST API share (rest.h):
 * the records (threads, runs, items), kept in memory by rest_store.c
 * behind the functions below; with --redis, rest_redis.c (a rest_backend)
 * reads each record from Redis when a function below first finds it in a
 * section and writes back what the section changed; the routes of
 * rest_store.c (threads, assistants, store) and rest_runs.c (runs and
 * their classic streams).
 */
#ifndef APSTREAM_REST_INTERNAL_H
#define APSTREAM_REST_INTERNAL_H

#include <pthread.h>

#include "aa.h"
#include "aps/schema.h"
#include "rest.h"

#define REST_MAX_ID 128u        /* thread, run and assistant ids in paths and bodies */
#define REST_MAX_HISTORY 64u    /* states a thread keeps */
#define REST_MAX_RUNS 4096u     /* ended runs kept (with their streams, for joins): the oldest go first */
#define APSTREAM_REST_VERSION "0.1.0"

/* Stream modes, as bits of a feed record's tag (a record goes to a stream whose mask has all its bits). */
enum {
    M_VALUES = 1u << 0,
    M_UPDATES = 1u << 1,
    M_TUPLE = 1u << 2,      /* "messages-tuple": `messages` events of [chunk, metadata] */
    M_MESSAGES = 1u << 3,   /* "messages": messages/metadata, /partial, /complete */
    M_CUSTOM = 1u << 4,
    M_TASKS = 1u << 5,
    M_CHECKPOINTS = 1u << 6,
    M_DEBUG = 1u << 7,
    M_EVENTS = 1u << 8,
    M_TOOLS = 1u << 9,      /* "tools": on_tool_start, on_tool_end, on_tool_error */
    M_SUBGRAPHS = 1u << 30  /* an event of a subgraph: with stream_subgraphs only */
};

/* A state of a thread: the root values after a step. */
typedef struct rstate {
    char *values;
    char *metadata;           /* JSON object: its source and step, and the run that made it; NULL: none kept */
    char checkpoint[40];
    char parent[40];
    char created[32];
    int64_t step;
} rstate;

typedef struct rrun {
    char id[40];
    char thread[REST_MAX_ID + 1];
    char assistant[40];
    char graph[64];           /* the assistant's graph: the scripts it plays */
    char status[16];          /* RunStatus */
    char multitask[16];
    char created[32], updated[32];
    char *metadata;           /* JSON object */
    char *kwargs;             /* JSON object */
    ap_server_feed *feed;     /* the classic stream (a reference) */
    uint32_t modes;           /* the stream modes asked at creation */
    int pending;              /* enqueued behind the thread's active run */
    int resume;               /* answers the thread's interrupt */
    char *resume_json;
    uint64_t order;
    uint64_t dropped;         /* records its feed refused */
    /* the message being streamed, for messages/partial and /complete */
    char msg_id[128];
    char msg_node[64];
    char *msg_ns;
    char *text;
    size_t text_len, text_cap;
    char tool_id[128], tool_name[128];
    char *tool_args;
    size_t tool_len, tool_cap;
    struct { char id[128], name[128]; } tools[16]; /* the names of the tool calls started (a ring) */
    unsigned ntools;
    char *saved;              /* on Redis: the record as last read or written (NULL: not yet written) */
    int touched;              /* on Redis: read in this section (not read again in it) */
    struct rrun *next;
} rrun;

typedef struct rthread {
    char id[REST_MAX_ID + 1];
    char created[32], updated[32];
    char *metadata;           /* JSON object */
    char *values;             /* JSON, NULL before any */
    char *interrupts;         /* JSON array of {id, value}, NULL when none */
    char interrupt_node[64];  /* the node that asked (the state's `next` while it waits) */
    char status[16];          /* ThreadStatus */
    char active[40];          /* the run in progress or paused on an interrupt ("" none) */
    char graph[64];
    rstate hist[REST_MAX_HISTORY];
    size_t nhist;             /* the newest is hist[nhist - 1] */
    char checkpoint[40];      /* the latest checkpoint of its root */
    int64_t step;
    uint64_t order;
    char *saved;              /* on Redis: as rrun's */
    int touched;
    unsigned pushed;          /* on Redis: states pushed in this section (not yet written) */
    struct rthread *next;
} rthread;

typedef struct ritem {
    char **labels;
    size_t nlabels;
    char *key;
    char *value;              /* JSON object */
    char created[32], updated[32];
    uint64_t order;
    char *saved;              /* on Redis: as rrun's */
    int touched;
    struct ritem *next;
} ritem;

/*
 * Where the records live besides memory (rest_redis.c: Redis), NULL: in
 * memory only. A section is one request or one event of a run: begin
 * before it reads a record, end after; the functions below read the
 * records they find through load_*, and end writes what changed and
 * forgets them, so that no replica answers from a stale copy. A failure
 * (Redis gone) is sticky for the section: nothing more is written.
 */
typedef struct rest_backend {
    /* A section starts (the records shared): 0, or -1 when unreachable (`patient`: retries ~3 s). */
    int (*begin)(rest *r, int patient);
    /* Writes what the section changed so far, at once: 0, or -1 (the section failed). */
    int (*commit)(rest *r);
    /* Commits, forgets the records (the runs this process plays stay), ends the section: 0 or -1. */
    int (*end)(rest *r);
    /* Reads thread `id` into r->threads (or forgets it when it is gone). */
    void (*load_thread)(rest *r, const char *id);
    /* Reads run `id` into r->runs (or forgets it). */
    void (*load_run)(rest *r, const char *id);
    /* Reads every run of thread `thread` (NULL: every run) into r->runs. */
    void (*load_runs)(rest *r, const char *thread);
    /* Reads every thread into r->threads. */
    void (*load_threads)(rest *r);
    /* Reads the item of `labels` and `key` (key NULL: every item) into r->items. */
    void (*load_items)(rest *r, const aps_slice *labels, size_t n, const aps_slice *key);
    /* Deletes a record: kind 't' thread `a`, 'r' run `a` of thread `b`, 'i' item named `a` (its JSON name). */
    void (*forget)(rest *r, char kind, const char *a, const char *b);
    /* The next order number (shared by the replicas). */
    uint64_t (*next_order)(rest *r);
    /*
     * A feed that closes when run `run_id`, which another replica plays,
     * has ended (a join's long poll here): one reference for the caller.
     * NULL when it cannot watch more.
     */
    ap_server_feed *(*watch)(rest *r, const char *run_id);
    /* Closes the feeds it watches for (rest_close). */
    void (*close)(rest *r);
    /* Frees its state (rest_free). */
    void (*free)(rest *r);
} rest_backend;

struct rest {
    pthread_mutex_t lock;
    rest_hooks hooks;
    ap_server *srv;
    char (*graphs)[64];
    char (*assistant_ids)[40];
    size_t ngraphs;
    char started[32];
    rthread *threads;
    rrun *runs;
    ritem *items;
    uint64_t order;
    uint64_t rng;
    size_t nruns;             /* runs kept */
    const rest_backend *be;   /* NULL: the records in memory only */
    void *bs;                 /* the backend's state */
    pthread_mutex_t section;  /* one section at a time in this process (with a backend) */
    struct { char kind, thread[REST_MAX_ID + 1], run[64]; } ext[64]; /* with a backend: 'x' a protocol run to record, 'f' a run that failed unrecorded */
    size_t next_ext;
};

/* ---- answers (rest.c) ---- */

/* An ErrorBody with `status`, its `detail` from fmt, and `pointer` (NULL: none). */
void rest_error(ap_server_reply *reply, unsigned status, const char *pointer, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Writes json[0..len) into `out` decoded and re-encoded as `type`. */
aps_status rest_typed(aps_json_writer *out, const aps_type *type, const char *json, size_t len, aps_error *err);

/* Answers the writer's JSON as `type` (500 when it does not match). */
void rest_reply_typed(ap_server_reply *reply, unsigned status, const aps_type *type, aps_json_writer *w);

/* Answers the writer's JSON array, each element as `type`. */
void rest_reply_array(ap_server_reply *reply, const aps_type *type, aps_json_writer *w);

/* Answers text as it is (no type: a count, an empty 204). */
void rest_reply_raw(ap_server_reply *reply, unsigned status, const char *text, size_t len);

/* Decodes the body as `type` into `out`; 0, or -1 with the 422 in the reply. */
int rest_decode(const ap_server_request *req, const aps_type *type, aps_arena *arena, void *out,
                ap_server_reply *reply);

/* Query argument `name` into buf; 1 when present. */
int rest_query(const char *query, const char *name, char *buf, size_t cap);

/* A count argument of the query (`dflt` when absent); -1 with the 422 in the reply. */
long rest_query_count(const ap_server_request *req, const char *name, long dflt, ap_server_reply *reply);

/* 0 when id[0..len) is 1 to REST_MAX_ID bytes of printable UTF-8 without '/'. */
int rest_check_id(const char *id, size_t len);

/* ---- messages (rest_messages.c) ---- */

/*
 * Writes state `values` (raw JSON) with every message of its `messages` in
 * the form the classic API shows: content blocks of text as one string,
 * and the members LangChain always serializes. Anything else as it is.
 */
void rest_classic_values(aps_json_raw values, aps_json_writer *w);

/* ---- records (rest_store.c), under r->lock ---- */

/* Now as RFC 3339 text with milliseconds, into buf[32]. */
void rest_now(char *buf);

/* A fresh random UUID (version 4) into buf[40]. */
void rest_uuid(rest *r, char *buf);

/* Copies text[0..len) into a malloc'd NUL-terminated string (NULL out of memory). */
char *rest_strndup(const char *text, size_t len);

/* Whether JSON values a and b are equal (objects member by member, in any order). */
int rest_json_equal(aps_json_raw a, aps_json_raw b);

/* A string member of raw object `obj` into buf[cap] ("" when absent, not a string or too long). */
void rest_member_str(aps_json_raw obj, const char *name, aps_arena *a, char *buf, size_t cap);

/* Merges the members of object `add` into object text *into (a new malloc'd text). 0, or -1. */
int rest_merge_object(char **into, aps_json_raw add);

/* The thread `id`, NULL when none. */
rthread *rest_thread_find(rest *r, const char *id);
/* A new idle thread `id` with `metadata` (JSON; NULL: {}), NULL out of memory. */
rthread *rest_thread_add(rest *r, const char *id, const char *metadata, size_t len);
/* Forgets thread t, its states and its runs (their feeds closed). */
void rest_thread_remove(rest *r, rthread *t);
/* Writes the Thread JSON of t. */
void rest_thread_json(const rthread *t, aps_json_writer *w);
/* A checkpoint's metadata as the reference writes it: {source, step, parents: {}}. */
void rest_step_metadata(aps_json_writer *w, const char *source, int64_t step);
/* Keeps `values` (JSON) as the thread's newest state, made by `run` (NULL: by no run). */
void rest_thread_push_state(rest *r, rthread *t, const char *values, size_t len, const rrun *run);
/* Writes the ThreadState JSON of t's state `s` (NULL: its newest). */
void rest_state_json(const rthread *t, const rstate *s, aps_json_writer *w);

/* The graph (its index) that assistant id or graph id names, -1 when none. */
int rest_graph(const rest *r, const char *id);

/* The run `id`, NULL when none. */
rrun *rest_run_find(rest *r, const char *id);
/* Deletes the run (its feed closed and released). */
void rest_run_remove(rest *r, rrun *run);
/* Forgets the run in this process only (its feed closed and released): a backend still has it. */
void rest_run_drop(rest *r, rrun *run);
/* Frees a thread record, unlinked (its states; not its runs). */
void rest_thread_free(rthread *t);
/* Frees an item record, unlinked. */
void rest_item_free(ritem *it);
/* The next order number of a record (a backend's when there is one). */
uint64_t rest_next_order(rest *r);
/* The name of an item on a backend: the JSON array of its labels and its key, malloc'd (NULL: no memory). */
char *rest_item_name(const ritem *it);
/*
 * ---- the records as a backend keeps them (rest_record.c): one JSON object each ----
 * The writers answer malloc'd text (NULL out of memory). The readers take
 * outside bytes: APS_OK; APS_E_SYNTAX (not a record of ours: the error
 * says which member) or APS_E_NOMEM. A thread, state or item read into a
 * zeroed record holds, on an error, only what its free function frees; a
 * run is changed only when the whole record was read (its stream and
 * message kept).
 */
/* The record of thread t (not its states). */
char *rest_thread_record(const rthread *t);
/* The record of one state of a thread. */
char *rest_state_record(const rstate *s);
/* The record of a run (not its stream). */
char *rest_run_record(const rrun *run);
/* The record of a store item. */
char *rest_item_record(const ritem *it);
/* Reads a thread record into a zeroed t (free it with rest_thread_free, read or not). */
aps_status rest_thread_read(const char *text, size_t len, rthread *t, aps_error *err);
/* Reads a state record into a zeroed s (free s->values, read or not). */
aps_status rest_state_read(const char *text, size_t len, rstate *s, aps_error *err);
/* Reads a run record into run: its record fields replaced only when the whole record reads. */
aps_status rest_run_read(const char *text, size_t len, rrun *run, aps_error *err);
/* Reads an item record into a zeroed it (free it with rest_item_free, read or not). */
aps_status rest_item_read(const char *text, size_t len, ritem *it, aps_error *err);

/* Records what rest_external_run would, from the queue of a backend (in a section). */
void rest_drain_external(rest *r);
/*
 * With a backend, in a section: the runs enqueued here whose turn came on
 * another replica (the thread's run ended there) start here, where their
 * streams are; those cancelled there end their streams here. A backend's
 * watcher calls it every 100 ms while there are any.
 */
void rest_pending_turns(rest *r);
/* Whether this process has runs enqueued (their streams open here). */
int rest_has_pending(rest *r);
/* Starts a section (a backend's; nothing without one): 0, or -1 when the records are unreachable. */
int rest_begin(rest *r, int patient);
/* Ends it: 0, or -1 when what it changed could not be written. */
int rest_end(rest *r);
/* A reply refused because the records are unreachable: 503 (a feed it held released). */
void rest_reply_unavailable(ap_server_reply *reply);
/* Writes the Run JSON of the run. */
void rest_run_json(const rrun *run, aps_json_writer *w);

/*
 * ---- routes: each answers its request (docs/rest.md has what) into `reply`,
 * taking r->lock itself; `a` is the request's arena ----
 */

void rest_assistants_search(rest *r, const ap_server_request *req, int agents, aps_arena *a, ap_server_reply *reply);
void rest_assistants_count(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_assistant_get(rest *r, const char *id, int agent, ap_server_reply *reply);
void rest_assistant_graph(rest *r, const char *id, ap_server_reply *reply);
void rest_assistant_schemas(rest *r, const char *id, int agent, ap_server_reply *reply);
void rest_assistant_versions(rest *r, const char *id, ap_server_reply *reply);
void rest_threads_create(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_threads_search(rest *r, const ap_server_request *req, int count, aps_arena *a, ap_server_reply *reply);
void rest_thread_get(rest *r, const char *id, ap_server_reply *reply);
void rest_thread_delete(rest *r, const char *id, ap_server_reply *reply);
void rest_thread_patch(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_thread_copy(rest *r, const char *id, ap_server_reply *reply);
void rest_thread_state(rest *r, const char *id, const char *checkpoint, ap_server_reply *reply);
void rest_thread_state_at(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_thread_update_state(rest *r, const char *id, const ap_server_request *req, aps_arena *a,
                              ap_server_reply *reply);
void rest_thread_history(rest *r, const char *id, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_store_put(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_store_get(rest *r, const ap_server_request *req, ap_server_reply *reply);
void rest_store_delete(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_store_search(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);
void rest_store_namespaces(rest *r, const ap_server_request *req, aps_arena *a, ap_server_reply *reply);

/*
 * The runs routes under /threads/{thread}/runs (thread NULL: under /runs),
 * the path's remaining segments in seg[0..n).
 */
void rest_thread_runs(rest *r, const char *thread, const char *const *seg, const size_t *len, size_t n,
                      const ap_server_request *req, aps_arena *a, ap_server_reply *reply);

/* A long poll (runs.wait, join) whose feed closed: its answer. */
void rest_runs_finish_wait(rest *r, const char *token, ap_server_reply *reply);

#endif /* APSTREAM_REST_INTERNAL_H */
