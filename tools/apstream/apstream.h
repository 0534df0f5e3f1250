/* apstream.h - the commands of apstream, one file each (see main.c). */
#ifndef APSTREAM_H
#define APSTREAM_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ap.h"
#include "aps/records.h"

typedef struct apstream_options {
    const char *command;
    const char *file;   /* NULL or "-": standard input */
    const char *type_name;
    int strict;         /* --strict: stream-level rules and a cut stream are errors, not warnings */
    int tolerant;       /* --tolerant: accept unknown variants, as a consuming application does */
    int unfiltered;     /* --unfiltered: an unfiltered subscription: a gap in seq is a violation */
    int json_report;    /* --output json (validate) */
    aps_key_case key_case;
    int case_given;
    aps_record_format format;
    uint64_t capacity, bytes;
    uint64_t max_errors; /* --max-errors: diagnostics shown at most (0: all) */
    const char *baseline;       /* --baseline FILE: accepted findings */
    const char *write_baseline; /* --write-baseline FILE: this run's findings, as a baseline */
    const char *request;
    const char *redis;  /* --redis URL: the replay log on Redis Streams */
    size_t max_record;  /* longest JSONL line, SSE event or JSON document accepted */
    int report;         /* `apstream report`: validate, and write the page */
    const char *page;   /* -o FILE: where the page goes (NULL: standard output) */
} apstream_options;

/*
 * Reads a whole small file ("-": stdin): the replay request. Returns 0, or
 * -1 after printing why. APS_PADDING readable bytes follow the data.
 */
int apstream_read_file(const char *path, char **data, size_t *len);

/* A count: decimal digits only (no sign, no space, no suffix), within uint64_t. 0, or -1 (`*out` untouched). */
int apstream_parse_count(const char *s, uint64_t *out);

/* The input's name in messages: the file, or "(standard input)". */
const char *apstream_input_name(const apstream_options *o);

/* How reading a capture ended. */
typedef enum apstream_gate {
    APSTREAM_INPUT_OK,       /* read (warnings may have been printed) */
    APSTREAM_INPUT_FAILED,   /* read, then exit 1: a cut capture under --strict */
    APSTREAM_INPUT_REJECTED, /* not in its format: reading stopped there; exit 1 */
    APSTREAM_INPUT_ERROR     /* I/O error, out of memory, or on_record stopped it: exit 2 */
} apstream_gate;

/*
 * Reads the capture o->file (or standard input) as a stream, in chunks,
 * through aps_records_reader (aps/records.h): records to on_record, framing
 * errors to on_error, the gate's finding printed on stderr as
 * "apstream: FILE:LINE: error|warning: reason". `format`: the one asked
 * for, or APS_FORMAT_AUTO. Memory stays bounded by about twice o->max_record.
 */
apstream_gate apstream_read_records(const apstream_options *o, aps_record_format format, aps_record_fn on_record,
                                    aps_record_error_fn on_error, void *user);

/* The gate after: a file without a record is rejected (prints why, returns 1; else 0). */
int apstream_check_records(const apstream_options *o, uint64_t records);

/* The schema type named `name`, or NULL after printing the known names. */
const aps_type *apstream_find_type(const char *name);

/*
 * Findings about records (report.c), capped at o->max_errors: set up
 * once (`json`: as objects of a JSON array, for --output json). Each has
 * a stable rule id (docs/apstream.md lists them) and the method of the
 * event or command it is about (NULL: none), which with the pointer are
 * its key for the baseline (baseline.c).
 */
void apstream_diag_setup(const apstream_options *o, int json);
/*
 * Prints "LINE: error: POINTER: message [rule]" to `out` (the root pointer
 * as "(root)"). Returns 1, or 0 when the baseline accepts it (then nothing
 * is printed, and it must not fail the run).
 */
