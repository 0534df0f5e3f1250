/*
 * test_records.c - the records reader (aps/records.h) on inputs whose
 * reports are written out here: line numbers of SSE records and errors,
 * JSONL lines held until a JSON text is seen, what the gate rejects and
 * where, format detection from the head of a stream. Each input is also
 * read one byte at a time and cut at every point into two pieces: the
 * reports must be the same (the reader's promise to a tool reading a pipe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/records.h"

typedef struct rcase {
    const char *name;
    const char *input;
    aps_record_format format;
    int strict;
    size_t max_record;
    const char *want;
} rcase;

static const rcase cases[] = {
    { "sse lines", "event: a\nid: 1\ndata: {\"x\":1}\n\n: c\n\ndata: 2\ndata: 3\n\n", APS_FORMAT_AUTO, 0, 64,
      "R3 [a#1] {\"x\":1}\nC5  c\nR7 [message#1] 2\\n3\n= 0 format 3 verdict 0\n" },
    { "sse crlf bom", "\xEF\xBB\xBF" "data: 1\r\n\r\nevent: b\rdata: 2\r\r", APS_FORMAT_AUTO, 0, 64,
      "R1 [message#] 1\nR4 [b#] 2\n= 0 format 3 verdict 0\n" },
    { "sse not sse", "data: 1\n\ndata: 2\nbogus: 3\n\ndata: 4\n\n", APS_FORMAT_SSE, 0, 64,
      "R1 [message#] 1\nG4 error: not SSE: the line is not a data, event, id or retry field or a comment\n= -2 format 3 verdict 2\n" },
    { "sse cut", "data: 1\n\n: c\nid: 2\ndata: 2\n", APS_FORMAT_AUTO, 0, 64,
      "R1 [message#] 1\nC3  c\nG4 warning: the stream ends inside the event that starts here\n= 0 format 3 verdict 0\n" },
    { "sse cut strict", "data: 1\n\ndata: 2", APS_FORMAT_AUTO, 1, 64,
      "R1 [message#] 1\nG3 error: the stream ends inside the event that starts here\n= 0 format 3 verdict 1\n" },
    { "sse comment cut", "data: 1\n\n: keep", APS_FORMAT_AUTO, 0, 64,
      "R1 [message#] 1\nG3 warning: the stream ends inside the event that starts here\n= 0 format 3 verdict 0\n" },
    { "sse too long", "data: 1\n\nevent: x\ndata: 0123456789\n\ndata: 2\n\n", APS_FORMAT_SSE, 0, 8,
      "R1 [message#] 1\nE4 SSE event at offset 9: data is longer than the maximum of 8 bytes; event dropped\n"
      "R6 [message#] 2\n= 0 format 3 verdict 0\n" },
    { "sse bad utf-8", "data: 1\n\nid: 5\ndata: a\xff\ndata: b\n\nid: \xfe\n\ndata: 3\n\n", APS_FORMAT_SSE, 0, 64,
      "R1 [message#] 1\nE4 SSE event at offset 9: data is not valid UTF-8 (byte at offset 21); event dropped\n"
      "E7 SSE event at offset 33: id is not valid UTF-8 (byte at offset 33); event dropped\n"
      "R9 [message#5] 3\n= 0 format 3 verdict 0\n" },
    { "jsonl held", "x\n\n{}\ny\n", APS_FORMAT_AUTO, 0, 64, "R1 x\nR3 {}\nR4 y\n= 0 format 2 verdict 0\n" },
    { "jsonl nul", "{}\n\"a\\0\"\n{}\n", APS_FORMAT_JSONL, 0, 64,
      "R1 {}\nG2 error: not JSONL or SSE: a NUL byte: binary data\n= -2 format 2 verdict 2\n" },
    { "jsonl prose", "one\ntwo\n", APS_FORMAT_AUTO, 0, 64,
      "G1 error: not JSONL or SSE: no line is a JSON text\n= -2 format 2 verdict 2\n" },
    { "jsonl blank only", " \n\n", APS_FORMAT_JSONL, 0, 64,
      "G1 error: not JSONL or SSE: no line is a JSON text\n= -2 format 2 verdict 2\n" },
    { "jsonl too long", "{}\n[1,2,3,4,5,6,7,8]\n{}\n", APS_FORMAT_AUTO, 0, 8,
      "R1 {}\nE2 JSONL line 2 is longer than the maximum of 8 bytes; line skipped\nR3 {}\n= 0 format 2 verdict 0\n" },
    { "empty", "", APS_FORMAT_AUTO, 0, 64, "= 0 format 2 verdict 0\n" },
    { "json pretty", "{\n  \"a\": 1\n}\n", APS_FORMAT_AUTO, 0, 64,
      "R1 {\\n  \"a\": 1\\n}\\n\n= 0 format 1 verdict 0\n" },
    { "json too long", "[1,\n2,\n3,\n4]", APS_FORMAT_JSON, 0, 8,
      "E1 the JSON document is longer than the maximum of 8 bytes; not read\n= 0 format 1 verdict 0\n" },
    /* blank lines past max_record: decided on the first max_record bytes, JSONL, whatever the chunks */
    { "blank head past the limit", "\n\n\n\n\n\n\n\n\n: c\n\ndata: 1\n\n", APS_FORMAT_AUTO, 0, 8,
      "G1 error: not JSONL or SSE: no line is a JSON text\n= -2 format 2 verdict 2\n" },
    /* the head reaches max_record before a line is JSON: JSONL, its first lines held until one is */
    { "head limit", "[1,\n2]\n[3]\n", APS_FORMAT_AUTO, 0, 4, "R1 [1,\nR2 2]\nR3 [3]\n= 0 format 2 verdict 0\n" },
};

static int check(const rcase *c)
{
    tlog whole = { 0 }, other = { 0 };
    size_t len = strlen(c->input), at;
    int failed = 0;
    /* "\\0" in an input stands for a NUL byte, which a C string cannot hold */
    char *input = malloc(len + 1), *nul;
    if (input == NULL)
        return 1;
    memcpy(input, c->input, len + 1);
    while ((nul = strstr(input, "\\0")) != NULL) {
        *nul = '\0';
        memmove(nul + 1, nul + 2, strlen(nul + 2) + 1);
        len--;
    }
    records_run(&whole, input, len, c->format, c->strict, c->max_record, 0);
    if (strcmp(tlog_get(&whole), c->want) != 0) {
        printf("FAIL %s:\n--- got\n%s--- want\n%s", c->name, tlog_get(&whole), c->want);
        failed = 1;
    }
    for (at = 1; at <= len && !failed; at++) {
        tlog_clear(&other);
        records_run(&other, input, len, c->format, c->strict, c->max_record, at);
        if (strcmp(tlog_get(&whole), tlog_get(&other)) != 0) {
            printf("FAIL %s in pieces of %zu:\n--- got\n%s--- whole\n%s", c->name, at, tlog_get(&other), tlog_get(&whole));
            failed = 1;
        }
    }
    tlog_free(&whole);
    tlog_free(&other);
    free(input);
    return failed;
}

int main(void)
{
    size_t i;
    int failed = 0;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failed |= check(&cases[i]);
    printf("%zu cases, %s\n", sizeof cases / sizeof cases[0], failed ? "FAILED" : "all passed");
    return failed;
}
