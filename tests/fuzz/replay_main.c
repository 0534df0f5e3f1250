/*
 * replay_main.c - runs a libFuzzer target over files without libFuzzer, so
 * every build (gcc included) replays the checked-in seed corpus as a ctest.
 * Usage: fuzz-NAME-replay FILE-OR-DIR...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input file through the target. */
static int run_file(const char *path)
{
    size_t n = 0;
    char *buf = test_read_file(path, &n);
    if (buf == NULL) {
        perror(path);
        return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
    free(buf);
    return 0;
}

/* What a walk over the corpus folders has done so far. */
typedef struct replay_walk {
    int rc, count;
} replay_walk;

/* A file is run; a folder's entries are, in name order (so a failure reads
 * the same on every machine). */
static void run_path(void *ctx, const char *path, const char *name)
{
    replay_walk *w = (replay_walk *)ctx;
    struct stat st;
    (void)name;
    if (stat(path, &st) != 0) {
        perror(path);
        w->rc = 1;
    } else if (!S_ISDIR(st.st_mode)) {
        w->count++;
        w->rc |= run_file(path);
    } else if (test_for_each_file(path, NULL, run_path, w) < 0) {
        perror(path);
        w->rc = 1;
    }
}

int main(int argc, char **argv)
{
    replay_walk w = { 0, 0 };
    int i;
    for (i = 1; i < argc; i++)
        run_path(&w, argv[i], argv[i]);
    if (w.count == 0) {
        fprintf(stderr, "no corpus files found\n");
        return 1;
    }
    printf("replayed %d inputs\n", w.count);
    return w.rc;
}
