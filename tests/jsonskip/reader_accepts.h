/*
 * reader_accepts.h - the pull reader's verdict, the reference the jsonskip
 * tests hold the skip's against (test_split.c, test_vector.c).
 */
#ifndef JSONSKIP_READER_ACCEPTS_H
#define JSONSKIP_READER_ACCEPTS_H

#include "aps/json_impl.h"

/* The reader's answer: is the whole text one valid JSON value? */
static int reader_accepts(const char *json, size_t len)
{
    aps_arena arena;
    aps_json_reader r;
    aps_status st;
    aps_arena_init(&arena, NULL);
    aps_json_reader_init(&r, json, len, &arena, NULL);
    st = aps_json_skip(&r, NULL);
    if (st == APS_OK)
        st = aps_json_reader_finish(&r, NULL);
    aps_arena_deinit(&arena);
    return st == APS_OK;
}

#endif
