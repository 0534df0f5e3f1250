/*
 * apstream_same.c - `apstream replay --redis` answers every replay scenario
 * of tests/apstream exactly as the in-memory replay does: same stdout, same
 * stderr, same exit status, byte for byte; and with Redis unreachable (a
 * closed loopback port) it exits 2 with one line on stderr and nothing on
 * stdout.
 *
 *   redis-apstream-same APSTREAM DATA_DIR 'ARGS...' ['ARGS...' ...]
 *
 * Each ARGS is one scenario's arguments after `apstream replay`, separated
 * by single spaces (no argument holds a space).
 */
#include "../test.h"
#include "redis_server.h"
#include "test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct outcome {
    char *out, *err;
    int rc;
} outcome;

/* Runs apstream replay ARGS (plus --redis URL when url is not NULL) in the current folder. */
static outcome run(const char *tool, const char *args, const char *url, const char *scratch)
{
    char cmd[4096], outp[512], errp[512];
    outcome o;
    int status;
    snprintf(outp, sizeof outp, "%s.out", scratch);
    snprintf(errp, sizeof errp, "%s.err", scratch);
    snprintf(cmd, sizeof cmd, "'%s' replay %s%s %s >'%s' 2>'%s'", tool, url ? "--redis " : "",
             url ? url : "", args, outp, errp);
    status = system(cmd);
    o.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = test_read_file(outp, NULL);
    o.err = test_read_file(errp, NULL);
    unlink(outp);
    unlink(errp);
    return o;
}

static int closed_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd); /* bound, never listened: nothing answers there now */
    return port;
}

int main(int argc, char **argv)
{
    redis_server srv;
    char scratch[64], url[64];
    int i, rc;
    if (argc < 4) {
        fprintf(stderr, "usage: redis-apstream-same APSTREAM DATA_DIR ARGS...\n");
        return 2;
    }
    if ((rc = redis_server_start(&srv, NULL)) != 0)
        return rc;
    if (chdir(argv[2]) != 0) {
        perror(argv[2]);
        return 2;
    }
    snprintf(scratch, sizeof scratch, "/tmp/aps-same-%ld", (long)getpid());
    for (i = 3; i < argc; i++) {
        outcome mem = run(argv[1], argv[i], NULL, scratch);
        outcome red = run(argv[1], argv[i], srv.url, scratch);
        CHECK(mem.out != NULL && red.out != NULL && mem.err != NULL && red.err != NULL);
        if (mem.out && red.out && mem.err && red.err) {
            int same = mem.rc == red.rc && strcmp(mem.out, red.out) == 0 &&
                       strcmp(mem.err, red.err) == 0;
            CHECK(same);
            if (!same)
                fprintf(stderr, "differs: replay %s (exit %d vs %d)\n--- memory\n%s%s--- redis\n%s%s",
                        argv[i], mem.rc, red.rc, mem.out, mem.err, red.out, red.err);
        }
        free(mem.out);
        free(mem.err);
        free(red.out);
        free(red.err);
    }
    printf("%d scenarios compared\n", argc - 3);

    /* Redis down: exit 2, one line saying why, nothing on stdout. */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", closed_port());
    {
        outcome down = run(argv[1], argv[3], url, scratch);
        CHECK_INT(down.rc, 2);
        CHECK(down.out != NULL && down.out[0] == '\0');
        CHECK(down.err != NULL && strstr(down.err, "cannot connect") != NULL &&
              strchr(down.err, '\n') == down.err + strlen(down.err) - 1);
        if (down.err != NULL)
            printf("unreachable: %s", down.err);
        free(down.out);
        free(down.err);
    }
    redis_server_stop(&srv);
    return test_report();
}
