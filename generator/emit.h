/*
 * emit.h - writes PREFIX.h and PREFIX.c for a lowered module by filling the
 * templates (built in, or from a directory given with --templates).
 * Output is deterministic: no dates, no absolute paths, schema order.
 */
#ifndef CDDLGEN_EMIT_H
#define CDDLGEN_EMIT_H

#include "cddl.h"
#include "ir.h"

typedef struct emit_options {
    const char *prefix;        /* for every exported symbol: "ap" */
    const char *out_dir;       /* where PREFIX.h and PREFIX.c go; NULL: check only, write nothing */
    const char *templates_dir; /* NULL: the built-in templates */
    int embed_runtime;         /* the runtime goes into the output: `@c-type` lines are ignored,
                                  since only the core and schema layers are embedded */
    int tables_only;           /* --size: descriptors only, no generated readers, validators or
                                  encoders; the runtime's tables do all of it (smaller, slower) */
    int cbor;                  /* --cbor: every type also gets PREFIX_T_decode_cbor and
                                  PREFIX_T_encode_cbor, on the runtime's CBOR engine */
} emit_options;

/* Returns the number of errors (template or I/O); 0 on success. */
int emit_module(cddl_ctx *ctx, const ir_module *mod, const emit_options *opt);

#endif
