/*
 * report.c - apstream's findings about records ("LINE: error: POINTER:
 * message [rule]"), capped like gcc's -fmax-errors: a capture of ten
 * million events that breaks one rule at every event would otherwise
 * print ten million lines that say the same. Past --max-errors (default
 * 100; 0: no cap) they are counted, still decide the exit status, and one
 * line at the end says how many were not shown. With --output json each
 * is one object of the "errors" array instead. Every finding carries its
 * rule id and passes the baseline (baseline.c) first: an accepted one is
 * counted there and neither printed nor failing.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

static struct {
    uint64_t max;     /* 0: no cap */
    uint64_t shown, hidden;
    const char *file; /* JSON: the input's name */
    int json;
    int json_items;   /* objects written to the JSON array so far */
    apstream_finding_fn hook; /* apstream report: every finding shown, whatever the cap */
    void *hook_user;
} diag = { 100, 0, 0, NULL, 0, 0, NULL, NULL };

void apstream_diag_hook(apstream_finding_fn fn, void *user)
{
    diag.hook = fn;
    diag.hook_user = user;
}

void apstream_diag_collect(uint64_t line, const char *severity, const char *rule, const char *method,
                           const char *pointer, const char *message)
{
    if (diag.hook != NULL)
        diag.hook(diag.hook_user, line, severity, rule, method, pointer, message);
}

void apstream_diag_setup(const apstream_options *o, int json)
{
    diag.max = o->max_errors;
    diag.json = json;
    diag.file = apstream_input_name(o);
}

/* Whether one more diagnostic may be printed; counts it when not. */
static int room(void)
{
    if (diag.max != 0 && diag.shown >= diag.max) {
        diag.hidden++;
        return 0;
    }
    diag.shown++;
    return 1;
}

static void json_item(FILE *out, uint64_t line, const char *severity, const char *rule, const char *method,
                      const char *pointer, size_t offset, const char *message)
{
    aps_json_writer w;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "file", 4);
    aps_json_write_string(&w, diag.file, strlen(diag.file));
    aps_json_write_key(&w, "line", 4);
    aps_json_write_uint64(&w, line);
    aps_json_write_key(&w, "severity", 8);
    aps_json_write_string(&w, severity, strlen(severity));
    aps_json_write_key(&w, "rule", 4);
    aps_json_write_string(&w, rule, strlen(rule));
    aps_json_write_key(&w, "method", 6);
    aps_json_write_string(&w, method != NULL ? method : "", method != NULL ? strlen(method) : 0);
    aps_json_write_key(&w, "pointer", 7);
    aps_json_write_string(&w, pointer, strlen(pointer));
    aps_json_write_key(&w, "offset", 6);
    aps_json_write_uint64(&w, offset);
    aps_json_write_key(&w, "message", 7);
    aps_json_write_string(&w, message, strlen(message));
    aps_json_write_object_end(&w);
    if (aps_json_writer_status(&w) == APS_OK) {
        fputs(diag.json_items++ > 0 ? ",\n" : "\n", out);
        fwrite(aps_json_writer_data(&w), 1, aps_json_writer_len(&w), out);
    }
    aps_json_writer_deinit(&w);
}

/* A missing member's name, from the engine's own wording ("missing required member 'x'"), for the key. */
static const char *missing_member(const aps_error *err, char *buf, size_t cap)
{
    static const char lead[] = "missing required member '";
    const char *p = err->message, *q;
    if (err->code != APS_E_MISSING || strncmp(p, lead, sizeof lead - 1) != 0)
        return NULL;
    p += sizeof lead - 1;
    if ((q = strrchr(p, '\'')) == NULL || (size_t)(q - p) >= cap)
        return NULL;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    return buf;
}

/* Prints one finding that the baseline did not accept. */
static void print_finding(FILE *out, uint64_t line, const char *severity, const char *rule, const char *method,
                          const char *pointer, size_t offset, const char *message)
{
    apstream_diag_collect(line, severity, rule, method, pointer, message);
    if (!room())
        return;
    if (diag.json)
        json_item(out, line, severity, rule, method, pointer != NULL ? pointer : "", offset, message);
    else if (line == 0 && pointer != NULL) /* about no record (connect: the connection, a command) */
        fprintf(out, "%s: %s: %s [%s]\n", severity, pointer[0] ? pointer : "(root)", message, rule);
    else if (line == 0)
        fprintf(out, "%s: %s [%s]\n", severity, message, rule);
    else if (pointer != NULL)
        fprintf(out, "%" PRIu64 ": %s: %s: %s [%s]\n", line, severity, pointer[0] ? pointer : "(root)", message, rule);
    else
        fprintf(out, "%" PRIu64 ": %s: %s [%s]\n", line, severity, message, rule);
}

/* A finding under an id rules.c does not list is apstream's own defect: stopped where tests see it. */
static void check_rule(const char *rule)
{
    if (!apstream_rule_known(rule)) {
        fprintf(stderr, "apstream: internal error: a finding under the unknown rule id '%s'\n",
                rule != NULL ? rule : "(null)");
        abort();
    }
}

/* The baseline's example of a finding: where and what, without the line. */
static void example(char *buf, size_t cap, const char *pointer, const char *message)
{
    if (pointer != NULL)
        snprintf(buf, cap, "%.60s: %.130s", pointer[0] ? pointer : "(root)", message);
    else
        snprintf(buf, cap, "%.190s", message);
}

int apstream_report(FILE *out, uint64_t line, const char *rule, const char *method, const aps_error *err)
{
    char name[128], ex[200];
    check_rule(rule);
    example(ex, sizeof ex, err->pointer, err->message);
    if (!apstream_baseline_note(rule, method, err->pointer, missing_member(err, name, sizeof name), ex))
        return 0;
    print_finding(out, line, "error", rule, method, err->pointer, err->offset, err->message);
    return 1;
}

int apstream_diag(FILE *out, uint64_t line, const char *severity, const char *rule, const char *method,
                  const char *pointer, const char *fmt, ...)
{
    char message[APS_ERROR_MESSAGE_MAX], ex[200];
    va_list ap;
    check_rule(rule);
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    example(ex, sizeof ex, pointer, message);
    if (!apstream_baseline_note(rule, method, pointer, NULL, ex))
        return 0;
    print_finding(out, line, severity, rule, method, pointer, 0, message);
    return 1;
}

void apstream_diag_end(void)
{
    if (diag.hidden > 0)
        fprintf(stderr, "apstream: %" PRIu64 " more diagnostics not shown (--max-errors 0 shows all)\n", diag.hidden);
}
