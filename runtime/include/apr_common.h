/*
 * apr_common.h - statuses, the error record and portability macros shared by
 * every module of the agent-protocol runtime (prefix `apr_`).
 *
 * The runtime depends on libc alone, keeps no global mutable state and does no
 * I/O. Every fallible function returns an apr_status that the compiler warns
 * about ignoring, and fills an optional apr_error that never allocates.
 *
 * Thread-safety: everything here is reentrant; an apr_error belongs to one
 * caller at a time.
 */
#ifndef APR_COMMON_H
#define APR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function whose result must be looked at. */
#if defined(__GNUC__) || defined(__clang__)
#define APR_NODISCARD __attribute__((warn_unused_result))
#define APR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define APR_NODISCARD
#define APR_PRINTF(f, a)
#endif

/* Result of every fallible runtime call. APR_OK is zero. */
typedef enum apr_status {
    APR_OK = 0,
    APR_E_NOMEM,      /* an allocation (arena or growable buffer) failed */
    APR_E_SYNTAX,     /* malformed input (JSON, SSE, WebSocket frame, ...) */
    APR_E_UTF8,       /* invalid UTF-8 or a lone surrogate */
    APR_E_DEPTH,      /* nesting deeper than the configured limit */
    APR_E_LIMIT,      /* a configured size limit was exceeded */
    APR_E_TYPE,       /* a value of the wrong JSON kind */
    APR_E_RANGE,      /* a number or size outside its allowed range */
    APR_E_MISSING,    /* a required member is absent */
    APR_E_UNKNOWN,    /* an unknown member, variant or literal */
    APR_E_DUPLICATE,  /* a member name given twice */
    APR_E_PATTERN,    /* a string that does not match its .regexp */
    APR_E_STATE,      /* a call or an event out of the allowed order */
    APR_E_NOT_FOUND,  /* a lookup found nothing */
    APR_E_MISSED,     /* a replay point older than the buffer */
    APR_E_ARGUMENT    /* a caller passed an invalid argument */
} apr_status;

/*
 * Bytes a "padded" string has readable after its end, so that code may load
 * whole 16-byte words of it (see apr_asm_options.padded). Every arena
 * allocation is followed by at least this many readable bytes; a decoded
 * string is padded when it lives in the arena or inside an input buffer
 * that has APR_PADDING readable bytes after the input's end.
 */
#define APR_PADDING 16

/* Size of the JSON Pointer and message buffers inside apr_error. */
#define APR_ERROR_POINTER_MAX 256
#define APR_ERROR_MESSAGE_MAX 256

/*
 * A located error. `offset` is the byte offset into the input that failed
 * (SIZE_MAX when it has none), `pointer` the RFC 6901 JSON Pointer of the
 * failing value ("" for the root), `message` a sentence a person understands.
 * Both strings are always NUL-terminated; over-long text is cut, never
 * overflowed. Initialise with APR_ERROR_INIT or memset to zero.
 */
typedef struct apr_error {
    apr_status code;
    size_t offset;
    char pointer[APR_ERROR_POINTER_MAX];
    char message[APR_ERROR_MESSAGE_MAX];
} apr_error;

#define APR_ERROR_INIT { APR_OK, 0, { 0 }, { 0 } }

/* Short static name of a status ("syntax error", "out of memory", ...). */
const char *apr_status_str(apr_status status);

/*
 * Records an error unless `err` is NULL or already holds one (the first error
 * wins), and returns `code` so callers can write `return apr_error_set(...)`.
 * The pointer is left as it is; see apr_error_set_pointer.
 */
apr_status apr_error_set(apr_error *err, apr_status code, size_t offset,
                         const char *fmt, ...) APR_PRINTF(4, 5);

/* Replaces the JSON Pointer of `err` (NULL-safe). */
void apr_error_set_pointer(apr_error *err, const char *pointer);

/* Clears `err` to APR_OK (NULL-safe). */
void apr_error_clear(apr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APR_COMMON_H */
