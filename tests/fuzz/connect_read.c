/*
 * connect_read.c - fuzz target for `apstream connect`'s reading path
 * (tools/apstream/connect_read.c, with validate's checker, check.c): the
 * bytes a server sends, to verdicts. The first byte picks the case: bit 0,
 * SSE bytes (else WebSocket messages, one a line); bit 1, the stream is a
 * resume after seq 3; bit 2, a filtered subscription reads the same bytes
 * too; bit 3, commands 1 to 3 are in flight (bit 5: as the commands probe's,
 * command 2 sent without an id; bit 6: the stream is a WebSocket resume by a
 * new subscription after seq 3); the second byte is where the
 * SSE bytes are cut in two. Whatever the bytes, the reading path must not
 * crash, leak or go out of bounds, and an SSE stream's verdicts (events,
 * findings, the run's end) must not depend on how the bytes were chunked:
 * they are read whole, and in two pieces, and compared. A baseline that
 * accepts two findings is loaded on the first input, and the findings are
 * kept as for --write-baseline, so that accepting and recording are fuzzed
 * too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/apstream/connect.h"

typedef struct verdict {
    uint64_t events, errors, valid, invalid, found;
    int ended;
    size_t got;
} verdict;

static FILE *sink(void)
{
    static FILE *f;
    if (f == NULL)
        f = fopen("/dev/null", "w");
    return f;
}

/* One reading of the input; `cut`: where SSE bytes are split (0: pushed whole). */
static void read_once(const apstream_options *o, unsigned mode, const uint8_t *data, size_t size, size_t cut,
                      verdict *v)
{
    static const char filter[] = "{\"channels\":[\"lifecycle\",\"messages\"],\"namespaces\":[[]],\"depth\":1}";
    cx_session s;
    cx_stream main, side;
    int sse = mode & 1, i;
    memset(v, 0, sizeof *v);
    if (cx_session_init(&s, o, sink()) != 0)
        return;
    if ((mode & 4) && cx_session_set_filter(&s, filter, sizeof filter - 1, 0) != 0)
        abort(); /* the filter is valid: it must compile */
    if (cx_stream_init(&main, &s, CX_MAIN, sse) != 0 || cx_stream_init(&side, &s, CX_FILTER, sse) != 0)
        abort();
    if (mode & 2) {
        main.how = CX_RESUME_SINCE;
        main.has_after = 1;
        main.after_seq = 3;
    }
    if (mode & 64) {
        main.how = CX_RESUME_SUBSCRIBE;
        main.has_after = 1;
        main.after_seq = 3;
        main.skip_through = 3;
    }
    if (mode & 8)
        for (i = 1; i <= 3; i++) {
            static const char *const methods[] = { "state.get", "state.fork", "agent.getTree" };
            (void)cx_pending_add(&s, (uint64_t)i, (mode & 32) ? methods[i - 1] : "fuzz", sse ? NULL : &main, i == 3);
            if (mode & 32)
                cx_pending_probe(&s, (uint64_t)i, i == 2);
        }
    if (sse) {
        if (cut > size)
            cut = size;
        if (cx_sse_push(&main, (const char *)data, cut) == 0 && cx_sse_push(&main, (const char *)data + cut, size - cut) == 0)
            cx_sse_end(&main);
        if (mode & 4) {
            if (cx_sse_push(&side, (const char *)data, size) == 0)
                cx_sse_end(&side);
        }
    } else {
        /* one message a line, each in a buffer of its own (padded, as the transport gives it) */
        size_t at = 0;
        while (at < size) {
            const uint8_t *nl = memchr(data + at, '\n', size - at);
            size_t n = nl != NULL ? (size_t)(nl - (data + at)) : size - at;
            char *msg = malloc(n + APS_PADDING);
            if (msg == NULL)
                break;
            memcpy(msg, data + at, n);
            memset(msg + n, 0, APS_PADDING);
            if (cx_ws_message(&main, msg, n) < 0) {
                free(msg);
                break;
            }
            if (mode & 4)
                (void)cx_ws_message(&side, msg, n);
            free(msg);
            at += n + 1;
        }
    }
    v->events = s.events;
    v->ended = s.ended;
    v->got = s.got.n;
    if (s.check != NULL)
        apstream_check_counts(s.check, &v->valid, &v->invalid);
    v->found = cx_session_finish(&s, s.ended);
    v->errors = s.errors;
    cx_stream_deinit(&main);
    cx_stream_deinit(&side);
    cx_session_deinit(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apstream_options o;
    verdict whole, split;
    unsigned mode;
    size_t cut;
    if (size < 2)
        return 0;
    mode = data[0];
    cut = data[1];
    memset(&o, 0, sizeof o);
    o.command = "connect";
    o.type_name = "Message";
    o.file = "fuzz";
    o.strict = 1;
    o.unfiltered = 1;
    o.max_errors = 0;
    o.max_record = 4096; /* small, so the size bound is reached */
    apstream_diag_setup(&o, (mode & 16) != 0);
    {
        static int loaded;
        if (!loaded) {
            static const char accept[] =
                "{\"rule\":\"schema\",\"method\":\"messages\",\"pointer\":\"/params/data/role\"}\n"
                "{\"rule\":\"seq-order\",\"method\":\"lifecycle\",\"pointer\":\"/seq\"}\n";
            char path[] = "/tmp/fuzz-connect-baseline-XXXXXX";
            int fd = mkstemp(path);
            FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
            if (f == NULL)
                abort();
            fputs(accept, f);
            fclose(f);
            o.baseline = path;
            o.write_baseline = "/dev/null";
            if (apstream_baseline_begin(&o) != 0)
                abort();
            remove(path);
            loaded = 1;
        }
    }
    read_once(&o, mode, data + 2, size - 2, 0, &whole);
    if (mode & 1) {
        read_once(&o, mode, data + 2, size - 2, cut, &split);
        if (whole.events != split.events || whole.errors != split.errors || whole.valid != split.valid ||
            whole.invalid != split.invalid || whole.ended != split.ended || whole.got != split.got ||
            whole.found != split.found)
            abort(); /* the verdicts depend on where the bytes were cut */
    }
    return 0;
}
