/*
 * aps/types.h - descriptors of the unconstrained primitive types, shared by
 * every generated file: a member typed `text`, `uint` or `any` points at
 * these instead of each schema emitting its own copy.
 */
#ifndef APS_TYPES_H
#define APS_TYPES_H

#include "aps/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const aps_type aps_any_type;   /* any: aps_json_raw */
extern const aps_type aps_bool_type;  /* bool */
extern const aps_type aps_int_type;   /* int: int64_t, full range */
extern const aps_type aps_uint_type;  /* uint: uint64_t, full range */
extern const aps_type aps_float_type; /* float: double, any JSON number */
extern const aps_type aps_text_type;  /* tstr: aps_slice */
extern const aps_type aps_null_type;  /* the literal null */
extern const aps_type aps_true_type;  /* the literal true */
extern const aps_type aps_false_type; /* the literal false */

/* A schema type by its rule name: generated files list theirs, so a tool can choose one at run time. */
typedef struct aps_named_type {
    const char *name;       /* "Event", "run.start", or a path for an anonymous type: "Event.params" */
    const aps_type *type;
} aps_named_type;

#ifdef __cplusplus
}
#endif
#endif /* APS_TYPES_H */
