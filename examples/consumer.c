/*
 * consumer.c - reads an SSE capture of the Agent Streaming Protocol (a file,
 * or standard input), decodes each event, assembles the messages and tool
 * runs, and prints each final one as a JSON line (the lines `apstream
 * assemble` prints). An event the schema rejects is reported and read
 * leniently, as `apstream assemble` does. Exit status 1 when one was.
 */
#include <stdio.h>

#include "ap_companion.h"

typedef struct consumer {
    aps_assembler assembler;
    aps_arena arena;        /* one decoded event at a time */
    aps_json_writer line;
    aps_asm_reader lenient; /* for events the schema rejects */
    unsigned long events, rejected;
} consumer;

static void print_message(void *ctx, const aps_asm_message *m)
{
    consumer *c = ctx;
    aps_json_writer_reset(&c->line);
    aps_asm_message_write(m, &c->line);
    printf("%.*s\n", (int)aps_json_writer_len(&c->line), aps_json_writer_data(&c->line));
}

static void print_tool(void *ctx, const aps_asm_tool *t)
{
    consumer *c = ctx;
    aps_json_writer_reset(&c->line);
    aps_asm_tool_write(t, &c->line);
    printf("%.*s\n", (int)aps_json_writer_len(&c->line), aps_json_writer_data(&c->line));
}

/* Each SSE event: decoded (its `event:` and `id:` checked against it), then fed to the assembler. */
static aps_status on_event(void *user, const aps_sse_event *sse)
{
    consumer *c = user;
    ap_message_t msg;
    aps_asm_event ev;
    aps_error err = APS_ERROR_INIT;
    aps_arena_reset(&c->arena);
    if (ap_message_from_sse(sse, 1, &c->arena, &msg, NULL, &err) == APS_OK) {
        if (ap_asm_event_from_message(&msg, 0, &c->arena, &ev) != APS_OK)
            return APS_E_NOMEM;
    } else {
        /* real servers stray from the schema (a message-start without role): said, then read leniently */
        fprintf(stderr, "byte %llu: %s: %s\n", (unsigned long long)sse->offset, err.pointer, err.message);
        c->rejected++;
        if (aps_asm_event_from_json(&c->lenient, sse->data, sse->data_len, 0, &ev) != 1)
            return APS_OK;
    }
    ev.position = ++c->events;
    return aps_asm_feed(&c->assembler, &ev, &err);
}

int main(int argc, char **argv)
{
    static char storage[1 << 20], chunk[1 << 16];
    FILE *in = argc > 1 ? fopen(argv[1], "rb") : stdin;
    consumer c = { 0 };
    aps_asm_callbacks cb = { 0 };
    aps_sse_parser parser;
    aps_error err = APS_ERROR_INIT;
    aps_status st = APS_OK;
    size_t n;
    if (in == NULL) {
        perror(argv[1]);
        return 2;
    }
    cb.on_message_done = print_message;
    cb.on_tool_done = print_tool;
    cb.ctx = &c;
    aps_asm_init(&c.assembler, NULL, &cb);
    aps_arena_init(&c.arena, NULL);
    aps_json_writer_init(&c.line, NULL);
    aps_asm_reader_init(&c.lenient);
    aps_sse_parser_init(&parser, storage, sizeof storage, NULL, on_event, NULL, &c);
    while (st == APS_OK && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
        st = aps_sse_parser_push(&parser, chunk, n, &err);
    if (st == APS_OK)
        st = aps_sse_parser_finish(&parser, &err);
    aps_asm_finish(&c.assembler); /* what is still open, as it stands */
    aps_asm_deinit(&c.assembler);
    aps_json_writer_deinit(&c.line);
    aps_asm_reader_deinit(&c.lenient);
    aps_arena_deinit(&c.arena);
    if (st != APS_OK)
        fprintf(stderr, "%s\n", err.message);
    return st != APS_OK ? 2 : c.rejected > 0;
}
