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

/* Is the line [p, end) `#include "apr_...`, a runtime header the pair now carries? */
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
    return (size_t)(end - p) >= 5 && memcmp(p, "\"apr_", 5) == 0;
}

static int write_failed(cddl_ctx *ctx, const char *path)
{
    diag_plain(ctx->diag, DIAG_ERROR, path, "cannot write: %s", strerror(errno));
    return 1;
}

/* PREFIX.h again, with the runtime's declarations where it included the first runtime header. */
static int rewrite_header(cddl_ctx *ctx, const char *path)
{
    cddl_source src;
    const char *p, *end;
    int placed = 0, failed;
    FILE *out;
    memset(&src, 0, sizeof src);
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
        else if (!placed++)
            fwrite(cddl_runtime_h, 1, cddl_runtime_h_len, out);
        p = next;
    }
    failed = ferror(out) != 0;
    failed |= fclose(out) != 0;
    cddl_source_deinit(&src);
    if (failed)
        return write_failed(ctx, path);
    if (!placed) {
        /* custom templates that include no runtime header: the pair would not compile alone */
        diag_plain(ctx->diag, DIAG_ERROR, path,
                   "--embed-runtime: the header includes no runtime header (\"apr_*.h\") to replace");
        return 1;
    }
    return 0;
}

int embed_runtime(cddl_ctx *ctx, const emit_options *opt)
{
    char path[4096];
    FILE *out;
    int failed;
    snprintf(path, sizeof path, "%s/%s.h", opt->out_dir, opt->prefix);
    if (rewrite_header(ctx, path) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/%s.c", opt->out_dir, opt->prefix);
    if ((out = fopen(path, "ab")) == NULL)
        return write_failed(ctx, path);
    failed = fwrite(cddl_runtime_c, 1, cddl_runtime_c_len, out) != cddl_runtime_c_len;
    failed |= fclose(out) != 0;
    return failed ? write_failed(ctx, path) : 0;
}
