/*
 * outfile.h - files cddlgen writes, written atomically: the text goes to a
 * temporary file in the same folder, which is renamed over the target only
 * once it is complete. A reader (a compiler, a second cddlgen writing the
 * same files) sees the old file or the new one, never half of either, and a
 * failed run leaves the old file in place.
 */
#ifndef CDDLGEN_OUTFILE_H
#define CDDLGEN_OUTFILE_H

#include <stdio.h>

#include "cddl.h"

/* Largest file cddlgen generates: past it the output is refused, not written (see tmpl_render). */
#define CDDL_MAX_OUTPUT ((size_t)256 << 20)

typedef struct cddl_outfile {
    FILE *f;            /* write here between open and commit */
    char path[4096];    /* the target */
    char tmp[4200];     /* the temporary file beside it */
} cddl_outfile;

/* Opens a temporary file beside `path`. Returns o->f, or NULL after reporting why. */
FILE *cddl_outfile_open(cddl_ctx *ctx, cddl_outfile *o, const char *path);

/*
 * Closes the temporary file and renames it over the target; when `ok` is 0
 * (the caller reported why) or a write failed, removes it instead. Returns
 * 0 when the target was replaced, else 1.
 */
int cddl_outfile_commit(cddl_ctx *ctx, cddl_outfile *o, int ok);

/*
 * Makes the folder `dir` and its missing parents (mkdir -p) and checks that
 * files can be created in it. Returns 0, or 1 after reporting which folder
 * failed and why (strerror).
 */
int cddl_outfile_mkdirs(cddl_ctx *ctx, const char *dir);

#endif /* CDDLGEN_OUTFILE_H */
