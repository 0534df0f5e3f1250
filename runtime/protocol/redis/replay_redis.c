/* replay_redis.c - the replay store on Redis Streams through hiredis (see
 * aps/replay_redis.h; the design and its reasons are in docs/redis.md). */
#include "aps/replay_redis.h"

#include <hiredis/hiredis.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Keys of a run, in the order the scripts take them. */
enum { K_LOG, K_META, K_VALUES, K_VSEQ, K_VSIZE, K_COUNT };
static const char *const key_suffix[K_COUNT] = { "log", "meta", "values", "vseq", "vsize" };

/*
 * last_seq(log): the seq of the newest id the log ever assigned (0 for no
 * log); trimming and XDEL keep it.
 */
#define LAST_SEQ_LUA                                                                          \
    "local function last_seq(k)\n"                                                            \
    "  if redis.call('EXISTS', k) == 0 then return 0 end\n"                                   \
    "  local info = redis.call('XINFO', 'STREAM', k)\n"                                       \
    "  for i = 1, #info, 2 do\n"                                                              \
    "    if info[i] == 'last-generated-id' then\n"                                            \
    "      return tonumber(string.match(info[i + 1], '%-(%d+)$'))\n"                          \
    "    end\n"                                                                               \
    "  end\n"                                                                                 \
    "  return 0\n"                                                                            \
    "end\n"

/*
 * ensure: run once per connection before the first append. When Redis has
 * no epoch for the run (first use, or the run was lost), it starts one: the
 * log's last id is raised to the producer's floor (the highest seq it
 * appended) so that numbering continues, and `first` records where this
 * epoch starts. KEYS: log meta. ARGV: floor.
 */
static const char ensure_lua[] =
    LAST_SEQ_LUA
    "local ep = redis.call('HGET', KEYS[2], 'epoch')\n"
    "if ep then return ep end\n"
    "local t = redis.call('TIME')\n"
    "ep = t[1] .. string.format('%06d', tonumber(t[2]))\n"
    "local last = last_seq(KEYS[1])\n"
    "local floor = tonumber(ARGV[1])\n"
    "if floor > last then\n"
    "  redis.call('XADD', KEYS[1], '0-' .. floor, 'x', '')\n"
    "  redis.call('XDEL', KEYS[1], '0-' .. floor)\n"
    "  last = floor\n"
    "end\n"
    "redis.call('HSET', KEYS[2], 'epoch', ep, 'first', last + 1)\n"
    "return ep\n";

/*
 * values: a values event, appended and made its namespace's baseline in one
 * step, with the memory buffer's rules: a namespace table of at most
 * ARGV[7] entries and ARGV[8] bytes, least recently updated states evicted
 * first, every state that cannot be kept counted in meta.drops.
 * KEYS: log meta values vseq vsize. ARGV: trim (= or ~), maxlen, record,
 * token, eventId (or the empty string with ARGV[9] = 0), namespace key,
 * namespace max, bytes max, has id, state size.
 */
static const char values_lua[] =
    "local a = {KEYS[1], 'MAXLEN', ARGV[1], ARGV[2], '0-*', 'm', ARGV[3], 'p', ARGV[4]}\n"
    "local id = redis.call('XADD', unpack(a))\n"
    "local seq = string.match(id, '%-(%d+)$')\n"
    "local ns, size = ARGV[6], tonumber(ARGV[10])\n"
    "local maxn, maxb = tonumber(ARGV[7]), tonumber(ARGV[8])\n"
    "local vbytes = tonumber(redis.call('HGET', KEYS[2], 'vbytes') or '0')\n"
    "local drops = 0\n"
    "local function remove(k)\n"
    "  vbytes = vbytes - tonumber(redis.call('HGET', KEYS[5], k) or '0')\n"
    "  redis.call('HDEL', KEYS[3], k); redis.call('HDEL', KEYS[4], k); redis.call('HDEL', KEYS[5], k)\n"
    "end\n"
    "local function oldest(keep)\n"
    "  local all = redis.call('HGETALL', KEYS[4])\n"
    "  local best, bs = nil, nil\n"
    "  for i = 1, #all, 2 do\n"
    "    local s = tonumber(all[i + 1])\n"
    "    if all[i] ~= keep and (bs == nil or s < bs) then best, bs = all[i], s end\n"
    "  end\n"
    "  return best\n"
    "end\n"
    "local exists = redis.call('HEXISTS', KEYS[4], ns) == 1\n"
    "if size > maxb then\n"
    "  if exists then remove(ns) end\n"
    "  drops = 1\n"
    "else\n"
    "  if exists then remove(ns)\n"
    "  elseif redis.call('HLEN', KEYS[4]) >= maxn then remove(oldest(nil)); drops = drops + 1 end\n"
    "  while vbytes + size > maxb do\n"
    "    local v = oldest(ns)\n"
    "    if not v then break end\n"
    "    remove(v); drops = drops + 1\n"
    "  end\n"
    "  redis.call('HSET', KEYS[3], ns, ARGV[3]); redis.call('HSET', KEYS[4], ns, seq)\n"
    "  redis.call('HSET', KEYS[5], ns, size)\n"
    "  vbytes = vbytes + size\n"
    "end\n"
    "redis.call('HSET', KEYS[2], 'vbytes', vbytes)\n"
    "if drops > 0 then redis.call('HINCRBY', KEYS[2], 'drops', drops) end\n"
    "return id\n";

/*
 * run: a root lifecycle event, appended and noted in the same step (the
 * memory buffer's rule, aps_replay_run_mark): an ACTIVE one (ARGV[5] = 1)
 * appended while no run is open makes its seq meta.run and opens the run;
 * an END one (ARGV[5] = 0) closes it. KEYS: log meta. ARGV: trim, maxlen,
 * record, token, mark.
 */
static const char run_lua[] =
    "local a = {KEYS[1], 'MAXLEN', ARGV[1], ARGV[2], '0-*', 'm', ARGV[3], 'p', ARGV[4]}\n"
    "local id = redis.call('XADD', unpack(a))\n"
    "if ARGV[5] == '0' then redis.call('HSET', KEYS[2], 'runopen', '0')\n"
    "elseif redis.call('HGET', KEYS[2], 'runopen') ~= '1' then\n"
    "  redis.call('HSET', KEYS[2], 'run', string.match(id, '%-(%d+)$'), 'runopen', '1')\n"
    "end\n"
    "return id\n";

/*
 * snapshot: the run's numbers a read needs. KEYS: log meta values vseq.
 * ARGV: the window (max_events), unused, want baseline (1/0). Returns
 * {epoch, first, drops, last, oldest, {}, baseline (seq, record pairs),
 * baseline namespaces, baseline bytes, current run's start (0: none)}. `oldest` is the oldest seq of the
 * window, the last max_events seqs: `MAXLEN ~` leaves a few older entries
 * in the stream, and readers must not see them (docs/redis.md, "Trimming").
 * The entries come from an XRANGE in the same MULTI: Lua would copy every
 * entry into tables and back, several times the cost.
 */
