/* schema_types.c - descriptors of the primitive types (see aps/types.h). */
#include "aps/types.h"

const aps_type aps_any_type = { APS_K_ANY, "any", sizeof(aps_json_raw), { .i = { 0, 0 } }, NULL, NULL };
const aps_type aps_bool_type = { APS_K_BOOL, "bool", sizeof(bool), { .i = { 0, 0 } }, NULL, NULL };
const aps_type aps_int_type = { APS_K_INT, "int", sizeof(int64_t), { .i = { INT64_MIN, INT64_MAX } }, NULL, NULL };
const aps_type aps_uint_type = { APS_K_UINT, "uint", sizeof(uint64_t), { .u = { 0, UINT64_MAX } }, NULL, NULL };
const aps_type aps_float_type = { APS_K_FLOAT, "float", sizeof(double),
                                  { .f = { 0.0, 0.0, false, false, false, false } }, NULL, NULL };
const aps_type aps_text_type = { APS_K_TEXT, "tstr", sizeof(aps_slice), { .text = { 0, SIZE_MAX, NULL } }, NULL, NULL };
const aps_type aps_null_type = { APS_K_LITERAL, "null", 0, { .lit = { APS_LIT_NULL, NULL, 0, 0, 0, 0.0 } }, NULL, NULL };
const aps_type aps_true_type = { APS_K_LITERAL, "true", 0, { .lit = { APS_LIT_BOOL, NULL, 0, 1, 0, 0.0 } }, NULL, NULL };
const aps_type aps_false_type = { APS_K_LITERAL, "false", 0, { .lit = { APS_LIT_BOOL, NULL, 0, 0, 0, 0.0 } }, NULL, NULL };
