/*
 * client_read.c - fuzz target for the thread client's reading path
 * (runtime/protocol/client/ap_client.c, with no connection: what a server
 * sends, to callbacks). The first byte picks the case: bit 0, SSE bytes
 * (else WebSocket messages, one a line); bit 1, a de-duplication window of
 * 2 eventIds; bit 2, messages of at most 256 bytes; bit 3, the assembler's
 * strict mode; bit 4, command 2 is in flight. The second byte is where the
 * SSE bytes are cut in two. Whatever the bytes, the client must not crash,
 * leak or go out of bounds, and what it delivers (events, repeats dropped,
 * misses, messages, tools, errors, the run's end, the command's answer)
 * must not depend on how the SSE bytes were chunked: they are read whole,
 * and in two pieces, and compared.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

typedef struct verdict {
    uint64_t events, repeats, missed, messages, tools, errors, interrupts, bytes;
    int ended, answered;
} verdict;

static void on_message(void *user, const aps_asm_message *m)
{
    verdict *v = user;
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_asm_message_write(m, &w); /* every accessor the callbacks offer, on whatever was assembled */
    v->bytes += aps_json_writer_len(&w);
    aps_json_writer_deinit(&w);
    v->messages++;
}

static void on_tool(void *user, const aps_asm_tool *t)
{
    verdict *v = user;
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_asm_tool_write(t, &w);
    v->bytes += aps_json_writer_len(&w);
    aps_json_writer_deinit(&w);
    v->tools++;
}

static void on_error(void *user, const aps_error *err)
{
    verdict *v = user;
    (void)err;
    v->errors++;
}

static void on_interrupt(void *user, const ap_client_interrupt *in)
{
    verdict *v = user;
    v->interrupts++;
    v->bytes += in->interrupt_id.len + in->payload.len + in->ns_len;
}

static void on_delta(void *user, const aps_asm_message *m, uint64_t index, aps_asm_delta kind, aps_slice text)
{
    verdict *v = user;
    (void)m, (void)index, (void)kind;
    v->bytes += text.len;
}

static void read_once(unsigned mode, const uint8_t *data, size_t size, size_t cut, verdict *v)
{
    ap_client_options o;
    ap_client *c;
    memset(v, 0, sizeof *v);
    memset(&o, 0, sizeof o);
    o.url = "http://127.0.0.1:1";
    o.thread_id = "fuzz";
    o.transport = mode & 1 ? AP_CLIENT_SSE : AP_CLIENT_WEBSOCKET;
    o.dedupe_window = mode & 2 ? 2 : 0;
    o.max_message = mode & 4 ? 256 : 1 << 16;
    o.strict = (mode & 8) != 0;
    o.callbacks.on_message_finish = on_message;
    o.callbacks.on_message_delta = on_delta;
    o.callbacks.on_tool = on_tool;
    o.callbacks.on_error = on_error;
    o.callbacks.on_interrupt = on_interrupt;
    o.callbacks.user = v;
    if ((c = apc_client_new(&o, 0, NULL)) == NULL)
        abort(); /* valid options, and memory enough */
    if (mode & 16)
        apc_client_await(c, 2);
    if (mode & 1) {
        if (cut > size)
            cut = size;
        if (apc_client_sse_bytes(c, (const char *)data, cut) == 0)
            (void)apc_client_sse_bytes(c, (const char *)data + cut, size - cut);
    } else {
        size_t at = 0;
        while (at < size) {
            const uint8_t *nl = memchr(data + at, '\n', size - at);
            size_t len = nl != NULL ? (size_t)(nl - (data + at)) : size - at;
            char *msg = malloc(len + APS_PADDING);
            aps_slice none = { NULL, 0 };
            if (msg == NULL)
                abort();
            memcpy(msg, data + at, len);
            memset(msg + len, 0, APS_PADDING);
            if (len <= o.max_message)
                (void)apc_client_message(c, msg, len, none);
            free(msg);
            at += len + 1;
        }
    }
    v->ended = apc_client_run_ended(c);
    v->answered = apc_client_answered(c);
    ap_client_counts(c, &v->events, &v->repeats, &v->missed);
    ap_client_close(c); /* delivers what is still open: counted too */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    verdict whole, split;
    unsigned mode;
    if (size < 2)
        return 0;
    mode = data[0];
    read_once(mode, data + 2, size - 2, size - 2, &whole);
    if (mode & 1) {
        read_once(mode, data + 2, size - 2, data[1], &split);
        if (memcmp(&whole, &split, sizeof whole) != 0)
            abort(); /* the chunking changed what was delivered */
    }
    return 0;
}
