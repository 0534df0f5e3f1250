/*
 * redis_server.h - a real redis-server for one test process: started on a
 * free loopback port with its own temporary folder, no persistence, in the
 * foreground (a child of the test, told to die with it), stopped by
 * redis_server_stop or at exit, also when a check fails. Start and restart
 * it from the main thread: the server is told to die with the thread that
 * forked it.
 */
#ifndef CDDLGEN_REDIS_SERVER_H
#define CDDLGEN_REDIS_SERVER_H

#include <sys/types.h>

typedef struct redis_server {
    pid_t pid;          /* 0: not running */
    int port;
    char dir[64];       /* its temporary folder */
    char url[64];       /* redis://127.0.0.1:PORT */
    const char *extra[8]; /* more redis-server arguments (NULL-terminated), kept for restarts */
} redis_server;

/*
 * Starts redis-server with `extra` arguments (NULL: none) and waits until it
 * answers PING. Returns 0; 77 after printing why when redis-server is not
 * installed (the ctest skip code), unless CDDLGEN_REQUIRE_OPTIONAL=1, which
 * makes that 1; 1 when it does not start.
 */
int redis_server_start(redis_server *s, const char *const *extra);

/* Stops it (SIGTERM, then waits for it) and removes its folder. Idempotent. */
void redis_server_stop(redis_server *s);

/* Kills it (SIGKILL: nothing saved, its data is lost). */
void redis_server_kill(redis_server *s);

/* Starts it again on the same port (killing it first if it runs): 0 or 1. */
int redis_server_restart(redis_server *s);

/* Sends one command (redisCommand format) and returns 0 unless it failed. */
int redis_server_command(const redis_server *s, const char *fmt, ...);

/* The skip-or-fail answer for a missing optional tool: prints `why`, returns 77 or 1. */
int redis_server_missing(const char *why);

#endif
