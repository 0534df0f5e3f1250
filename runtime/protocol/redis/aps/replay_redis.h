/*
 * aps/replay_redis.h - the replay log of a run on Redis Streams, shared by
 * every server replica that appends to or answers resumes for that run
 * (aps/replay_store.h is the interface; docs/redis.md how to deploy it).
 * An optional library, aps_redis, built when hiredis is found.
 *
 *     aps_replay_redis_options o = { 0 };
 *     o.url = "redis://10.0.0.5:6379/0";
 *     o.run = "thread-42/run-7";
 *     o.replay.max_events = 10000;    (the newest seqs readers see; MAXLEN ~)
 *     o.retry_ms = 2000;              (appends retry a lost connection this long)
 *     aps_replay_store *st;
 *     if (aps_replay_redis_open(&st, &o, &err) != APS_OK) ...
 *     then the calls of aps/replay_store.h.
 *
 * Keys of run R (prefix P, default "aps:"; the braces make them one Redis
 * Cluster slot, so the scripts may touch them together):
 *     P{R}:log     the stream: one entry per event, id 0-SEQ
 *     P{R}:meta    hash: epoch, first, drops, vbytes
 *     P{R}:values  hash: packed namespace -> the latest values event (record)
 *     P{R}:vseq    hash: packed namespace -> its seq
 *     P{R}:vsize   hash: packed namespace -> its baseline bytes
 *
 * Seqs are the stream ids' sequence part: XADD with the id `0-*` makes Redis
 * assign the next one atomically, so producers in any number of processes
 * get gap-free, ordered seqs without a script on the hot path. Values events
 * go through a script that adds the entry and replaces the namespace's
 * baseline in one step. Eviction is the stream's `MAXLEN ~` (whole
 * macro-nodes, cheap; `MAXLEN =` on request), and readers see exactly the
 * newest max_events seqs whatever the stream still holds, so that misses
 * count exactly as in memory. The byte
 * capacity of the memory ring does not apply: replay.max_bytes is here the
 * largest event accepted.
 *
 * Failover: when Redis loses the run (a restart without persistence, a
 * failover to a replica that lagged), the next producer to connect starts a
 * new epoch whose numbering continues after the highest seq it had appended
 * itself; readers compare epochs and report what they cannot have received
 * as a miss, never a silent gap or a repeat (docs/redis.md).
 *
 * Thread-safety: a store is one connection; use it from one thread at a
 * time. Open one per thread or process; they share the run through Redis.
 */
#ifndef APS_REPLAY_REDIS_H
#define APS_REPLAY_REDIS_H

#include "aps/replay_store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APS_REPLAY_REDIS_DEFAULT_CONNECT_MS 2000u
#define APS_REPLAY_REDIS_DEFAULT_COMMAND_MS 5000u

/* A parsed redis://HOST:PORT[/DB] address. */
typedef struct aps_replay_redis_url {
    char host[256];     /* a name, an IPv4 address, or an IPv6 address without its brackets */
    int port;           /* 1..65535; 6379 when the URL gives none */
    int db;             /* 0..65535; 0 when the URL gives none */
} aps_replay_redis_url;

/* How to reach the run. All zero except url and run means the defaults. */
typedef struct aps_replay_redis_options {
    const char *url;            /* redis://HOST[:PORT][/DB]; required */
    const char *run;            /* the run's name, part of every key; required, no NUL */
    const char *key_prefix;     /* NULL: "aps:" */
    aps_replay_options replay;  /* max_events: MAXLEN; max_bytes: largest event; baseline_* as in memory */
    unsigned connect_timeout_ms; /* 0: APS_REPLAY_REDIS_DEFAULT_CONNECT_MS */
    unsigned command_timeout_ms; /* 0: APS_REPLAY_REDIS_DEFAULT_COMMAND_MS */
    unsigned retry_ms;          /* appends retry a failed connection for up to this long; 0: once */
    int exact_trim;             /* non-zero: MAXLEN = (never more than max_events entries
                                   stored; slower); 0: MAXLEN ~ (readers see the same) */
} aps_replay_redis_options;

/*
 * Parses `len` bytes of `url` (redis://HOST[:PORT][/DB]; IPv6 as [ADDR]).
 * Returns APS_OK; APS_E_SYNTAX with err->offset the byte where the URL went
 * wrong and a message naming it; APS_E_ARGUMENT (url or out NULL).
 * Thread-safe; allocates nothing.
 */
APS_NODISCARD aps_status aps_replay_redis_parse_url(const char *url, size_t len,
                                                    aps_replay_redis_url *out, aps_error *err);

/*
 * Connects to the URL's Redis and stores a store for run `opt->run` in *out
 * (close it with aps_replay_store_close). Returns APS_OK; APS_E_ARGUMENT;
 * APS_E_SYNTAX (a bad URL); APS_E_IO (Redis unreachable within the connect
 * timeout, or it refused; the message says which host and why);
 * APS_E_NOMEM.
 */
APS_NODISCARD aps_status aps_replay_redis_open(aps_replay_store **out,
                                               const aps_replay_redis_options *opt,
                                               aps_error *err);

/*
 * Sets every key of the store's run to expire in `seconds` (the run is over:
 * its log stays answerable that long, then Redis frees it). Returns APS_OK,
 * APS_E_IO, APS_E_ARGUMENT (not a Redis store).
 */
APS_NODISCARD aps_status aps_replay_redis_expire(aps_replay_store *st, unsigned seconds,
                                                 aps_error *err);

/*
 * The encoded form of one event as the stream and the baseline hash keep it
 * (the `m` field): a 20-byte header "A1", channel, flags (1: has eventId),
 * then namespace segment count, segment bytes, custom name length and
 * eventId length as 32-bit little-endian numbers; then the segment ends
 * (32-bit little-endian each), the segment bytes, the custom name, the
 * eventId and the event bytes.
 *
 * aps_replay_redis_record_size: the encoded size, SIZE_MAX when too large.
 * aps_replay_redis_record_encode: writes it to `out` (that many bytes).
 */
size_t aps_replay_redis_record_size(const aps_replay_meta *meta, size_t len);
void aps_replay_redis_record_encode(void *out, const void *bytes, size_t len,
                                    const aps_replay_meta *meta);

/*
 * Decodes a record read back from Redis (outside bytes: checked, never
 * trusted): fills *ev's channel, custom name, eventId, namespace and bytes,
 * pointing into `rec`, and the namespace ends into `ends` (room for
 * `ends_cap` entries; aligned where `rec` may not be). ev->seq and
 * ev->baseline are left alone. Returns APS_OK; APS_E_SYNTAX with
 * err->offset at the first byte that does not fit (wrong header, a length
 * beyond the record, decreasing ends, an unknown channel); APS_E_LIMIT (more
 * segments than ends_cap). Thread-safe; allocates nothing.
 */
APS_NODISCARD aps_status aps_replay_redis_record_decode(const void *rec, size_t len,
                                                        aps_replay_event *ev, uint32_t *ends,
                                                        size_t ends_cap, aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_REPLAY_REDIS_H */
