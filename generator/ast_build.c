/* ast_build.c - AST constructors called by the grammar (see ast_build.h). */
#include "ast_build.h"

#include <string.h>

static ast_type *new_type(cddl_parser *p, ast_type_kind kind, src_loc loc)
{
    ast_type *t = cddl_alloc(p->ctx, sizeof *t);
    t->kind = kind;
    t->loc = loc;
    return t;
}

ast_type *ast_new_value(cddl_parser *p, const ast_value *v, src_loc loc)
{
    ast_type *t = new_type(p, AST_T_VALUE, loc);
    t->u.value = *v;
    return t;
}

ast_type *ast_new_name(cddl_parser *p, ast_type_kind kind, ast_str name, src_loc name_loc,
                       ast_type_list args, int has_args, src_loc loc)
{
    ast_type *t = new_type(p, kind, loc);
    t->u.name.name = name;
    t->u.name.name_loc = name_loc;
    t->u.name.args = args;
    t->u.name.has_args = has_args;
    return t;
}

ast_type *ast_new_group_type(cddl_parser *p, ast_type_kind kind, ast_group *g, src_loc loc)
{
    ast_type *t = new_type(p, kind, loc);
    t->u.group = g;
    return t;
}

ast_type *ast_new_tag(cddl_parser *p, const cddl_tag_tok *tag, ast_type *number_type,
                      ast_type *content, src_loc loc)
{
    ast_type *t = new_type(p, content ? AST_T_TAG : AST_T_MAJOR, loc);
    t->u.tag.major = tag->major;
    t->u.tag.has_number = tag->has_number;
    t->u.tag.number = tag->number;
    t->u.tag.value = tag->value;
    t->u.tag.number_type = number_type;
    t->u.tag.content = content;
    /* `#6` and `#6.n` without content are allowed ("#" DIGIT ["." uint]): any tag content. */
    if (tag->major > 7)
        diag_report(p->ctx->diag, DIAG_ERROR, DIAG_W_NONE, loc,
                    "major type %u does not exist (CBOR major types are 0 to 7)", tag->major);
    return t;
}

ast_type *ast_new_any(cddl_parser *p, src_loc loc)
{
    return new_type(p, AST_T_ANY, loc);
}

ast_type *ast_new_range(cddl_parser *p, ast_type *lo, ast_type *hi, int inclusive, src_loc loc)
{
    ast_type *t = new_type(p, AST_T_RANGE, loc);
    t->u.range.lo = lo;
    t->u.range.hi = hi;
    t->u.range.inclusive = inclusive;
    return t;
}

ast_type *ast_new_paren(cddl_parser *p, ast_type *inner, src_loc loc)
{
    static const cddl_occur_tok once = { 0, 1, 1, { NULL, 0 } };
    ast_grpchoice *c = ast_new_grpchoice(p, loc);
    ast_grpchoice_push(p, c, ast_new_entry(p, &once, AST_KEY_NONE, 0, NULL, NULL, inner, loc), loc);
    return ast_new_group_type(p, AST_T_PAREN, ast_new_group(p, c, loc), loc);
}

ast_type *ast_new_control(cddl_parser *p, ast_type *target, ast_str op, src_loc op_loc,
                          ast_type *arg, src_loc loc)
{
    ast_type *t = new_type(p, AST_T_CONTROL, loc);
    t->u.control.target = target;
    t->u.control.op = op;
    t->u.control.op_loc = op_loc;
    t->u.control.arg = arg;
    return t;
}

ast_type *ast_new_choice(cddl_parser *p, ast_type_list items, src_loc loc)
{
    ast_type *t;
    if (items.count == 1)
        return items.items[0];
    t = new_type(p, AST_T_CHOICE, loc);
    t->u.choice = items;
    return t;
}

void ast_list_push(cddl_parser *p, ast_type_list *list, ast_type *t)
{
    cddl_push(p->ctx, &list->items, &list->count, sizeof t, &t);
}

ast_group *ast_new_group(cddl_parser *p, ast_grpchoice *first, src_loc loc)
{
    ast_group *g = cddl_alloc(p->ctx, sizeof *g);
    g->loc = loc;
    cddl_push(p->ctx, &g->choices, &g->count, sizeof first, &first);
    return g;
}

void ast_group_push(cddl_parser *p, ast_group *g, ast_grpchoice *c, src_loc loc)
{
    g->loc = loc;
    cddl_push(p->ctx, &g->choices, &g->count, sizeof c, &c);
}

ast_grpchoice *ast_new_grpchoice(cddl_parser *p, src_loc loc)
{
    ast_grpchoice *c = cddl_alloc(p->ctx, sizeof *c);
    c->loc = loc;
    return c;
}

void ast_grpchoice_push(cddl_parser *p, ast_grpchoice *c, ast_entry *e, src_loc loc)
{
    c->loc = loc;
    cddl_push(p->ctx, &c->entries, &c->count, sizeof e, &e);
}

ast_entry *ast_new_entry(cddl_parser *p, const cddl_occur_tok *occur, ast_key_kind key_kind,
                         int cut, const ast_str *bareword, ast_type *key, ast_type *type,
                         src_loc loc)
{
    ast_entry *e = cddl_alloc(p->ctx, sizeof *e);
    e->loc = loc;
    e->has_occur = occur->form != 0;
    e->occur_form = occur->form;
    e->occur_min = occur->min;
    e->occur_max = occur->max;
    e->occur_text = occur->text;
    e->key_kind = key_kind;
    e->cut = cut;
    if (bareword != NULL)
        e->bareword = *bareword;
    e->key = key;
    e->type = type;
    return e;
}

void ast_params_push(cddl_parser *p, cddl_params *params, ast_str name, src_loc loc)
{
    size_t n = params->count;
    cddl_push(p->ctx, &params->names, &n, sizeof name, &name);
    cddl_push(p->ctx, &params->locs, &params->count, sizeof loc, &loc);
}

ast_rule *ast_new_rule(cddl_parser *p, ast_str name, src_loc name_loc, const cddl_params *params,
                       ast_assign assign, src_loc assign_loc, ast_entry *body, src_loc loc)
{
    ast_rule *r = cddl_alloc(p->ctx, sizeof *r);
    r->name = name;
    r->name_loc = name_loc;
    r->loc = loc;
    r->params = params->names;
    r->param_locs = params->locs;
    r->nparams = params->count;
    r->assign = assign;
    r->assign_loc = assign_loc;
    r->body = body;
    return r;
}

void ast_doc_add_rule(cddl_parser *p, ast_rule *r)
{
    cddl_push(p->ctx, &p->doc->rules, &p->doc->nrules, sizeof r, &r);
}
