/*
 * aps/namespace.h - an event's namespace, decoded (a list of segments) and
 * packed (the compact form the replay buffer stores beside each event and
 * subscription filters compare against, aps/filter.h).
 */
#ifndef APS_NAMESPACE_H
#define APS_NAMESPACE_H

#include "aps/json.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A namespace in the compact form the replay buffer stores beside each event:
 * `count` segments whose bytes are concatenated in `bytes`; segment i is
 * bytes[i ? ends[i-1] : 0 .. ends[i]). Comparing a prefix of k segments is
 * then k integer compares and one memcmp. `ends` may be NULL when count is 0.
 */
typedef struct aps_namespace_view {
    const uint32_t *ends;
    const char *bytes;
    size_t count;
} aps_namespace_view;

/*
 * A decoded namespace: `count` segments (NULL when count is 0), borrowed.
 * The generated bindings use this very type for the schema's `Namespace`
 * (`ap_namespace_t` is a typedef of it: the `@c-type` line in
 * cddl/protocol.cddl, docs/cddlgen.md), so a decoded event's namespace is
 * passed as is. Hence the generated array's member names, and `items` not
 * const: the decoder fills it. The runtime only reads through it.
 */
typedef struct aps_namespace {
    aps_slice *items;
    size_t count;
} aps_namespace;

/*
 * Bytes aps_namespace_pack needs for `ns`: count 32-bit ends, then the segment
 * bytes. Returns SIZE_MAX when the segment bytes do not fit 32-bit offsets.
 * Thread-safe.
 */
size_t aps_namespace_packed_size(aps_namespace ns);

/*
 * Writes the packed form of `ns` to `out` (aps_namespace_packed_size(ns) bytes,
 * aligned for uint32_t; the caller checked the size is not SIZE_MAX) and
 * returns the view of it, which points into `out`. Thread-safe.
 */
aps_namespace_view aps_namespace_pack(void *out, aps_namespace ns);

#ifdef __cplusplus
}
#endif
#endif /* APS_NAMESPACE_H */
