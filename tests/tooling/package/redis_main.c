/* Links the installed aps_redis as a user would: through find_package(cddlgen
 * COMPONENTS redis) and cddlgen::redis (redis_consumer/), or with nothing but
 * `pkg-config --cflags --libs cddlgen-redis`. Needs no Redis server: it opens
 * a store on a loopback port nothing listens on, and a malformed URL, and
 * checks that both fail cleanly, with the status and the message the header
 * promises. Exit 0 and one line per check when all hold. */
#include <stdio.h>
#include <string.h>

#include "aps/replay_redis.h"

static int failed(const char *what, aps_status got, aps_status want, const aps_error *err)
{
    printf("%s: status %d, expected %d (%s)\n", what, (int)got, (int)want, err->message);
    return 1;
}

int main(void)
{
    aps_replay_redis_options o;
    aps_replay_store *st = NULL;
    aps_error err = APS_ERROR_INIT, bad = APS_ERROR_INIT;
    aps_status s;

    memset(&o, 0, sizeof o);
    o.url = "redis://127.0.0.1:1/0"; /* port 1: refused at once on loopback */
    o.run = "package-test";
    o.connect_timeout_ms = 1000;
    s = aps_replay_redis_open(&st, &o, &err);
    if (s != APS_E_IO || st != NULL)
        return failed("open on an unreachable port", s, APS_E_IO, &err);
    if (strstr(err.message, "127.0.0.1:1") == NULL) {
        printf("the unreachable-Redis message does not name the address: %s\n", err.message);
        return 1;
    }
    printf("unreachable: %s\n", err.message);

    o.url = "redis://127.0.0.1:99999";
    s = aps_replay_redis_open(&st, &o, &bad);
    if (s != APS_E_SYNTAX || st != NULL)
        return failed("open on a port out of range", s, APS_E_SYNTAX, &bad);
    printf("bad URL at byte %zu: %s\n", bad.offset, bad.message);
    return 0;
}
