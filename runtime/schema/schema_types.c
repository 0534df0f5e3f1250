/* schema_types.c - descriptors of the primitive types (see aps/types.h). */
#include "aps/types.h"

const aps_type aps_any_type = { .kind = APS_K_ANY, .name = "any", .size = sizeof(aps_json_raw) };
const aps_type aps_bool_type = { .kind = APS_K_BOOL, .name = "bool", .size = sizeof(bool) };
const aps_type aps_int_type = { .kind = APS_K_INT, .name = "int", .size = sizeof(int64_t),
                                .u.i = { .min = INT64_MIN, .max = INT64_MAX } };
const aps_type aps_uint_type = { .kind = APS_K_UINT, .name = "uint", .size = sizeof(uint64_t),
                                 .u.u = { .min = 0, .max = UINT64_MAX } };
/* no bounds: has_min and has_max are false */
const aps_type aps_float_type = { .kind = APS_K_FLOAT, .name = "float", .size = sizeof(double),
                                  .u.f = { .has_min = false, .has_max = false } };
const aps_type aps_text_type = { .kind = APS_K_TEXT, .name = "tstr", .size = sizeof(aps_slice),
                                 .u.text = { .min_len = 0, .max_len = SIZE_MAX } };
const aps_type aps_null_type = { .kind = APS_K_LITERAL, .name = "null", .u.lit = { .kind = APS_LIT_NULL } };
const aps_type aps_true_type = { .kind = APS_K_LITERAL, .name = "true", .u.lit = { .kind = APS_LIT_BOOL, .i = 1 } };
const aps_type aps_false_type = { .kind = APS_K_LITERAL, .name = "false", .u.lit = { .kind = APS_LIT_BOOL, .i = 0 } };
