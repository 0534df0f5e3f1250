/*
 * stream_rss - runs a producer piped into a consumer and reports the
 * consumer's peak resident memory (getrusage ru_maxrss, via wait4):
 *
 *   stream_rss MAX_KIB PRODUCER ARGS... -- CONSUMER ARGS...
 *
 * Exits 0 when both exit as expected (the producer 0; the consumer 0) and
 * the consumer's peak RSS is at most MAX_KIB; else 1, saying why. With a
 * producer writing more bytes than MAX_KIB, a consumer that held its input
 * would fail: this proves it reads as a stream.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

/* Runs argv with stdin `in` and stdout `out` (-1: inherited), without the pipe's own descriptors. */
static pid_t spawn(char **argv, int in, int out, const int pipe_fds[2])
{
    pid_t pid = fork();
    if (pid == 0) {
        if (in >= 0 && dup2(in, 0) < 0)
            _exit(127);
        if (out >= 0 && dup2(out, 1) < 0)
            _exit(127);
        /* the consumer must not hold the pipe's write end, or it never sees the end of its input */
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        execv(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    return pid;
}

int main(int argc, char **argv)
{
    int i, sep = -1, fds[2], status, pstatus, devnull;
    long max_kib;
    pid_t producer, consumer;
    struct rusage ru;
    for (i = 2; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            sep = i;
    if (argc < 5 || sep < 3 || sep == argc - 1 || (max_kib = atol(argv[1])) <= 0) {
        fputs("usage: stream_rss MAX_KIB PRODUCER ARGS... -- CONSUMER ARGS...\n", stderr);
        return 2;
    }
    argv[sep] = NULL;
    devnull = open("/dev/null", O_WRONLY);
    if (pipe(fds) != 0 || devnull < 0) {
        perror("stream_rss");
        return 2;
    }
    producer = spawn(argv + 2, -1, fds[1], fds);
    consumer = spawn(argv + sep + 1, fds[0], devnull, fds);
    close(fds[0]);
    close(fds[1]);
    if (producer < 0 || consumer < 0 || wait4(consumer, &status, 0, &ru) < 0 || waitpid(producer, &pstatus, 0) < 0) {
        perror("stream_rss");
        return 2;
    }
    printf("%s: peak RSS %ld KiB (limit %ld KiB)\n", argv[sep + 1], ru.ru_maxrss, max_kib);
    if (!WIFEXITED(pstatus) || WEXITSTATUS(pstatus) != 0) {
        printf("the producer failed\n");
        return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("the consumer exited with status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 1;
    }
    return ru.ru_maxrss <= max_kib ? 0 : 1;
}
