/*
 * records.c - fuzz target for the records reader (runtime/framing/records.c):
 * format detection, the JSONL and SSE gate, and the SSE line numbers kept
 * while the parser runs behind the shape check. The first byte picks the
 * format, strictness and a small record limit; the second a cut point; the
 * rest is the stream. Read whole, in two pieces cut there, and (when short)
 * one byte at a time, it must report exactly the same.
 */
#include "records.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const aps_record_format formats[] = { APS_FORMAT_AUTO, APS_FORMAT_JSONL, APS_FORMAT_SSE, APS_FORMAT_JSON };
    tlog whole = { 0 }, cut = { 0 }, bytes = { 0 };
    aps_record_format format;
    int strict;
    size_t max_record, piece;
    const char *text;
    size_t len;
    if (size < 2)
        return 0;
    format = formats[data[0] & 3];
    strict = (data[0] >> 2) & 1;
    max_record = 8 + (size_t)(data[0] >> 3) * 8;
    piece = 1 + data[1];
    text = (const char *)data + 2;
    len = size - 2;
    records_run(&whole, text, len, format, strict, max_record, 0);
    records_run(&cut, text, len, format, strict, max_record, piece);
    if (strcmp(tlog_get(&whole), tlog_get(&cut)) != 0)
        abort();
    if (len <= 4096) {
        records_run(&bytes, text, len, format, strict, max_record, 1);
        if (strcmp(tlog_get(&whole), tlog_get(&bytes)) != 0)
            abort();
    }
    tlog_free(&whole);
    tlog_free(&cut);
    tlog_free(&bytes);
    return 0;
}
