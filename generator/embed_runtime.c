/*
 * embed_runtime.c - the runtime written into the generated pair (see
 * embed_runtime.h). The text was joined by generator/amalgamate.cmake at
 * build time, so this file only places it.
 */
#include "embed_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Built by generator/CMakeLists.txt from runtime/ (runtime_embedded.c). */
extern const char cddl_runtime_h[];
extern const size_t cddl_runtime_h_len;
extern const char cddl_runtime_c[];
extern const size_t cddl_runtime_c_len;

/* Is the line [p, end) `#include "aps/...`, a runtime header the pair now carries? */
static int is_runtime_include(const char *p, const char *end)
{
    static const char directive[] = "include";
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p++ != '#')
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(end - p) < sizeof directive - 1 || memcmp(p, directive, sizeof directive - 1) != 0)
        return 0;
    p += sizeof directive - 1;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return (size_t)(end - p) >= 5 && memcmp(p, "\"aps/", 5) == 0;
}

static int write_failed(cddl_ctx *ctx, const char *path)
{
    diag_plain(ctx->diag, DIAG_ERROR, path, "cannot write: %s", strerror(errno));
    return 1;
}

/*
 * The file at path again without its runtime `#include` lines: `insert`
 * (len bytes) where the first of them was, `tail` at the end. Sets *placed
 * when there was one to replace.
 */
static int rewrite(cddl_ctx *ctx, const char *path, const char *insert, size_t insert_len, const char *tail,
                   size_t tail_len, int *placed)
{
    cddl_source src;
    const char *p, *end;
    int failed;
    FILE *out;
    memset(&src, 0, sizeof src);
    *placed = 0;
    if (cddl_source_load(ctx, &src, path) != 0)
        return 1;
    if ((out = fopen(path, "wb")) == NULL) {
        cddl_source_deinit(&src);
        return write_failed(ctx, path);
    }
    for (p = src.text, end = src.text + src.len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *next = nl ? nl + 1 : end;
        if (!is_runtime_include(p, next))
            fwrite(p, 1, (size_t)(next - p), out);
        else if (!(*placed)++)
            fwrite(insert, 1, insert_len, out);
        p = next;
    }
    fwrite(tail, 1, tail_len, out);
    failed = ferror(out) != 0;
    failed |= fclose(out) != 0;
    cddl_source_deinit(&src);
    return failed ? write_failed(ctx, path) : 0;
}

int embed_runtime(cddl_ctx *ctx, const emit_options *opt)
{
    char path[4096];
    int placed;
    /* PREFIX.h declares the runtime where it included the first runtime header... */
    snprintf(path, sizeof path, "%s/%s.h", opt->out_dir, opt->prefix);
    if (rewrite(ctx, path, cddl_runtime_h, cddl_runtime_h_len, "", 0, &placed) != 0)
        return 1;
    if (!placed) {
        /* custom templates that include no runtime header: the pair would not compile alone */
        diag_plain(ctx->diag, DIAG_ERROR, path,
                   "--embed-runtime: the header includes no runtime header (\"aps/*.h\") to replace");
        return 1;
    }
    /* ...so PREFIX.c needs none of its own, and ends with the runtime's sources. */
    snprintf(path, sizeof path, "%s/%s.c", opt->out_dir, opt->prefix);
    return rewrite(ctx, path, "", 0, cddl_runtime_c, cddl_runtime_c_len, &placed);
}
