/*
 * assemble.c - `apstream assemble`: decoded events fed to the runtime's
 * assembler (aps/asm.h); one JSON object per line for each message and
 * each tool run, in the order they complete, then those still open.
 * By default the assembler follows the reference client's rules
 * (docs/assembly.md): lifecycle violations, and messages or tools events
 * the schema rejects, are reported on stderr as `LINE: warning: message`
 * and assembled all the same (a rejected record read leniently from its
 * JSON, aps_asm_event_from_json), so no content is lost. With --strict they
 * are `LINE: error: message` and the protocol's rules apply. The exit
 * status is 1 for an error, and when a message or tool run is still open
 * at the end (a cut capture, or a server that never finished it: either
 * way not a final value).
 *
 * The assembler sees each event through aps_asm_event, filled from the
 * decoded message by the protocol companion (ap_asm_event_from_message,
 * ap_assemble.h): nothing is re-parsed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ap_assemble.h"
#include "aps/asm.h"
#include "apstream.h"

struct asm_run {
    const apstream_options *o;
    int quiet;                /* validate: report, print nothing assembled */
    FILE *diag;               /* where violations go */
    const char *severity;     /* what they are: "error" or "warning" */
    aps_assembler a;
    aps_arena arena;
    aps_json_writer out;      /* one output line */
    aps_asm_reader lenient;   /* for events the schema rejects */
    uint64_t rejected;
    uint64_t records;
    int finishing;            /* aps_asm_finish is delivering what is still open */
    uint64_t unfinished;      /* messages and tool runs still open at the end */
    uint64_t violations;      /* lifecycle violations reported (not accepted by the baseline) */
    const aps_record *rec;    /* the record being fed (apstream_asm_record): its violations are about its method */
    char method[48];          /* that method, once asm_method has read it */
    int method_read;
    apstream_assembled_fn sink; /* what is delivered, instead of standard output (serve's /inspect) */
    void *sink_user;
};

static struct {
    apstream_assembled_fn fn;
    void *user;
} assembled;

void apstream_asm_hook(apstream_assembled_fn fn, void *user)
{
    assembled.fn = fn;
    assembled.user = user;
}

/* The stream ended before `what` `id` did: the capture is cut, or the server never finished it. */
static void report_unfinished(asm_run *r, const char *what, aps_slice id)
{
    const char *severity = r->quiet ? r->severity : "error";
    char text[APS_ERROR_MESSAGE_MAX];
    /* a baseline may accept it: a server that never finishes its messages is a known deviation */
    if (!apstream_baseline_note("unfinished", what[0] == 'm' ? "messages" : "tools", NULL, NULL, what))
        return;
    /* assemble: an open message is no final value, an error; validate: a
     * cut stream, a warning without --strict as the framing rule has it */
    fprintf(stderr, "apstream: %s: %s: %s \"%.*s\" is still open at the end of the stream [unfinished]\n",
            apstream_input_name(r->o), severity, what, (int)id.len, id.ptr);
    snprintf(text, sizeof text, "%s \"%.*s\" is still open at the end of the stream", what,
             (int)(id.len > 200 ? 200 : id.len), id.ptr);
    apstream_diag_collect(0, severity, "unfinished", what[0] == 'm' ? "messages" : "tools", NULL, text);
    r->unfinished++;
}

static void print_line(asm_run *r, int kind)
{
    if (assembled.fn != NULL)
        assembled.fn(assembled.user, kind, aps_json_writer_data(&r->out), aps_json_writer_len(&r->out));
    if (r->sink != NULL)
        r->sink(r->sink_user, kind, aps_json_writer_data(&r->out), aps_json_writer_len(&r->out));
    if (r->quiet || r->sink != NULL) {
        aps_json_writer_reset(&r->out);
        return;
    }
    fwrite(aps_json_writer_data(&r->out), 1, aps_json_writer_len(&r->out), stdout);
    fputc('\n', stdout);
    aps_json_writer_reset(&r->out);
}

static void on_message_done(void *ctx, const aps_asm_message *m)
{
    asm_run *r = ctx;
    aps_asm_message_write(m, &r->out);
    print_line(r, 'm');
    if (r->finishing) /* still open: aps_asm_finish delivers it (as abandoned, in the default mode) */
        report_unfinished(r, "message", aps_asm_message_id(m));
}

static void on_tool_done(void *ctx, const aps_asm_tool *t)
{
    asm_run *r = ctx;
    aps_asm_tool_write(t, &r->out);
    print_line(r, 't');
    if (r->finishing) /* still open: aps_asm_finish delivers it (as abandoned, in the default mode) */
        report_unfinished(r, "tool run", aps_asm_tool_call_id(t));
}

/* The method of the record being fed, read from its JSON only when a finding names it (none at the end). */
static const char *asm_method(asm_run *r)
{
    if (r->finishing || r->rec == NULL)
        return NULL;
    if (!r->method_read) {
        (void)apstream_record_method(r->rec, r->method, sizeof r->method);
        r->method_read = 1;
    }
    return r->method;
}

/* A lifecycle violation: a warning in the default mode, which assembles on as the reference client does. */
static void on_violation(void *ctx, uint64_t position, aps_asm_violation code, const char *text)
{
    asm_run *r = ctx;
    if (r->diag == NULL)
        return;
    /* the violation's name is its rule id */
    r->violations += (uint64_t)apstream_diag(r->diag, position, r->severity, aps_asm_violation_name(code),
                                             asm_method(r), NULL, "%s", text);
}