int apstream_report(FILE *out, uint64_t line, const char *rule, const char *method, const aps_error *err);
/* Prints "LINE: SEVERITY: [POINTER: ]message [rule]" to `out`; `pointer` may be NULL. Returns as apstream_report. */
int apstream_diag(FILE *out, uint64_t line, const char *severity, const char *rule, const char *method,
                  const char *pointer, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/*
 * Every finding that the baseline did not accept, shown or past the cap,
 * also goes to `fn` (NULL: none), once: `apstream report` and `connect
 * --report` collect them for the page from the same calls that print
 * them, so the page and the log cannot disagree. `pointer` and `method`
 * may be NULL; `line` 0 is about no record. Process-wide, like the cap.
 */
typedef void (*apstream_finding_fn)(void *user, uint64_t line, const char *severity, const char *rule,
                                    const char *method, const char *pointer, const char *message);
void apstream_diag_hook(apstream_finding_fn fn, void *user);
/* Hands a finding printed elsewhere (the assembler's "still open" lines) to the hook. */
void apstream_diag_collect(uint64_t line, const char *severity, const char *rule, const char *method,
                           const char *pointer, const char *message);
/*
 * What the assembler delivers (assemble.c), each message and tool run as
 * the JSON line `apstream assemble` prints (`kind` 'm' or 't'), also to
 * `fn` (NULL: none), quiet runs included. Process-wide.
 */
typedef void (*apstream_assembled_fn)(void *user, int kind, const char *json, size_t len);
void apstream_asm_hook(apstream_assembled_fn fn, void *user);
/* Says on stderr how many diagnostics the cap did not show. */
void apstream_diag_end(void);

/* Whether `id` is one of the findings' rule ids (rules.c); `apstream rules` prints them, one a line. */
int apstream_rule_known(const char *id);
int apstream_rules(void);

/*
 * Baselines (baseline.c): accepted findings, and the record of a run's.
 * apstream_baseline_load reads --baseline FILE (-1 after saying what is
 * wrong with it); apstream_baseline_keep makes a run keep its findings
 * for apstream_baseline_write (--write-baseline FILE; -1 after saying
 * why). apstream_baseline_note counts a finding by its key (`missing`: a
 * missing member's name, or NULL) and returns 0 when the baseline accepts
 * it, else 1. apstream_baseline_summary says on stderr what was accepted
 * and which entries no longer occur. Process-wide state, one run at a time.
 */
int apstream_baseline_load(const char *path);
void apstream_baseline_keep(void);
int apstream_baseline_note(const char *rule, const char *method, const char *pointer, const char *missing,
                           const char *example);
int apstream_baseline_write(const char *path);
void apstream_baseline_summary(void);
void apstream_baseline_free(void);
/* What a command does with o->baseline and o->write_baseline at its start and end. -1 after saying why. */
int apstream_baseline_begin(const apstream_options *o);
int apstream_baseline_end(const apstream_options *o);
/* The `method` member of a record's JSON (at most cap - 1 bytes), or "" when it has none. */
const char *apstream_record_method(const aps_record *rec, char *buf, size_t cap);

/*
 * The string member `name` of the JSON object `obj` (unescaped into
 * `arena`), whatever else the object holds. 0, or -1 when it has none that
 * is a string.
 */
static inline int apstream_string_member(aps_json_raw obj, const char *name, aps_arena *arena, aps_slice *out)
{
    aps_json_raw v;
    aps_json_reader r;
    if (obj.ptr == NULL || aps_json_raw_member(obj, name, strlen(name), arena, &v, NULL) != APS_OK)
        return -1;
    aps_json_raw_reader(&r, v, arena);
    return aps_json_read_string(&r, out, NULL) == APS_OK ? 0 : -1;
}

/*
 * The assembler over a stream of records (assemble.c): `apstream assemble`
 * prints what it assembles; `validate` runs one quietly, so that the two
 * agree on what breaks the messages and tools lifecycle. Violations and
 * what is still open at the end are reported with `severity` ("error" or
 * "warning") through apstream_diag to `out` (NULL: violations are not
 * reported; `serve` assembles for /inspect only).
 */
typedef struct asm_run asm_run;
asm_run *apstream_asm_open(const apstream_options *o, int quiet, FILE *out, const char *severity);
/*
 * What `r` delivers goes to `fn` (as apstream_asm_hook's, for this run
 * only) instead of standard output; the process-wide hook still hears it.
 */
void apstream_asm_sink(asm_run *r, apstream_assembled_fn fn, void *user);
/* Feeds one record (decoded again here). Returns 0, or 2 when out of memory. */
int apstream_asm_record(asm_run *r, const aps_record *rec);
/* Findings that decide the exit status so far: violations (under --strict
 * only) and messages or tool runs left open. */
uint64_t apstream_asm_found(const asm_run *r);
/*
 * Ends the stream and frees `r`. With `deliver`, what is still open is
 * delivered (and reported); returns apstream_asm_found at the end. Without,
 * nothing more is printed (input that was no capture).
 */
uint64_t apstream_asm_close(asm_run *r, int deliver);

/*
 * The checker of `validate` (check.c), one record at a time, so that a
 * capture (validate) and a live server (connect) are checked alike: each
 * record decoded as `type` and validated (strict unless o->tolerant or
 * `roundtrip`), and for a Message stream the stream-level rules (seq,
 * eventId, with --strict SSE event:/id:) and the messages and tools
 * lifecycle. Findings go through apstream_diag to `out`, numbered by
 * rec->line. With `roundtrip`, each valid record is re-encoded on stdout.
 */
typedef struct apstream_check apstream_check;
/* A new checker (NULL: out of memory). `o` is borrowed for its life. */
apstream_check *apstream_check_new(const apstream_options *o, const aps_type *type, int roundtrip, FILE *out);
/* Checks one record (an aps_record_fn; `user` is the checker). Returns 0, or 2 when out of memory. */
int apstream_check_record(void *user, const aps_record *rec);
/* Reports a framing error (an aps_record_error_fn) and counts it invalid. */
void apstream_check_framing_error(void *user, uint64_t line, const aps_error *err);
/* Records counted valid and invalid so far. */
void apstream_check_counts(const apstream_check *c, uint64_t *valid, uint64_t *invalid);
/* The next seq need not follow the last one: after a miss the server announced. */
void apstream_check_forget_seq(apstream_check *c);
/*
 * Ends the stream and frees `c` (NULL-safe): with `deliver`, what is still
 * open is reported (see apstream_asm_close). Returns the stream-level and
 * lifecycle findings, which fail the stream under --strict.
 */
uint64_t apstream_check_free(apstream_check *c, int deliver);

/*
 * The page of a stream (report_page.c): one self-contained HTML file, the
 * page of report.html with the stream's data inside. apstream_page_open
 * writes the page's head to `path` (NULL or "-": standard output; NULL
 * returned after saying why it cannot); `name` (borrowed) is the stream's
 * name on the page. apstream_page_listen makes the findings
 * (apstream_diag_hook) and the assembled values (apstream_asm_hook) of
 * this process go to the page from then on. apstream_page_event writes
 * one record, before the checker sees it; apstream_page_record does both
 * (an aps_record_fn, `user` the page) once a checker is attached.
 * apstream_page_close writes the verdict and the rest, frees the page and
 * returns 0, or -1 after saying why the page is incomplete.
 */
typedef struct apstream_page apstream_page;
typedef struct apstream_page_verdict {
    const char *command;   /* "report", "validate", "connect" */
    int exit_status;       /* what the command exits with */
    int strict;
    uint64_t valid, invalid;
} apstream_page_verdict;
apstream_page *apstream_page_open(const char *path, const char *name);
void apstream_page_listen(apstream_page *p);
void apstream_page_attach(apstream_page *p, apstream_check *c);
void apstream_page_event(apstream_page *p, const aps_record *rec);
int apstream_page_record(void *user, const aps_record *rec);
void apstream_page_framing_error(void *user, uint64_t line, const aps_error *err);
int apstream_page_close(apstream_page *p, const apstream_page_verdict *v);
/*
 * The live page (`apstream serve`'s /inspect): the same page with no
 * data, a summary saying `live`, and a CSP that lets it connect to its own
 * origin. A malloc'd buffer of *len bytes (free it), NULL out of memory.
 */
char *apstream_page_live(size_t *len);

int apstream_validate(const apstream_options *o, int roundtrip);
int apstream_sse2jsonl(const apstream_options *o);
int apstream_replay(const apstream_options *o);
int apstream_assemble(const apstream_options *o);
/* `apstream serve ...` (serve.c): options of its own; only when built with ap_server. */
int apstream_serve(int argc, char **argv);
/* `apstream connect URL --thread ID ...` (connect.c): options of its own; only when built with libcurl. */
int apstream_connect(int argc, char **argv);

#endif
