/* outfile.c - atomic output files: a temporary beside the target, then rename (see outfile.h). */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *cddl_outfile_open(cddl_ctx *ctx, cddl_outfile *o, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    unsigned attempt;
    int fd = -1;
    o->f = NULL;
    if (strlen(path) >= sizeof o->path) {
        diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "output path too long");
        return NULL;
    }
    strcpy(o->path, path);
    /* Hidden and unique per process, so two cddlgen runs never share one; O_EXCL makes
     * sure no file of anyone else's is reused, 0666 lets the umask decide as fopen would. */
    for (attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp%ld.%u", (int)dir, path, path + dir, (long)getpid(), attempt);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0 || (o->f = fdopen(fd, "wb")) == NULL) {
        diag_plain(ctx->diag, DIAG_ERROR, path, "cannot write: %s", strerror(errno));
        ctx->io_errors++;
        if (fd >= 0) {
            close(fd);
            remove(o->tmp);
        }
        return NULL;
    }
    return o->f;
}

int cddl_outfile_commit(cddl_ctx *ctx, cddl_outfile *o, int ok)
{
    int failed;
    if (o->f == NULL)
        return 1;
    failed = ferror(o->f) != 0;
    failed |= fclose(o->f) != 0;
    o->f = NULL;
    if (ok && (failed || rename(o->tmp, o->path) != 0)) {
        diag_plain(ctx->diag, DIAG_ERROR, o->path, "cannot write: %s", strerror(errno));
        ctx->io_errors++;
    } else if (ok) {
        return 0;
    }
    remove(o->tmp);
    return 1;
}

int cddl_outfile_mkdirs(cddl_ctx *ctx, const char *dir)
{
    char path[4096];
    size_t i, n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", n == 0 ? "empty --out folder" : "--out folder path too long");
        return 1;
    }
    memcpy(path, dir, n + 1);
    /* each prefix ending before a '/', then the whole path; what exists already is fine */
    for (i = 1; i <= n; i++) {
        struct stat st;
        if (i < n && path[i] != '/')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            diag_plain(ctx->diag, DIAG_ERROR, path, "cannot create the --out folder: %s", strerror(errno));
            return 1;
        }
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            int why = errno;
            diag_plain(ctx->diag, DIAG_ERROR, path, "cannot create the --out folder: %s",
                       strerror(stat(path, &st) == 0 ? ENOTDIR : why));
            return 1;
        }
        if (i < n)
            path[i] = '/';
    }
    if (access(dir, W_OK | X_OK) != 0) {
        diag_plain(ctx->diag, DIAG_ERROR, dir, "cannot write: %s", strerror(errno));
        return 1;
    }
    return 0;
}
