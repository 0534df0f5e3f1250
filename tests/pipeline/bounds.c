/*
 * bounds.c - schemas built to make cddlgen run without end or explode: each
 * must get a verdict from `check` and from `generate`, within a CPU limit far
 * above what it takes and 512 MB of memory, with at most MAX_STDERR bytes of
 * diagnostics, and an expected exit status and message. The time each run
 * took is printed (measured here, not asserted: tests are not benchmarks).
 *
 * Usage: pipeline-bounds CDDLGEN WORKDIR CASE
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "test_util.h"

#define MAX_STDERR (64u * 1024u)
/* Seconds of CPU per run: a hang, not slowness, is what this catches. */
#ifdef CDDLGEN_TEST_SANITIZED
/* ASan reserves terabytes of address space for its shadow: there, the CPU
 * limit only, and a longer one (an unoptimised instrumented cddlgen runs the
 * largest cases, 20,000 closed maps, about 15 times slower) */
#define MEMORY_LIMIT RLIM_INFINITY
#define CPU_LIMIT 50
/* The largest linear cases a quarter as wide (closed maps and mixed arrays,
 * the groups of method-groups-shared with its repeated discriminant): here
 * they look for memory errors, which do not need 20,000 maps; the plain
 * build, which looks for growth past linear, keeps them whole. */
#define WIDE_MAPS 5000
#define SHARED_GROUPS 1250
#define SHARED_AT 1000
#else
#define MEMORY_LIMIT ((rlim_t)512 << 20)
#define CPU_LIMIT 20
#define WIDE_MAPS 20000
#define SHARED_GROUPS 5000 /* method-groups-shared, its repeated discriminant at group SHARED_AT */
#define SHARED_AT 4000
#endif

typedef struct bounds_case {
    tlog input;
    int status;          /* expected exit status of both commands */
    const char *message; /* text the diagnostics must hold, or NULL */
    int max_diagnostics; /* at most this many errors and warnings shown (0: not counted) */
} bounds_case;

