/*
 * json_internal.h - pieces shared by the JSON reader, writer and raw helpers.
 * Private to the runtime: not installed, not part of the API.
 */
#ifndef APR_JSON_INTERNAL_H
#define APR_JSON_INTERNAL_H

#include "apr_json.h"

/*
 * Parses the JSON number text [p, end) (syntax already checked) into the
 * nearest double. Returns 0 when the magnitude exceeds DBL_MAX.
 */
int apr_json_priv_to_double(const char *p, const char *end, double *out);

/*
 * Checks JSON number syntax from p; returns the end of the number or NULL,
 * with *bad at the first offending byte.
 */
const char *apr_json_priv_scan_number(const char *p, const char *end, const char **bad);

#endif
