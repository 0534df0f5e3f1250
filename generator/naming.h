/* naming.h - C identifiers from schema names (see naming.c). */
#ifndef CDDLGEN_NAMING_H
#define CDDLGEN_NAMING_H

#include "ast.h"

/* snake_case stem of a rule or member name into out[cap]; returns its length. */
size_t naming_snake(ast_str name, char *out, size_t cap);
/* UPPER_CASE constant suffix of a literal or name. */
size_t naming_constant(ast_str text, char *out, size_t cap);
/* The snake_case wire spelling of a camelCase key (eventId -> event_id). */
size_t naming_key_snake(ast_str key, char *out, size_t cap);
/* True for C and C++ keywords and the member names generated code uses itself. */
int naming_is_reserved(const char *s);

#endif
