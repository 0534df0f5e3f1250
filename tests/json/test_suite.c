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
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the suite's files gave: counts by prefix, and the failures. */
typedef struct suite_counts {
    int failed, y, n, i;
} suite_counts;

/* One file of the suite, judged by the prefix of its name. */
static void check_file(void *ctx, const char *path, const char *name)
{
    suite_counts *c = (suite_counts *)ctx;
    aps_json_reader_options rfc = { 0, 1 };
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    size_t len;
    char *text = test_read_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        c->failed++;
        return;
    }
    st = aps_json_validate(text, len, &rfc, &err);
    if (name[0] == 'y') {
        c->y++;
        if (st != APS_OK) {
            printf("FAIL %s rejected: %s at %zu: %s\n", name, err.pointer, err.offset, err.message);
            c->failed++;
        }
        if (strstr(name, "duplicated_key") != NULL) {
            aps_error derr = APS_ERROR_INIT;
            if (aps_json_validate(text, len, NULL, &derr) != APS_E_DUPLICATE ||
                strcmp(derr.pointer, "/a") != 0) {
                printf("FAIL %s: duplicate not rejected by default\n", name);
                c->failed++;
            }
        }
    } else if (name[0] == 'n') {
        c->n++;
        if (st == APS_OK) {
            printf("FAIL %s accepted\n", name);
            c->failed++;
        }
    } else {
        c->i++;
        printf("%-48s %s%s%s\n", name, st == APS_OK ? "accepted" : "rejected: ",
               st == APS_OK ? "" : aps_status_str(st), "");
    }
    free(text);
}

int main(int argc, char **argv)
{
    suite_counts c = { 0, 0, 0, 0 };
    if (argc != 2) {
        fprintf(stderr, "usage: json-suite DIR\n");
        return 2;
    }
    if (test_for_each_file(argv[1], ".json", check_file, &c) < 0) {
        perror(argv[1]);
        return 2;
    }
    printf("%d y_, %d n_, %d i_ files; %d failures\n", c.y, c.n, c.i, c.failed);
    return c.failed == 0 && c.y > 0 && c.n > 0 ? 0 : 1;
}
