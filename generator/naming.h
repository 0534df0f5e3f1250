/* naming.h - C identifiers from schema names (see naming.c). */
#ifndef CDDLGEN_NAMING_H
#define CDDLGEN_NAMING_H

#include "ast.h"
#include "cddl.h"
#include "ir.h"

/* snake_case stem of a rule or member name into out[cap]; returns its length. */
size_t naming_snake(ast_str name, char *out, size_t cap);
/* UPPER_CASE constant suffix of a literal or name. */
size_t naming_constant(ast_str text, char *out, size_t cap);
/* The snake_case wire spelling of a camelCase key (eventId -> event_id). */
size_t naming_key_snake(ast_str key, char *out, size_t cap);
/* True for C and C++ keywords and the member names generated code uses itself. */
int naming_is_reserved(const char *s);

/*
 * A set of C identifiers that must stay distinct, hashed so that naming
 * stays linear in the number of names (a choice of 100,000 literals).
 * Its memory comes from the arena; all zero is an empty set.
 */
typedef struct naming_set {
    struct naming_slot *slots;
    size_t cap, count;
} naming_set;

int naming_set_has(const naming_set *s, const char *name);
/* Adds `name` (borrowed: it must live as long as the set). */
void naming_set_add(cddl_ctx *ctx, naming_set *s, const char *name);
/* A set used as a map: `name` (borrowed) with a number; get returns 0 when absent. */
void naming_set_put(cddl_ctx *ctx, naming_set *s, const char *name, size_t value);
int naming_set_get(const naming_set *s, const char *name, size_t *value);

/*
 * `base` if it is not in the set, else the first of base_N (N from `first`
 * up) that is not; the result is added to the set. Each base remembers where
 * its search stopped, so many names on one base cost no more than one.
 */
const char *naming_unique(cddl_ctx *ctx, naming_set *s, const char *base, size_t first);

/*
 * Reserves the C identifiers every named type of `mod` makes the generated
 * code declare (its struct or enum tags, typedefs, descriptor, functions,
 * enum constants: see naming.c), in module order. A type whose identifiers
 * would meet an earlier type's (a choice `Foo` declares `enum P_foo_kind`,
 * a rule `FooKind` declares `struct P_foo_kind`) gets the first numbered
 * stem that meets none, and a -Wnaming warning.
 */
void naming_reserve_types(cddl_ctx *ctx, ir_module *mod, naming_set *stems);

#endif