int apstream_asm_record(asm_run *r, const aps_record *rec)
{
    ap_message_t msg;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    aps_asm_event ae;
    r->records++;
    r->rec = rec;
    r->method_read = 0;
    aps_arena_reset(&r->arena);
    memset(&dopt, 0, sizeof dopt);
    dopt.key_case = r->o->key_case;
    if (ap_message_decode_opts(rec->text, rec->len, &r->arena, &msg, &dopt, &err) != APS_OK) {
        /*
         * Reported, then assembled all the same from the JSON itself, so a
         * server that omits a role, or sends a usage event or a
         * content-shaped delta, still gets its messages assembled: a
         * warning in the default mode, an error with --strict. A record
         * that is no messages or tools event is an error either way.
         * validate (quiet) has reported the schema's verdict itself.
         */
        int usable = aps_asm_event_from_json(&r->lenient, rec->text, rec->len, rec->line, &ae) == 1;
        if (usable && !r->o->strict) {
            if (!r->quiet)
                (void)apstream_diag(stderr, rec->line, "warning", "schema", asm_method(r),
                                    err.pointer[0] ? err.pointer : "(root)", "%s", err.message);
            goto feed;
        }
        if (!r->quiet && apstream_report(stderr, rec->line, "schema", asm_method(r), &err))
            r->rejected++;
        else if (r->quiet)
            r->rejected++;
        if (usable)
            goto feed;
        return 0;
    }
    if (ap_asm_event_from_message(&msg, r->o->strict, &r->arena, &ae) != APS_OK) {
        fprintf(stderr, "apstream: out of memory\n");
        return 2;
    }
    if (ae.kind == APS_ASM_OTHER)
        return 0; /* other channels and messages carry nothing to assemble */
    ae.position = rec->line;
feed:
    if (aps_asm_feed(&r->a, &ae, &err) != APS_OK) {
        fprintf(stderr, "%" PRIu64 ": error: %s\n", rec->line, err.message);
        return 2;
    }
    return 0;
}

static int on_record(void *user, const aps_record *rec)
{
    return apstream_asm_record(user, rec);
}

static void on_framing_error(void *user, uint64_t line, const aps_error *err)
{
    asm_run *r = user;
    if (apstream_report(stderr, line, "framing", NULL, err))
        r->rejected++;
}

asm_run *apstream_asm_open(const apstream_options *o, int quiet, FILE *out, const char *severity)
{
    asm_run *r = calloc(1, sizeof *r);
    aps_asm_callbacks cb;
    aps_asm_options opt;
    if (r == NULL)
        return NULL;
    r->o = o;
    r->quiet = quiet;
    r->diag = out;
    r->severity = severity;
    memset(&cb, 0, sizeof cb);
    cb.on_message_done = on_message_done;
    cb.on_tool_done = on_tool_done;
    cb.on_violation = on_violation;
    cb.ctx = r;
    /*
     * Every string an event points to is padded: it lies in the input,
     * which apstream_read_records pads, in the reader's padded buffers, or
     * in an arena.
     */
    memset(&opt, 0, sizeof opt);
    opt.padded = 1;
    opt.strict = o->strict; /* the protocol's rules; by default the reference client's (docs/assembly.md) */
    aps_asm_init(&r->a, &opt, &cb);
    aps_arena_init(&r->arena, NULL);
    aps_json_writer_init(&r->out, NULL);
    aps_asm_reader_init(&r->lenient);
    return r;
}

/* What decides the exit status: lifecycle violations count under --strict
 * only (by default they are warnings, as the reference client assembles on);
 * messages and tool runs left open count always. */
void apstream_asm_sink(asm_run *r, apstream_assembled_fn fn, void *user)
{
    r->sink = fn;
    r->sink_user = user;
}

uint64_t apstream_asm_found(const asm_run *r)
{
    return (r->o->strict ? r->violations : 0) + r->unfinished;
}

uint64_t apstream_asm_close(asm_run *r, int deliver)
{
    uint64_t found = 0;
    if (deliver) {
        r->finishing = 1;
        aps_asm_finish(&r->a);
        found = apstream_asm_found(r);
    }
    aps_asm_reader_deinit(&r->lenient);
    aps_json_writer_deinit(&r->out);
    aps_arena_deinit(&r->arena);
    aps_asm_deinit(&r->a);
    free(r);
    return found;
}

int apstream_assemble(const apstream_options *o)
{
    asm_run *r = apstream_asm_open(o, 0, stderr, o->strict ? "error" : "warning");
    apstream_gate gate;
    uint64_t found, rejected, records;
    if (r == NULL) {
        fprintf(stderr, "apstream: out of memory\n");
        return 2;
    }
    apstream_diag_setup(o, 0);
    gate = apstream_read_records(o, o->format, on_record, on_framing_error, r);
    rejected = r->rejected;
    records = r->records;
    /* input that is no capture, or that could not be read, has no final values */
    found = apstream_asm_close(r, gate == APSTREAM_INPUT_OK || gate == APSTREAM_INPUT_FAILED);
    fflush(stdout);
    apstream_diag_end();
    if (gate == APSTREAM_INPUT_ERROR)
        return 2;
    if (gate == APSTREAM_INPUT_REJECTED)
        return 1;
    return found > 0 || rejected > 0 || gate != APSTREAM_INPUT_OK || apstream_check_records(o, records) != 0 ? 1 : 0;
}
