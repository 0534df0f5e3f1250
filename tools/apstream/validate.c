/*
 * validate.c - `apstream validate`, `roundtrip` and `sse2jsonl` over a
 * capture: the records read as a stream and each handed to the checker
 * (check.c), which decodes, checks and re-encodes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apstream.h"

const aps_type *apstream_find_type(const char *name)
{
    size_t i;
    for (i = 0; i < ap_types_count; i++)
        if (strcmp(ap_types[i].name, name) == 0)
            return ap_types[i].type;
    fprintf(stderr, "apstream: error: no type '%s' in the schema; the rules are:\n", name);
    for (i = 0; i < ap_types_count; i++)
        if (strchr(ap_types[i].name, '.') == NULL || strchr(ap_types[i].name, '(') == NULL)
            fprintf(stderr, "  %s\n", ap_types[i].name);
    return NULL;
}

/* The exit status of validate, from what the check found. */
static int verdict(const apstream_options *o, apstream_gate gate, uint64_t valid, uint64_t invalid, uint64_t found)
{
    if (gate == APSTREAM_INPUT_ERROR)
        return 2;
    if (gate == APSTREAM_INPUT_REJECTED || apstream_check_records(o, valid + invalid) != 0)
        return 1;
    if (invalid > 0 || gate != APSTREAM_INPUT_OK)
        return 1;
    return o->strict && found > 0 ? 1 : 0;
}

/*
 * validate, roundtrip, and report: report is validate that also writes the
 * page of the capture (report_page.c), from the same checker's findings, so
 * that the page and the log say the same; its text report goes to stderr,
 * as the page may be on stdout.
 */
int apstream_validate(const apstream_options *o, int roundtrip)
{
    apstream_check *c;
    apstream_page *page = NULL;
    const aps_type *type;
    apstream_gate gate;
    uint64_t found, valid, invalid;
    int json = o->json_report && !roundtrip, rc;
    /* roundtrip's stdout is JSON values, report's may be the page: their report lines go to stderr */
    FILE *out = roundtrip || o->report ? stderr : stdout;
    if ((type = apstream_find_type(o->type_name)) == NULL)
        return 2;
    if (apstream_baseline_begin(o) != 0) {
        apstream_baseline_free();
        return 2;
    }
    apstream_diag_setup(o, json);
    if ((c = apstream_check_new(o, type, roundtrip, out)) == NULL) {
        fprintf(stderr, "apstream: out of memory\n");
        return 2;
    }
    if (o->report) {
        if ((page = apstream_page_open(o->page, apstream_input_name(o))) == NULL) {
            apstream_check_free(c, 0);
            apstream_baseline_free();
            return 2;
        }
        apstream_page_attach(page, c);
        apstream_page_listen(page);
    }
    if (json)
        fputs("{\"errors\":[", stdout);
    gate = page != NULL ? apstream_read_records(o, o->format, apstream_page_record, apstream_page_framing_error, page)
                        : apstream_read_records(o, o->format, apstream_check_record, apstream_check_framing_error, c);
    apstream_check_counts(c, &valid, &invalid);
    found = apstream_check_free(c, gate == APSTREAM_INPUT_OK || gate == APSTREAM_INPUT_FAILED);
    if (json)
        printf("\n],\"valid\":%" PRIu64 ",\"invalid\":%" PRIu64 "}\n", valid, invalid);
    else if (gate == APSTREAM_INPUT_OK || gate == APSTREAM_INPUT_FAILED)
        fprintf(out, "%" PRIu64 " valid, %" PRIu64 " invalid\n", valid, invalid);
    fflush(stdout);
    apstream_diag_end();
    rc = apstream_baseline_end(o) != 0 ? 2 : verdict(o, gate, valid, invalid, found);
    if (page != NULL) {
        apstream_page_verdict v;
        memset(&v, 0, sizeof v);
        v.command = "report";
        v.exit_status = rc;
        v.strict = o->strict;
        v.valid = valid;
        v.invalid = invalid;
        if (apstream_page_close(page, &v) != 0)
            return 2;
    }
    return rc;
}

/* What sse2jsonl counts: records printed and framing errors. */
typedef struct sse2jsonl_counts {
    uint64_t records;
    int errors;
} sse2jsonl_counts;

static int print_data(void *user, const aps_record *rec)
{
    size_t i;
    ((sse2jsonl_counts *)user)->records++;
    /* JSON allows a line break only between tokens, where a space says the same */
    for (i = 0; i < rec->len; i++)
        fputc(rec->text[i] == '\n' ? ' ' : rec->text[i], stdout);
    fputc('\n', stdout);
    return 0;
}

static void print_framing_error(void *user, uint64_t line, const aps_error *err)
{
    sse2jsonl_counts *n = user;
    fprintf(stderr, "%" PRIu64 ": error: %s\n", line, err->message);
    n->errors++;
}

int apstream_sse2jsonl(const apstream_options *o)
{
    sse2jsonl_counts n = { 0, 0 };
    /* the input must be SSE whatever it looks like */
    apstream_gate gate = apstream_read_records(o, APS_FORMAT_SSE, print_data, print_framing_error, &n);
    fflush(stdout);
    if (gate == APSTREAM_INPUT_ERROR)
        return 2;
    if (gate == APSTREAM_INPUT_REJECTED || apstream_check_records(o, n.records) != 0)
        return 1;
    return n.errors > 0 || gate != APSTREAM_INPUT_OK ? 1 : 0;
}
