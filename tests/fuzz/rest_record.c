/*
 * rest_record.c - fuzz target for what `apstream serve --redis` reads back
 * from Redis: its REST records (tools/apstream/rest_record.c). The first
 * byte picks the kind (thread, state, run, item), the rest is the record.
 * A record that reads is written out, read again and written again: the
 * two texts must be the same (what is written reads back as it was), and
 * what was read must hold what the server relies on (ids that are ids,
 * strings that fit). Refusals carry a message.
 */
#include "rest_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Aborts unless `a` and `b` are the same text (both NULL-free). */
static void same_text(char *a, char *b)
{
    if (a == NULL || b == NULL || strcmp(a, b) != 0)
        abort();
    free(a);
    free(b);
}

static void refused(aps_status st, const aps_error *err)
{
    if (st == APS_OK || err->code != st || err->message[0] == '\0') {
        fprintf(stderr, "refused with %s, the error says %s: \"%s\"\n", aps_status_str(st), aps_status_str(err->code),
                err->message);
        abort();
    }
}

static void thread(const char *p, size_t n)
{
    rthread *t = calloc(1, sizeof *t), *again = calloc(1, sizeof *again);
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    char *text;
    if (t == NULL || again == NULL)
        abort();
    if ((st = rest_thread_read(p, n, t, &err)) != APS_OK) {
        refused(st, &err);
    } else {
        if (rest_check_id(t->id, strlen(t->id)) != 0 || t->metadata == NULL || t->status[0] == '\0')
            abort();
        text = rest_thread_record(t);
        if (text == NULL || rest_thread_read(text, strlen(text), again, NULL) != APS_OK)
            abort();
        same_text(text, rest_thread_record(again));
    }
    rest_thread_free(t);
    rest_thread_free(again);
}

static void state(const char *p, size_t n)
{
    rstate s, again;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    char *text;
    memset(&s, 0, sizeof s);
    memset(&again, 0, sizeof again);
    if ((st = rest_state_read(p, n, &s, &err)) != APS_OK) {
        refused(st, &err);
    } else {
        if (s.values == NULL)
            abort();
        text = rest_state_record(&s);
        if (text == NULL || rest_state_read(text, strlen(text), &again, NULL) != APS_OK)
            abort();
        same_text(text, rest_state_record(&again));
    }
    free(s.values);
    free(s.metadata);
    free(again.values);
    free(again.metadata);
}

static void run_free(rrun *run)
{
    free(run->metadata);
    free(run->kwargs);
    free(run->resume_json);
    free(run);
}

static void run(const char *p, size_t n)
{
    rrun *r = calloc(1, sizeof *r), *again = calloc(1, sizeof *again);
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    char *text;
    if (r == NULL || again == NULL)
        abort();
    strcpy(r->id, "kept"); /* (a run is changed only when the whole record reads) */
    if ((st = rest_run_read(p, n, r, &err)) != APS_OK) {
        refused(st, &err);
        if (strcmp(r->id, "kept") != 0)
            abort();
    } else {
        if (r->id[0] == '\0' || rest_check_id(r->thread, strlen(r->thread)) != 0 || r->status[0] == '\0')
            abort();
        text = rest_run_record(r);
        if (text == NULL || rest_run_read(text, strlen(text), again, NULL) != APS_OK)
            abort();
        same_text(text, rest_run_record(again));
    }
    run_free(r);
    run_free(again);
}

static void item(const char *p, size_t n)
{
    ritem *it = calloc(1, sizeof *it), *again = calloc(1, sizeof *again);
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    char *text;
    if (it == NULL || again == NULL)
        abort();
    if ((st = rest_item_read(p, n, it, &err)) != APS_OK) {
        refused(st, &err);
    } else {
        if (it->nlabels == 0 || it->key == NULL || it->value == NULL)
            abort();
        text = rest_item_record(it);
        if (text == NULL || rest_item_read(text, strlen(text), again, NULL) != APS_OK)
            abort();
        same_text(text, rest_item_record(again));
        same_text(rest_item_name(it), rest_item_name(again));
    }
    rest_item_free(it);
    rest_item_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data + 1;
    if (size < 1)
        return 0;
    switch (data[0] % 4) {
    case 0:
        thread(p, size - 1);
        break;
    case 1:
        state(p, size - 1);
        break;
    case 2:
        run(p, size - 1);
        break;
    default:
        item(p, size - 1);
        break;
    }
    return 0;
}
