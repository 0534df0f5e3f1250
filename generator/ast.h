/*
 * ast.h - the CDDL syntax tree (RFC 8610 Appendix B as updated by RFC 9682).
 *
 * Invariant: the tree mirrors the grammar, nothing more. Names are not bound,
 * types and groups are not told apart beyond what the syntax says; that is
 * sema's job. Every node carries the source range it was parsed from. All
 * nodes live in the compilation's arena (see cddl_ctx) and are freed with it.
 *
 * One simplification of the grammar: `( ... )` in a type position and an
 * inline group `( group )` are both AST_T_PAREN holding a group. A group of
 * one keyless entry without occurrence is a parenthesised type; sema decides
 * from context, which is how RFC 8610 resolves the same ambiguity.
 */
#ifndef CDDLGEN_AST_H
#define CDDLGEN_AST_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct ast_str {
    const char *ptr;
    size_t len;
} ast_str;

typedef enum ast_value_kind {
    AST_V_INT,   /* text holds the spelling; neg/mag the value when it fits */
    AST_V_FLOAT, /* text holds the spelling; f the value */
    AST_V_TEXT,  /* text holds the unescaped UTF-8 content */
    AST_V_BYTES  /* text holds the content between the quotes, as written */
} ast_value_kind;

typedef enum ast_bytes_qual { AST_BYTES_PLAIN, AST_BYTES_HEX, AST_BYTES_B64 } ast_bytes_qual;

typedef struct ast_value {
    ast_value_kind kind;
    ast_str text;
    int negative;       /* AST_V_INT: a minus sign was written */
    int overflow;       /* AST_V_INT: the magnitude does not fit 64 bits */
    uint64_t magnitude; /* AST_V_INT: absolute value */
    double f;           /* AST_V_FLOAT */
    ast_bytes_qual qual;/* AST_V_BYTES */
} ast_value;

typedef enum ast_type_kind {
    AST_T_VALUE,     /* 1, "text", h'00' */
    AST_T_NAME,      /* typename or groupname, with generic arguments */
    AST_T_PAREN,     /* ( group ) */
    AST_T_MAP,       /* { group } */
    AST_T_ARRAY,     /* [ group ] */
    AST_T_UNWRAP,    /* ~ name<args> */
    AST_T_ENUM,      /* & ( group ) */
    AST_T_ENUM_NAME, /* & name<args> */
    AST_T_TAG,       /* #6.n(type), #6.<type>(type), #6(type) */
    AST_T_MAJOR,     /* #n, #n.m */
    AST_T_ANY,       /* # */
    AST_T_RANGE,     /* a .. b, a ... b */
    AST_T_CONTROL,   /* a .op b */
    AST_T_CHOICE     /* a / b / c (two or more) */
} ast_type_kind;

typedef struct ast_type ast_type;
typedef struct ast_group ast_group;
typedef struct ast_rule ast_rule;

typedef struct ast_type_list {
    ast_type **items;
    size_t count;
} ast_type_list;

struct ast_type {
    ast_type_kind kind;
    src_loc loc;
    union {
        ast_value value;
        struct {
            ast_str name;
            ast_type_list args; /* generic arguments; count 0 when none */
            int has_args;       /* `name<>` cannot be written, but keep the distinction */
            src_loc name_loc;
        } name;                 /* AST_T_NAME, AST_T_UNWRAP, AST_T_ENUM_NAME */
        ast_group *group;       /* AST_T_PAREN, AST_T_MAP, AST_T_ARRAY, AST_T_ENUM */
        struct {
            unsigned major;     /* 0..7 */
            int has_number;     /* a `.n` or `.<type>` was given */
            ast_str number;     /* spelling of n */
            uint64_t value;     /* n, when it fits */
            ast_type *number_type; /* #6.<type>(...) */
            ast_type *content;  /* AST_T_TAG */
        } tag;                  /* AST_T_TAG, AST_T_MAJOR */
        struct {
            ast_type *lo, *hi;
            int inclusive;      /* `..` includes hi, `...` excludes it */
        } range;
        struct {
            ast_type *target;
            ast_str op;         /* without the dot */
            src_loc op_loc;
            ast_type *arg;
        } control;
        ast_type_list choice;
    } u;
};

typedef enum ast_key_kind {
    AST_KEY_NONE,
    AST_KEY_BAREWORD, /* name: */
    AST_KEY_VALUE,    /* "name": or 1: */
    AST_KEY_TYPE      /* type1 => , type1 ^ => */
} ast_key_kind;

/* A comment that documents a declaration: its lines joined by '\n', without ';'. */
typedef ast_str ast_doc;

/* Occurrence: `?` is 0..1, `*` 0..inf, `+` 1..inf, `n*m` n..m. */
#define AST_OCCUR_INF UINT64_MAX

typedef struct ast_entry {
    src_loc loc;
    int has_occur;
    char occur_form;        /* '?', '+', '*' (covers n*m) */
    uint64_t occur_min, occur_max;
    ast_str occur_text;     /* spelling, for the printer */
    ast_key_kind key_kind;
    int cut;                /* `^ =>` */
    ast_str bareword;       /* AST_KEY_BAREWORD */
    ast_type *key;          /* AST_KEY_VALUE (a value) and AST_KEY_TYPE */
    ast_type *type;
    ast_doc doc;            /* comment above the entry or at the end of its line */
    unsigned char sema_marks; /* sema's "already reported" flags */
} ast_entry;

typedef struct ast_grpchoice {
    src_loc loc;
    ast_entry **entries;
    size_t count;
} ast_grpchoice;

struct ast_group {
    src_loc loc;
    ast_grpchoice **choices; /* at least one; `//` separates them */
    size_t count;
};

typedef enum ast_assign {
    AST_ASSIGN_DEFINE,     /* =   */
    AST_ASSIGN_TYPE_ALT,   /* /=  */
    AST_ASSIGN_GROUP_ALT   /* //= */
} ast_assign;

struct ast_rule {
    ast_str name;
    src_loc loc;        /* the whole rule */
    src_loc name_loc;
    ast_str *params;    /* generic parameters */
    src_loc *param_locs;
    size_t nparams;
    ast_assign assign;
    src_loc assign_loc;
    ast_entry *body;    /* a grpent: a plain type has no key and no occurrence */
    ast_doc doc;        /* comment block directly above the rule */
    int from_prelude;
};

/* A comment as the lexer saw it; docs are attached after parsing. */
typedef struct ast_comment {
    src_loc loc;
    ast_str text;       /* after the ';', without the line end */
    int own_line;       /* nothing but blanks precede it on its line */
} ast_comment;

/* One parsed file: its rules in source order and its comments. */
typedef struct ast_document {
    const cddl_source *src;
    ast_rule **rules;
    size_t nrules;
    ast_comment *comments;
    size_t ncomments;
} ast_document;

/* True when `s` equals the NUL-terminated `lit`. */
int ast_str_eq(ast_str s, const char *lit);
int ast_str_same(ast_str a, ast_str b);

/* Structural equality ignoring locations and comments (the printer round trip). */
int ast_document_equal(const ast_document *a, const ast_document *b);
int ast_rule_equal(const ast_rule *a, const ast_rule *b);

/* If `t` is a parenthesised plain type `( T )`, returns T; else NULL. */
ast_type *ast_paren_inner(const ast_type *t);

#endif /* CDDLGEN_AST_H */
