/*
 * apstream - check, re-encode, assemble and replay captured protocol streams.
 *
 *   apstream validate  [--type T] [--strict] [--tolerant] [--case C] [--format F] FILE
 *   apstream roundtrip [--type T] [--case C] [--format F] FILE
 *   apstream sse2jsonl FILE
 *   apstream assemble  [--case C] [--format F] FILE
 *   apstream replay --capacity N [--bytes B] [--redis URL] --request REQUEST.json [--case C] FILE
 *
 * FILE is JSONL (one JSON text per line), SSE, or one JSON document,
 * detected unless --format says; "-" reads standard input. The default type is
 * Message (server to client); Command is client to server; any rule of the
 * schema can be named. --case either|schema|snake: the key spelling accepted,
 * both by default (roundtrip: also the one written; either writes the schema's).
 *
 * Exit status: 0 all valid, 1 something invalid, 2 usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

static const char usage_text[] =
    "usage: apstream COMMAND [OPTIONS] FILE\n"
    "\n"
    "Commands:\n"
    "  validate     check every JSON text against the protocol schema\n"
    "  roundtrip    decode and re-encode every JSON text, printing compact JSON\n"
    "  sse2jsonl    print the data of every SSE event, one per line\n"
    "  assemble     assemble streamed messages and tool runs into final values\n"
    "  replay       load events into a replay buffer and answer a subscription\n"
    "\n"
    "Options:\n"
    "  --type T             schema rule each JSON text must be (default: Message)\n"
    "  --tolerant           accept unknown variants (new event, delta or block types),\n"
    "                       as a consuming application does; validation reports them\n"
    "  --strict             for SSE, also check that each\n"
    "                       event's event:/id: match its method/eventId and seq increases\n"
    "  --case C             key spelling: either (default), schema or snake\n"
    "  --format F           json (one document), jsonl or sse (default: detected)\n"
    "  --capacity N         replay: ring capacity in events\n"
    "  --bytes B            replay: ring capacity in bytes\n"
    "  --request FILE       replay: the EventStreamRequest (JSON) to answer\n"
    "  --redis URL          replay: keep the log on Redis Streams (redis://HOST[:PORT][/DB])\n"
    "\n"
    "Exit status: 0 all valid, 1 something invalid, 2 usage or I/O error.\n";

static int usage(const char *why)
{
    if (why != NULL)
        fprintf(stderr, "apstream: error: %s\n", why);
    fputs(usage_text, stderr);
    return 2;
}

static int parse_case(const char *s, aps_key_case *out)
{
    if (strcmp(s, "schema") == 0)
        *out = APS_CASE_SCHEMA;
    else if (strcmp(s, "snake") == 0)
        *out = APS_CASE_SNAKE;
    else if (strcmp(s, "either") == 0)
        *out = APS_CASE_EITHER;
    else
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    apstream_options o;
    int i;
    memset(&o, 0, sizeof o);
    o.type_name = "Message";
    o.max_record = 64u << 20;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc < 2)
        return usage(NULL);
    o.command = argv[1];
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--strict") == 0) {
            o.strict = 1;
        } else if (strcmp(a, "--tolerant") == 0) {
            o.tolerant = 1;
        } else if (strcmp(a, "--type") == 0 && value) {
            o.type_name = value, i++;
        } else if (strcmp(a, "--case") == 0 && value) {
            if (parse_case(value, &o.key_case) != 0)
                return usage("--case takes schema, snake or either");
            o.case_given = 1;
            i++;
        } else if (strcmp(a, "--format") == 0 && value) {
            if (strcmp(value, "json") == 0)
                o.format = APS_FORMAT_JSON;
            else if (strcmp(value, "jsonl") == 0)
                o.format = APS_FORMAT_JSONL;
            else if (strcmp(value, "sse") == 0)
                o.format = APS_FORMAT_SSE;
            else
                return usage("--format takes json, jsonl or sse");
            i++;
        } else if (strcmp(a, "--capacity") == 0 && value) {
            o.capacity = strtoull(value, NULL, 10), i++;
        } else if (strcmp(a, "--bytes") == 0 && value) {
            o.bytes = strtoull(value, NULL, 10), i++;
        } else if (strcmp(a, "--redis") == 0 && value) {
            o.redis = value, i++;
        } else if (strcmp(a, "--request") == 0 && value) {
            o.request = value, i++;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "apstream: error: unknown option or missing value: %s\n", a);
            return usage(NULL);
        } else if (o.file == NULL) {
            o.file = a;
        } else {
            return usage("only one FILE");
        }
    }
    if (o.file == NULL)
        return usage("FILE is required (\"-\" for standard input)");
    if (strcmp(o.command, "validate") == 0 || strcmp(o.command, "roundtrip") == 0)
        return apstream_validate(&o, o.command[0] == 'r');
    if (strcmp(o.command, "sse2jsonl") == 0)
        return apstream_sse2jsonl(&o);
    if (strcmp(o.command, "replay") == 0)
        return apstream_replay(&o);
    if (strcmp(o.command, "assemble") == 0)
        return apstream_assemble(&o);
    return usage("unknown command");
}