static const char snapshot_lua[] =
    "local m = redis.call('HMGET', KEYS[2], 'epoch', 'first', 'drops', 'vbytes', 'run')\n"
    "local last, oldest = 0, 0\n"
    "if redis.call('EXISTS', KEYS[1]) == 1 then\n"
    "  local info = redis.call('XINFO', 'STREAM', KEYS[1])\n"
    "  for i = 1, #info, 2 do\n"
    "    if info[i] == 'last-generated-id' then last = tonumber(string.match(info[i + 1], '%-(%d+)$'))\n"
    "    elseif info[i] == 'first-entry' and info[i + 1] then\n"
    "      oldest = tonumber(string.match(info[i + 1][1], '%-(%d+)$'))\n"
    "    end\n"
    "  end\n"
    "end\n"
    "if oldest == 0 then oldest = last + 1 end\n"
    "if last - tonumber(ARGV[1]) + 1 > oldest then oldest = last - tonumber(ARGV[1]) + 1 end\n"
    "local es = {}\n"
    "local base = {}\n"
    "if ARGV[3] == '1' then\n"
    "  local all = redis.call('HGETALL', KEYS[4])\n"
    "  for i = 1, #all, 2 do\n"
    "    base[#base + 1] = all[i + 1]\n"
    "    base[#base + 1] = redis.call('HGET', KEYS[3], all[i]) or ''\n"
    "  end\n"
    "end\n"
    "return {m[1] or '', m[2] or '1', m[3] or '0', tostring(last), tostring(oldest), es, base,\n"
    "        tostring(redis.call('HLEN', KEYS[4])), m[4] or '0', m[5] or '0'}\n";

/* find: the oldest entry of the window (ARGV[2] = max_events, as in
 * snapshot) whose record carries eventId ARGV[1], scanned in chunks; the
 * record header says where its eventId is (aps/replay_redis.h). KEYS: log. */
static const char find_lua[] =
    LAST_SEQ_LUA
    "local from = '-'\n"
    "local low = last_seq(KEYS[1]) - tonumber(ARGV[2]) + 1\n"
    "if low > 1 then from = '0-' .. low end\n"
    "local want = ARGV[1]\n"
    "while true do\n"
    "  local es = redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', 512)\n"
    "  for _, e in ipairs(es) do\n"
    "    local f = e[2]\n"
    "    for i = 1, #f, 2 do\n"
    "      local m = f[i + 1]\n"
    "      if f[i] == 'm' and #m >= 20 and string.byte(m, 4) == 1 then\n"
    "        local count, seg, name, idl = struct.unpack('<I4I4I4I4', m, 5)\n"
    "        local at = 21 + count * 4 + seg + name\n"
    "        if idl == #want and string.sub(m, at, at + idl - 1) == want then\n"
    "          return string.match(e[1], '%-(%d+)$')\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "  if #es < 512 then return '0' end\n"
    "  from = '(' .. es[#es][1]\n"
    "end\n";

enum { S_ENSURE, S_VALUES, S_RUN, S_SNAPSHOT, S_FIND, S_COUNT };
static const char *const script_text[S_COUNT] = { ensure_lua, values_lua, run_lua, snapshot_lua,
                                                  find_lua };

#define MAX_SEGMENTS 256u

/* Appends sent per write; two chunks at most are in flight (measured in ap-bench redis). */
#define APPEND_CHUNK 32u

typedef struct redis_store {
    aps_replay_store base;
    aps_replay_redis_url url;
    aps_replay_options replay;
    unsigned connect_ms, command_ms, retry_ms;
    int exact;                  /* MAXLEN = rather than ~ */
    redisContext *c;
    int ensured;                /* this connection ran `ensure` */
    char *keys[K_COUNT];
    size_t key_len[K_COUNT], keys_len; /* their lengths, and the sum */
    char sha[S_COUNT][41];
    uint64_t floor;             /* highest seq this store appended */
    uint64_t producer;          /* random id: tags entries, so a retry finds its own */
    uint64_t token;             /* entries appended so far (the tag's counter) */
    char maxlen[24], ns_max[24], bytes_max[24]; /* the capacities, as appends send them */
    uint32_t ends[MAX_SEGMENTS];
    uint8_t *buf;               /* encoded records of the batch being appended */
    size_t buf_cap;
    char *out;                  /* the appends being sent, as RESP */
    size_t out_len, out_cap;
} redis_store;

static redis_store *rs_of(aps_replay_store *st)
{
    return (redis_store *)(void *)st;
}

