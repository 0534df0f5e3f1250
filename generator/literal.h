/*
 * literal.h - what the lexer cannot say with a regular expression: checking
 * and decoding numbers, text and byte strings, occurrence indicators and tag
 * heads per the RFC 8610/9682 ABNF, and recording comments. Each reports a
 * located error on bad input and still fills a usable value, so parsing goes on.
 */
#ifndef CDDLGEN_LITERAL_H
#define CDDLGEN_LITERAL_H

#include "parser.h"

void cddl_lex_number(cddl_parser *p, ast_str text, src_loc loc, ast_value *out);
void cddl_lex_text(cddl_parser *p, ast_str text, src_loc loc, ast_value *out);
void cddl_lex_bytes(cddl_parser *p, ast_str text, src_loc loc, ast_value *out);
void cddl_lex_occur(cddl_parser *p, ast_str text, src_loc loc, cddl_occur_tok *out);
void cddl_lex_tag(cddl_parser *p, ast_str text, src_loc loc, cddl_tag_tok *out);
void cddl_lex_comment(cddl_parser *p, ast_str text, src_loc loc);
void cddl_lex_stray(cddl_parser *p, ast_str text, src_loc loc);

int cddl_lex_begin(cddl_parser *p);
void cddl_lex_end(cddl_parser *p);

/* Parses an RFC 8610 `uint` spelling (decimal, 0x, 0b). Returns 0, or -1 on overflow/bad digits. */
int cddl_parse_uint(const char *s, size_t len, uint64_t *out);

#endif
