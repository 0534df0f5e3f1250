/*
 * chat.c - talks to a live agent server with the thread client (ap_client.h):
 * starts a run on a fresh thread with one user message, prints the tokens
 * as they arrive and each tool call when it finishes, and answers an
 * interrupt with a line read from standard input.
 *
 *   chat URL [ASSISTANT [PROMPT]]      (defaults: agent, and a short prompt)
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ap_client.h"

static void token(void *user, const aps_asm_message *m, uint64_t index, aps_asm_delta kind, aps_slice text)
{
    (void)user, (void)m, (void)index;
    if (kind == APS_ASM_DELTA_TEXT)
        printf("%.*s", (int)text.len, text.ptr), fflush(stdout);
}

/* `fmt` with `s` written in as a JSON string, into out (returned). */
static const char *with_json(char *out, size_t cap, const char *fmt, const char *s)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_string(&w, s, strlen(s));
    snprintf(out, cap, fmt, (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
    aps_json_writer_deinit(&w);
    return out;
}

static void tool(void *user, const aps_asm_tool *t)
{
    aps_slice name = aps_asm_tool_name(t);
    aps_json_raw out = aps_asm_tool_output(t);
    (void)user;
    printf("\n[tool] %.*s -> %.*s\n", (int)name.len, name.ptr, (int)out.len, out.ptr != NULL ? out.ptr : "null");
}

int main(int argc, char **argv)
{
    char thread[64], input[1024], answer[512];
    ap_client_options o = { 0 };
    ap_client_run_end end = AP_CLIENT_RUN_NONE;
    aps_error err = APS_ERROR_INIT;
    if (argc < 2)
        return fprintf(stderr, "usage: chat URL [ASSISTANT [PROMPT]]\n"), 2;
    snprintf(thread, sizeof thread, "chat-%ld", (long)time(NULL)); /* a fresh thread */
    with_json(input, sizeof input, "{\"messages\":[{\"role\":\"user\",\"content\":%.*s}]}",
              argc > 3 ? argv[3] : "Hello! What can you do?");
    o.url = argv[1];
    o.thread_id = thread;
    o.callbacks.on_message_delta = token;
    o.callbacks.on_tool = tool;
    ap_client *c = ap_client_open(&o, &err);
    if (c == NULL)
        return fprintf(stderr, "chat: %s\n", err.message), 1;
    aps_status st = ap_client_run_start(c, argc > 2 ? argv[2] : "agent", input, NULL, &err);
    while (st == APS_OK && (st = ap_client_run_until_done(c, 0, &end, &err)) == APS_OK &&
           end == AP_CLIENT_RUN_INTERRUPTED) {
        const ap_client_interrupt *in = ap_client_interrupt_last(c);
        printf("\n[interrupt] %.*s\n> ", in ? (int)in->payload.len : 0, in ? in->payload.ptr : "");
        if (in == NULL || fgets(answer, sizeof answer, stdin) == NULL)
            break;
        answer[strcspn(answer, "\n")] = '\0';
        st = ap_client_respond(c, in, with_json(input, sizeof input, "%.*s", answer), NULL, &err);
    }
    if (st != APS_OK)
        fprintf(stderr, "chat: %s\n", err.message);
    printf("\n");
    ap_client_close(c);
    return st == APS_OK && end == AP_CLIENT_RUN_COMPLETED ? 0 : 1;
}