static struct timeval tv_ms(unsigned ms)
{
    struct timeval tv;
    tv.tv_sec = (time_t)(ms / 1000u);
    tv.tv_usec = (suseconds_t)((ms % 1000u) * 1000u);
    return tv;
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void drop_connection(redis_store *r)
{
    if (r->c != NULL)
        redisFree(r->c);
    r->c = NULL;
    r->ensured = 0;
}

/* A connection error as an APS_E_IO with the address and the reason. */
static aps_status io_error(redis_store *r, aps_error *err, const char *what)
{
    const char *why = r->c != NULL && r->c->err ? r->c->errstr : "connection lost";
    aps_status s = aps_error_set(err, APS_E_IO, SIZE_MAX, "redis %s:%d: %s: %s", r->url.host,
                                 r->url.port, what, why);
    drop_connection(r);
    return s;
}

static aps_status load_scripts(redis_store *r, aps_error *err);

/* Connects when not connected, and loads the scripts (a restarted Redis has none). */
static aps_status connect_now(redis_store *r, aps_error *err)
{
    redisReply *rep;
    if (r->c != NULL && !r->c->err)
        return APS_OK;
    drop_connection(r);
    r->c = redisConnectWithTimeout(r->url.host, r->url.port, tv_ms(r->connect_ms));
    if (r->c == NULL)
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for a redis connection");
    if (r->c->err)
        return io_error(r, err, "cannot connect");
    if (redisSetTimeout(r->c, tv_ms(r->command_ms)) != REDIS_OK)
        return io_error(r, err, "cannot set the command timeout");
    (void)redisEnableKeepAlive(r->c);
    if (r->url.db != 0) {
        rep = (redisReply *)redisCommand(r->c, "SELECT %d", r->url.db);
        if (rep == NULL)
            return io_error(r, err, "SELECT");
        if (rep->type == REDIS_REPLY_ERROR) {
            aps_status s = aps_error_set(err, APS_E_IO, SIZE_MAX, "redis %s:%d: SELECT %d: %s",
                                         r->url.host, r->url.port, r->url.db, rep->str);
            freeReplyObject(rep);
            drop_connection(r);
            return s;
        }
        freeReplyObject(rep);
    }
    return load_scripts(r, err);
}

/* A reply Redis sent that is not what the protocol promises. */
static aps_status bad_reply(aps_error *err, const char *what)
{
    return aps_error_set(err, APS_E_SYNTAX, SIZE_MAX, "redis: malformed reply: %s", what);
}

/* An error reply: Redis refused (full, wrong type, ...): not retried. */
static aps_status refused(redis_store *r, aps_error *err, const char *what, const redisReply *rep)
{
    return aps_error_set(err, APS_E_IO, SIZE_MAX, "redis %s:%d refused %s: %.*s", r->url.host,
                         r->url.port, what, (int)rep->len, rep->str);
}

/* "0-SEQ" -> SEQ; 0 when the id is not one of ours. */
static uint64_t id_seq(const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i;
    if (n < 3 || s[0] != '0' || s[1] != '-' || n > 22)
        return 0;
    for (i = 2; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v;
}

/* A decimal string reply; 0 on anything else (the caller checks `ok`). */
static uint64_t num_of(const redisReply *rep, int *ok)
{
    uint64_t v = 0;
    size_t i;
    if (rep == NULL || rep->type != REDIS_REPLY_STRING || rep->len == 0 || rep->len > 19) {
        *ok = 0;
        return 0;
    }
    for (i = 0; i < rep->len; i++) {
        if (rep->str[i] < '0' || rep->str[i] > '9') {
            *ok = 0;
            return 0;
        }
        v = v * 10 + (uint64_t)(rep->str[i] - '0');
    }
    return v;
}

/*
 * Runs script `which` by its SHA, loading it when Redis does not know it
 * (first use, or after a restart). Returns the reply (caller frees) or NULL
 * with the connection dropped.
 */
static redisReply *run_script(redis_store *r, int which, int nkeys, int argc, const char **argv,
                              const size_t *lens)
{
    const char *a[16];
    size_t l[16];
    redisReply *rep;
    int i, attempt;
    for (attempt = 0; attempt < 2; attempt++) {
        a[0] = attempt == 0 ? "EVALSHA" : "EVAL";
        l[0] = strlen(a[0]);
        a[1] = attempt == 0 ? r->sha[which] : script_text[which];
        l[1] = strlen(a[1]);
        a[2] = nkeys == 1 ? "1" : nkeys == 2 ? "2" : nkeys == 4 ? "4" : "5";
        l[2] = 1;
        for (i = 0; i < nkeys; i++) {
            a[3 + i] = r->keys[i];
            l[3 + i] = strlen(r->keys[i]);
        }
        for (i = 0; i < argc; i++) {
            a[3 + nkeys + i] = argv[i];
            l[3 + nkeys + i] = lens != NULL ? lens[i] : strlen(argv[i]);
        }
        rep = (redisReply *)redisCommandArgv(r->c, 3 + nkeys + argc, a, l);
        if (rep == NULL)
            return NULL;
        if (attempt == 0 && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOSCRIPT", 8) == 0) {
            freeReplyObject(rep);
            continue;
        }
        return rep;
    }
    return NULL;
}

/* The script SHA-1s, asked from Redis once (SCRIPT LOAD) so that calls send 40 bytes. */
static aps_status load_scripts(redis_store *r, aps_error *err)
{
    int i;
    for (i = 0; i < S_COUNT; i++) {
        redisReply *rep = (redisReply *)redisCommand(r->c, "SCRIPT LOAD %s", script_text[i]);
        if (rep == NULL)
            return io_error(r, err, "SCRIPT LOAD");
        if (rep->type != REDIS_REPLY_STRING || rep->len != 40) {
            aps_status s = rep->type == REDIS_REPLY_ERROR ? refused(r, err, "SCRIPT LOAD", rep)
                                                          : bad_reply(err, "SCRIPT LOAD");
            freeReplyObject(rep);
            return s;
        }
        memcpy(r->sha[i], rep->str, 40);
        r->sha[i][40] = '\0';
        freeReplyObject(rep);
    }
    return APS_OK;
}

/* Connected, and (for a producer) the run's epoch exists. */
static aps_status ready(redis_store *r, int producer, aps_error *err)
{
    aps_status s = connect_now(r, err);
    char floor[24];
    const char *argv[1];
    redisReply *rep;
    if (s != APS_OK || !producer || r->ensured)
        return s;
    snprintf(floor, sizeof floor, "%" PRIu64, r->floor);
    argv[0] = floor;
    rep = run_script(r, S_ENSURE, 2, 1, argv, NULL); /* keys: log, meta */
    if (rep == NULL)
        return io_error(r, err, "starting the run's epoch");
    if (rep->type == REDIS_REPLY_ERROR) {
        s = refused(r, err, "starting the run's epoch", rep);
        freeReplyObject(rep);
        return s;
    }
    freeReplyObject(rep);
    r->ensured = 1;
    return APS_OK;
}

/* ---- append ---- */

/*
 * Appends are formatted here, as RESP, into one reusable buffer (r->out)
 * and handed to hiredis a chunk at a time (redisAppendFormattedCommand):
 * hiredis's own formatting (sds strings, a printf per argument) was most of
 * the client's time per append (perf; docs/redis.md, "Benchmark").
 */

/* Room for `more` bytes in r->out; -1 out of memory. */
static int out_reserve(redis_store *r, size_t more)
{
    size_t want = r->out_len + more;
    if (want > r->out_cap) {
        size_t cap = r->out_cap > 0 ? r->out_cap : 16384;
        char *grown;
        while (cap < want)
            cap *= 2;
        grown = (char *)realloc(r->out, cap);
        if (grown == NULL)
            return -1;
        r->out = grown;
        r->out_cap = cap;
    }
    return 0;
}

/* Writes v in decimal at p; returns the end. */
static char *put_dec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* One RESP bulk string made of two pieces (the second may be empty). */
static void put_arg2(redis_store *r, const void *a, size_t alen, const void *b, size_t blen)
{
    char *p = r->out + r->out_len;
    *p++ = '$';
    p = put_dec(p, alen + blen);
    *p++ = '\r';
    *p++ = '\n';
    memcpy(p, a, alen);
    p += alen;
    if (blen > 0)
        memcpy(p, b, blen);
    p += blen;
    *p++ = '\r';
    *p++ = '\n';
    r->out_len = (size_t)(p - r->out);
}

static void put_arg(redis_store *r, const void *a, size_t alen)
{
    put_arg2(r, a, alen, NULL, 0);
}

static void put_count(redis_store *r, unsigned n)
{
    char *p = r->out + r->out_len;
    *p++ = '*';
    p = put_dec(p, n);
    *p++ = '\r';
    *p++ = '\n';
    r->out_len = (size_t)(p - r->out);
}

/* Bytes a RESP argument of `len` bytes takes at most: $, 20 digits, 2 CRLF. */
#define ARG_ROOM(len) ((len) + 25)

/*
 * Formats the XADD (or, for a values event, the values script; for a root
 * lifecycle event, the run script) of one encoded record into r->out.
 * Returns 0, or -1 out of memory.
 */
static int format_append(redis_store *r, const aps_replay_store_item *it, const uint8_t *rec,
                         size_t rec_len, const char *tok, size_t tok_len)
{
    const char *trim = r->exact ? "=" : "~";
    /* at most 16 short arguments (each < 64 bytes), the keys, the record, the tag */
    size_t fixed = 16 * ARG_ROOM(64) + r->keys_len + K_COUNT * ARG_ROOM(0) + ARG_ROOM(rec_len) +
                   ARG_ROOM(tok_len);
    int i;
    if (it->meta.run != APS_RUN_NONE) {
        if (out_reserve(r, fixed) != 0)
            return -1;
        put_count(r, 10);
        put_arg(r, "EVALSHA", 7);
        put_arg(r, r->sha[S_RUN], 40);
        put_arg(r, "2", 1);
        put_arg(r, r->keys[K_LOG], r->key_len[K_LOG]);
        put_arg(r, r->keys[K_META], r->key_len[K_META]);
        put_arg(r, trim, 1);
        put_arg(r, r->maxlen, strlen(r->maxlen));
        put_arg(r, rec, rec_len);
        put_arg(r, tok, tok_len);
        put_arg(r, it->meta.run == APS_RUN_ACTIVE ? "1" : "0", 1);
    } else if (it->meta.channel != APS_CHANNEL_VALUES) {
        if (out_reserve(r, fixed) != 0)
            return -1;
        put_count(r, 10);
        put_arg(r, "XADD", 4);
        put_arg(r, r->keys[K_LOG], r->key_len[K_LOG]);
        put_arg(r, "MAXLEN", 6);
        put_arg(r, trim, 1);
        put_arg(r, r->maxlen, strlen(r->maxlen));
        put_arg(r, "0-*", 3);
        put_arg(r, "m", 1);
        put_arg(r, rec, rec_len);
        put_arg(r, "p", 1);
        put_arg(r, tok, tok_len);
    } else {
        /* The baseline's field for the namespace: its segment count, then
         * the record's segment ends and bytes, which follow the 20-byte header. */
        size_t count = (size_t)rec[4] | (size_t)rec[5] << 8 | (size_t)rec[6] << 16 |
                       (size_t)rec[7] << 24,
               seg = (size_t)rec[8] | (size_t)rec[9] << 8 | (size_t)rec[10] << 16 |
                     (size_t)rec[11] << 24;
        size_t ns_len = count * 4 + seg, id_len = it->meta.event_id.len;
        size_t block = aps_namespace_packed_size(it->meta.ns) + id_len + it->len;
        char size[24];
        int has_id = it->meta.event_id.ptr != NULL;
        if (out_reserve(r, fixed + ARG_ROOM(ns_len + 4) + ARG_ROOM(id_len)) != 0)
            return -1;
        snprintf(size, sizeof size, "%zu", block > 0 ? block : (size_t)1);
        put_count(r, 3 + K_COUNT + 10);
        put_arg(r, "EVALSHA", 7);
        put_arg(r, r->sha[S_VALUES], 40);
        put_arg(r, "5", 1);
        for (i = 0; i < K_COUNT; i++)
            put_arg(r, r->keys[i], r->key_len[i]);
        put_arg(r, trim, 1);
        put_arg(r, r->maxlen, strlen(r->maxlen));
        put_arg(r, rec, rec_len);
        put_arg(r, tok, tok_len);
        put_arg(r, has_id ? it->meta.event_id.ptr : "", has_id ? id_len : 0);
        put_arg2(r, rec + 4, 4, rec + 20, ns_len);
        put_arg(r, r->ns_max, strlen(r->ns_max));
        put_arg(r, r->bytes_max, strlen(r->bytes_max));
        put_arg(r, has_id ? "1" : "0", 1);
        put_arg(r, size, strlen(size));
    }
    return 0;
}

/* The tag of the next entry: the producer id in hex, ':', the entry's counter. */
static void make_token(redis_store *r, char tok[40])
{
    static const char hex[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 16; i++)
        tok[i] = hex[(r->producer >> (60 - 4 * i)) & 15u];
    tok[16] = ':';
    *put_dec(tok + 17, ++r->token) = '\0';
}

/* Sends what r->out holds; -1 when the connection failed. */
static int send_out(redis_store *r)
{
    int done = 0;
    if (r->out_len == 0)
        return 0;
    if (redisAppendFormattedCommand(r->c, r->out, r->out_len) != REDIS_OK)
        return -1;
    r->out_len = 0;
    do
        if (redisBufferWrite(r->c, &done) != REDIS_OK)
            return -1;
    while (!done);
    return 0;
}

/*
 * After a connection failed with appends in flight: which of them did
 * Redis take? Looks for each one's tag among the newest entries; returns
 * the seq, or 0 when it is not there (then it is appended again).
 */
static uint64_t find_token(redis_store *r, const char *tok, aps_error *err, int *failed)
{
    redisReply *rep = (redisReply *)redisCommand(r->c, "XREVRANGE %s + - COUNT 4096",
                                                 r->keys[K_LOG]);
    uint64_t seq = 0;
    size_t i, j;
    *failed = 0;
    if (rep == NULL) {
        *failed = 1;
        (void)io_error(r, err, "checking an interrupted append");
        return 0;
    }
    if (rep->type == REDIS_REPLY_ARRAY) {
        for (i = 0; i < rep->elements && seq == 0; i++) {
            const redisReply *e = rep->element[i];
            if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
                e->element[1]->type != REDIS_REPLY_ARRAY)
                continue;
            for (j = 0; j + 1 < e->element[1]->elements; j += 2) {
                const redisReply *k = e->element[1]->element[j], *v = e->element[1]->element[j + 1];
                if (k->type == REDIS_REPLY_STRING && k->len == 1 && k->str[0] == 'p' &&
                    v->type == REDIS_REPLY_STRING && v->len == strlen(tok) &&
                    memcmp(v->str, tok, v->len) == 0)
                    seq = id_seq(e->element[0]->str, e->element[0]->len);
            }
        }
    }
    freeReplyObject(rep);
    return seq;
}

/*
 * Reads the reply to append number `at` of a batch and notes its seq.
 * When the connection failed, `e` says why and *retry is set; any other
 * failure (Redis refused, a malformed reply) is final and in `err`. Either
 * way the connection is dropped: the queued replies after it are unread.
 */
static aps_status take_reply(redis_store *r, aps_error *err, aps_error *e, size_t at,
                             uint64_t *seqs, int *retry)
{
    redisReply *rep = NULL;
    uint64_t seq;
    aps_status s;
    *retry = 0;
    if (redisGetReply(r->c, (void **)&rep) != REDIS_OK || rep == NULL) {
        *retry = 1;
        return io_error(r, e, "appending");
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        if (strncmp(rep->str, "NOSCRIPT", 8) == 0) {
            freeReplyObject(rep);
            drop_connection(r); /* reconnect loads the scripts again */
            *retry = 1;
            return aps_error_set(e, APS_E_IO, SIZE_MAX, "redis lost its scripts");
        }
        /* Redis refused (out of memory, ...): not a connection failure, so not retried. */
        s = refused(r, err, "the append", rep);
        freeReplyObject(rep);
        drop_connection(r);
        return s;
    }
    seq = rep->type == REDIS_REPLY_STRING ? id_seq(rep->str, rep->len) : 0;
    freeReplyObject(rep);
    if (seq == 0) {
        drop_connection(r);
        return bad_reply(err, "XADD did not answer an id 0-SEQ");
    }
    if (seqs != NULL)
        seqs[at] = seq;
    if (seq > r->floor)
        r->floor = seq;
    return APS_OK;
}

static aps_status redis_append_many(aps_replay_store *st, const aps_replay_store_item *items,
                                    size_t count, uint64_t *seqs, aps_error *err)
{
    redis_store *r = rs_of(st);
    size_t i, done = 0, total = 0, *offs;
    char (*tok)[40];
    uint64_t deadline = now_ms() + r->retry_ms;
    int resumed = 0;
    aps_status s = APS_OK;

    for (i = 0; i < count; i++) {
        const aps_replay_meta *m = &items[i].meta;
        size_t n, k;
        if ((items[i].bytes == NULL && items[i].len > 0) || (unsigned)m->channel > APS_CHANNEL_OTHER ||
            (unsigned)m->run > APS_RUN_END ||
            (m->ns.items == NULL && m->ns.count > 0) ||
            (m->custom_name.ptr == NULL && m->custom_name.len > 0) ||
            (m->event_id.ptr == NULL && m->event_id.len > 0))
            return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid replay append arguments");
        for (k = 0; k < m->ns.count; k++)
            if (m->ns.items[k].ptr == NULL && m->ns.items[k].len > 0)
                return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                                     "namespace segment %zu is a NULL slice", k);
        n = aps_replay_redis_record_size(m, items[i].len);
        /* the memory ring's rule: the record, 8-aligned, must fit max_bytes */
        if (n == SIZE_MAX || (n - 20 == 0 ? 8 : (n - 20 + 7) & ~(size_t)7) > r->replay.max_bytes ||
            m->ns.count > MAX_SEGMENTS)
            return aps_error_set(err, APS_E_LIMIT, SIZE_MAX,
                                 "event of %zu bytes exceeds the largest replay event (%zu bytes)",
                                 items[i].len, r->replay.max_bytes);
        total += (n + 7) & ~(size_t)7;
    }
    if (count == 0)
        return APS_OK;
    if (seqs != NULL)
        memset(seqs, 0, count * sizeof *seqs);
    /* One block: each record, then the offsets and the tags. */
    total += count * (sizeof *offs + sizeof *tok);
    if (total > r->buf_cap) {
        uint8_t *grown = (uint8_t *)realloc(r->buf, total);
        if (grown == NULL)
            return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the append batch");
        r->buf = grown;
        r->buf_cap = total;
    }
    offs = (size_t *)(void *)r->buf;
    tok = (char (*)[40])(void *)(offs + count);
    {
        size_t at = count * (sizeof *offs + sizeof *tok);
        at = (at + 7) & ~(size_t)7;
        for (i = 0; i < count; i++) {
            offs[i] = at;
            aps_replay_redis_record_encode(r->buf + at, items[i].bytes, items[i].len, &items[i].meta);
            at += (aps_replay_redis_record_size(&items[i].meta, items[i].len) + 7) & ~(size_t)7;
            make_token(r, tok[i]);
        }
    }

