/*
 * replay_main.c - runs a libFuzzer target over files without libFuzzer, so
 * every build (gcc included) replays the checked-in seed corpus as a ctest.
 * Usage: fuzz-NAME-replay FILE-OR-DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *buf;
    if (f == NULL) {
        perror(path);
        return 1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        fprintf(stderr, "%s: cannot size file\n", path);
        return 1;
    }
    /* malloc(0) may return NULL; always ask for one byte more. */
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        fprintf(stderr, "%s: cannot read file\n", path);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

static int run_path(const char *path, int *count)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    int rc = 0;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*count;
        return run_file(path);
    }
    d = opendir(path);
    if (d == NULL) {
        perror(path);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        char child[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        rc |= run_path(child, count);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int i, rc = 0, count = 0;
    for (i = 1; i < argc; i++)
        rc |= run_path(argv[i], &count);
    if (count == 0) {
        fprintf(stderr, "no corpus files found\n");
        return 1;
    }
    printf("replayed %d inputs\n", count);
    return rc;
}
