/*
 * hostile.c - inputs built to break a compiler: the front end must answer
 * each with an exit status and a diagnostic, never a crash, a hang or an
 * unbounded flood of output.
 *
 * Usage: frontend-hostile CDDLGEN WORKDIR CASE
 *        frontend-hostile --prefixes SCHEMA [SHARD NSHARDS]
 *
 * A CASE writes its input to WORKDIR/CASE.cddl, runs `CDDLGEN check` on it
 * in a child process and checks how the child ended (a signal is a crash).
 * --prefixes parses and checks every prefix of SCHEMA in this process (one
 * process per prefix would take minutes): any verdict is fine, a crash, a
 * sanitizer report or a hang is not; the whole file must stay error-free.
 * With SHARD and NSHARDS only the prefix lengths n with n % NSHARDS == SHARD
 * are run, so ctest can spread the work (it is quadratic in the file size).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"
#include "cddl.h"
#include "test_cddl.h"
#include "test_util.h"

/* More than 50 errors of a few source lines each; far less than the input echoed. */
#define MAX_STDERR_BYTES (256u * 1024u)
#define MB (1024u * 1024u)

static void put_repeated(tlog *b, char c, size_t n)
{
    char chunk[4096];
    memset(chunk, c, sizeof chunk);
    while (n > 0) {
        size_t k = n < sizeof chunk ? n : sizeof chunk;
        tlog_add(b, chunk, k);
        n -= k;
    }
}

/* Tokens and fragments of CDDL, so random soup reaches the parser, not just the lexer. */
static const char *const fragments[] = {
    "a", "b", "int", "tstr", "=", "/=", "//=", "/", "//", "(", ")", "[", "]", "{", "}", "<", ">",
    ",", ":", "=>", "^", "~", "&", "?", "*", "+", "1*2", "..", "...", ".size", ".bits", ".foo",
    "#6.1(", "#6.<", "#7.25", "#", "1", "-1", "0x1F", "1.5e3", "0x1p3", "\"x\"", "\"\\u{41}\"",
    "h'00'", "b64'AA'", "'x'", "$s", "$$g", " ", "\n", "; c\n", "\"", "'", "\\", "\x80", "\xff",
};

static void random_bytes(tlog *b, uint64_t *state, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        char c = (char)(test_rand(state) & 0xFF);
        tlog_add(b, &c, 1);
    }
}

static void random_fragments(tlog *b, uint64_t *state, size_t n)
{
    size_t nfrag = sizeof fragments / sizeof fragments[0];
    while (b->len < n)
        tlog_str(b, fragments[test_rand(state) % nfrag]);
}

/* One hostile file and the exit statuses it may produce. */
typedef struct hostile_case {
    tlog input;
    unsigned allowed;   /* exit statuses accepted: bit n for status n */
    int needs_error;    /* stderr must hold an error diagnostic */
} hostile_case;

