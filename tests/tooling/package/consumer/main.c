/*
 * greet - decodes each argument as a greeting (hello.h, generated from the
 * schema at build time) and prints it encoded again, or why it was rejected.
 */
#include <stdio.h>
#include <string.h>

#include "hello.h"

static int greet(const char *json)
{
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer w;
    hello_greeting_t g;
    int ok = 0;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);
    if (hello_greeting_decode(json, strlen(json), &arena, &g, &err) != APS_OK) {
        printf("rejected %s: %s\n", err.pointer, err.message);
    } else if (hello_greeting_encode(&g, &w, &err) != APS_OK || aps_json_writer_finish(&w, &err) != APS_OK) {
        printf("cannot encode: %s\n", err.message);
    } else {
        printf("ok %.*s\n", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
        ok = 1;
    }
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
    return ok;
}

int main(int argc, char **argv)
{
    int i, rc = 0;
    for (i = 1; i < argc; i++)
        if (!greet(argv[i]))
            rc = 1;
    return rc;
}
