/* ast.c - small queries on the syntax tree and structural equality (see ast.h). */
#include "ast.h"

#include <string.h>

int ast_str_eq(ast_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.ptr, lit, n) == 0;
}

int ast_str_same(ast_str a, ast_str b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

ast_type *ast_paren_inner(const ast_type *t)
{
    const ast_grpchoice *c;
    const ast_entry *e;
    if (t->kind != AST_T_PAREN || t->u.group->count != 1)
        return NULL;
    c = t->u.group->choices[0];
    if (c->count != 1)
        return NULL;
    e = c->entries[0];
    if (e->has_occur || e->key_kind != AST_KEY_NONE)
        return NULL;
    return e->type;
}

static int type_equal(const ast_type *a, const ast_type *b);
static int group_equal(const ast_group *a, const ast_group *b);

static int value_equal(const ast_value *a, const ast_value *b)
{
    return a->kind == b->kind && a->qual == b->qual && ast_str_same(a->text, b->text);
}

static int list_equal(const ast_type_list *a, const ast_type_list *b)
{
    size_t i;
    if (a->count != b->count)
        return 0;
    for (i = 0; i < a->count; i++)
        if (!type_equal(a->items[i], b->items[i]))
            return 0;
    return 1;
}

static int type_equal(const ast_type *a, const ast_type *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case AST_T_VALUE:
        return value_equal(&a->u.value, &b->u.value);
    case AST_T_NAME: case AST_T_UNWRAP: case AST_T_ENUM_NAME:
        return ast_str_same(a->u.name.name, b->u.name.name) && list_equal(&a->u.name.args, &b->u.name.args);
    case AST_T_PAREN: case AST_T_MAP: case AST_T_ARRAY: case AST_T_ENUM:
        return group_equal(a->u.group, b->u.group);
    case AST_T_TAG: case AST_T_MAJOR:
        return a->u.tag.major == b->u.tag.major && a->u.tag.has_number == b->u.tag.has_number &&
               ast_str_same(a->u.tag.number, b->u.tag.number) &&
               type_equal(a->u.tag.number_type, b->u.tag.number_type) &&
               type_equal(a->u.tag.content, b->u.tag.content);
    case AST_T_ANY:
        return 1;
    case AST_T_RANGE:
        return a->u.range.inclusive == b->u.range.inclusive && type_equal(a->u.range.lo, b->u.range.lo) &&
               type_equal(a->u.range.hi, b->u.range.hi);
    case AST_T_CONTROL:
        return ast_str_same(a->u.control.op, b->u.control.op) &&
               type_equal(a->u.control.target, b->u.control.target) &&
               type_equal(a->u.control.arg, b->u.control.arg);
    case AST_T_CHOICE:
        return list_equal(&a->u.choice, &b->u.choice);
    }
    return 0;
}

static int entry_equal(const ast_entry *a, const ast_entry *b)
{
    return a->has_occur == b->has_occur && a->occur_min == b->occur_min &&
           a->occur_max == b->occur_max && a->occur_form == b->occur_form &&
           a->key_kind == b->key_kind && a->cut == b->cut &&
           ast_str_same(a->bareword, b->bareword) && type_equal(a->key, b->key) &&
           type_equal(a->type, b->type);
}

static int group_equal(const ast_group *a, const ast_group *b)
{
    size_t c, e;
    if (a->count != b->count)
        return 0;
    for (c = 0; c < a->count; c++) {
        if (a->choices[c]->count != b->choices[c]->count)
            return 0;
        for (e = 0; e < a->choices[c]->count; e++)
            if (!entry_equal(a->choices[c]->entries[e], b->choices[c]->entries[e]))
                return 0;
    }
    return 1;
}

int ast_rule_equal(const ast_rule *x, const ast_rule *y)
{
    size_t k;
    if (!ast_str_same(x->name, y->name) || x->assign != y->assign || x->nparams != y->nparams ||
        !entry_equal(x->body, y->body))
        return 0;
    for (k = 0; k < x->nparams; k++)
        if (!ast_str_same(x->params[k], y->params[k]))
            return 0;
    return 1;
}

int ast_document_equal(const ast_document *a, const ast_document *b)
{
    size_t i;
    if (a->nrules != b->nrules)
        return 0;
    for (i = 0; i < a->nrules; i++)
        if (!ast_rule_equal(a->rules[i], b->rules[i]) || !ast_str_same(a->rules[i]->doc, b->rules[i]->doc))
            return 0;
    return 1;
}