    while (done < count) {
        size_t sent, got;
        aps_error e = APS_ERROR_INIT;
        s = ready(r, 1, &e);
        if (s == APS_OK && resumed) {
            /* The batch was interrupted: skip what Redis took before it failed. */
            int failed = 0;
            uint64_t seq = find_token(r, tok[done], &e, &failed);
            s = failed ? APS_E_IO : APS_OK;
            while (s == APS_OK && seq != 0) {
                if (seqs != NULL)
                    seqs[done] = seq;
                if (seq > r->floor)
                    r->floor = seq;
                if (++done == count)
                    return APS_OK;
                seq = find_token(r, tok[done], &e, &failed);
                s = failed ? APS_E_IO : APS_OK;
            }
        }
        if (s == APS_OK) {
            /* Pipelined a chunk at a time, at most two in flight: Redis
             * works on one while the next is formatted and the replies of
             * the one before are read, instead of both sides taking turns. */
            size_t limit = count;
            int retry = 1;
            r->out_len = 0;
            for (sent = got = done; got < limit;) {
                if (sent < limit && sent - got <= APPEND_CHUNK) {
                    size_t end = sent + APPEND_CHUNK < limit ? sent + APPEND_CHUNK : limit;
                    for (; sent < end; sent++)
                        if (format_append(r, &items[sent], r->buf + offs[sent],
                                          aps_replay_redis_record_size(&items[sent].meta,
                                                                       items[sent].len),
                                          tok[sent], strlen(tok[sent])) != 0) {
                            limit = sent; /* out of memory: finish what was sent */
                            break;
                        }
                    if (send_out(r) != 0) {
                        s = io_error(r, &e, "appending");
                        break;
                    }
                    continue;
                }
                s = take_reply(r, err, &e, got, seqs, &retry);
                if (s != APS_OK)
                    break;
                done = ++got;
            }
            if (s == APS_OK && done < count)
                return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory to queue an append");
            if (s == APS_OK)
                return APS_OK;
            if (!retry)
                return s;
        }
        resumed = 1;
        if (now_ms() >= deadline) {
            if (err != NULL && err->code == APS_OK)
                *err = e;
            return APS_E_IO;
        }
        usleep(50000); /* Redis is restarting or failing over: give it a moment */
    }
    return APS_OK;
}

