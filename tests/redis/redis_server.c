/* redis_server.c - a redis-server per test process (see redis_server.h). */
#define _GNU_SOURCE
#include "redis_server.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static redis_server *running[8];

static void stop_all(void)
{
    size_t i;
    for (i = 0; i < sizeof running / sizeof running[0]; i++)
        if (running[i] != NULL)
            redis_server_stop(running[i]);
}

int redis_server_missing(const char *why)
{
    const char *req = getenv("CDDLGEN_REQUIRE_OPTIONAL");
    if (req != NULL && strcmp(req, "1") == 0) {
        fprintf(stderr, "error: %s, and CDDLGEN_REQUIRE_OPTIONAL=1\n", why);
        return 1;
    }
    printf("skipped: %s\n", why);
    return 77;
}

static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path != NULL && *path != '\0') {
        const char *end = strchr(path, ':');
        size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
        if (n > 0 && n + strlen(name) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, name);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;
    if (fd < 0)
        return 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int answers(int port)
{
    struct timeval tv = { 0, 200000 };
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    int ok = 0;
    if (c != NULL && !c->err) {
        redisReply *r = (redisReply *)redisCommand(c, "PING");
        ok = r != NULL && r->type == REDIS_REPLY_STATUS;
        if (r != NULL)
            freeReplyObject(r);
    }
    if (c != NULL)
        redisFree(c);
    return ok;
}

static int spawn(redis_server *s)
{
    char port[16], log[96];
    const char *argv[32];
    int n = 0, i;
    struct timespec pause = { 0, 20000000 };
    snprintf(port, sizeof port, "%d", s->port);
    snprintf(log, sizeof log, "%s/redis.log", s->dir);
    argv[n++] = "redis-server";
    argv[n++] = "--port"; argv[n++] = port;
    argv[n++] = "--bind"; argv[n++] = "127.0.0.1";
    argv[n++] = "--dir"; argv[n++] = s->dir;
    argv[n++] = "--save"; argv[n++] = "";
    argv[n++] = "--appendonly"; argv[n++] = "no";
    argv[n++] = "--daemonize"; argv[n++] = "no";
    argv[n++] = "--logfile"; argv[n++] = log;
    for (i = 0; i < 8 && s->extra[i] != NULL; i++)
        argv[n++] = s->extra[i];
    argv[n] = NULL;
    s->pid = fork();
    if (s->pid < 0) {
        s->pid = 0;
        return 1;
    }
    if (s->pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a crashed test */
#endif
        execvp("redis-server", (char *const *)argv);
        _exit(127);
    }
    for (i = 0; i < 250; i++) { /* 5 s */
        int status;
        if (answers(s->port))
            return 0;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            fprintf(stderr, "redis-server exited at start (see %s)\n", log);
            return 1;
        }
        nanosleep(&pause, NULL);
    }
    fprintf(stderr, "redis-server did not answer on port %d within 5 s\n", s->port);
    return 1;
}

int redis_server_start(redis_server *s, const char *const *extra)
{
    size_t i;
    static int registered;
    memset(s, 0, sizeof *s);
    if (!on_path("redis-server"))
        return redis_server_missing("redis-server is not installed");
    for (i = 0; extra != NULL && extra[i] != NULL && i < 7; i++)
        s->extra[i] = extra[i];
    snprintf(s->dir, sizeof s->dir, "/tmp/aps-redis-XXXXXX");
    if (mkdtemp(s->dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    if (!registered) {
        atexit(stop_all);
        registered = 1;
    }
    for (i = 0; i < sizeof running / sizeof running[0]; i++)
        if (running[i] == NULL) {
            running[i] = s;
            break;
        }
    for (i = 0; i < 3; i++) { /* the free port may be taken between probe and bind */
        s->port = free_port();
        snprintf(s->url, sizeof s->url, "redis://127.0.0.1:%d", s->port);
        if (spawn(s) == 0)
            return 0;
    }
    redis_server_stop(s);
    return 1;
}

static void kill_wait(redis_server *s, int sig)
{
    int status;
    if (s->pid > 0) {
        kill(s->pid, sig);
        while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
            ;
        s->pid = 0;
    }
}

void redis_server_stop(redis_server *s)
{
    char path[128];
    size_t i;
    kill_wait(s, SIGTERM);
    if (s->dir[0] != '\0') {
        snprintf(path, sizeof path, "%s/redis.log", s->dir);
        (void)unlink(path);
        snprintf(path, sizeof path, "%s/dump.rdb", s->dir);
        (void)unlink(path);
        (void)rmdir(s->dir);
        s->dir[0] = '\0';
    }
    for (i = 0; i < sizeof running / sizeof running[0]; i++)
        if (running[i] == s)
            running[i] = NULL;
}

void redis_server_kill(redis_server *s)
{
    kill_wait(s, SIGKILL);
}

int redis_server_restart(redis_server *s)
{
    kill_wait(s, SIGKILL);
    return spawn(s);
}

int redis_server_command(const redis_server *s, const char *fmt, ...)
{
    struct timeval tv = { 2, 0 };
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    redisReply *r = NULL;
    va_list ap;
    int rc = 1;
    if (c != NULL && !c->err) {
        va_start(ap, fmt);
        r = (redisReply *)redisvCommand(c, fmt, ap);
        va_end(ap);
        rc = r == NULL || r->type == REDIS_REPLY_ERROR;
        if (r != NULL)
            freeReplyObject(r);
    }
    if (c != NULL)
        redisFree(c);
    return rc;
}
