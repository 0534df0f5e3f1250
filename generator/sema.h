/*
 * sema.h - name binding and the checks a person expects from a compiler.
 *
 * Input: the prelude and one parsed document. Output: a symbol table in
 * which every rule name maps to its definition (the `=` rule and the `/=` or
 * `//=` extensions, in source order), every name use is bound, and each
 * rule is classified as a type or a group. Reported: undefined names (with
 * a suggestion), duplicate definitions, generic arity mismatches, type/group
 * misuse RFC 8610 forbids, unknown control operators, rules that can never
 * match, and (-Wunused) rules nothing references. The two loose readings the
 * real protocol schema relies on are warnings of group -Wloose.
 *
 * Returns the number of errors reported by this pass.
 */
#ifndef CDDLGEN_SEMA_H
#define CDDLGEN_SEMA_H

#include "cddl.h"

typedef enum sema_kind { SEMA_UNKNOWN, SEMA_TYPE, SEMA_GROUP } sema_kind;

/* Everything known about one rule name. */
typedef struct sema_symbol {
    ast_str name;
    ast_rule *def;          /* the `=` definition (NULL for a socket only extended) */
    ast_rule **alts;        /* `/=` and `//=` extensions in source order */
    size_t nalts;
    sema_kind kind;
    int productive;         /* some instance can match */
    int visiting;           /* on the alias chain being classified (sema.c) */
    int referenced;
    int from_prelude;
    size_t order;           /* position of first appearance, for deterministic output */
} sema_symbol;

typedef struct sema_table {
    sema_symbol **symbols;  /* in order of first definition: prelude first */
    size_t count;
    size_t *buckets;        /* open addressing: index + 1, 0 = empty */
    size_t nbuckets;
} sema_table;

int sema_check(cddl_ctx *ctx, ast_document *prelude, ast_document *doc, sema_table *out);

/* The rule that names a symbol: its `=` definition, or its first extension when it has none. */
static inline const ast_rule *sema_first_rule(const sema_symbol *sym)
{
    return sym->def != NULL ? sym->def : sym->alts[0];
}

/* The symbol named `name`, or NULL. */
sema_symbol *sema_lookup(const sema_table *t, ast_str name);

/* Kind of a type expression in the context of its rule (generic params count as types). */
sema_kind sema_type_kind(const sema_table *t, const ast_rule *scope, const ast_type *type);

#endif