/* ---- reads ---- */

typedef struct snapshot {
    redisReply *rep;
    uint64_t epoch, first, drops, last, oldest, vcount, vbytes, run;
    const redisReply *entries, *base;
} snapshot;

/*
 * MULTI, the snapshot script, XRANGE from `from` (when count > 0), EXEC: one
 * round trip, one consistent view. Returns EXEC's reply, or NULL when the
 * connection failed (then dropped). A NOSCRIPT answer (scripts flushed) is
 * answered by loading them again and trying once more.
 */
static redisReply *snapshot_exec(redis_store *r, const char *const *argv, uint64_t from,
                                 size_t count)
{
    char start[32], cnt[24];
    int attempt, i, replies;
    for (attempt = 0; attempt < 2; attempt++) {
        const char *a[12];
        size_t l[12];
        redisReply *rep = NULL, *exec = NULL;
        int n = 0, failed = 0;
        (void)redisAppendCommand(r->c, "MULTI");
        a[n] = "EVALSHA"; l[n++] = 7;
        a[n] = r->sha[S_SNAPSHOT]; l[n++] = 40;
        a[n] = "4"; l[n++] = 1;
        for (i = 0; i < 4; i++, n++) {
            a[n] = r->keys[i];
            l[n] = strlen(a[n]);
        }
        for (i = 0; i < 3; i++, n++) {
            a[n] = argv[i];
            l[n] = strlen(a[n]);
        }
        (void)redisAppendCommandArgv(r->c, n, a, l);
        replies = 3;
        if (count > 0) {
            snprintf(start, sizeof start, "0-%" PRIu64, from);
            snprintf(cnt, sizeof cnt, "%zu", count);
            a[0] = "XRANGE"; a[1] = r->keys[K_LOG]; a[2] = start; a[3] = "+"; a[4] = "COUNT";
            a[5] = cnt;
            for (i = 0; i < 6; i++)
                l[i] = strlen(a[i]);
            (void)redisAppendCommandArgv(r->c, 6, a, l);
            replies++;
        }
        (void)redisAppendCommand(r->c, "EXEC");
        for (i = 0; i < replies; i++) {
            if (redisGetReply(r->c, (void **)&rep) != REDIS_OK || rep == NULL) {
                failed = 1;
                break;
            }
            if (i == replies - 1)
                exec = rep;
            else
                freeReplyObject(rep);
        }
        if (failed) {
            if (exec != NULL)
                freeReplyObject(exec);
            return NULL;
        }
        if (attempt == 0 && exec->type == REDIS_REPLY_ARRAY && exec->elements > 0 &&
            exec->element[0]->type == REDIS_REPLY_ERROR &&
            strncmp(exec->element[0]->str, "NOSCRIPT", 8) == 0) {
            aps_error ignored = APS_ERROR_INIT;
            freeReplyObject(exec);
            if (load_scripts(r, &ignored) != APS_OK)
                return NULL;
            continue;
        }
        return exec;
    }
    return NULL;
}

