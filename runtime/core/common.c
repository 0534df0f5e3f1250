/* common.c - statuses and the error record (see aps/common.h). */
#include "aps/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *aps_status_str(aps_status status)
{
    switch (status) {
    case APS_OK: return "ok";
    case APS_E_NOMEM: return "out of memory";
    case APS_E_SYNTAX: return "syntax error";
    case APS_E_UTF8: return "invalid UTF-8";
    case APS_E_DEPTH: return "nesting too deep";
    case APS_E_LIMIT: return "size limit exceeded";
    case APS_E_TYPE: return "wrong type";
    case APS_E_RANGE: return "out of range";
    case APS_E_MISSING: return "missing member";
    case APS_E_UNKNOWN: return "unknown member or variant";
    case APS_E_DUPLICATE: return "duplicate member";
    case APS_E_PATTERN: return "pattern mismatch";
    case APS_E_STATE: return "invalid state";
    case APS_E_NOT_FOUND: return "not found";
    case APS_E_MISSED: return "events missed";
    case APS_E_ARGUMENT: return "invalid argument";
    case APS_E_IO: return "store unavailable";
    }
    return "unknown status";
}

aps_status aps_error_set(aps_error *err, aps_status code, size_t offset,
                         const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || err->code != APS_OK)
        return code;
    err->code = code;
    err->offset = offset;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

void aps_error_set_pointer(aps_error *err, const char *pointer)
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

void aps_error_clear(aps_error *err)
{
    /* The strings' first bytes are enough to read as APS_ERROR_INIT:
     * every successful call clears, and the whole struct is over 500 bytes. */
    if (err != NULL) {
        err->code = APS_OK;
        err->offset = 0;
        err->pointer[0] = '\0';
        err->message[0] = '\0';
    }
}
