/*
 * lower.h - lowering: the checked AST and symbol table become the C type
 * model of ir.h. Returns the number of errors reported (unsupported
 * features, choices that cannot be represented).
 */
#ifndef CDDLGEN_LOWER_H
#define CDDLGEN_LOWER_H

#include "cddl.h"
#include "ir.h"
#include "sema.h"

/* What to lower. All zero: every type rule, with only the feature "json". */
typedef struct lower_options {
    const char *const *roots;   /* lower only what these rules reach (nroots > 0) */
    size_t nroots;
    const char *const *features;/* RFC 9165 features enabled beside "json": an alternative
                                   marked `.feature` with another name is not applicable */
    size_t nfeatures;
    int cbor;                   /* --cbor: CBOR's own types are carried (bstr, tags, undefined,
                                   integer keys, float widths, .cbor) and "cbor" is a feature */
} lower_options;

/*
 * Lowers every type rule of `doc` (or only what o->roots reach) into `out`,
 * in a deterministic order. `o` may be NULL.
 */
int lower_module(cddl_ctx *ctx, const sema_table *table, const ast_document *doc,
                 const lower_options *o, ir_module *out);

/*
 * Do members a and b share a spelling, schema or snake_case? Then which one
 * an input name means depends on search order. Within one struct such
 * members carry IR_F_SHARED_NAME.
 */
int ir_fields_clash(const ir_field *a, const ir_field *b);

#endif
