/*
 * bench_rest.c - the rest area: the Agent Protocol REST API of `apstream
 * serve` against the reference server (npm @langchain/langgraph-api 1.5.1,
 * tests/interop/reference/server.mjs) on the same machine, in the same run,
 * through the same client: one libcurl handle on one kept-alive
 * connection doing cycles of four requests,
 *
 *   POST /threads                       a thread
 *   POST /threads/{id}/runs/wait        a run of the graph `agent` (a tool
 *                                       call and an answer) to its end
 *   PUT  /store/items                   an item
 *   GET  /store/items?namespace&key     the same item back, checked
 *
 * for a fixed time, after three cycles of warm-up. serve plays the
 * reference's own capture of that graph (captures/agent.ws.jsonl, --pace
 * 0); the reference runs the graph itself with its scripted model. Every
 * answer is checked (status, and the item read back equal to the one put).
 * What is measured is wall time per cycle, client and server together: the
 * number a user of either server sees; each request's mean time is printed
 * too, and the ratio without runs.wait (the reference's run queue polls
 * after a random sleep of up to a second, which its runs.wait mostly is).
 *
 * The reference needs node and its modules installed
 * (interop-reference-install): AP_BENCH_REFERENCE=DIR names them
 * (default: the build tree's reference-server/), AP_BENCH_REFERENCE=none
 * measures serve alone (bench-smoke does, to stay quick). --mb scales the
 * time measured: 1 MB is a quarter of a second a side, 16 MB and up 3 s.
 */
#if defined(APS_BENCH_APSTREAM) && !defined(APS_BENCH_NO_REST)
#include "bench.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A server process started by the bench, and where it listens. */
typedef struct server {
    pid_t pid;
    char url[128];
} server;

/*
 * Starts argv and waits (at most `seconds`) for the line "listening on
 * URL" on its standard output, as both servers print when ready. 0, or -1
 * after saying why (the process is stopped).
 */
