/*
 * server_command.c - fuzz target for the thread server's command path
 * (runtime/protocol/server/ap_server.c, ap_server_threads.c and
 * ap_server_records.c, compiled in: the path is ap_server.c's static functions): the bytes of POST /commands bodies or WebSocket text frames,
 * to commands, to responses. The first byte chooses where they arrive:
 * even, over HTTP; odd, on one WebSocket, where the server answers
 * subscription.* itself (filters and cursors on a thread's log holding a
 * few events). The rest is the texts, one a line. Whatever each is, its
 * answer must be one JSON text that decodes as a Message: a
 * CommandResponse, or an ErrorResponse when the text was no command. After
 * them, every subscription left is read to its end, through its filter.
 */
#include "../../runtime/protocol/server/ap_server_threads.c"
#include "../../runtime/protocol/server/ap_server_records.c"
#include "../../runtime/protocol/server/ap_server_feed.c"
#include "../../runtime/protocol/server/ap_server.c"

static aps_status fuzz_on_command(void *user, ap_server *srv, const ap_server_command *c, ap_message_t *response,
                                  aps_arena *arena)
{
    (void)user;
    (void)srv;
    (void)arena;
    if (c->command->command_data.kind == AP_COMMAND_DATA_STATE_GET)
        return APS_E_NOT_FOUND; /* a product's failure: answered unknown_error */
    if (ap_response_success(response, c->command) == NULL) {
        aps_slice why = { "unknown", 7 };
        ap_response_error(response, c->command, AP_ERROR_CODE_UNKNOWN_COMMAND, why);
    }
    return APS_OK;
}

static void quiet(void *user, const char *line)
{
    (void)user;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ap_server s;
    static srv_thread *t;
    static const char *const events[] = {
        "{\"type\":\"event\",\"method\":\"lifecycle\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"running\"}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"data\":{\"n\":1}}}",
        "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[\"a:1\"],\"data\":{\"name\":\"p\",\"payload\":1}}}",
    };
    conn c;
    aps_json_writer w;
    aps_arena arena;
    ap_message_t msg;
    aps_decode_options dopt;
    int rc;
    size_t i;
    if (t == NULL) {
        aps_slice id = { "fuzz", 4 }, no_run = { NULL, 0 };
        s.opt.max_threads = 4;
        s.opt.max_subscriptions = 8;
        s.opt.key_case = APS_CASE_SNAKE;
        s.opt.on_command = fuzz_on_command;
        s.opt.log = quiet;
        pthread_mutex_init(&s.lock, NULL);
        for (i = 0; i < sizeof events / sizeof events[0]; i++)
            if (ap_server_publish_json(&s, id, events[i], strlen(events[i]), no_run, NULL, NULL) != APS_OK)
                abort();
        t = server_thread(&s, "fuzz", 4, 0);
    }
    if (size == 0)
        return 0;
    memset(&c, 0, sizeof c);
    c.kind = (data[0] & 1) ? C_WS : C_HTTP;
    c.thread = t;
    for (i = 1; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t len = nl != NULL ? (size_t)(nl - (data + i)) : size - i;
        aps_json_writer_init(&w, NULL);
        rc = answer_command(&s, &c, (const char *)data + i, len, &w);
        if (rc < 0)
            abort(); /* out of memory is not for a fuzzer's inputs */
        aps_arena_init(&arena, NULL);
        memset(&dopt, 0, sizeof dopt);
        if (ap_message_decode_opts(aps_json_writer_data(&w), aps_json_writer_len(&w), &arena, &msg, &dopt, NULL) !=
                APS_OK ||
            (msg.kind != AP_MESSAGE_COMMAND_RESPONSE && msg.kind != AP_MESSAGE_ERROR_RESPONSE) ||
            (rc == 1 && msg.kind != AP_MESSAGE_ERROR_RESPONSE)) {
            fprintf(stderr, "not a response: %.*s\n", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
            abort();
        }
        aps_arena_deinit(&arena);
        aps_json_writer_deinit(&w);
        i += len + 1;
    }
    /* the subscriptions left, read through their filters, as the writer reads them */
    for (i = 0; i < c.nsubs; i++) {
        uint64_t n = 0;
        size_t got = 1;
        aps_replay_gap gap;
        while (got > 0 && aps_replay_store_read(t->log, &c.subs[i].cur, 16, count_event, &n, &got, &gap, NULL) !=
                              APS_E_ARGUMENT &&
               n < 1000)
            ;
    }
    subs_free(&c);
    return 0;
}
