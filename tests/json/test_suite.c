/*
 * test_suite.c - runs aps_json_validate over JSONTestSuite's test_parsing:
 * every y_ file must be accepted, every n_ file rejected; i_ files must only
 * not crash or hang, and what we do with each is printed.
 *
 * RFC 8259's grammar allows duplicate member names, so y_ files are checked
 * with allow_duplicates; the protocol's default (reject) is checked on the
 * two y_object_duplicated_key files separately.
 * Usage: json-suite DIR
 */
#include "aps/json.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    DIR *d;
    struct dirent *e;
    int failed = 0, y = 0, n = 0, i = 0;
    aps_json_reader_options rfc = { 0, 1 };
    if (argc != 2) {
        fprintf(stderr, "usage: json-suite DIR\n");
        return 2;
    }
    d = opendir(argv[1]);
    if (d == NULL) {
        perror(argv[1]);
        return 2;
    }
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        size_t len;
        char *text;
        aps_error err = APS_ERROR_INIT;
        aps_status st;
        if (e->d_name[0] == '.' || strstr(e->d_name, ".json") == NULL)
            continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        text = slurp(path, &len);
        if (text == NULL) {
            fprintf(stderr, "%s: cannot read\n", path);
            failed++;
            continue;
        }
        st = aps_json_validate(text, len, &rfc, &err);
        if (e->d_name[0] == 'y') {
            y++;
            if (st != APS_OK) {
                printf("FAIL %s rejected: %s at %zu: %s\n", e->d_name, err.pointer, err.offset,
                       err.message);
                failed++;
            }
            if (strstr(e->d_name, "duplicated_key") != NULL) {
                aps_error derr = APS_ERROR_INIT;
                if (aps_json_validate(text, len, NULL, &derr) != APS_E_DUPLICATE ||
                    strcmp(derr.pointer, "/a") != 0) {
                    printf("FAIL %s: duplicate not rejected by default\n", e->d_name);
                    failed++;
                }
            }
        } else if (e->d_name[0] == 'n') {
            n++;
            if (st == APS_OK) {
                printf("FAIL %s accepted\n", e->d_name);
                failed++;
            }
        } else {
            i++;
            printf("%-48s %s%s%s\n", e->d_name, st == APS_OK ? "accepted" : "rejected: ",
                   st == APS_OK ? "" : aps_status_str(st), "");
        }
        free(text);
    }
    closedir(d);
    printf("%d y_, %d n_, %d i_ files; %d failures\n", y, n, i, failed);
    return failed == 0 && y > 0 && n > 0 ? 0 : 1;
}
