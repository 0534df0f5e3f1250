/*
 * ir.h - the C type model that lowering builds and the emitters read.
 *
 * Invariant: every ir_type here can be represented in C and in JSON. Names
 * are resolved, generics instantiated, groups flattened into struct fields,
 * choices classified (discriminated / by JSON kind / literal enum /
 * untagged), and constraints collected. Emitters never look at the AST.
 * Kinds mirror the runtime's aps_kind (aps/schema.h), since
 * each ir_type becomes one aps_type descriptor.
 */
#ifndef CDDLGEN_IR_H
#define CDDLGEN_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"

/*
 * An enumeration wider than this is matched through tables, not code per
 * value: a sorted index the runtime searches (aps_schema_enum_find) and a
 * _name that reads the values table, so that 100,000 literals compile in
 * seconds. Narrower ones keep their readable straight-line functions.
 */
#define IR_WIDE_ENUM 64

typedef enum ir_kind {
    IR_ANY, IR_BOOL, IR_INT, IR_UINT, IR_FLOAT, IR_TEXT,
    IR_LITERAL, IR_ENUM, IR_STRUCT, IR_ARRAY, IR_MAP, IR_UNION,
    IR_ALIAS, /* a rule that names another named type: a typedef */
    IR_BYTES, /* a CBOR byte string (--cbor only): aps_slice */
    IR_TAG    /* `#6.n(T)` (--cbor only): T's C value, tag n on the CBOR wire, T alone in JSON */
} ir_kind;

typedef enum ir_union_class {
    IR_U_DISCRIMINATED, IR_U_KIND, IR_U_UNTAGGED,
    IR_U_GROUPS /* --cbor: a choice of groups inside a positional array, tried in order in place */
} ir_union_class;

typedef enum ir_lit_kind {
    IR_LIT_TEXT, IR_LIT_INT, IR_LIT_UINT, IR_LIT_FLOAT, IR_LIT_BOOL, IR_LIT_NULL,
    IR_LIT_UNDEFINED, IR_LIT_BYTES /* --cbor only; IR_LIT_BYTES: the bytes in `text` */
} ir_lit_kind;

typedef struct ir_literal {
    ir_lit_kind kind;
    ast_str text;        /* IR_LIT_TEXT: unescaped; numbers: spelling */
    int64_t i;
    uint64_t u;
    double f;
    const char *c_name;  /* enum constant suffix, e.g. "TEXT_DELTA" */
    ast_doc doc;
} ir_literal;

typedef struct ir_type ir_type;

/*
 * One step of a builder (see ir_builder): set the kind of the union `in`
 * to alternative `alt`. `access` is how `in` is reached from the previous
 * step's payload (or from the builder's own value for the first step):
 * "" when it is that value itself, else a member path such as
 * ".params.data" (the spine: see naming.c).
 */
typedef struct ir_hop {
    const ir_type *in;   /* a union, resolved */
    size_t alt;          /* index into in->alts */
    const char *access;
} ir_hop;

/*
 * A builder of a type: `<stem>_as_<name>` sets the kind of every union on
 * the path `hops` and returns the last alternative's payload to fill.
 */
typedef struct ir_builder {
    const char *name;    /* identifier suffix after "_as_" */
    ir_hop *hops;
    size_t nhops;
} ir_builder;

/* Field flags: the runtime's APS_F_* values. */
enum { IR_F_OPTIONAL = 1, IR_F_LITERAL = 2, IR_F_NULLABLE = 4, IR_F_PLAIN_NAMES = 8, IR_F_SHARED_NAME = 16 };

typedef struct ir_field {
    ast_str key;         /* wire key, exactly as in the schema */
    const char *snake;   /* snake_case spelling of the key */
    const char *c_name;  /* C member name */
    ir_type *type;
    unsigned flags;
    ast_doc doc;
    src_loc loc;
    const unsigned char *cbor_key; /* --cbor, a key that is no text (`1 => T`): its canonical CBOR
                                      bytes; `key` is then its decimal text, the JSON name */
    size_t cbor_key_len;
} ir_field;

