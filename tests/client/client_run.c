/*
 * client_run.c - the thread client (ap_client.h) against a live server, for
 * the client-* tests: starts a run on a fresh thread, answers each
 * interrupt with "approved", and prints every message and tool run the
 * callbacks deliver as `apstream assemble` prints them, one JSON line each,
 * in the order they complete. It checks what a line cannot show: each
 * message's deltas, joined, are the text of its finished blocks, and no
 * message starts or finishes twice.
 *
 *   client_run URL THREAD sse|websocket [last-event-id] [--max-message N] [--timeout MS]
 *              [--command-timeout MS] [--assistant NAME] [--prompt TEXT] [--respond JSON]
 *              [--channels A,B,...] [--depth N] [--watch]
 *
 * --watch: subscribes and reads a run another client starts and answers
 * (every channel unless --channels), until the run completes or fails.
 * --channels subscribes to those channels only; --depth N to the root
 * namespace's events down to N levels below it (namespaces [[]], depth N).
 * (defaults: agent, "hello", "approved"; the run's input is
 * {messages: [{role: "user", content: TEXT}]}).
 *
 * Exit 0 when the run completed; 1 when the client said an error it could
 * not work around, or a check failed; 2 for usage. Counts on stderr, and
 * the process's peak memory (maxrss, KiB) for the hostile-server test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ap_client.h"

#define MAX_MESSAGES 256

typedef struct run {
    aps_json_writer line;
    struct {
        char id[128];
        char text[16384];     /* the text deltas of block 0, joined */
        size_t len;
        int finished;
    } m[MAX_MESSAGES];
    size_t n;
    unsigned long starts, deltas, finishes, tools, interrupts, misses, errors;
    int failed;
} run;

static int find(run *r, aps_slice id)
{
    size_t i;
    for (i = 0; i < r->n; i++)
        if (strlen(r->m[i].id) == id.len && memcmp(r->m[i].id, id.ptr, id.len) == 0)
            return (int)i;
    return -1;
}

