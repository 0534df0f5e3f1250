/*
 * rules.c - the rule ids of apstream's findings, in one list: what a
 * baseline names, what `apstream rules` prints, and what docs/apstream.md
 * lists (ctest apstream-rules-documented holds the page to this list). A
 * finding under an id that is not here is a defect of apstream itself:
 * report.c stops on it, so that no test can pass with a misspelt id.
 */
#include <stdio.h>
#include <string.h>

#include "aps/asm.h"
#include "apstream.h"

typedef struct rule {
    const char *id;
    const char *what;
} rule;

static const rule rules[] = {
    { "schema", "the record is not what the schema says (each error of it)" },
    { "sse-binding", "--strict on SSE: event:/id: disagree with method/eventId" },
    { "framing", "SSE or JSONL framing broken, a binary WebSocket message" },
    { "input", "the input as a whole: no records, not SSE or JSONL, an event cut at the end" },
    { "seq-order", "seq does not increase" },
    { "seq-gap", "--unfiltered (connect: every channel): seqs are missing" },
    { "event-id-repeat", "an eventId repeats" },
    { "unfinished", "a message or tool run is still open at the end" },
    { "resume-replayed", "a resume was answered with events the client had" },
    { "resume-gap", "a resume (or the probe) lost events without announcing a miss" },
    { "resume-miss", "an event older than the oldest the server's miss announced" },
    { "resume-refused", "a way of resuming was answered with an HTTP error" },
    { "resume-stalled", "the run did not end after the subscription was resumed" },
    { "probe-incomplete", "the probe from before the window did not get back to the last seq" },
    { "filter-subset", "the filtered subscription did not get exactly the main one's matching events" },
    { "ws-routing", "the main subscription's events went to another WebSocket of the thread" },
    { "ws-duplicate", "one WebSocket got an event once per matching subscription" },
    { "response-shape", "a command's answer is no CommandResponse or ErrorResponse, or lacks its result" },
    { "response-id", "an answer with a null id to a command that had one, or with no command's id" },
    { "response-missing", "a command got no answer" },
    { "refused-command", "a command was answered with an ErrorResponse" },
    { "unknown-command", "a method the protocol defines was answered unknown_command" },
    { "no-endpoint", "the server answered without the protocol's routes (HTTP 404)" },
    { "http-status", "another HTTP status than the protocol's" },
    { "connection", "the connection failed" },
    { "too-large", "an event or answer over --max-event" },
    { "stream-end", "the server ended a subscription before the run's end" },
    { "run-timeout", "the run's root lifecycle did not end within --timeout" },
    { "heartbeat-missed", "the server sent heartbeats while idle, then nothing for over twice their period" },
    { "stall", "--stall S: a connection silent for S seconds" },
    { "no-events", "nothing was read, and no other finding says why" },
    { "replay", "replay: the buffer refused an event" },
};

/* The assembler's violations are rules under their own names (aps_asm_violation_name). */
static int asm_rule(const char *id, int print)
{
    int v;
    for (v = APS_ASM_E_NO_MESSAGE; v <= APS_ASM_E_LEGACY_DELTA; v++) {
        const char *name = aps_asm_violation_name((aps_asm_violation)v);
        if (v == APS_ASM_E_NOMEM)
            continue; /* never reported as a violation: the run stops */
        if (print)
            printf("%s\tthe messages and tools lifecycle: %s (the assembler's violation)\n", name, name);
        else if (strcmp(name, id) == 0)
            return 1;
    }
    return 0;
}

int apstream_rule_known(const char *id)
{
    size_t i;
    if (id == NULL)
        return 0;
    for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0)
            return 1;
    return asm_rule(id, 0);
}

int apstream_rules(void)
{
    size_t i;
    for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
        printf("%s\t%s\n", rules[i].id, rules[i].what);
    (void)asm_rule(NULL, 1);
    return 0;
}
