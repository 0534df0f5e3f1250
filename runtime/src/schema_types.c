/* schema_types.c - descriptors of the primitive types (see apr_types.h). */
#include "apr_types.h"

const apr_type apr_any_type = { APR_K_ANY, "any", sizeof(apr_json_raw), { .i = { 0, 0 } }, NULL, NULL };
const apr_type apr_bool_type = { APR_K_BOOL, "bool", sizeof(bool), { .i = { 0, 0 } }, NULL, NULL };
const apr_type apr_int_type = { APR_K_INT, "int", sizeof(int64_t), { .i = { INT64_MIN, INT64_MAX } }, NULL, NULL };
const apr_type apr_uint_type = { APR_K_UINT, "uint", sizeof(uint64_t), { .u = { 0, UINT64_MAX } }, NULL, NULL };
const apr_type apr_float_type = { APR_K_FLOAT, "float", sizeof(double),
                                  { .f = { 0.0, 0.0, false, false, false, false } }, NULL, NULL };
const apr_type apr_text_type = { APR_K_TEXT, "tstr", sizeof(apr_slice), { .text = { 0, SIZE_MAX, NULL } }, NULL, NULL };
const apr_type apr_null_type = { APR_K_LITERAL, "null", 0, { .lit = { APR_LIT_NULL, NULL, 0, 0, 0, 0.0 } }, NULL, NULL };
const apr_type apr_true_type = { APR_K_LITERAL, "true", 0, { .lit = { APR_LIT_BOOL, NULL, 0, 1, 0, 0.0 } }, NULL, NULL };
const apr_type apr_false_type = { APR_K_LITERAL, "false", 0, { .lit = { APR_LIT_BOOL, NULL, 0, 0, 0, 0.0 } }, NULL, NULL };