static int server_start(server *s, char *const argv[], int seconds)
{
    int out[2];
    char buf[4096];
    size_t len = 0;
    double deadline = bench_now() + seconds;
    s->pid = -1;
    if (pipe(out) != 0)
        return -1;
    if ((s->pid = fork()) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (s->pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(out[1], 1);
        if (null >= 0 && getenv("AP_BENCH_SERVER_LOG") == NULL)
            dup2(null, 2); /* their request logs would drown the bench's output */
        close(out[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    while (bench_now() < deadline && len < sizeof buf - 1) {
        struct pollfd p = { out[0], POLLIN, 0 };
        const char *at;
        ssize_t n;
        if (poll(&p, 1, 200) <= 0)
            continue;
        if ((n = read(out[0], buf + len, sizeof buf - 1 - len)) <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        if ((at = strstr(buf, "listening on http://")) != NULL) {
            size_t u = strcspn(at + 13, " \n");
            if (at[13 + u] != '\0' && u < sizeof s->url) {
                memcpy(s->url, at + 13, u);
                s->url[u] = '\0';
                close(out[0]); /* (both write nothing more to standard output that matters) */
                return 0;
            }
        }
    }
    close(out[0]);
    fprintf(stderr, "rest: %s did not say where it listens within %d s\n", argv[0], seconds);
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = -1;
    return -1;
}

/* SIGTERM, then SIGKILL after 10 s. */
static void server_stop(server *s)
{
    int i;
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    for (i = 0; i < 100; i++) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = -1;
            return;
        }
        nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = -1;
}

/* An answer's body, grown as it comes (bounded: 1 MiB is far more than any of these). */
typedef struct body {
    char data[1 << 20];
    size_t len;
} body;

static size_t body_write(char *ptr, size_t size, size_t n, void *user)
{
    body *b = user;
    size_t total = size * n;
    if (total > sizeof b->data - 1 - b->len)
        return 0; /* curl reports the write error */
    memcpy(b->data + b->len, ptr, total);
    b->len += total;
    b->data[b->len] = '\0';
    return total;
}

/* The four requests of a cycle, and the wall time each took in all (seconds). */
enum { R_THREAD, R_WAIT, R_PUT, R_GET, R_KINDS };
static const char *const kind_names[R_KINDS] = { "POST /threads", "runs.wait", "PUT /store/items", "GET /store/items" };
static double spent[R_KINDS];

/* One request of `kind`; the status, or -1 when the transfer failed. */
static long request(CURL *h, struct curl_slist *headers, int kind, const char *method, const char *url,
                    const char *json, body *b)
{
    long status = -1;
    double start = bench_now();
    CURLcode rc;
    b->len = 0;
    b->data[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
    if (json == NULL)
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    rc = curl_easy_perform(h);
    spent[kind] += bench_now() - start;
    if (rc != CURLE_OK || curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
        return -1;
    return status;
}

/*
 * One cycle: a thread, a run waited for, an item put and read back. 0, or
 * -1 after saying which answer was wrong.
 */
static int cycle(CURL *h, struct curl_slist *headers, const char *base, unsigned long i, body *b)
{
    char url[512], json[512], id[160], expect[64];
    const char *at;
    size_t n;
    long st;
    snprintf(url, sizeof url, "%s/threads", base);
    if ((st = request(h, headers, R_THREAD, "POST", url, "{}", b)) != 200 || (at = strstr(b->data, "\"thread_id\":\"")) == NULL) {
        fprintf(stderr, "rest: POST /threads answered %ld: %.200s\n", st, b->data);
        return -1;
    }
    at += 13;
    n = strcspn(at, "\"");
    if (n == 0 || n >= sizeof id)
        return -1;
    memcpy(id, at, n);
    id[n] = '\0';
    snprintf(url, sizeof url, "%s/threads/%s/runs/wait", base, id);
    if ((st = request(h, headers, R_WAIT, "POST", url,
                      "{\"assistant_id\":\"agent\",\"input\":{\"messages\":[{\"type\":\"human\","
                      "\"content\":\"What is the weather in Paris?\"}]}}",
                      b)) != 200 ||
        strstr(b->data, "\"messages\"") == NULL) {
        fprintf(stderr, "rest: runs.wait answered %ld: %.200s\n", st, b->data);
        return -1;
    }
    snprintf(url, sizeof url, "%s/store/items", base);
    snprintf(json, sizeof json, "{\"namespace\":[\"bench\",\"n%lu\"],\"key\":\"k\",\"value\":{\"n\":%lu}}", i, i);
    if ((st = request(h, headers, R_PUT, "PUT", url, json, b)) != 204 && st != 200) {
        fprintf(stderr, "rest: PUT /store/items answered %ld: %.200s\n", st, b->data);
        return -1;
    }
    snprintf(url, sizeof url, "%s/store/items?namespace=bench.n%lu&key=k", base, i);
    snprintf(expect, sizeof expect, "\"n\":%lu}", i);
    if ((st = request(h, headers, R_GET, "GET", url, NULL, b)) != 200 || strstr(b->data, expect) == NULL) {
        fprintf(stderr, "rest: GET /store/items answered %ld: %.200s\n", st, b->data);
        return -1;
    }
    return 0;
}

/* Cycles per second on `base` for `seconds` (best of `repeat`), or -1. */
static double measure(const char *base, double seconds, int repeat, unsigned long *cycles)
{
    CURL *h = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "content-type: application/json");
    static body b; /* 1 MiB: not on the stack */
    double best = -1;
    unsigned long i = 0;
    int r;
    *cycles = 0;
    if (h == NULL || headers == NULL)
        goto done;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    for (r = 0; r < 3; r++) /* warm-up: the first runs of a JIT or a cold cache */
        if (cycle(h, headers, base, i++, &b) != 0)
            goto done;
    memset(spent, 0, sizeof spent); /* from here on: the timed cycles */
    for (r = 0; r < repeat; r++) {
        double start = bench_now(), elapsed;
        unsigned long n = 0;
        do {
            if (cycle(h, headers, base, i++, &b) != 0) {
                best = -1;
                goto done;
            }
            n++;
            elapsed = bench_now() - start;
        } while (elapsed < seconds);
        if ((double)n / elapsed > best)
            best = (double)n / elapsed;
        *cycles += n;
    }
done:
    curl_slist_free_all(headers);
    if (h != NULL)
        curl_easy_cleanup(h);
    return best;
}

/* Each request's mean wall time over `cycles`, in milliseconds, on one line. */
static void print_requests(unsigned long cycles)
{
    int k;
    printf("%-44s", "  per request (ms)");
    for (k = 0; k < R_KINDS; k++)
        printf(" %s %.3f%s", kind_names[k], spent[k] * 1e3 / (double)cycles, k + 1 < R_KINDS ? "," : "\n");
}

/* The reference's modules folder, or NULL (none installed, or AP_BENCH_REFERENCE=none). */
static const char *reference_modules(void)
{
    const char *dir = getenv("AP_BENCH_REFERENCE");
    static char check[1024];
    struct stat st;
    if (dir != NULL && strcmp(dir, "none") == 0)
        return NULL;
#ifdef APS_BENCH_REFERENCE_MODULES
    if (dir == NULL)
        dir = APS_BENCH_REFERENCE_MODULES;
#endif
    if (dir == NULL)
        return NULL;
    snprintf(check, sizeof check, "%s/node_modules/@langchain/langgraph-api", dir);
    return stat(check, &st) == 0 ? dir : NULL;
}

int bench_rest(const bench_config *cfg)
{
    double seconds = cfg->corpus_bytes >= (16u << 20) ? 3.0 : 0.25 + 2.75 * (double)cfg->corpus_bytes / (double)(16u << 20);
    const char *modules = reference_modules();
    char *serve_argv[] = { APS_BENCH_APSTREAM, "serve", "--listen", "127.0.0.1:0", "--pace", "0", "--script",
                           APS_BENCH_SOURCE_DIR "/tests/interop/reference/captures/agent.ws.jsonl", NULL };
    char *ref_argv[] = { "node", APS_BENCH_SOURCE_DIR "/tests/interop/reference/server.mjs", (char *)modules, NULL };
    server serve = { -1, "" }, ref = { -1, "" };
    double ours = -1, theirs = -1, ours_other = 0, theirs_other = 0;
    unsigned long n_ours = 0, n_theirs = 0;
    int rc = 1;
    printf("== rest: thread create + runs.wait + store put/get, one libcurl client, apstream serve against the "
           "reference server ==\n");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return 1;
    if (server_start(&serve, serve_argv, 10) != 0)
        goto done;
    if ((ours = measure(serve.url, seconds, cfg->repeat, &n_ours)) < 0)
        goto done;
    printf("%-44s %10.1f cycles/s (%lu cycles, 4 requests each)\n", "apstream serve --pace 0", ours, n_ours);
    print_requests(n_ours);
    ours_other = (spent[R_THREAD] + spent[R_PUT] + spent[R_GET]) / (double)n_ours;
    server_stop(&serve);
    if (modules == NULL) {
        printf("reference server: not measured (AP_BENCH_REFERENCE=none, or not installed: ctest -R "
               "interop-reference-install)\n");
        rc = 0;
        goto done;
    }
    if (server_start(&ref, ref_argv, 120) != 0)
        goto done;
    if ((theirs = measure(ref.url, seconds, cfg->repeat, &n_theirs)) < 0)
        goto done;
    printf("%-44s %10.1f cycles/s (%lu cycles, 4 requests each)\n", "langgraph-api 1.5.1 (node, in memory)", theirs,
           n_theirs);
    print_requests(n_theirs);
    theirs_other = (spent[R_THREAD] + spent[R_PUT] + spent[R_GET]) / (double)n_theirs;
    printf("ratio serve/reference %.1f cycles/s; %.1f on the three requests other than runs.wait\n", ours / theirs,
           theirs_other / ours_other);
    rc = 0;
done:
    server_stop(&serve);
    server_stop(&ref);
    curl_global_cleanup();
    return rc;
}
#else
typedef int bench_rest_not_built; /* ISO C wants something in a translation unit */
#endif
