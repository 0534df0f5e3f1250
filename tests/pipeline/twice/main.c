/* Decodes its argument as a pair (pair.h, generated once for two programs). */
#include <string.h>

#include "pair.h"

int main(int argc, char **argv)
{
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    pair_pair_t p;
    int rc;
    if (argc != 2)
        return 2;
    aps_arena_init(&arena, NULL);
    rc = pair_pair_decode(argv[1], strlen(argv[1]), &arena, &p, &err) == APS_OK && p.a + 1 == p.b ? 0 : 1;
    aps_arena_deinit(&arena);
    return rc;
}
