/*
 * ast_build.h - the constructors that parser.y's actions call. They allocate
 * in the compilation arena and check nothing the grammar does not already
 * say, except the few spelling rules a regular grammar cannot express
 * (CBOR majors are 0..7).
 */
#ifndef CDDLGEN_AST_BUILD_H
#define CDDLGEN_AST_BUILD_H

#include "parser.h"

ast_type *ast_new_value(cddl_parser *p, const ast_value *v, src_loc loc);
ast_type *ast_new_name(cddl_parser *p, ast_type_kind kind, ast_str name, src_loc name_loc,
                       ast_type_list args, int has_args, src_loc loc);
ast_type *ast_new_group_type(cddl_parser *p, ast_type_kind kind, ast_group *g, src_loc loc);
ast_type *ast_new_tag(cddl_parser *p, const cddl_tag_tok *tag, ast_type *number_type,
                      ast_type *content, src_loc loc);
ast_type *ast_new_any(cddl_parser *p, src_loc loc);
ast_type *ast_new_range(cddl_parser *p, ast_type *lo, ast_type *hi, int inclusive, src_loc loc);
ast_type *ast_new_control(cddl_parser *p, ast_type *target, ast_str op, src_loc op_loc,
                          ast_type *arg, src_loc loc);
/* `( inner )`: a parenthesized type, as the parser builds one (one keyless entry). */
ast_type *ast_new_paren(cddl_parser *p, ast_type *inner, src_loc loc);
/* A choice of one item is that item. */
ast_type *ast_new_choice(cddl_parser *p, ast_type_list items, src_loc loc);
void ast_list_push(cddl_parser *p, ast_type_list *list, ast_type *t);

ast_group *ast_new_group(cddl_parser *p, ast_grpchoice *first, src_loc loc);
void ast_group_push(cddl_parser *p, ast_group *g, ast_grpchoice *c, src_loc loc);
ast_grpchoice *ast_new_grpchoice(cddl_parser *p, src_loc loc);
void ast_grpchoice_push(cddl_parser *p, ast_grpchoice *c, ast_entry *e, src_loc loc);
ast_entry *ast_new_entry(cddl_parser *p, const cddl_occur_tok *occur, ast_key_kind key_kind,
                         int cut, const ast_str *bareword, ast_type *key, ast_type *type,
                         src_loc loc);

void ast_params_push(cddl_parser *p, cddl_params *params, ast_str name, src_loc loc);
ast_rule *ast_new_rule(cddl_parser *p, ast_str name, src_loc name_loc, const cddl_params *params,
                       ast_assign assign, src_loc assign_loc, ast_entry *body, src_loc loc);
void ast_doc_add_rule(cddl_parser *p, ast_rule *r);

#endif