static void build(const char *name, bounds_case *c)
{
    static char shared_message[96]; /* method-groups-shared's, naming group SHARED_AT */
    size_t i;
    memset(c, 0, sizeof *c);
    if (strcmp(name, "generic-grows") == 0) {
        tlog_str(&c->input, "Root = X<int>\nX<T> = { ? a: X<[* T]> }\n");
        c->status = 1;
        c->message = ":2:15: error: 'X' instantiates itself with an argument that grows";
    } else if (strcmp(name, "generic-grows-twice") == 0) {
        /* two places that grow, each level also a C name met before: one error per place, no
         * warning repeated for its place and reason (once 20 errors and 236 more) */
        tlog_str(&c->input, "X<T> = { ? a: X<[* T]>, ? b: X<{ c: T }> }\nRoot = X<int>\n");
        c->status = 1;
        c->message = "instantiates itself with an argument that grows";
        c->max_diagnostics = 5;
    } else if (strcmp(name, "generic-doubles") == 0) {
        /* each level doubles its argument: 2^20 types unless capped */
        tlog_str(&c->input, "Root = G0<int>\n");
        for (i = 0; i < 20; i++)
            tlog_printf(&c->input, "G%zu<T> = { a: G%zu<{ x: T, y: T }> }\n", i, i + 1);
        tlog_str(&c->input, "G20<T> = { z: T }\n");
        c->status = 1;
        c->message = "error: generic rules expand to more than";
    } else if (strcmp(name, "text-literals") == 0) {
        tlog_str(&c->input, "Root = ");
        for (i = 0; i < 100000; i++)
            tlog_printf(&c->input, "%s\"v%zu\"", i ? " / " : "", i);
        tlog_str(&c->input, "\n");
    } else if (strcmp(name, "int-literals") == 0) {
        tlog_str(&c->input, "Root = ");
        for (i = 0; i < 100000; i++)
            tlog_printf(&c->input, "%s%zu", i ? " / " : "", i);
        tlog_str(&c->input, "\n");
    } else if (strcmp(name, "alias-chain") == 0) {
        /* aliases nest nothing: 20,000 of them are no deeper than one */
        for (i = 0; i < 20000; i++)
            tlog_printf(&c->input, "r%zu = r%zu\n", i, i + 1);
        tlog_str(&c->input, "r20000 = { a: int }\n");
    } else if (strcmp(name, "alias-chain-reversed") == 0) {
        tlog_str(&c->input, "r20000 = { a: int }\n");
        for (i = 20000; i-- > 0;)
            tlog_printf(&c->input, "r%zu = r%zu\n", i, i + 1);
    } else if (strcmp(name, "many-members") == 0) {
        /* 1 MB: one map of 60,000 members */
        tlog_str(&c->input, "Root = {\n");
        for (i = 0; i < 60000; i++)
            tlog_printf(&c->input, "  m%zu: int,\n", i);
        tlog_str(&c->input, "}\n");
    } else if (strcmp(name, "many-errors") == 0) {
        /* every rule an error: only -fmax-errors of them shown, then the count */
        for (i = 0; i < 50000; i++)
            tlog_printf(&c->input, "r%zu = undefined%zu\n", i, i);
        c->status = 1;
        c->message = "more errors not shown";
    } else if (strcmp(name, "choice-self") == 0) {
        /* found by pipeline-random-schemas: each of these crashed or ran without end */
        tlog_str(&c->input, "A = A / B\nB = { x: int }\n");
    } else if (strcmp(name, "choice-cycle") == 0) {
        tlog_str(&c->input, "A = B / C\nB = A / D\nC = { x: int }\nD = { y: text }\n");
        c->status = 1;
        c->message = ":1:5: error: choice 'A' is its own alternative through 'B'";
    } else if (strcmp(name, "group-in-itself") == 0) {
        tlog_str(&c->input, "X = { Bar }\nBar = ( ? m: [* { ? n: text, Bar }] )\n");
        c->status = 1;
        c->message = ":2:30: error: 'Bar' is inlined inside itself";
    } else if (strcmp(name, "keyless-choices") == 0) {
        /* each group names the next twice: 2^40 walks unless each is walked once */
        tlog_str(&c->input, "X = { g0 }\n");
        for (i = 0; i < 40; i++)
            tlog_printf(&c->input, "g%zu = ( a%zu: int, g%zu // b%zu: text, g%zu )\n", i, i, i + 1, i, i + 1);
        tlog_str(&c->input, "g40 = ( z: int )\n");
        c->status = 1;
        c->message = "a choice of member groups inside a map";
    } else if (strcmp(name, "method-groups") == 0) {
        /* a group choice of 20,000 groups in a map, told apart by `method`: once compared pairwise */
        tlog_str(&c->input, "Command = { id: uint, CommandData }\nCommandData = ( C0");
        for (i = 1; i < 20000; i++)
            tlog_printf(&c->input, " // C%zu", i);
        tlog_str(&c->input, " )\n");
        for (i = 0; i < 20000; i++)
            tlog_printf(&c->input, "C%zu = ( method: \"m%zu\", params: { a: int } )\n", i, i);
        c->status = 2; /* the model fits; with what its 300 MB of C takes it passes the memory cap */
        c->message = "out of memory: compiling this schema needs more than";
    } else if (strcmp(name, "method-groups-shared") == 0) {
        /* the same with one discriminant repeated: the warning names the first pair */
        tlog_str(&c->input, "Command = { id: uint, CommandData }\nCommandData = ( C0");
        for (i = 1; i < SHARED_GROUPS; i++)
            tlog_printf(&c->input, " // C%zu", i);
        tlog_str(&c->input, " )\n");
        for (i = 0; i < SHARED_GROUPS; i++)
            tlog_printf(&c->input, "C%zu = ( method: \"m%zu\", p%zu: int )\n", i, i == SHARED_AT ? (size_t)17 : i, i);
        snprintf(shared_message, sizeof shared_message,
                 "alternatives 'C17' and 'C%d' share the discriminant method = \"m17\"", SHARED_AT);
        c->message = shared_message;
    } else if (strcmp(name, "closed-maps") == 0) {
        /* a choice of 20,000 maps with nothing to discriminate: tried in order, never compared pairwise */
        tlog_str(&c->input, "Root = M0");
        for (i = 1; i < WIDE_MAPS; i++)
            tlog_printf(&c->input, " / M%zu", i);
        tlog_str(&c->input, "\n");
        for (i = 0; i < WIDE_MAPS; i++)
            tlog_printf(&c->input, "M%zu = { f%zu: int }\n", i, i);
    } else if (strcmp(name, "mixed-array") == 0) {
        /* an array of 20,000 member kinds: an entry is compared only with those that may shadow it */
        tlog_str(&c->input, "Root = [ M0");
        for (i = 1; i < WIDE_MAPS; i++)
            tlog_printf(&c->input, ", M%zu", i);
        tlog_str(&c->input, " ]\n");
        for (i = 0; i < WIDE_MAPS; i++)
            tlog_printf(&c->input, "M%zu = { f%zu: int }\n", i, i);
        c->message = "an array of several member kinds read as an array of any of their types";
    } else if (strcmp(name, "generic-instances") == 0) {
        /* 30,000 distinct instances in a non-generic rule: capped, and found by hash, not by scanning */
        tlog_str(&c->input, "Root = { a0: G<0>");
        for (i = 1; i < 30000; i++)
            tlog_printf(&c->input, ", a%zu: G<%zu>", i, i);
        tlog_str(&c->input, " }\nG<T> = { x: T }\n");
        c->status = 1;
        c->message = "error: generic rules expand to more than";
    } else if (strcmp(name, "generic-wide") == 0) {
        /* 3,000 instances of a 200-member generic (47 KB): the memory cap, not the machine's */
        tlog_str(&c->input, "Root = { a0: G<0>");
        for (i = 1; i < 3000; i++)
            tlog_printf(&c->input, ", a%zu: G<%zu>", i, i);
        tlog_str(&c->input, " }\nG<T> = { m0: T");
        for (i = 1; i < 200; i++)
            tlog_printf(&c->input, ", m%zu: T", i);
        tlog_str(&c->input, " }\n");
        c->status = 2;
        c->message = "out of memory: compiling this schema needs more than";
    } else if (strcmp(name, "socket-plugs") == 0) {
        /* a socket of 100,000 plugs: every one kept (a fixed array once kept 64) */
        tlog_str(&c->input, "Root = $s\n");
        for (i = 0; i < 100000; i++)
            tlog_printf(&c->input, "$s /= \"v%zu\"\n", i);
    } else if (strcmp(name, "bits-diamond") == 0) {
        /* .bits and & through rules naming the next one twice: 2^60 walks unless each rule is walked once */
        tlog_str(&c->input, "Root = { a: uint .bits b0, b: &g0 }\n");
        for (i = 0; i < 60; i++)
            tlog_printf(&c->input, "b%zu = b%zu / b%zu\ng%zu = ( g%zu, g%zu )\n", i, i + 1, i + 1, i, i + 1, i + 1);
        tlog_str(&c->input, "b60 = 3\ng60 = ( x: 3 )\n");
    } else if (strcmp(name, "enum-chain") == 0) {
        /* an enumeration through 20,000 nested groups: the nesting limit, not the C stack */
        tlog_str(&c->input, "Root = &g0\n");
        for (i = 0; i < 20000; i++)
            tlog_printf(&c->input, "g%zu = ( a%zu: %zu, g%zu )\n", i, i, i, i + 1);
        tlog_str(&c->input, "g20000 = ( z: 3 )\n");
        c->status = 1;
        c->message = "an enumeration nested this deeply is not supported";
    } else {
        fprintf(stderr, "unknown case %s\n", name);
        exit(2);
    }
}

