/*
 * gen_capture - writes a valid capture of the protocol to stdout, as long as
 * asked, for tests and measurements of apstream on long streams without a
 * file on disk: `gen_capture BYTES [jsonl|sse]`. Messages stream text deltas
 * then finish; every fourth message is followed by a tool run. Every event
 * has a seq one above the last and a unique eventId, so `apstream validate
 * --strict --unfiltered` finds nothing to report. The last message is
 * completed even past BYTES, so the capture ends with nothing open.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seq, written;
static int sse;

static void event(const char *method, const char *ns, const char *data)
{
    char line[1024];
    snprintf(line, sizeof line,
                     "{\"type\":\"event\",\"eventId\":\"e%" PRIu64 "\",\"seq\":%" PRIu64
                     ",\"method\":\"%s\",\"params\":{\"namespace\":[%s],\"timestamp\":%" PRIu64
                     ",\"node\":\"agent\",\"data\":%s}}",
                     seq + 1, seq + 1, method, ns, seq + 1, data);
    seq++;
    if (sse)
        written += (uint64_t)printf("event: %s\nid: e%" PRIu64 "\ndata: %s\n\n", method, seq, line);
    else
        written += (uint64_t)printf("%s\n", line);
}

int main(int argc, char **argv)
{
    uint64_t target, m;
    char *end;
    if (argc < 2 || argc > 3 || (target = strtoull(argv[1], &end, 10), *end != '\0') ||
        (argc == 3 && strcmp(argv[2], "jsonl") != 0 && strcmp(argv[2], "sse") != 0)) {
        fputs("usage: gen_capture BYTES [jsonl|sse]\n", stderr);
        return 2;
    }
    sse = argc == 3 && strcmp(argv[2], "sse") == 0;
    for (m = 1; written < target; m++) {
        char data[512];
        int k;
        snprintf(data, sizeof data, "{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m%" PRIu64 "\"}", m);
        event("messages", "", data);
        event("messages", "", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"}}");
        for (k = 0; k < 16; k++)
            event("messages", "", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"token \"}}");
        event("messages", "",
              "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"token token token "
              "token token token token token token token token token token token token token \"}}");
        event("messages", "", "{\"event\":\"message-finish\",\"usage\":{\"inputTokens\":10,\"outputTokens\":16}}");
        if (m % 4 == 0) {
            snprintf(data, sizeof data,
                     "{\"event\":\"tool-started\",\"toolCallId\":\"c%" PRIu64 "\",\"toolName\":\"search\",\"input\":{\"q\":\"x\"}}", m);
            event("tools", "\"tools:1\"", data);
            snprintf(data, sizeof data, "{\"event\":\"tool-output-delta\",\"toolCallId\":\"c%" PRIu64 "\",\"delta\":\"found\"}", m);
            event("tools", "\"tools:1\"", data);
            snprintf(data, sizeof data, "{\"event\":\"tool-finished\",\"toolCallId\":\"c%" PRIu64 "\",\"output\":{\"n\":1}}", m);
            event("tools", "\"tools:1\"", data);
        }
        if (ferror(stdout))
            return 1; /* the reader went away */
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
