/*
 * apstream - check, re-encode, assemble and replay captured protocol streams.
 *
 *   apstream validate  [--type T] [--strict] [--unfiltered] [--tolerant] [--case C] [--input F]
 *                      [--output text|json] [--max-errors N] [--baseline FILE]
 *                      [--write-baseline FILE] [FILE]
 *   apstream roundtrip [--type T] [--case C] [--input F] [FILE]
 *   apstream sse2jsonl [--strict] [FILE]
 *   apstream assemble  [--strict] [--case C] [--input F] [FILE]
 *   apstream report    [-o FILE.html] [validate's options] [FILE]
 *   apstream replay --capacity N [--bytes B] [--redis URL] --request REQUEST.json [--case C] [FILE]
 *   apstream serve [--listen HOST:PORT] --script FILE... [--pace realtime|MS|0] [--redis URL]
 *                  [--api-key KEY] [--cors ORIGINS] [--drop-after N] [--window N]
 *                  (serve.c; built with ap_server)
 *   apstream connect URL --thread ID [--transport sse|websocket] [--start RUN.json] ...
 *                  (connect.c; built with libcurl)
 *   apstream rules (the findings' rule ids, rules.c)
 *
 * FILE is JSONL (one JSON text per line), SSE, or one JSON document,
 * detected unless --input says; "-" or no FILE reads standard input, as a
 * stream (memory stays bounded whatever its length). The default type is
 * Message (server to client); Command is client to server; any rule of the
 * schema can be named. --case either|schema|snake: the key spelling accepted,
 * both by default (roundtrip: also the one written; either writes the schema's).
 *
 * The options that `cddlgen validate` has too are spelled the same:
 * --type, --input (alias: --format), --output, --case, --strict,
 * --tolerant, --max-errors, --version; --name=value works for each.
 *
 * Exit status: 0 all valid, 1 something invalid, 2 usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

static const char usage_text[] =
    "usage: apstream COMMAND [OPTIONS] [FILE]\n"
    "\n"
    "Commands:\n"
    "  validate     check every JSON text against the protocol schema, and the stream's rules\n"
    "  roundtrip    decode and re-encode every JSON text, printing compact JSON\n"
    "  sse2jsonl    print the data of every SSE event, one per line\n"
    "  assemble     assemble streamed messages and tool runs into final values\n"
    "  report       validate, and write one self-contained HTML page of the capture:\n"
    "               lanes per namespace, messages, tool runs, findings, the events\n"
    "  replay       load events into a replay buffer and answer a subscription\n"
    "  serve        serve scripts as a mock agent server over HTTP/SSE and WebSocket\n"
    "               (apstream serve --help)\n"
    "  connect      check a live server's conformance: events, commands, resumes, filters\n"
    "               (apstream connect --help)\n"
    "  rules        list the rule ids findings carry (what a --baseline names), one a line\n"
    "\n"
    "FILE: the capture; \"-\" or none: standard input, read as a stream.\n"
    "\n"
    "Options:\n"
    "  --type T             schema rule each JSON text must be (default: Message)\n"
    "  --input F            json (one document), jsonl or sse (default: detected);\n"
    "                       --format F is the same\n"
    "  --output text|json   validate: the report as text lines (default) or one JSON object\n"
    "  --case C             key spelling: either (default: both), schema or snake\n"
    "  --strict             the stream's rules are errors, not warnings: seq increases, no\n"
    "                       eventId repeats, the messages and tools lifecycle, no event cut\n"
    "                       at the end; for SSE, event:/id: match each event's method/eventId\n"
    "  --unfiltered         validate: the capture is an unfiltered subscription, so a gap\n"
    "                       in seq is a violation (reported with the seqs missing)\n"
    "  --tolerant           accept unknown variants (new event, delta or block types),\n"
    "                       as a consuming application does; validation reports them\n"
    "  --max-errors N       show at most N diagnostics (default 100; 0: all); a count of\n"
    "                       the others is printed at the end\n"
    "  --baseline FILE      validate: accepted findings (JSON Lines, by rule, method and\n"
    "                       pointer): only new ones fail; those that no longer occur are listed\n"
    "  --write-baseline FILE  validate: write this run's findings as such a file\n"
    "  -o FILE              report: where the page goes (default: standard output)\n"
    "  --capacity N         replay: ring capacity in events\n"
    "  --bytes B            replay: ring capacity in bytes (default 1 GiB; the ring takes\n"
    "                       only what the events need)\n"
    "  --request FILE       replay: the EventStreamRequest (JSON) to answer\n"
    "  --redis URL          replay: keep the log on Redis Streams (redis://HOST[:PORT][/DB])\n"
    "  --help, --version\n"
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

/* A count: decimal digits only (no sign, no space, no suffix), within uint64_t. */
int apstream_parse_count(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (*s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        unsigned d = (unsigned)(unsigned char)*s - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The options that take a value, and whether `name` is one of them. */
static int takes_value(const char *name)
{
    static const char *const names[] = { "--type", "--case", "--format", "--input", "--output", "--capacity",
                                         "--bytes", "--request", "--max-errors", "--redis", "--baseline",
                                         "--write-baseline", "-o" };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* Applies option `name` with `value`. Returns 0, or 2 after printing usage. */
static int set_option(apstream_options *o, const char *name, const char *value)
{
    char why[160];
    if (strcmp(name, "--type") == 0) {
        o->type_name = value;
    } else if (strcmp(name, "--case") == 0) {
        if (parse_case(value, &o->key_case) != 0)
            return usage("--case takes schema, snake or either");
        o->case_given = 1;
    } else if (strcmp(name, "--format") == 0 || strcmp(name, "--input") == 0) {
        if (strcmp(value, "json") == 0)
            o->format = APS_FORMAT_JSON;
        else if (strcmp(value, "jsonl") == 0)
            o->format = APS_FORMAT_JSONL;
        else if (strcmp(value, "sse") == 0)
            o->format = APS_FORMAT_SSE;
        else if (strcmp(value, "auto") == 0)
            o->format = APS_FORMAT_AUTO;
        else
            return usage(name[2] == 'f' ? "--format takes json, jsonl, sse or auto" : "--input takes json, jsonl, sse or auto");
    } else if (strcmp(name, "--output") == 0) {
        if (strcmp(value, "json") != 0 && strcmp(value, "text") != 0)
            return usage("--output takes text or json");
        o->json_report = value[0] == 'j';
    } else if (strcmp(name, "--request") == 0) {
        o->request = value;
    } else if (strcmp(name, "--redis") == 0) {
        o->redis = value;
    } else if (strcmp(name, "--baseline") == 0) {
        o->baseline = value;
    } else if (strcmp(name, "--write-baseline") == 0) {
        o->write_baseline = value;
    } else if (strcmp(name, "-o") == 0) {
        o->page = value;
    } else {
        uint64_t *n = strcmp(name, "--capacity") == 0 ? &o->capacity
                      : strcmp(name, "--bytes") == 0  ? &o->bytes
                                                      : &o->max_errors;
        if (apstream_parse_count(value, n) != 0) {
            snprintf(why, sizeof why, "%s takes a whole number of decimal digits, not '%.60s'", name, value);
            return usage(why);
        }
    }
    return 0;
}

#if !defined(APSTREAM_HAVE_CONNECT) || !defined(APSTREAM_HAVE_SERVER)
/*
 * A command this apstream was built without: its --help (or -h) still
 * answers, with the general usage and why the command is missing; anything
 * else is refused.
 */
static int not_built(int argc, char **argv, const char *why)
{
    int i;
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("apstream: %s\n\n", why);
            fputs(usage_text, stdout);
            return 0;
        }
    }
    return usage(why);
}
#endif

int main(int argc, char **argv)
{
    apstream_options o;
    int i, rc;
    memset(&o, 0, sizeof o);
    o.type_name = "Message";
    o.max_record = 64u << 20;
    o.max_errors = 100;
    if (argc >= 2 && strcmp(argv[1], "connect") == 0) {
#ifdef APSTREAM_HAVE_CONNECT
        return apstream_connect(argc, argv);
#else
        return not_built(argc, argv, "connect: this apstream was built without libcurl");
#endif
    }
    if (argc >= 2 && strcmp(argv[1], "serve") == 0) {
#ifdef APSTREAM_HAVE_SERVER
        return apstream_serve(argc, argv);
#else
        return not_built(argc, argv, "serve: this apstream was built without libwebsockets (ap_server)");
#endif
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("apstream %s\n", APS_VERSION_STRING);
            return 0;
        }
    }
    if (argc < 2 || argv[1][0] == '\0')
        return usage(NULL);
    if (strcmp(argv[1], "rules") == 0)
        return argc == 2 ? apstream_rules() : usage("rules takes no argument");
    o.command = argv[1];
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (strcmp(a, "--strict") == 0) {
            o.strict = 1;
        } else if (strcmp(a, "--tolerant") == 0) {
            o.tolerant = 1;
        } else if (strcmp(a, "--unfiltered") == 0) {
            o.unfiltered = 1;
        } else if (eq != NULL) {
            char name[32];
            size_t n = (size_t)(eq - a);
            if (n >= sizeof name || (memcpy(name, a, n), name[n] = '\0', !takes_value(name))) {
                fprintf(stderr, "apstream: error: unknown option: %s\n", a);
                return usage(NULL);
            }
            if ((rc = set_option(&o, name, eq + 1)) != 0)
                return rc;
        } else if (takes_value(a) && i + 1 < argc) {
            if ((rc = set_option(&o, a, argv[++i])) != 0)
                return rc;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "apstream: error: unknown option or missing value: %s\n", a);
            return usage(NULL);
        } else if (o.file == NULL) {
            o.file = a;
        } else {
            return usage("only one FILE");
        }
    }
    if (strcmp(o.command, "report") == 0) {
        /* report is validate that writes the page too */
        o.report = 1;
        o.command = "validate";
    } else if (o.page != NULL) {
        return usage("-o is for report");
    }
    if (o.json_report && o.report)
        return usage("--output json is for validate (report writes a page)");
    if (o.json_report && strcmp(o.command, "validate") != 0)
        return usage("--output json is for validate (the other commands print values on stdout)");
    if (o.unfiltered && strcmp(o.command, "validate") != 0)
        return usage("--unfiltered is for validate");
    if ((o.baseline != NULL || o.write_baseline != NULL) && strcmp(o.command, "validate") != 0)
        return usage("--baseline and --write-baseline are for validate and report (and connect)");
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