static int build_case(const char *name, int variant, hostile_case *hc)
{
    uint64_t state = 0x5EEDF00Dull + (uint64_t)variant;
    memset(hc, 0, sizeof *hc);
    hc->allowed = 1u << 1;
    hc->needs_error = 1;
    if (strcmp(name, "random-binary") == 0) {
        random_bytes(&hc->input, &state, 1 + (size_t)(test_rand(&state) % 65536));
    } else if (strcmp(name, "random-tokens") == 0) {
        /* Token soup can be a valid schema by chance: any verdict, but a verdict. */
        random_fragments(&hc->input, &state, 1 + (size_t)(test_rand(&state) % 16384));
        hc->allowed = 1u << 0 | 1u << 1;
        hc->needs_error = 0;
    } else if (strcmp(name, "nested-parens") == 0) {
        tlog_str(&hc->input, "a = ");
        put_repeated(&hc->input, '(', 100000);
    } else if (strcmp(name, "nested-parens-closed") == 0) {
        tlog_str(&hc->input, "a = ");
        put_repeated(&hc->input, '(', 100000);
        tlog_str(&hc->input, "int");
        put_repeated(&hc->input, ')', 100000);
        tlog_str(&hc->input, "\n");
    } else if (strcmp(name, "nested-mixed") == 0) {
        size_t i;
        tlog_str(&hc->input, "a = ");
        for (i = 0; i < 100000; i++)
            tlog_str(&hc->input, i % 3 == 0 ? "[" : i % 3 == 1 ? "{b:" : "#6.1(");
    } else if (strcmp(name, "long-identifier") == 0) {
        put_repeated(&hc->input, 'x', 10 * MB);
    } else if (strcmp(name, "long-identifier-use") == 0) {
        /* undefined name: the "did you mean" search meets a 10 MB name */
        tlog_str(&hc->input, "a = ");
        put_repeated(&hc->input, 'x', 10 * MB);
        tlog_str(&hc->input, "\n");
    } else if (strcmp(name, "long-string") == 0) {
        tlog_str(&hc->input, "\"");
        put_repeated(&hc->input, 's', 10 * MB);
        tlog_str(&hc->input, "\"");
    } else if (strcmp(name, "long-string-unterminated") == 0) {
        tlog_str(&hc->input, "a = \"");
        put_repeated(&hc->input, 's', 10 * MB);
    } else if (strcmp(name, "long-comment") == 0) {
        /* A comment line is fine; the rule after it is broken. */
        tlog_str(&hc->input, ";");
        put_repeated(&hc->input, 'c', 10 * MB);
        tlog_str(&hc->input, "\na =\n");
    } else if (strcmp(name, "long-comment-valid") == 0) {
        tlog_str(&hc->input, ";");
        put_repeated(&hc->input, 'c', 10 * MB);
        tlog_str(&hc->input, "\na = int\n");
        hc->allowed = 1u << 0;
        hc->needs_error = 0;
    } else if (strcmp(name, "colons") == 0) {
        put_repeated(&hc->input, ':', 1000000);
    } else if (strcmp(name, "nul-bytes") == 0) {
        tlog_str(&hc->input, "a = int");
        put_repeated(&hc->input, '\0', 1 * MB);
        tlog_str(&hc->input, "\nb = \"\0\"\nc = '\0'\n; \0\n");
    } else if (strcmp(name, "invalid-utf8") == 0) {
        size_t i;
        for (i = 0; i < 100000; i++)
            tlog_str(&hc->input, i % 2 ? "a = \"\xC0\xAF\"\n" : "; \xED\xA0\x80\n");
    } else if (strcmp(name, "many-rules-broken") == 0) {
        /* Error recovery at every rule: the count of shown errors must stay capped. */
        size_t i;
        for (i = 0; i < 200000; i++)
            tlog_str(&hc->input, "r = [\n");
    } else if (strcmp(name, "empty-schema") == 0) {
        /* RFC 8610 Appendix B: cddl = S 1*(rule S) */
        tlog_str(&hc->input, "; no rules here\n");
    } else {
        return -1;
    }
    return 0;
}

static int write_file(const char *path, const tlog *b)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    if (fwrite(b->s, 1, b->len, f) != b->len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/* Runs `cddlgen check input` with stderr to `errpath`; returns the wait status or -1. */
static int run_check(const char *cddlgen, const char *input, const char *errpath)
{
    int status;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL || freopen(errpath, "w", stderr) == NULL)
            _exit(120);
        execl(cddlgen, cddlgen, "check", input, (char *)NULL);
        _exit(121);
    }
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

