/*
 * frontend.h - the front end's one entry point: a schema, read from a file
 * or given as text, goes through the stages
 *
 *   parse  (read the file, lex, parse, attach doc comments)  -> ast_document
 *          (and the RFC 8610 prelude, parsed once per context)
 *   check  (sema: names bound against the prelude and doc)   -> sema_table
 *   lower  (to the C type model)                             -> ir_module
 *
 * and stops after the first stage that reported errors, so a later pass
 * never sees what an earlier one rejected. Every command of cddlgen, and
 * every test, fuzz target and benchmark that compiles CDDL, goes through
 * cddl_compile; nothing else strings the passes together.
 *
 * One unit is one schema. Schemas given together (`cddlgen check A B`) are
 * compiled one unit and one context each: a rule of A is not visible in B.
 */
#ifndef CDDLGEN_FRONTEND_H
#define CDDLGEN_FRONTEND_H

#include "cddl.h"
#include "ir.h"
#include "sema.h"

/* The stages, in order; a unit records the last one it completed. */
typedef enum cddl_stage {
    CDDL_STAGE_NONE = 0,    /* nothing run yet */
    CDDL_STAGE_PARSE,       /* unit.doc, unit.prelude */
    CDDL_STAGE_CHECK,       /* unit.table */
    CDDL_STAGE_LOWER        /* unit.mod */
} cddl_stage;

/* What cddl_compile returns; the values are cddlgen's exit statuses. */
typedef enum cddl_compile_status {
    CDDL_COMPILE_OK = 0,     /* every stage asked for ran without errors */
    CDDL_COMPILE_ERRORS = 1, /* a stage reported errors in the schema */
    CDDL_COMPILE_FAILED = 2  /* the file could not be read, or memory ran out */
} cddl_compile_status;

/* The bit of warning group `g` in the warn_* masks below. */
#define CDDL_WARN(g) (1u << (g))
/* Every warning group. */
#define CDDL_WARN_ALL ((1u << DIAG_W_COUNT) - 1u)

/*
 * How far to go and which warnings to give. All zero means the defaults:
 * every stage, every type rule lowered, the warnings diag_init enables.
 * The warning settings are applied to ctx->diag (and stay there, for the
 * passes after the front end); a group in both warn_on and warn_off is off.
 */
typedef struct cddl_compile_options {
    cddl_stage stop_after;      /* last stage to run; 0: CDDL_STAGE_LOWER */
    const char *const *roots;   /* lower only what these rules reach (nroots > 0) */
    size_t nroots;
    int strict;                 /* loose readings (-Wloose) are errors: --strict */
    unsigned warn_on;           /* groups to enable beyond the defaults: -Wunused */
    unsigned warn_off;          /* groups to drop: -Wno-GROUP */
    unsigned warn_error;        /* groups reported as errors: -Werror */
    const char *const *features;/* RFC 9165 features enabled beside "json" (--feature NAME) */
    size_t nfeatures;
    int cbor;                   /* CBOR's own types carried, not dropped (generate --cbor,
                                   validate --input cbor|cborseq); lower_options.cbor */
} cddl_compile_options;

/*
 * One schema and what the stages made of it. Everything it points to lives
 * in the cddl_ctx it was compiled with, and is valid until cddl_ctx_deinit;
 * the unit itself owns only the line table of `src` (cddl_unit_deinit).
 */
typedef struct cddl_unit {
    const char *path;       /* the file the parse stage reads ("-": stdin); NULL: text */
    cddl_source src;        /* the schema text, once read */
    ast_document *doc;      /* after parsing: the rules parsed, with recovery, even on errors */
    ast_document *prelude;  /* after parsing (shared by every unit of the context) */
    sema_table table;       /* after checking: every name bound */
    ir_module mod;          /* after lowering */
    cddl_stage done;        /* the last stage completed without errors */
    cddl_compile_status status; /* of the last cddl_compile: once not OK, it stays */
    unsigned errors;        /* errors reported while compiling this unit */
    const char *const *more_paths; /* files read after `path` as part of the same schema (borrowed;
                                      zcbor's cose.cddl before a SUIT manifest); see cddl_unit_add_files */
    size_t nmore;
    cddl_source *more_src;  /* their texts, once read */
} cddl_unit;

/* A unit that reads `path` (borrowed; "-" is stdin) when it is parsed. */
void cddl_unit_init_file(cddl_unit *u, const char *path);

/*
 * A unit of `len` bytes of `text`, named `name` in diagnostics. Both are
 * borrowed, not copied: the AST points into `text`, which must outlive the
 * unit and every use of what it holds (fuzzers and tests compile in memory).
 */
void cddl_unit_init_text(cddl_unit *u, const char *name, const char *text, size_t len);

/*
 * Makes the files at `paths` (borrowed) part of the unit's schema: each is
 * parsed after `path` and its rules join the document, so rules of one may
 * name rules of another and a name defined twice is reported as in one
 * file. Call it before the first cddl_compile. Returns -1 out of memory.
 */
int cddl_unit_add_files(cddl_unit *u, const char *const *paths, size_t n);

/* Frees the sources' line tables; what the stages made is freed with the context. */
void cddl_unit_deinit(cddl_unit *u);

/*
 * Runs the stages after the last one `u` completed, up to o->stop_after
 * (NULL: the defaults), stopping after the first stage that reports errors.
 * Calling it again with a later stop_after resumes where it stopped, so a
 * caller can look at the checked schema before it is lowered.
 *
 * Diagnostics go to ctx->diag; u->errors counts them. Out of memory is
 * reported there too and caught here (ctx->oom is restored on return), so
 * the caller's own jmp_buf, if any, guards only its own passes.
 *
 * Returns CDDL_COMPILE_OK, CDDL_COMPILE_ERRORS or CDDL_COMPILE_FAILED (also
 * kept in u->status); after a failure, later calls return it again.
 * Not thread-safe with another use of the same ctx.
 *
 *   cddl_unit u;
 *   cddl_compile_options o = { .stop_after = CDDL_STAGE_CHECK };
 *   cddl_unit_init_file(&u, "schema.cddl");
 *   if (cddl_compile(&ctx, &u, &o) == CDDL_COMPILE_OK)
 *       use(u.doc, &u.table);
 *   cddl_unit_deinit(&u);
 */
cddl_compile_status cddl_compile(cddl_ctx *ctx, cddl_unit *u, const cddl_compile_options *o)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((warn_unused_result))
#endif
    ;

#endif /* CDDLGEN_FRONTEND_H */
