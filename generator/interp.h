/*
 * interp.h - runtime descriptors for any schema, built in memory from the
 * lowered C type model (see interp.c): what `cddlgen validate` runs.
 */
#ifndef CDDLGEN_INTERP_H
#define CDDLGEN_INTERP_H

#include "aps/schema.h"
#include "cddl.h"
#include "ir.h"

/* The descriptor of the type named `rule` in `mod`, or NULL. Lives in ctx's arena. */
const aps_type *interp_type(cddl_ctx *ctx, const ir_module *mod, const char *rule);

#endif