/* Runs cddlgen with argv under the limits; returns the wait status, *seconds the wall time. */
static int run(const char *const *argv, const char *errpath, double *seconds)
{
    struct timespec t0, t1;
    int status;
    pid_t pid;
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        struct rlimit mem = { MEMORY_LIMIT, MEMORY_LIMIT }, cpu = { CPU_LIMIT, CPU_LIMIT };
        if (setrlimit(RLIMIT_AS, &mem) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0 ||
            freopen("/dev/null", "w", stdout) == NULL || freopen(errpath, "w", stderr) == NULL)
            _exit(120);
        execv(argv[0], (char *const *)argv);
        _exit(121);
    }
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return status;
}

int main(int argc, char **argv)
{
    bounds_case c;
    char input[4096], errpath[4096], out[4096];
    const char *commands[] = { "check", "generate" };
    size_t k;
    FILE *f;
    if (argc != 4) {
        fprintf(stderr, "usage: pipeline-bounds CDDLGEN WORKDIR CASE\n");
        return 2;
    }
    if (mkdir(argv[2], 0777) != 0 && access(argv[2], W_OK) != 0) {
        perror(argv[2]);
        return 2;
    }
    build(argv[3], &c);
    snprintf(input, sizeof input, "%s/%s.cddl", argv[2], argv[3]);
    snprintf(errpath, sizeof errpath, "%s/%s.stderr", argv[2], argv[3]);
    snprintf(out, sizeof out, "%s/%s-out", argv[2], argv[3]);
    f = fopen(input, "wb");
    CHECK(f != NULL && fwrite(c.input.s, 1, c.input.len, f) == c.input.len && fclose(f) == 0);
    printf("%s: %zu bytes of schema\n", argv[3], c.input.len);
    for (k = 0; k < 2; k++) {
        const char *args[] = { argv[1], commands[k], input, "--prefix", "b", "--out", out, NULL };
        double seconds = 0;
        size_t len = 0;
        char *err;
        int status = run(k == 0 ? (const char *const[]){ argv[1], "check", input, NULL } : args, errpath, &seconds);
        CHECK(status != -1 && WIFEXITED(status));
        if (status == -1 || !WIFEXITED(status)) {
            fprintf(stderr, "%s %s: killed by signal %d (CPU or memory limit?)\n", commands[k], input,
                    status == -1 ? -1 : WTERMSIG(status));
            continue;
        }
        printf("  %-8s exit %d in %.2f s\n", commands[k], WEXITSTATUS(status), seconds);
        CHECK_INT(WEXITSTATUS(status), c.status);
        err = test_read_file(errpath, &len);
        CHECK(err != NULL);
        if (err == NULL)
            continue;
        CHECK(len <= MAX_STDERR);
        if (c.max_diagnostics > 0) {
            int shown = 0;
            const char *p;
            for (p = err; (p = strstr(p, ": error: ")) != NULL; p++)
                shown++;
            for (p = err; (p = strstr(p, ": warning: ")) != NULL; p++)
                shown++;
            CHECK(shown <= c.max_diagnostics);
            if (shown > c.max_diagnostics)
                fprintf(stderr, "%s: %d diagnostics, at most %d wanted:\n%.2000s\n", commands[k], shown,
                        c.max_diagnostics, err);
        }
        if (c.message != NULL) {
            CHECK(strstr(err, c.message) != NULL);
            if (strstr(err, c.message) == NULL)
                fprintf(stderr, "%s: no '%s' in:\n%.2000s\n", commands[k], c.message, err);
        }
        free(err);
    }
    tlog_free(&c.input);
    return test_report();
}
