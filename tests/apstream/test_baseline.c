/*
 * test_baseline.c - baseline matching (tools/apstream/baseline.c through
 * report.c): a finding is accepted by rule, method and pointer, wherever
 * and however often it occurs; any other rule, method or pointer, or a
 * second missing member of the same object, is a new finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "apstream.h"

static char dir[] = "/tmp/apstream-baseline-XXXXXX";

/* The path of `name` in the scratch folder (one of a few buffers in turn: two may be held at once). */
static const char *path_of(const char *name)
{
    static char paths[4][256];
    static unsigned next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    return path;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static char *read_all(const char *name)
{
    static char buf[8192];
    FILE *f = fopen(path_of(name), "r");
    size_t n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f != NULL)
        fclose(f);
    return buf;
}

/* A schema error as the engine words it. */
static aps_error schema_error(aps_status code, const char *pointer, const char *message)
{
    aps_error e = APS_ERROR_INIT;
    e.code = code;
    snprintf(e.pointer, sizeof e.pointer, "%s", pointer);
    snprintf(e.message, sizeof e.message, "%s", message);
    return e;
}

/* Whether anything was printed to `f` since it was last emptied. */
static long printed(FILE *f)
{
    long n;
    fflush(f);
    n = ftell(f);
    rewind(f);
    return n;
}

static void test_matching(FILE *out)
{
    apstream_options o;
    aps_error role = schema_error(APS_E_MISSING, "/params/data", "missing required member 'role'");
    aps_error id = schema_error(APS_E_MISSING, "/params/data", "missing required member 'id'");
    aps_error text = schema_error(APS_E_TYPE, "/params/data/content/3/text", "expected a string; got a number");
    memset(&o, 0, sizeof o);
    o.max_errors = 0;
    write_file("accept.jsonl",
               "# the reference server's\n"
               "\n"
               "{\"rule\":\"schema\",\"method\":\"messages\",\"pointer\":\"/params/data/role\",\"reason\":\"no role\","
               "\"cddl\":\"MessageStartData\"}\n"
               "{\"rule\":\"seq-order\",\"method\":\"updates\",\"pointer\":\"/seq\"}\n"
               "{\"rule\":\"schema\",\"method\":\"messages\",\"pointer\":\"/params/data/content/*/text\"}\n"
               "{\"rule\":\"resume-replayed\",\"method\":\"last-event-id\",\"pointer\":\"/seq\"}\n");
    o.baseline = path_of("accept.jsonl");
    o.write_baseline = path_of("written.jsonl");
    CHECK_INT(apstream_baseline_begin(&o), 0);
    apstream_diag_setup(&o, 0);

    /* the same finding at any line is accepted, and prints nothing */
    CHECK_INT(apstream_report(out, 5, "schema", "messages", &role), 0);
    CHECK_INT(apstream_report(out, 99, "schema", "messages", &role), 0);
    CHECK_INT((int)printed(out), 0);
    /* a second missing member of the same object is not the first one */
    CHECK_INT(apstream_report(out, 5, "schema", "messages", &id), 1);
    CHECK(printed(out) > 0);
    /* another method, another rule: new */
    CHECK_INT(apstream_report(out, 6, "schema", "tools", &role), 1);
    CHECK_INT(apstream_report(out, 6, "sse-binding", "messages", &role), 1);
    /* array indices stand for any index; the rest of the pointer must match */
    CHECK_INT(apstream_report(out, 7, "schema", "messages", &text), 0);
    text = schema_error(APS_E_TYPE, "/params/data/content/3/type", "expected a string; got a number");
    CHECK_INT(apstream_report(out, 7, "schema", "messages", &text), 1);
    /* connect's own findings, by the same key */
    CHECK_INT(apstream_diag(out, 8, "error", "seq-order", "updates", "/seq", "seq %d is not greater", 3), 0);
    CHECK_INT(apstream_diag(out, 8, "error", "seq-order", "updates", "/params/seq", "seq %d", 3), 1);
    CHECK_INT(apstream_diag(out, 8, "error", "seq-order", NULL, "/seq", "seq %d", 3), 1);
    CHECK_INT(apstream_diag(out, 0, "error", "resume-gap", "last-event-id", "/seq", "lost"), 1);
    (void)printed(out);

    /* the record: every key seen, once, the accepted ones with their reasons; the unseen entry is gone */
    CHECK_INT(apstream_baseline_end(&o), 0);
    {
        const char *w = read_all("written.jsonl");
        CHECK(strstr(w, "{\"rule\":\"schema\",\"method\":\"messages\",\"pointer\":\"/params/data/role\","
                        "\"reason\":\"no role\",\"cddl\":\"MessageStartData\",\"example\":\"/params/data: missing "
                        "required member 'role'\"}\n") != NULL);
        CHECK(strstr(w, "\"pointer\":\"/params/data/id\"") != NULL);
        CHECK(strstr(w, "\"pointer\":\"/params/data/content/*/type\"") != NULL);
        CHECK(strstr(w, "\"rule\":\"seq-order\",\"method\":\"\",\"pointer\":\"/seq\"") != NULL);
        CHECK(strstr(w, "resume-replayed") == NULL);
    }

    /* the record accepts the run it came from: nothing new then */
    memset(&o, 0, sizeof o);
    o.baseline = path_of("written.jsonl");
    CHECK_INT(apstream_baseline_begin(&o), 0);
    CHECK_INT(apstream_report(out, 1, "schema", "messages", &id), 0);
    CHECK_INT(apstream_report(out, 1, "schema", "tools", &role), 0);
    CHECK_INT(apstream_report(out, 1, "schema", "values", &role), 1);
    CHECK_INT(apstream_baseline_end(&o), 0);
    (void)printed(out);
}

static void test_bad_files(void)
{
    apstream_options o;
    memset(&o, 0, sizeof o);
    write_file("bad.jsonl", "{\"rule\":\"schema\",\"method\":\"messages\"}\n");
    o.baseline = path_of("bad.jsonl");
    CHECK_INT(apstream_baseline_begin(&o), -1);
    apstream_baseline_free();
    write_file("bad.jsonl", "{\"rule\":\"schema\",\"method\":\"messages\",\"pointer\":3}\n");
    CHECK_INT(apstream_baseline_begin(&o), -1);
    apstream_baseline_free();
    write_file("bad.jsonl", "rule schema\n");
    CHECK_INT(apstream_baseline_begin(&o), -1);
    apstream_baseline_free();
    o.baseline = path_of("missing.jsonl");
    CHECK_INT(apstream_baseline_begin(&o), -1);
    apstream_baseline_free();
    /* without a baseline nothing is accepted */
    memset(&o, 0, sizeof o);
    CHECK_INT(apstream_baseline_begin(&o), 0);
    CHECK_INT(apstream_baseline_note("schema", "messages", "/x", NULL, NULL), 1);
    CHECK_INT(apstream_baseline_end(&o), 0);
}

int main(void)
{
    FILE *out = tmpfile();
    if (mkdtemp(dir) == NULL || out == NULL) {
        perror("test_baseline");
        return 1;
    }
    test_matching(out);
    test_bad_files();
    fclose(out);
    remove(path_of("accept.jsonl"));
    remove(path_of("written.jsonl"));
    remove(path_of("bad.jsonl"));
    remove(dir);
    return test_report();
}
