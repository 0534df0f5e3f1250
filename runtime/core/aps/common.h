/*
 * aps/common.h - statuses, the error record and portability macros shared by
 * every module of the agent-protocol runtime (prefix `aps_`).
 *
 * The runtime depends on libc alone, keeps no global mutable state and does no
 * I/O. Every fallible function returns an aps_status that the compiler warns
 * about ignoring, and fills an optional aps_error that never allocates.
 *
 * Thread-safety: everything here is reentrant; an aps_error belongs to one
 * caller at a time.
 */
#ifndef APS_COMMON_H
#define APS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The runtime's version, equal to the cddlgen project version that shipped it
 * (the ctest package-runtime-version holds them equal). Generated headers
 * compare APS_VERSION_MAJOR and APS_VERSION_MINOR with the version they were
 * generated for and refuse to compile against another (templates/header.h.tmpl).
 * APS_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH, for `#if`.
 */
#define APS_VERSION_MAJOR 0
#define APS_VERSION_MINOR 1
#define APS_VERSION_PATCH 0
#define APS_VERSION_NUMBER (APS_VERSION_MAJOR * 10000 + APS_VERSION_MINOR * 100 + APS_VERSION_PATCH)
#define APS_VERSION_STRING "0.1.0"

/* Marks a function whose result must be looked at. */
#if defined(__GNUC__) || defined(__clang__)
#define APS_NODISCARD __attribute__((warn_unused_result))
#define APS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define APS_INTERNAL __attribute__((visibility("hidden")))
#else
#define APS_NODISCARD
#define APS_PRINTF(f, a)
#define APS_INTERNAL
#endif

/*
 * APS_INTERNAL marks a function that files of one layer share and nothing
 * else may call (SHA-1, base64, the schema engine's shared checks): each
 * layer's library is linked into one object whose hidden symbols are then
 * made local (runtime/CMakeLists.txt), so the installed libraries do not
 * export them at all and they cannot clash with another library's names.
 */

/*
 * The initializer of a value with every member zero, in C ({0}) and C++ ({}):
 * `aps_json_writer_options o = APS_ZERO_INIT;`. Generated types spell it
 * PREFIX_T_INIT.
 */
#ifdef __cplusplus
#define APS_ZERO_INIT {}
#else
#define APS_ZERO_INIT {0}
#endif

/* Result of every fallible runtime call. APS_OK is zero. */
typedef enum aps_status {
    APS_OK = 0,
    APS_E_NOMEM,      /* an allocation (arena or growable buffer) failed */
    APS_E_SYNTAX,     /* malformed input (JSON, SSE, WebSocket frame, ...) */
    APS_E_UTF8,       /* invalid UTF-8 or a lone surrogate */
    APS_E_DEPTH,      /* nesting deeper than the configured limit */
    APS_E_LIMIT,      /* a configured size limit was exceeded */
    APS_E_TYPE,       /* a value of the wrong JSON kind */
    APS_E_RANGE,      /* a number or size outside its allowed range */
    APS_E_MISSING,    /* a required member is absent */
    APS_E_UNKNOWN,    /* an unknown member, variant or literal */
    APS_E_DUPLICATE,  /* a member name given twice */
    APS_E_PATTERN,    /* a string that does not match its .regexp */
    APS_E_STATE,      /* a call or an event out of the allowed order */
    APS_E_NOT_FOUND,  /* a lookup found nothing */
    APS_E_MISSED,     /* a replay point older than the buffer */
    APS_E_ARGUMENT,   /* a caller passed an invalid argument */
    APS_E_IO          /* a backing store (Redis) could not be reached or refused */
} aps_status;

/*
 * Bytes a "padded" string has readable after its end, so that code may load
 * whole 16-byte words of it (see aps_asm_options.padded). Every arena
 * allocation is followed by at least this many readable bytes; a decoded
 * string is padded when it lives in the arena or inside an input buffer
 * that has APS_PADDING readable bytes after the input's end.
 */
#define APS_PADDING 16

/* Size of the JSON Pointer and message buffers inside aps_error. */
#define APS_ERROR_POINTER_MAX 256
#define APS_ERROR_MESSAGE_MAX 256

/*
 * A located error. `offset` is the byte offset into the input that failed
 * (SIZE_MAX when it has none), `pointer` the RFC 6901 JSON Pointer of the
 * failing value ("" for the root), `message` a sentence a person understands.
 * Both strings are always NUL-terminated; over-long text is cut, never
 * overflowed. Initialise with APS_ERROR_INIT or memset to zero.
 */
typedef struct aps_error {
    aps_status code;
    size_t offset;
    char pointer[APS_ERROR_POINTER_MAX];
    char message[APS_ERROR_MESSAGE_MAX];
} aps_error;

#define APS_ERROR_INIT { APS_OK, 0, { 0 }, { 0 } }

/* Short static name of a status ("syntax error", "out of memory", ...). */
const char *aps_status_str(aps_status status);

/*
 * Records an error unless `err` is NULL or already holds one (the first error
 * wins), and returns `code` so callers can write `return aps_error_set(...)`.
 * The pointer is left as it is; see aps_error_set_pointer.
 */
aps_status aps_error_set(aps_error *err, aps_status code, size_t offset,
                         const char *fmt, ...) APS_PRINTF(4, 5);

/* Replaces the JSON Pointer of `err` (NULL-safe). */
void aps_error_set_pointer(aps_error *err, const char *pointer);

/* Clears `err` to APS_OK, with an empty pointer and message (NULL-safe). */
void aps_error_clear(aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_COMMON_H */