static int contains(const char *hay, size_t n, const char *needle, size_t k)
{
    size_t i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

/* Whether the line holds `json` with its non-ASCII characters (BMP) written \\uXXXX, as a server may send them. */
static int contains_ascii(run *r, const char *json, size_t len)
{
    static char esc[6 * 16384];
    size_t i = 0, n = 0;
    while (i < len && n + 6 < sizeof esc) {
        unsigned char b = (unsigned char)json[i];
        unsigned cp;
        if (b < 0x80) {
            esc[n++] = (char)b;
            i++;
            continue;
        }
        if ((b & 0xe0) == 0xc0 && i + 1 < len) {
            cp = ((b & 0x1fu) << 6) | ((unsigned char)json[i + 1] & 0x3fu);
            i += 2;
        } else if ((b & 0xf0) == 0xe0 && i + 2 < len) {
            cp = ((b & 0x0fu) << 12) | (((unsigned char)json[i + 1] & 0x3fu) << 6) |
                 ((unsigned char)json[i + 2] & 0x3fu);
            i += 3;
        } else {
            return 0; /* beyond the BMP: not checked this way */
        }
        n += (size_t)snprintf(esc + n, sizeof esc - n, "\\u%04x", cp);
    }
    return contains(aps_json_writer_data(&r->line), aps_json_writer_len(&r->line), esc, n);
}

static void on_start(void *user, const ap_client_message_start *m)
{
    run *r = user;
    r->starts++;
    if (find(r, m->id) >= 0) {
        fprintf(stderr, "client_run: message %.*s started twice\n", (int)m->id.len, m->id.ptr);
        r->failed = 1;
        return;
    }
    if (r->n == MAX_MESSAGES || m->id.len >= sizeof r->m[0].id)
        return;
    memcpy(r->m[r->n].id, m->id.ptr, m->id.len);
    r->m[r->n].id[m->id.len] = '\0';
    r->n++;
}

static void on_delta(void *user, const aps_asm_message *m, uint64_t index, aps_asm_delta kind, aps_slice text)
{
    run *r = user;
    int i = find(r, aps_asm_message_id(m));
    r->deltas++;
    if (i < 0 || kind != APS_ASM_DELTA_TEXT || index != 0)
        return;
    if (r->m[i].len + text.len > sizeof r->m[i].text) {
        r->m[i].len = (size_t)-1; /* too long to check here */
        return;
    }
    if (r->m[i].len != (size_t)-1) {
        memcpy(r->m[i].text + r->m[i].len, text.ptr, text.len);
        r->m[i].len += text.len;
    }
}

static void print_line(run *r)
{
    printf("%.*s\n", (int)aps_json_writer_len(&r->line), aps_json_writer_data(&r->line));
    aps_json_writer_reset(&r->line);
}

static void on_finish(void *user, const aps_asm_message *m)
{
    run *r = user;
    int i = find(r, aps_asm_message_id(m));
    r->finishes++;
    if (i >= 0 && r->m[i].finished++) {
        fprintf(stderr, "client_run: message %s finished twice\n", r->m[i].id);
        r->failed = 1;
    }
    aps_asm_message_write(m, &r->line);
    if (i >= 0 && r->m[i].len > 0 && r->m[i].len != (size_t)-1) {
        /* block 0's text deltas, joined (as JSON), are in the message as delivered */
        aps_json_writer joined;
        aps_json_writer_init(&joined, NULL);
        aps_json_write_string(&joined, r->m[i].text, r->m[i].len);
        if (aps_json_writer_status(&joined) != APS_OK ||
            (!contains(aps_json_writer_data(&r->line), aps_json_writer_len(&r->line),
                       aps_json_writer_data(&joined), aps_json_writer_len(&joined)) &&
             !contains_ascii(r, aps_json_writer_data(&joined), aps_json_writer_len(&joined)))) {
            fprintf(stderr, "client_run: message %s: its deltas joined (%.*s) are not its text\n", r->m[i].id,
                    (int)aps_json_writer_len(&joined), aps_json_writer_data(&joined));
            r->failed = 1;
        }
        aps_json_writer_deinit(&joined);
    }
    print_line(r);
}

static void on_tool(void *user, const aps_asm_tool *t)
{
    run *r = user;
    r->tools++;
    aps_asm_tool_write(t, &r->line);
    print_line(r);
}

static void on_interrupt(void *user, const ap_client_interrupt *in)
{
    run *r = user;
    (void)in;
    r->interrupts++;
}

static void on_miss(void *user, uint64_t lost, uint64_t oldest)
{
    run *r = user;
    r->misses++;
    fprintf(stderr, "client_run: the server missed %llu events (oldest seq %llu)\n", (unsigned long long)lost,
            (unsigned long long)oldest);
}

static void on_error(void *user, const aps_error *err)
{
    run *r = user;
    r->errors++;
    fprintf(stderr, "client_run: %s\n", err->message);
}

int main(int argc, char **argv)
{
    static run r;
    ap_client_options o;
    ap_client *c;
    ap_client_response resp;
    ap_client_run_end end = AP_CLIENT_RUN_NONE;
    aps_error err = APS_ERROR_INIT;
    uint64_t events, repeats, missed;
    int i, rounds, timeout = 60000, command_timeout = 10000;
    struct rusage ru;
    const char *assistant = "agent", *prompt = "hello", *respond = "\"approved\"";
    char input[2048];
    aps_json_writer text;
    static const char *const root_ns[] = { NULL };          /* the root namespace: no segment */
    static const char *const *const root[] = { root_ns };
    const char *channels[16];
    size_t nchannels = 0;
    ap_client_subscription sub;
    int watch = 0;
    aps_status st;
    if (argc < 4) {
        fputs("usage: client_run URL THREAD sse|websocket [last-event-id] [--max-message N] [--timeout MS]\n", stderr);
        return 2;
    }
    memset(&o, 0, sizeof o);
    memset(&sub, 0, sizeof sub);
    o.url = argv[1];
    o.thread_id = argv[2];
    o.transport = strcmp(argv[3], "websocket") == 0 ? AP_CLIENT_WEBSOCKET : AP_CLIENT_SSE;
    for (i = 4; i < argc; i++) {
        if (strcmp(argv[i], "last-event-id") == 0)
            o.resume = AP_CLIENT_RESUME_LAST_EVENT_ID;
        else if (strcmp(argv[i], "--max-message") == 0 && i + 1 < argc)
            o.max_message = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            timeout = atoi(argv[++i]);
        else if (strcmp(argv[i], "--command-timeout") == 0 && i + 1 < argc)
            command_timeout = atoi(argv[++i]);
        else if (strcmp(argv[i], "--assistant") == 0 && i + 1 < argc)
            assistant = argv[++i];
        else if (strcmp(argv[i], "--prompt") == 0 && i + 1 < argc)
            prompt = argv[++i];
        else if (strcmp(argv[i], "--respond") == 0 && i + 1 < argc)
            respond = argv[++i];
        else if (strcmp(argv[i], "--channels") == 0 && i + 1 < argc) {
            char *p = strtok(argv[++i], ",");
            for (; p != NULL && nchannels < 16; p = strtok(NULL, ","))
                channels[nchannels++] = p;
            sub.channels = channels;
            sub.channels_len = nchannels;
        } else if (strcmp(argv[i], "--watch") == 0) {
            watch = 1;
        } else if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
            sub.namespaces = root;
            sub.namespaces_len = 1;
            sub.depth = atoi(argv[++i]);
            sub.has_depth = 1;
        }
    }
    o.callbacks.on_message_start = on_start;
    o.callbacks.on_message_delta = on_delta;
    o.callbacks.on_message_finish = on_finish;
    o.callbacks.on_tool = on_tool;
    o.callbacks.on_interrupt = on_interrupt;
    o.callbacks.on_miss = on_miss;
    o.callbacks.on_error = on_error;
    o.callbacks.user = &r;
    o.command_timeout_ms = command_timeout;
    aps_json_writer_init(&r.line, NULL);
    if ((c = ap_client_open(&o, &err)) == NULL) {
        fprintf(stderr, "client_run: %s\n", err.message);
        return 1;
    }
    if ((watch || sub.channels != NULL || sub.namespaces != NULL) && ap_client_subscribe(c, &sub, &err) != APS_OK) {
        fprintf(stderr, "client_run: %s\n", err.message);
        ap_client_close(c);
        return 1;
    }
    aps_json_writer_init(&text, NULL);
    aps_json_write_string(&text, prompt, strlen(prompt));
    snprintf(input, sizeof input, "{\"messages\":[{\"role\":\"user\",\"content\":%.*s}]}",
             (int)aps_json_writer_len(&text), aps_json_writer_data(&text));
    aps_json_writer_deinit(&text);
    if (watch) {
        /* another client's run: its interrupts are that client's to answer */
        for (rounds = 0; rounds < 10; rounds++)
            if ((st = ap_client_run_until_done(c, timeout, &end, &err)) != APS_OK || end != AP_CLIENT_RUN_INTERRUPTED)
                break;
        goto done;
    }
    st = ap_client_run_start(c, assistant, input, &resp, &err);
    if (st == APS_OK && !resp.ok) {
        fprintf(stderr, "client_run: run.start refused: %.*s\n", (int)resp.len, resp.json);
        st = aps_error_set(&err, APS_E_STATE, 0, "the run was not started");
    }
    for (rounds = 0; st == APS_OK && rounds < 10; rounds++) {
        const ap_client_interrupt *in;
        st = ap_client_run_until_done(c, timeout, &end, &err);
        if (st != APS_OK || end != AP_CLIENT_RUN_INTERRUPTED)
            break;
        if ((in = ap_client_interrupt_last(c)) == NULL) {
            st = aps_error_set(&err, APS_E_STATE, 0, "interrupted, but no interrupt was surfaced");
            break;
        }
        st = ap_client_respond(c, in, respond, &resp, &err);
        if (st == APS_OK && !resp.ok) {
            fprintf(stderr, "client_run: input.respond refused: %.*s\n", (int)resp.len, resp.json);
            st = aps_error_set(&err, APS_E_STATE, 0, "the interrupt was not answered");
        }
    }
done:
    if (st != APS_OK)
        fprintf(stderr, "client_run: %s\n", err.message);
    else if (end == AP_CLIENT_RUN_NONE)
        fprintf(stderr, "client_run: the run did not end in time\n");
    ap_client_counts(c, &events, &repeats, &missed);
    ap_client_close(c);
    fflush(stdout);
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr,
            "client_run: %llu events, %llu repeats dropped, %llu missed; messages %lu started, %lu finished, "
            "%lu deltas; %lu tools; %lu interrupts; maxrss %ld KiB\n",
            (unsigned long long)events, (unsigned long long)repeats, (unsigned long long)missed, r.starts, r.finishes,
            r.deltas, r.tools, r.interrupts, (long)ru.ru_maxrss);
    aps_json_writer_deinit(&r.line);
    return st == APS_OK && end == AP_CLIENT_RUN_COMPLETED && !r.failed ? 0 : 1;
}
