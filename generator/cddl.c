/* cddl.c - the compilation context, source loading and the parse driver (see cddl.h). */
#include "cddl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "literal.h"
#include "parser.h"

/* The prelude text, embedded at build time from generator/prelude.cddl. */
extern const char cddl_embedded_prelude[];
extern const size_t cddl_embedded_prelude_len;

/* Largest source accepted: locations are 32-bit byte offsets. */
#define CDDL_MAX_SOURCE ((size_t)1 << 30)

/*
 * Most memory one compilation may take: every pass allocates from the
 * arena, so a schema whose model or output would grow past it (a group of
 * many members inlined in many maps, a wide generic instantiated thousands
 * of times) fails with "out of memory" within a bound, instead of taking
 * the machine's memory. Real schemas use a few MB (WebDriver BiDi, all: 16 MB).
 */
#define CDDL_MAX_MEMORY ((size_t)448 << 20)

void cddl_ctx_init(cddl_ctx *ctx, diag_ctx *diag)
{
    aps_arena_options opt;
    memset(ctx, 0, sizeof *ctx);
    memset(&opt, 0, sizeof opt);
    opt.chunk_size = 1 << 16;
    opt.limit = CDDL_MAX_MEMORY;
    aps_arena_init(&ctx->arena, &opt);
    ctx->diag = diag;
}

void cddl_ctx_deinit(cddl_ctx *ctx)
{
    cddl_source_deinit(&ctx->prelude_src);
    aps_arena_deinit(&ctx->arena);
}

/* Reports that the arena is exhausted and abandons the pass (see cddl.h). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
static void out_of_memory(cddl_ctx *ctx)
{
    diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "out of memory: compiling this schema needs more than %zu MB",
               CDDL_MAX_MEMORY >> 20);
    longjmp(*ctx->oom, 1);
}

void *cddl_alloc(cddl_ctx *ctx, size_t size)
{
    void *p = aps_arena_alloc(&ctx->arena, size);
    if (p == NULL)
        out_of_memory(ctx);
    memset(p, 0, size);
    return p;
}

char *cddl_strdup(cddl_ctx *ctx, const char *s, size_t len)
{
    char *p = cddl_alloc(ctx, len + 1);
    memcpy(p, s, len);
    return p;
}

char *cddl_fmt(cddl_ctx *ctx, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    return cddl_strdup(ctx, buf, (size_t)n);
}

void cddl_push(cddl_ctx *ctx, void *items_ptr, size_t *count, size_t item_size, const void *item)
{
    char **items = items_ptr;
    size_t n = *count;
    /* Capacity is implied by the count: 4, then the next power of two. */
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n == 0 ? 4 : n * 2;
        char *grown = aps_arena_realloc(&ctx->arena, *items, n * item_size, cap * item_size,
                                        APS_ARENA_ALIGN);
        if (grown == NULL)
            out_of_memory(ctx);
        *items = grown;
    }
    memcpy(*items + n * item_size, item, item_size);
    *count = n + 1;
}

void cddl_source_from_text(cddl_source *src, const char *name, const char *text, size_t len)
{
    memset(src, 0, sizeof *src);
    src->name = name;
    src->text = text;
    src->len = len;
}

int cddl_source_load(cddl_ctx *ctx, cddl_source *src, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf = NULL, *text;
    size_t len = 0, cap = 0;
    if (f == NULL) {
        diag_plain(ctx->diag, DIAG_ERROR, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb;
            if (ncap > CDDL_MAX_SOURCE + 1) {
                diag_plain(ctx->diag, DIAG_ERROR, path, "file larger than %zu bytes", CDDL_MAX_SOURCE);
                free(buf);
                if (f != stdin)
                    fclose(f);
                return -1;
            }
            nb = realloc(buf, ncap);
            if (nb == NULL) {
                diag_plain(ctx->diag, DIAG_ERROR, path, "out of memory");
                free(buf);
                if (f != stdin)
                    fclose(f);
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        diag_plain(ctx->diag, DIAG_ERROR, path, "read error: %s", strerror(errno));
        free(buf);
        if (f != stdin)
            fclose(f);
        return -1;
    }
    if (f != stdin)
        fclose(f);
    /* Keep the text in the arena so it lives exactly as long as the AST pointing into it;
     * without cddl_strdup, whose longjmp would leak buf. */
    text = aps_arena_alloc(&ctx->arena, len + 1);
    if (text != NULL) {
        memcpy(text, buf, len);
        text[len] = '\0';
    }
    free(buf);
    if (text == NULL)
        out_of_memory(ctx);
    cddl_source_from_text(src, cddl_strdup(ctx, path, strlen(path)), text, len);
    return 0;
}

ast_document *cddl_parse(cddl_ctx *ctx, cddl_source *src)
{
    jmp_buf here, *outer = ctx->oom;
    /* In the arena, not on the stack: it must survive a longjmp unchanged. */
    cddl_parser *p = cddl_alloc(ctx, sizeof *p);
    p->ctx = ctx;
    p->src = src;
    p->queue = cddl_alloc(ctx, CDDL_TOKEN_QUEUE * sizeof *p->queue);
    p->openers = cddl_alloc(ctx, (CDDL_MAX_DEPTH + 1) * sizeof *p->openers);
    p->doc = cddl_alloc(ctx, sizeof *p->doc);
    p->doc->src = src;
    if (src->len > CDDL_MAX_SOURCE) {
        diag_plain(ctx->diag, DIAG_ERROR, src->name, "file larger than %zu bytes", CDDL_MAX_SOURCE);
        return p->doc;
    }
    if (cddl_lex_begin(p) != 0) {
        diag_plain(ctx->diag, DIAG_ERROR, src->name, "cannot start the lexer");
        return p->doc;
    }
    if (setjmp(here) != 0) {
        cddl_lex_end(p);
        ctx->oom = outer;
        longjmp(*outer, 1);
    }
    ctx->oom = &here;
    (void)cddl_yyparse(p);
    cddl_lex_end(p);
    ctx->oom = outer;
    cddl_attach_docs(ctx, p->doc);
    return p->doc;
}

ast_document *cddl_prelude(cddl_ctx *ctx)
{
    ast_document *doc;
    if (ctx->prelude != NULL)
        return ctx->prelude;
    cddl_source_from_text(&ctx->prelude_src, "<prelude>", cddl_embedded_prelude,
                          cddl_embedded_prelude_len);
    doc = cddl_parse(ctx, &ctx->prelude_src);
    for (size_t i = 0; i < doc->nrules; i++)
        doc->rules[i]->from_prelude = 1;
    ctx->prelude = doc;
    return doc;
}
