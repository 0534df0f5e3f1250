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

/*
 * Lowers every type rule of `doc` (or only what `roots` reach, when
 * nroots > 0) into `out`, in a deterministic order.
 */
int lower_module(cddl_ctx *ctx, const sema_table *table, const ast_document *doc,
                 const char *const *roots, size_t nroots, ir_module *out);

/*
 * Do members a and b share a spelling, schema or snake_case? Then which one
 * an input name means depends on search order. Within one struct such
 * members carry IR_F_SHARED_NAME.
 */
int ir_fields_clash(const ir_field *a, const ir_field *b);

#endif
