/*
 * fuzz_diff.c - `cddlgen diff` on hostile schema pairs: the input is OLD and
 * NEW separated by a line "%%" (no separator: the input against itself). The
 * diff must never crash, read out of bounds or loop, whatever lowering lets
 * through; its report goes to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (f == NULL)
        return 0;
    ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sep[] = "\n%%\n";
    char old_path[64], new_path[64];
    const uint8_t *cut = NULL;
    size_t i;
    FILE *null_out = fopen("/dev/null", "w");
    diag_ctx d;
    if (null_out == NULL)
        return 0;
    for (i = 0; i + 4 <= size && cut == NULL; i++)
        if (memcmp(data + i, sep, 4) == 0)
            cut = data + i;
    snprintf(old_path, sizeof old_path, "/tmp/fuzz-diff-%ld-old.cddl", (long)getpid());
    snprintf(new_path, sizeof new_path, "/tmp/fuzz-diff-%ld-new.cddl", (long)getpid());
    if (write_file(old_path, data, cut ? (size_t)(cut - data) : size) &&
        write_file(new_path, cut ? cut + 4 : data, cut ? size - (size_t)(cut - data) - 4 : size)) {
        int rc;
        diag_init(&d, null_out);
        rc = diff_schemas(old_path, new_path, DIFF_BOTH, null_out, &d);
        if (rc < 0 || rc > 2)
            abort();
        /* a schema against itself never changes */
        if (cut == NULL && rc == 1)
            abort();
    }
    remove(old_path);
    remove(new_path);
    fclose(null_out);
    return 0;
}
