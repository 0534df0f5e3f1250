/*
 * apr_types.h - descriptors of the unconstrained primitive types, shared by
 * every generated file: a member typed `text`, `uint` or `any` points at
 * these instead of each schema emitting its own copy.
 */
#ifndef APR_TYPES_H
#define APR_TYPES_H

#include "apr_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const apr_type apr_any_type;   /* any: apr_json_raw */
extern const apr_type apr_bool_type;  /* bool */
extern const apr_type apr_int_type;   /* int: int64_t, full range */
extern const apr_type apr_uint_type;  /* uint: uint64_t, full range */
extern const apr_type apr_float_type; /* float: double, any JSON number */
extern const apr_type apr_text_type;  /* tstr: apr_slice */
extern const apr_type apr_null_type;  /* the literal null */
extern const apr_type apr_true_type;  /* the literal true */
extern const apr_type apr_false_type; /* the literal false */

/* A schema type by its rule name: generated files list theirs, so a tool can choose one at run time. */
typedef struct apr_named_type {
    const char *name;       /* "Event", "run.start", or a path for an anonymous type: "Event.params" */
    const apr_type *type;
} apr_named_type;

#ifdef __cplusplus
}
#endif
#endif /* APR_TYPES_H */