static void run_case(const char *cddlgen, const char *workdir, const char *name, int variant)
{
    hostile_case hc;
    char input[4096], errpath[4096];
    int status, code, ok, failed_before = test_checks_failed;
    char *err;
    size_t errlen = 0;
    CHECK(build_case(name, variant, &hc) == 0);
    if (hc.input.s == NULL)
        return;
    snprintf(input, sizeof input, "%s/%s-%d.cddl", workdir, name, variant);
    snprintf(errpath, sizeof errpath, "%s/%s-%d.stderr", workdir, name, variant);
    CHECK(write_file(input, &hc.input) == 0);
    free(hc.input.s);
    status = run_check(cddlgen, input, errpath);
    CHECK(status != -1);
    if (status == -1)
        return;
    if (WIFSIGNALED(status)) {
        CHECK(!"cddlgen was killed by a signal");
        fprintf(stderr, "%s: killed by signal %d\n", input, WTERMSIG(status));
        return;
    }
    code = WEXITSTATUS(status);
    ok = code < 8 && (hc.allowed >> code & 1u);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s: exit status %d\n", input, code);
    err = test_read_file(errpath, &errlen);
    CHECK(err != NULL);
    if (err == NULL)
        return;
    CHECK(errlen <= MAX_STDERR_BYTES);
    if (errlen > MAX_STDERR_BYTES)
        fprintf(stderr, "%s: %zu bytes of diagnostics\n", input, errlen);
    /* In a sanitizer build a finding exits with status 1, like a schema error. */
    CHECK(strstr(err, "Sanitizer") == NULL && strstr(err, "runtime error:") == NULL);
    if (hc.needs_error || code != 0) {
        CHECK(strstr(err, ": error: ") != NULL);
        if (strstr(err, ": error: ") == NULL)
            fprintf(stderr, "%s: exit %d without an error diagnostic\n", input, code);
    }
    free(err);
    /* Inputs of 10 MB are kept only when they reproduce a failure. */
    if (test_checks_failed == failed_before) {
        remove(input);
        remove(errpath);
    }
}

/* ---- every prefix of a schema, in process -------------------------------- */

/* Parses and checks text[0, len); returns the number of errors. */
static unsigned check_text(FILE *sink, const char *text, size_t len)
{
    int oom;
    unsigned errors = test_cddl_check(sink, "<prefix>", text, len, NULL, &oom);
    if (oom)
        CHECK(!"out of memory");
    return errors;
}

static void check_prefixes(const char *path, size_t shard, size_t nshards)
{
    size_t len = 0, n;
    char *text = test_read_file(path, &len);
    FILE *sink = fopen("/dev/null", "w");
    CHECK(text != NULL && sink != NULL);
    if (text == NULL || sink == NULL)
        return;
    CHECK(len > 0);
    /* Copies of exactly n bytes, so a read past the prefix is a sanitizer finding. */
    for (n = shard; n <= len; n += nshards) {
        char *copy = malloc(n ? n : 1);
        CHECK(copy != NULL);
        if (copy == NULL)
            break;
        memcpy(copy, text, n);
        (void)check_text(sink, copy, n);
        free(copy);
    }
    /* The whole file must still be clean: the loop above tested something real. */
    CHECK_INT(check_text(sink, text, len), 0);
    printf("prefixes of %s of length %zu mod %zu parsed and checked\n", path, shard, nshards);
    fclose(sink);
    free(text);
}

int main(int argc, char **argv)
{
    int variant, variants;
    if ((argc == 3 || argc == 5) && strcmp(argv[1], "--prefixes") == 0) {
        size_t shard = argc == 5 ? strtoul(argv[3], NULL, 10) : 0;
        size_t nshards = argc == 5 ? strtoul(argv[4], NULL, 10) : 1;
        if (nshards == 0 || shard >= nshards) {
            fprintf(stderr, "--prefixes: SHARD must be below NSHARDS\n");
            return 2;
        }
        check_prefixes(argv[2], shard, nshards);
        return test_report();
    }
    if (argc != 4) {
        fprintf(stderr, "usage: frontend-hostile CDDLGEN WORKDIR CASE | --prefixes SCHEMA [SHARD NSHARDS]\n");
        return 2;
    }
    if (mkdir(argv[2], 0777) != 0 && access(argv[2], W_OK) != 0) {
        perror(argv[2]);
        return 2;
    }
    variants = strncmp(argv[3], "random-", 7) == 0 ? 16 : 1;
    for (variant = 0; variant < variants; variant++)
        run_case(argv[1], argv[2], argv[3], variant);
    return test_report();
}