static aps_status take_snapshot(redis_store *r, uint64_t from, size_t count, int want_base,
                                snapshot *sn, aps_error *err)
{
    const char *argv[3];
    redisReply *exec, *rep;
    int ok = 1;
    aps_status s = ready(r, 0, err);
    memset(sn, 0, sizeof *sn);
    if (s != APS_OK)
        return s;
    argv[0] = r->maxlen;
    argv[1] = "0";
    argv[2] = want_base ? "1" : "0";
    exec = snapshot_exec(r, argv, from, count);
    if (exec == NULL) {
        /* A read is safe to repeat: on a dropped connection, once more on a new one. */
        aps_error lost = APS_ERROR_INIT;
        (void)io_error(r, &lost, "reading the log");
        if ((s = ready(r, 0, err)) != APS_OK)
            return s;
        exec = snapshot_exec(r, argv, from, count);
    }
    if (exec == NULL)
        return io_error(r, err, "reading the log");
    if (exec->type == REDIS_REPLY_ERROR) {
        s = refused(r, err, "the read", exec);
        freeReplyObject(exec);
        return s;
    }
    if (exec->type != REDIS_REPLY_ARRAY || exec->elements != (count > 0 ? 2u : 1u)) {
        freeReplyObject(exec);
        return bad_reply(err, "EXEC");
    }
    rep = exec->element[0];
    if (rep->type == REDIS_REPLY_ERROR) {
        s = refused(r, err, "the read", rep);
        freeReplyObject(exec);
        return s;
    }
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 10 ||
        rep->element[0]->type != REDIS_REPLY_STRING || rep->element[5]->type != REDIS_REPLY_ARRAY ||
        rep->element[6]->type != REDIS_REPLY_ARRAY || rep->element[6]->elements % 2 != 0 ||
        (count > 0 && exec->element[1]->type != REDIS_REPLY_ARRAY)) {
        freeReplyObject(exec);
        return bad_reply(err, "snapshot");
    }
    sn->rep = exec;
    sn->epoch = rep->element[0]->len == 0 ? 0 : num_of(rep->element[0], &ok);
    sn->first = num_of(rep->element[1], &ok);
    sn->drops = num_of(rep->element[2], &ok);
    sn->last = num_of(rep->element[3], &ok);
    sn->oldest = num_of(rep->element[4], &ok);
    sn->vcount = num_of(rep->element[7], &ok);
    sn->vbytes = num_of(rep->element[8], &ok);
    sn->run = num_of(rep->element[9], &ok);
    sn->entries = count > 0 ? exec->element[1] : rep->element[5];
    sn->base = rep->element[6];
    if (!ok || sn->oldest == 0 || sn->oldest > sn->last + 1) {
        freeReplyObject(exec);
        sn->rep = NULL;
        return bad_reply(err, "snapshot numbers");
    }
    return APS_OK;
}

/* An entry [id, [field, value...]]: its seq and its `m` record. */
static aps_status entry_of(const redisReply *e, uint64_t *seq, const redisReply **rec,
                           aps_error *err)
{
    size_t j;
    *rec = NULL;
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 ||
        e->element[0]->type != REDIS_REPLY_STRING || e->element[1]->type != REDIS_REPLY_ARRAY)
        return bad_reply(err, "stream entry");
    *seq = id_seq(e->element[0]->str, e->element[0]->len);
    for (j = 0; j + 1 < e->element[1]->elements; j += 2) {
        const redisReply *k = e->element[1]->element[j];
        if (k->type == REDIS_REPLY_STRING && k->len == 1 && k->str[0] == 'm')
            *rec = e->element[1]->element[j + 1];
    }
    if (*seq == 0 || *rec == NULL || (*rec)->type != REDIS_REPLY_STRING)
        return bad_reply(err, "stream entry without an id 0-SEQ or a record");
    return APS_OK;
}

static aps_status decode(redis_store *r, const redisReply *rec, uint64_t seq, int baseline,
                         aps_replay_event *ev, aps_error *err)
{
    aps_status s = aps_replay_redis_record_decode(rec->str, rec->len, ev, r->ends, MAX_SEGMENTS, err);
    ev->seq = seq;
    ev->baseline = baseline;
    return s;
}

static aps_status redis_cursor_init(aps_replay_store *st, aps_replay_cursor *cur,
                                    const aps_filter *filter, const aps_replay_start *start,
                                    aps_error *err)
{
    redis_store *r = rs_of(st);
    aps_replay_start sp;
    snapshot sn;
    aps_status s;
    if (start != NULL)
        sp = *start;
    else
        memset(&sp, 0, sizeof sp);
    if (cur == NULL || (sp.from == APS_REPLAY_FROM_EVENT_ID && sp.event_id.ptr == NULL &&
                        sp.event_id.len > 0) ||
        (unsigned)sp.from > APS_REPLAY_FROM_RUN)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid replay cursor arguments");
    memset(cur, 0, sizeof *cur);
    cur->filter = filter;
    if (sp.from == APS_REPLAY_FROM_EVENT_ID) {
        uint64_t seq = 0;
        s = st->ops->find_event_id(st, sp.event_id, &seq, err);
        if (s != APS_OK && s != APS_E_NOT_FOUND)
            return s;
        sp.seq = seq;
    }
    s = take_snapshot(r, 0, 0, 0, &sn, err);
    if (s != APS_OK)
        return s;
    cur->epoch = sn.epoch;
    switch (sp.from) {
    case APS_REPLAY_FROM_NOW:
        cur->next_seq = sn.last + 1;
        break;
    case APS_REPLAY_FROM_OLDEST:
        cur->next_seq = sn.oldest;
        break;
    case APS_REPLAY_FROM_RUN:
        /* a start already trimmed is below oldest: the first read reports the miss */
        cur->next_seq = sn.run != 0 ? sn.run : sn.oldest;
        break;
    case APS_REPLAY_FROM_SEQ:
        if (sp.seq > sn.last) {
            cur->unknown_point = 1;
            cur->next_seq = sn.first;
        } else {
            cur->next_seq = sp.seq + 1;
        }
        break;
    default: /* FROM_EVENT_ID */
        cur->unknown_point = sp.seq == 0;
        cur->next_seq = sp.seq == 0 ? sn.first : sp.seq + 1;
        break;
    }
    if ((sp.from == APS_REPLAY_FROM_NOW || sp.from == APS_REPLAY_FROM_OLDEST ||
         sp.from == APS_REPLAY_FROM_RUN) &&
        (filter == NULL || aps_filter_has_channel(filter, APS_CHANNEL_VALUES)))
        cur->baseline_before = cur->next_seq;
    freeReplyObject(sn.rep);
    return APS_OK;
}

/* The due baseline state with the smallest seq the cursor has not had (index into base, or -1). */
static long next_base(redis_store *r, const aps_replay_cursor *cur, const snapshot *sn,
                      aps_replay_event *out, aps_error *err, aps_status *st)
{
    size_t i;
    long best = -1;
    uint64_t best_seq = 0;
    *st = APS_OK;
    for (i = 0; i + 1 < sn->base->elements; i += 2) {
        int ok = 1;
        uint64_t seq = num_of(sn->base->element[i], &ok);
        aps_replay_event ev;
        if (!ok || sn->base->element[i + 1]->type != REDIS_REPLY_STRING) {
            *st = bad_reply(err, "baseline state");
            return -1;
        }
        if (seq <= cur->baseline_done || seq >= cur->baseline_before ||
            (best >= 0 && seq > best_seq))
            continue;
        *st = decode(r, sn->base->element[i + 1], seq, 1, &ev, err);
        if (*st != APS_OK)
            return -1;
        if (cur->filter == NULL ||
            aps_filter_match(cur->filter, APS_CHANNEL_VALUES, ev.custom_name, ev.ns)) {
            best = (long)i;
            best_seq = seq;
        }
    }
    if (best >= 0)
        *st = decode(r, sn->base->element[best + 1], best_seq, 1, out, err);
    return best;
}

