/* common.c - statuses and the error record (see apr_common.h). */
#include "apr_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *apr_status_str(apr_status status)
{
    switch (status) {
    case APR_OK: return "ok";
    case APR_E_NOMEM: return "out of memory";
    case APR_E_SYNTAX: return "syntax error";
    case APR_E_UTF8: return "invalid UTF-8";
    case APR_E_DEPTH: return "nesting too deep";
    case APR_E_LIMIT: return "size limit exceeded";
    case APR_E_TYPE: return "wrong type";
    case APR_E_RANGE: return "out of range";
    case APR_E_MISSING: return "missing member";
    case APR_E_UNKNOWN: return "unknown member or variant";
    case APR_E_DUPLICATE: return "duplicate member";
    case APR_E_PATTERN: return "pattern mismatch";
    case APR_E_STATE: return "invalid state";
    case APR_E_NOT_FOUND: return "not found";
    case APR_E_MISSED: return "events missed";
    case APR_E_ARGUMENT: return "invalid argument";
    }
    return "unknown status";
}

apr_status apr_error_set(apr_error *err, apr_status code, size_t offset,
                         const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || err->code != APR_OK)
        return code;
    err->code = code;
    err->offset = offset;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

void apr_error_set_pointer(apr_error *err, const char *pointer)
{
    size_t n;
    if (err == NULL)
        return;
    n = strlen(pointer);
    if (n >= sizeof err->pointer)
        n = sizeof err->pointer - 1;
    memcpy(err->pointer, pointer, n);
    err->pointer[n] = '\0';
}

void apr_error_clear(apr_error *err)
{
    if (err != NULL)
        memset(err, 0, sizeof *err);
}
