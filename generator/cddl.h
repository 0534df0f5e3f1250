/*
 * cddl.h - the compilation context shared by every pass of cddlgen, and the
 * front end's entry points.
 *
 * Memory: every pass allocates from ctx->arena and nothing is freed before
 * cddl_ctx_deinit. Allocation failure is not checked at each call: the
 * driver sets ctx->oom with setjmp, and cddl_alloc longjmps there, so a
 * pass never returns a half-built result it believes complete (the way
 * PostgreSQL's memory contexts report out-of-memory).
 */
#ifndef CDDLGEN_CDDL_H
#define CDDLGEN_CDDL_H

#include <setjmp.h>

#include "aps/arena.h"
#include "ast.h"
#include "diag.h"

/* Deepest nesting of ( [ { < the parser accepts; keeps every recursive pass bounded. */
#define CDDL_MAX_DEPTH 500

typedef struct cddl_ctx {
    aps_arena arena;
    diag_ctx *diag;
    jmp_buf *oom;       /* set by the driver before running a pass */
    cddl_source prelude_src;
    ast_document *prelude; /* parsed on first use */
    unsigned io_errors;    /* output that could not be written (reported; exit status 2, not 1) */
} cddl_ctx;

void cddl_ctx_init(cddl_ctx *ctx, diag_ctx *diag);
void cddl_ctx_deinit(cddl_ctx *ctx);

/* Zeroed memory from the arena; longjmps to ctx->oom when none is left. */
void *cddl_alloc(cddl_ctx *ctx, size_t size);
/* printf into the arena (cut at 4 KiB, which no name or C expression reaches). */
char *cddl_fmt(cddl_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Copy of `len` bytes with a NUL after them. */
char *cddl_strdup(cddl_ctx *ctx, const char *s, size_t len);
/* Appends `item` to an arena array (capacity doubles at powers of two). */
void cddl_push(cddl_ctx *ctx, void *items_ptr, size_t *count, size_t item_size, const void *item);

/* Reads a whole file into the arena. Returns 0, or -1 after reporting an I/O error. */
int cddl_source_load(cddl_ctx *ctx, cddl_source *src, const char *path);
void cddl_source_from_text(cddl_source *src, const char *name, const char *text, size_t len);

/*
 * Parses one source. Syntax errors are reported through ctx->diag (with
 * recovery at the next rule), and the rules parsed are returned; check
 * ctx->diag->errors. Returns NULL only when no document could be made at all.
 */
ast_document *cddl_parse(cddl_ctx *ctx, cddl_source *src);

/* The RFC 8610 Appendix D prelude, parsed (cached in ctx). */
ast_document *cddl_prelude(cddl_ctx *ctx);

/* Attaches comments to the rules and members they document (see docs.c). */
void cddl_attach_docs(cddl_ctx *ctx, ast_document *doc);

/* The comment at the end of the line after byte `end`, if any (for choice alternatives). */
ast_doc cddl_doc_beside(cddl_ctx *ctx, const ast_document *doc, size_t end);

/* Writes `doc` as canonical CDDL. */
void cddl_print(FILE *out, const ast_document *doc);

#endif /* CDDLGEN_CDDL_H */