struct ir_type {
    ir_kind kind;
    const char *rule;    /* schema name ("Event", "run.start"); anonymous: a path like "Event.params" */
    const char *c_name;  /* identifier stem: "event", "lifecycle_event_params" */
    bool named;          /* declared as its own C type (rules, anonymous structs, unions, arrays) */
    ast_doc doc;
    src_loc loc;         /* where it is defined */
    int order_state;     /* emitter's dependency walk: 0 new, 1 in progress, 2 done */
    size_t walk;         /* lowering's walks over choices: the last that visited this type */
    int json_class;      /* IR_UNION, once classified: lowering's json_class + 1 (a cache) */
    size_t index;        /* position in ir_module.types */

    /* IR_INT / IR_UINT / IR_FLOAT */
    int64_t imin, imax;
    uint64_t umin, umax;
    uint64_t forbidden_bits; /* IR_UINT: bits that must be clear, those `.bits` does not list */
    double fmin, fmax;
    bool has_fmin, has_fmax, fmin_excl, fmax_excl;
    int fwidth;          /* IR_FLOAT under --cbor: 2, 4 or 8 bytes on the CBOR wire (float16/32/64); 0 any */
    /* IR_TEXT, IR_BYTES */
    size_t len_min, len_max;
    /* IR_BYTES */
    ir_type *embedded;   /* `.cbor T` / `.cborseq T`: the type of the embedded item(s); NULL: none */
    bool sequence;       /* `.cborseq` */
    /* IR_TAG */
    uint64_t tag;
    ir_type *content;
    const char *pattern;
    /* IR_LITERAL */
    ir_literal lit;
    /* IR_ENUM */
    ir_literal *values;
    size_t nvalues;
    ir_type *other;      /* a text type for values outside the list (Channel's custom:NAME) */
    unsigned *sorted;    /* a wide enum (over IR_WIDE_ENUM values): the indices of `values` by
                            length, then bytes, for a binary search; NULL: few values */
    /* IR_STRUCT */
    ir_field *fields;
    size_t nfields;
    bool open;
    ir_type *extras_type;/* type of the `* text => T` tail, NULL for any */
    ir_type *extras_key; /* --cbor: type of the tail's keys when they may be other than text
                            (`* label => values`, `[tstr] => T`); NULL: text keys */
    uint64_t extras_min, extras_max; /* how many members the tail takes (`1*3 text => T`); max 0: no bound */
    bool positional;     /* --cbor: an array read by position (`[alg: int, * bstr]`): the fields are
                            its entries in order (APS_K_TUPLE) */
    bool group;          /* positional: a group inside such an array, whose entries take the
                            enclosing array's elements (`? (uint, bstr)`) */
    ir_type *variants;   /* union of structs whose members are inlined (Command's CommandData) */
    const char *variants_c_name;
    /* IR_ARRAY, IR_MAP */
    ir_type *elem;
    uint64_t occ_min, occ_max;
    bool spread;         /* IR_ARRAY: a repeated entry of a positional array, its elements in place */
    /* IR_UNION */
    ir_union_class cls;
    ir_type **alts;
    size_t nalts;
    const char **alt_c_names; /* union member and kind constant stems */
    ast_str disc_key;
    ir_literal *disc;    /* per alternative */
    /* IR_ALIAS */
    ir_type *target;
    const ir_type *base;     /* IR_ALIAS: the type at the end of the chain of aliases (a cache) */
    /* builders (IR_UNION, and IR_STRUCT with a spine): see naming_reserve_types */
    ir_builder *builders;
    size_t nbuilders;
};

/* Everything to emit, in a deterministic order: rules in source order, then
 * the anonymous types they created, each after what it depends on. */
typedef struct ir_module {
    ir_type **types;     /* named types */
    size_t count;
    const char *schema_name; /* base name of the schema file, for banners */
} ir_module;

#endif /* CDDLGEN_IR_H */
