/*
 * subscription_verdicts.c - our side of the subscription differential test
 * (subscription.mjs): which events each subscription gets, by aps_filter.
 *
 *   subscription-verdicts EVENTS.jsonl REQUESTS.jsonl
 *
 * Each event line is read as `apstream replay` and a server read what they
 * buffer: decoded (either key case), and described by
 * ap_event_replay_meta_text, which reads a line the schema rejects or does
 * not know (an `input.answered`, an unknown method, a capture's off-schema
 * event) by its envelope (method, params.namespace, params.data.name). Each request line is
 * an EventStreamRequest compiled by ap_filter_init_request. For each
 * request, one output line: a '0' or '1' per event, or "invalid: WHY" when
 * the request is refused. Both match entry points (the decoded namespace,
 * and the packed one the replay buffer compares) must agree; exit 1 when
 * they do not, 2 on a usage or input error. The last line on stderr counts
 * the events read each way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap_companion.h"
#include "test_util.h"

#define MAX_EVENTS 100000

typedef struct event_info {
    aps_replay_meta meta;
    void *packed; /* the namespace in the replay buffer's form */
} event_info;

/* The text's lines, NUL-terminated in place; their count in *n. */
static char **split_lines(char *text, size_t len, size_t *n)
{
    char **lines = malloc((len / 2 + 2) * sizeof *lines), *p = text, *end = text + len;
    *n = 0;
    if (lines == NULL)
        return NULL;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        *nl = '\0';
        if (nl > p)
            lines[(*n)++] = p;
        p = nl + 1;
    }
    return lines;
}

int main(int argc, char **argv)
{
    char *events_text, *requests_text, **event_lines, **request_lines;
    size_t events_len, requests_len, nevents, nrequests, i, j, decoded = 0, enveloped = 0;
    event_info *events;
    aps_arena arena;
    char *verdicts;
    int rc = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: %s EVENTS.jsonl REQUESTS.jsonl\n", argv[0]);
        return 2;
    }
    events_text = test_read_file(argv[1], &events_len);
    requests_text = test_read_file(argv[2], &requests_len);
    if (events_text == NULL || requests_text == NULL) {
        fprintf(stderr, "subscription-verdicts: cannot read %s\n", events_text == NULL ? argv[1] : argv[2]);
        return 2;
    }
    event_lines = split_lines(events_text, events_len, &nevents);
    request_lines = split_lines(requests_text, requests_len, &nrequests);
    events = calloc(nevents + 1, sizeof *events);
    verdicts = malloc(nevents + 1);
    if (event_lines == NULL || request_lines == NULL || events == NULL || verdicts == NULL ||
        nevents > MAX_EVENTS) {
        fprintf(stderr, "subscription-verdicts: out of memory, or over %d events\n", MAX_EVENTS);
        return 2;
    }
    aps_arena_init(&arena, NULL); /* holds every event's meta to the end */

    for (i = 0; i < nevents; i++) {
        const char *text = event_lines[i];
        size_t len = strlen(text), size;
        ap_event_t ev;
        aps_decode_options dopt;
        memset(&dopt, 0, sizeof dopt);
        dopt.key_case = APS_CASE_EITHER;
        int known = ap_event_decode_opts(text, len, &arena, &ev, &dopt, NULL) == APS_OK &&
                    ev.event_data.kind != AP_EVENT_DATA_UNKNOWN;
        if (ap_event_replay_meta_text(text, len, known ? &ev : NULL, &arena, &events[i].meta, NULL) != APS_OK) {
            fprintf(stderr, "subscription-verdicts: %s:%zu: not an event\n", argv[1], i + 1);
            return 2;
        }
        if (known)
            decoded++;
        else
            enveloped++;
        size = aps_namespace_packed_size(events[i].meta.ns);
        events[i].packed = aps_arena_alloc(&arena, size + 4);
        if (size == SIZE_MAX || events[i].packed == NULL) {
            fprintf(stderr, "subscription-verdicts: %s:%zu: namespace too large\n", argv[1], i + 1);
            return 2;
        }
    }

    for (j = 0; j < nrequests; j++) {
        aps_arena req_arena;
        ap_event_stream_request_t req;
        aps_filter f;
        aps_error err = APS_ERROR_INIT;
        aps_arena_init(&req_arena, NULL);
        if (ap_event_stream_request_decode(request_lines[j], strlen(request_lines[j]), &req_arena, &req, &err) !=
                APS_OK ||
            ap_filter_init_request(&f, &req, &req_arena, &err) != APS_OK) {
            printf("invalid: %s\n", err.message);
            aps_arena_deinit(&req_arena);
            continue;
        }
        for (i = 0; i < nevents; i++) {
            const aps_replay_meta *m = &events[i].meta;
            int live = aps_filter_match_namespace(&f, m->channel, m->custom_name, m->ns);
            int stored = aps_filter_match(&f, m->channel, m->custom_name, aps_namespace_pack(events[i].packed, m->ns));
            if (live != stored) {
                fprintf(stderr, "request %zu, event %zu: decoded namespace says %d, packed %d\n", j + 1, i + 1,
                        live, stored);
                rc = 1;
            }
            verdicts[i] = live ? '1' : '0';
        }
        verdicts[nevents] = '\0';
        printf("%s\n", verdicts);
        aps_filter_deinit(&f);
        aps_arena_deinit(&req_arena);
    }
    fprintf(stderr, "subscription-verdicts: %zu events (%zu decoded, %zu by their envelope), %zu requests\n",
            nevents, decoded, enveloped, nrequests);
    aps_arena_deinit(&arena);
    free(verdicts);
    free(events);
    free(event_lines);
    free(request_lines);
    free(events_text);
    free(requests_text);
    return rc;
}
