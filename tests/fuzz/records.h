/*
 * records.h - what an aps_records_reader reports on an input, written out
 * as text (records with their lines and SSE fields, SSE comments, framing
 * errors, the gate's finding, the result), for tests that the reader says the same
 * whatever way the input is chunked (fuzz target records.c, tests/cli).
 */
#ifndef CDDLGEN_TEST_RECORDS_H
#define CDDLGEN_TEST_RECORDS_H

#include "aps/records.h"
#include "../test_util.h"

#include <stdlib.h>
#include <string.h>

static int records_log_record(void *user, const aps_record *rec)
{
    tlog *l = user;
    tlog_printf(l, "R%llu", (unsigned long long)rec->line);
    if (rec->from_sse) {
        tlog_str(l, " [");
        tlog_escaped(l, rec->sse_type, rec->sse_type_len);
        tlog_str(l, "#");
        tlog_escaped(l, rec->sse_id, rec->sse_id_len);
        tlog_str(l, "]");
    }
    tlog_str(l, " ");
    tlog_escaped(l, rec->text, rec->len);
    tlog_str(l, "\n");
    return 0;
}

static int records_log_comment(void *user, uint64_t line, const char *text, size_t len)
{
    tlog *l = user;
    tlog_printf(l, "C%llu ", (unsigned long long)line);
    tlog_escaped(l, text, len);
    tlog_str(l, "\n");
    return 0;
}

static void records_log_error(void *user, uint64_t line, const aps_error *err)
{
    tlog_printf(user, "E%llu %s\n", (unsigned long long)line, err->message);
}

static void records_log_gate(void *user, const aps_records_gate *g)
{
    tlog_printf(user, "G%llu %s: %s\n", (unsigned long long)g->line, g->severity, g->reason);
}

/*
 * Reads `data` through a reader in pieces of `piece` bytes (0: whole), each
 * piece copied to a buffer of its own with APS_PADDING bytes after it, and
 * logs what it reported to `l`.
 */
static void records_run(tlog *l, const char *data, size_t len, aps_record_format format, int strict,
                        size_t max_record, size_t piece)
{
    aps_records_config c;
    aps_records_reader *r;
    size_t at = 0;
    int rc = 0;
    memset(&c, 0, sizeof c);
    c.format = format;
    c.strict = strict;
    c.max_record = max_record;
    c.on_record = records_log_record;
    c.on_error = records_log_error;
    c.on_gate = records_log_gate;
    c.on_comment = records_log_comment;
    c.user = l;
    r = aps_records_reader_new(&c);
    if (r == NULL)
        abort();
    while (rc == 0 && at < len) {
        size_t n = piece == 0 || piece > len - at ? len - at : piece;
        char *buf = malloc(n + APS_PADDING);
        if (buf == NULL)
            abort();
        memcpy(buf, data + at, n);
        memset(buf + n, 0, APS_PADDING);
        rc = aps_records_push(r, buf, n);
        free(buf);
        at += n;
    }
    if (rc == 0)
        rc = aps_records_finish(r);
    tlog_printf(l, "= %d format %d verdict %d\n", rc, (int)aps_records_reader_format(r),
                (int)aps_records_reader_verdict(r));
    aps_records_reader_free(r);
}

#endif
