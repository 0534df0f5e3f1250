/*
 * jsonl.c - fuzz target for the JSON Lines splitter. The first byte picks
 * the maximum line length; the rest is the stream. Checks that splitting the
 * stream whole and in two pieces (cut at a point the input chooses) reports
 * the same lines and errors.
 */
#include "aps/jsonl.h"
#include "../test_util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct summary {
    uint64_t hash; /* FNV-1a over everything reported */
    size_t lines, errors, cap;
} summary;

static aps_status on_line(void *user, const aps_jsonl_line *line)
{
    summary *s = user;
    uint64_t nums[2];
    s->lines++;
    /* Lines never carry their LF and never exceed the maximum. */
    if (line->len > s->cap || memchr(line->text, '\n', line->len) != NULL)
        abort();
    s->hash = test_hash_mix(s->hash, line->text, line->len);
    nums[0] = line->line_no;
    nums[1] = line->offset;
    s->hash = test_hash_mix(s->hash, nums, sizeof nums);
    return APS_OK;
}

static aps_status on_error(void *user, const aps_error *err)
{
    summary *s = user;
    s->errors++;
    s->hash = test_hash_mix(s->hash, &err->offset, sizeof err->offset);
    s->hash = test_hash_mix(s->hash, err->message, strlen(err->message));
    return APS_OK;
}

static summary split_at(const uint8_t *in, size_t len, size_t cut, size_t cap)
{
    static char storage[512];
    aps_jsonl_splitter sp;
    summary s = { TEST_HASH_INIT, 0, 0, 0 };
    s.cap = cap;
    aps_jsonl_splitter_init(&sp, storage, cap, on_line, on_error, &s);
    if (aps_jsonl_splitter_push(&sp, in, cut, NULL) != APS_OK ||
        aps_jsonl_splitter_push(&sp, in + cut, len - cut, NULL) != APS_OK ||
        aps_jsonl_splitter_finish(&sp, NULL) != APS_OK)
        abort();
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cap, cut;
    summary whole, split;
    if (size < 1)
        return 0;
    cap = data[0] == 0 ? 512 : (size_t)data[0] % 64;
    data++;
    size--;
    cut = size > 0 ? (size_t)(data[size / 2] * 31u + data[0]) % (size + 1) : 0;
    whole = split_at(data, size, 0, cap);
    split = split_at(data, size, cut, cap);
    if (whole.hash != split.hash || whole.lines != split.lines || whole.errors != split.errors)
        abort();
    return 0;
}