static aps_status redis_read(aps_replay_store *st, aps_replay_cursor *cur, size_t max_events,
                             aps_replay_visit_fn visit, void *ctx, size_t *delivered,
                             aps_replay_gap *gap, aps_error *err)
{
    redis_store *r = rs_of(st);
    size_t n = 0, batch, i;
    uint64_t lost = 0;
    int round, missed, hole = 0;
    aps_status s = APS_OK;
    aps_replay_event ev;

    if (cur == NULL || visit == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid replay read arguments");
    batch = cur->filter == NULL && max_events < 512 ? max_events : 512;
    if (batch == 0)
        batch = 1;
    for (round = 0;; round++) {
        snapshot sn;
        uint64_t head;
        hole = 0;
        s = take_snapshot(r, cur->next_seq, n < max_events ? batch : 0,
                          cur->baseline_before != 0, &sn, err);
        if (s != APS_OK)
            break;
        missed = 0;
        if (sn.epoch != cur->epoch && sn.epoch != 0) {
            /* Redis lost the run and a producer started it again. */
            if (n > 0) {
                freeReplyObject(sn.rep);
                break; /* the next read reports it */
            }
            if (cur->epoch != 0 && sn.first < cur->next_seq) {
                /* The new epoch reuses seqs this reader had: its position
                 * is unknown; everything of the new epoch is new to it. */
                missed = 1;
                lost += sn.oldest - sn.first;
                cur->next_seq = sn.oldest;
            }
            cur->epoch = sn.epoch;
        }
        if (round == 0) {
            missed |= cur->unknown_point;
            cur->unknown_point = 0;
        }
        /* Everything from next_seq to the first entry there is gone. */
        head = sn.entries->elements > 0 ? 0 : sn.oldest;
        if (sn.entries->elements > 0) {
            const redisReply *rec;
            s = entry_of(sn.entries->element[0], &head, &rec, err);
            if (s != APS_OK) {
                freeReplyObject(sn.rep);
                break;
            }
            if (head < sn.oldest)
                head = sn.oldest; /* left by MAXLEN ~, outside the window */
        }
        if (cur->next_seq <= sn.last && head > cur->next_seq) {
            if (n > 0) {
                freeReplyObject(sn.rep);
                break; /* delivered already: the next read reports the gap */
            }
            missed = 1;
            lost += head - cur->next_seq;
            cur->next_seq = head;
        } else if (cur->next_seq < sn.oldest) {
            missed = 1;
            lost += sn.oldest - cur->next_seq;
            cur->next_seq = sn.oldest;
        }
        if (cur->baseline_before != 0 && sn.drops != cur->baseline_drops) {
            missed = 1;
            lost += sn.drops - cur->baseline_drops;
            cur->baseline_drops = sn.drops;
        }
        if (missed) {
            if (gap != NULL) {
                gap->lost = lost;
                gap->oldest_seq = sn.oldest;
            }
            freeReplyObject(sn.rep);
            return APS_E_MISSED;
        }
        while (n < max_events && cur->baseline_before != 0) {
            long b = next_base(r, cur, &sn, &ev, err, &s);
            if (s != APS_OK)
                break;
            if (b < 0) {
                cur->baseline_before = 0;
                break;
            }
            if (visit(ctx, &ev) != 0) {
                freeReplyObject(sn.rep);
                goto done;
            }
            cur->baseline_done = ev.seq;
            n++;
        }
        for (i = 0; s == APS_OK && n < max_events && i < sn.entries->elements; i++) {
            const redisReply *rec;
            uint64_t seq;
            s = entry_of(sn.entries->element[i], &seq, &rec, err);
            if (s != APS_OK)
                break;
            if (seq != cur->next_seq) {
                hole = 1; /* a hole inside the log: reported from the next snapshot */
                break;
            }
            s = decode(r, rec, seq, 0, &ev, err);
            if (s != APS_OK)
                break;
            if (cur->filter != NULL &&
                !aps_filter_match(cur->filter, ev.channel, ev.custom_name, ev.ns)) {
                cur->next_seq++;
                continue;
            }
            if (visit(ctx, &ev) != 0) {
                freeReplyObject(sn.rep);
                goto done;
            }
            cur->next_seq++;
            n++;
        }
        {
            /* Go on while batches come back full and room is left; a hole
             * met before anything was delivered is reported now, not left
             * to a caller that stops at 0 delivered. */
            int more = s == APS_OK && n < max_events &&
                       ((i == sn.entries->elements && sn.entries->elements == batch &&
                         cur->next_seq <= sn.last) ||
                        (hole && n == 0));
            freeReplyObject(sn.rep);
            if (!more)
                break;
        }
    }
done:
    if (delivered != NULL)
        *delivered = n;
    return s;
}

static aps_status redis_wait(aps_replay_store *st, const aps_replay_cursor *cur,
                             unsigned timeout_ms, aps_error *err)
{
    redis_store *r = rs_of(st);
    char after[32], block[24];
    const char *a[7];
    size_t l[7];
    int k;
    redisReply *rep;
    aps_status s;
    if (cur->unknown_point || cur->baseline_before != 0)
        return APS_OK;
    s = ready(r, 0, err);
    if (s != APS_OK)
        return s;
    snprintf(after, sizeof after, "0-%" PRIu64, cur->next_seq > 0 ? cur->next_seq - 1 : 0);
    snprintf(block, sizeof block, "%u", timeout_ms > 0 ? timeout_ms : 1);
    a[0] = "XREAD"; a[1] = "COUNT"; a[2] = "1"; a[3] = "BLOCK"; a[4] = block;
    a[5] = "STREAMS"; a[6] = r->keys[K_LOG];
    for (k = 0; k < 7; k++)
        l[k] = strlen(a[k]);
    /* The socket must outwait the block. */
    (void)redisSetTimeout(r->c, tv_ms(timeout_ms + r->command_ms));
    {
        const char *a2[8];
        size_t l2[8];
        memcpy(a2, a, sizeof a);
        memcpy(l2, l, sizeof l);
        a2[7] = after;
        l2[7] = strlen(after);
        rep = (redisReply *)redisCommandArgv(r->c, 8, a2, l2);
    }
    if (rep == NULL)
        return io_error(r, err, "waiting for events");
    (void)redisSetTimeout(r->c, tv_ms(r->command_ms));
    if (rep->type == REDIS_REPLY_ERROR) {
        s = refused(r, err, "XREAD", rep);
        freeReplyObject(rep);
        return s;
    }
    s = rep->type == REDIS_REPLY_ARRAY ? APS_OK : APS_E_NOT_FOUND;
    freeReplyObject(rep);
    return s;
}

/* One event by seq: from the snapshot, so that an entry the window has left is not found. */
static aps_status redis_get(aps_replay_store *st, uint64_t seq, aps_replay_visit_fn visit,
                            void *ctx, aps_error *err)
{
    redis_store *r = rs_of(st);
    snapshot sn;
    aps_status s;
    if (visit == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no visitor given");
    if (seq == 0)
        return APS_E_NOT_FOUND;
    if ((s = take_snapshot(r, seq, 1, 0, &sn, err)) != APS_OK)
        return s;
    s = APS_E_NOT_FOUND;
    if (seq >= sn.oldest && seq <= sn.last && sn.entries->elements == 1) {
        const redisReply *rec;
        uint64_t got;
        aps_replay_event ev;
        s = entry_of(sn.entries->element[0], &got, &rec, err);
        if (s == APS_OK && got != seq)
            s = APS_E_NOT_FOUND;
        else if (s == APS_OK)
            s = decode(r, rec, got, 0, &ev, err);
        if (s == APS_OK)
            (void)visit(ctx, &ev);
    }
    freeReplyObject(sn.rep);
    return s;
}

static aps_status redis_find(aps_replay_store *st, aps_slice id, uint64_t *seq, aps_error *err)
{
    redis_store *r = rs_of(st);
    const char *argv[2];
    size_t len[2];
    redisReply *rep;
    aps_status s;
    int ok = 1;
    if (seq == NULL || (id.ptr == NULL && id.len > 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid eventId lookup arguments");
    *seq = 0;
    if ((s = ready(r, 0, err)) != APS_OK)
        return s;
    argv[0] = id.ptr != NULL ? id.ptr : "";
    len[0] = id.len;
    argv[1] = r->maxlen;
    len[1] = strlen(r->maxlen);
    rep = run_script(r, S_FIND, 1, 2, argv, len);
    if (rep == NULL)
        return io_error(r, err, "looking up an eventId");
    if (rep->type == REDIS_REPLY_ERROR)
        s = refused(r, err, "the eventId lookup", rep);
    else
        *seq = num_of(rep, &ok);
    if (s == APS_OK && !ok)
        s = bad_reply(err, "eventId lookup");
    freeReplyObject(rep);
    if (s == APS_OK && *seq == 0)
        s = APS_E_NOT_FOUND;
    return s;
}

static aps_status redis_stats(aps_replay_store *st, aps_replay_stats *out, aps_error *err)
{
    snapshot sn;
    aps_status s = take_snapshot(rs_of(st), 0, 0, 0, &sn, err);
    memset(out, 0, sizeof *out);
    if (s != APS_OK)
        return s;
    out->oldest_seq = sn.oldest;
    out->last_seq = sn.last;
    out->events = (size_t)(sn.last + 1 - sn.oldest);
    out->baseline_namespaces = (size_t)sn.vcount;
    out->baseline_bytes = (size_t)sn.vbytes;
    out->baseline_drops = sn.drops;
    out->run_start = sn.run;
    freeReplyObject(sn.rep);
    return APS_OK;
}

static void redis_close(aps_replay_store *st)
{
    redis_store *r = rs_of(st);
    int i;
    drop_connection(r);
    for (i = 0; i < K_COUNT; i++)
        free(r->keys[i]);
    free(r->buf);
    free(r->out);
    free(r);
}

static const aps_replay_store_ops redis_ops = { redis_append_many, redis_cursor_init, redis_read,
                                                redis_wait, redis_get, redis_find, redis_stats,
                                                redis_close };

aps_status aps_replay_redis_expire(aps_replay_store *st, unsigned seconds, aps_error *err)
{
    redis_store *r;
    int i;
    aps_status s;
    if (st == NULL || st->ops != &redis_ops)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "not a Redis replay store");
    r = rs_of(st);
    if ((s = ready(r, 0, err)) != APS_OK)
        return s;
    for (i = 0; i < K_COUNT; i++)
        (void)redisAppendCommand(r->c, "EXPIRE %s %u", r->keys[i], seconds);
    for (i = 0; i < K_COUNT; i++) {
        redisReply *rep = NULL;
        if (redisGetReply(r->c, (void **)&rep) != REDIS_OK || rep == NULL)
            return io_error(r, err, "EXPIRE");
        freeReplyObject(rep);
    }
    return APS_OK;
}

/* A producer id: distinct across processes and stores without a global. */
static uint64_t producer_id(const void *self)
{
    struct timespec t;
    uint64_t h;
    clock_gettime(CLOCK_REALTIME, &t);
    h = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ ((uint64_t)getpid() << 17) ^
        (uint64_t)(uintptr_t)self;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

aps_status aps_replay_redis_open(aps_replay_store **out, const aps_replay_redis_options *opt,
                                 aps_error *err)
{
    redis_store *r;
    aps_status s;
    const char *prefix;
    int i;
    if (out == NULL || opt == NULL || opt->url == NULL || opt->run == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "a Redis store needs a URL and a run");
    *out = NULL;
    r = (redis_store *)calloc(1, sizeof *r);
    if (r == NULL)
        return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the Redis store");
    r->base.ops = &redis_ops;
    s = aps_replay_redis_parse_url(opt->url, strlen(opt->url), &r->url, err);
    if (s != APS_OK) {
        free(r);
        return s;
    }
    r->replay = opt->replay;
    if (r->replay.max_events == 0)
        r->replay.max_events = APS_REPLAY_DEFAULT_EVENTS;
    if (r->replay.max_bytes == 0)
        r->replay.max_bytes = APS_REPLAY_DEFAULT_BYTES;
    if (r->replay.baseline_namespaces == 0)
        r->replay.baseline_namespaces = APS_REPLAY_DEFAULT_BASELINE_NAMESPACES;
    if (r->replay.baseline_bytes == 0)
        r->replay.baseline_bytes = r->replay.max_bytes;
    snprintf(r->maxlen, sizeof r->maxlen, "%zu", r->replay.max_events);
    snprintf(r->ns_max, sizeof r->ns_max, "%zu", r->replay.baseline_namespaces);
    snprintf(r->bytes_max, sizeof r->bytes_max, "%zu", r->replay.baseline_bytes);
    r->connect_ms = opt->connect_timeout_ms ? opt->connect_timeout_ms : APS_REPLAY_REDIS_DEFAULT_CONNECT_MS;
    r->command_ms = opt->command_timeout_ms ? opt->command_timeout_ms : APS_REPLAY_REDIS_DEFAULT_COMMAND_MS;
    r->retry_ms = opt->retry_ms;
    r->exact = opt->exact_trim != 0;
    r->producer = producer_id(r);
    prefix = opt->key_prefix != NULL ? opt->key_prefix : "aps:";
    for (i = 0; i < K_COUNT; i++) {
        size_t n = strlen(prefix) + strlen(opt->run) + strlen(key_suffix[i]) + 4;
        r->keys[i] = (char *)malloc(n);
        if (r->keys[i] == NULL) {
            redis_close(&r->base);
            return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the Redis store");
        }
        snprintf(r->keys[i], n, "%s{%s}:%s", prefix, opt->run, key_suffix[i]);
        r->key_len[i] = strlen(r->keys[i]);
        r->keys_len += r->key_len[i];
    }
    s = connect_now(r, err);
    if (s != APS_OK) {
        redis_close(&r->base);
        return s;
    }
    *out = &r->base;
    return APS_OK;
}
