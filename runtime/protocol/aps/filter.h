/*
 * aps/filter.h - the protocol's subscription filter: which events a
 * subscriber (`EventStreamRequest` or `subscription.subscribe` params) sees,
 * decided from an event's channel and namespace alone, never from its JSON.
 *
 *     aps_slice ch[] = { { "messages", 8 }, { "custom:progress", 15 } };
 *     aps_filter_spec spec = { ch, 2 };          (no namespaces, no depth)
 *     aps_filter f;
 *     if (aps_filter_init(&f, &spec, NULL, &err) != APS_OK) ... answer invalid_argument
 *     if (aps_filter_match_namespace(&f, APS_CHANNEL_MESSAGES, no_name, ns)) ... deliver
 *     aps_filter_deinit(&f);
 *
 * Interpretations of the protocol (the spec leaves these open; each is tested
 * in tests/replay/test_filter.c):
 *
 *  - An event's channel is its `method`; `input.requested` is on `input`.
 *    aps_channel_of_method maps every other method (including a method
 *    spelled `custom:NAME`, which the schema does not define) to
 *    APS_CHANNEL_OTHER, which no filter matches.
 *  - A `custom` event whose `data.name` is N is on `custom` AND on
 *    `custom:N`: a subscriber to either sees it. A custom event without a
 *    name (or with an empty one) is only on `custom`; a `custom:N`
 *    subscriber does not see it. Names compare byte for byte.
 *  - Channel names other than the nine fixed ones and `custom:NAME` (NAME
 *    non-empty) are rejected by aps_filter_init with APS_E_UNKNOWN
 *    (`custom:` alone: APS_E_PATTERN), so the server answers
 *    `invalid_argument` instead of silently never delivering: `Channel` is a
 *    closed choice in the schema. Repeated channel names are harmless.
 *  - Namespaces match by prefix, segment by segment, each segment compared
 *    byte for byte (["a"] is a prefix of ["a","b"], not of ["ab"] nor of
 *    ["a:1"]).
 *  - `namespaces` absent or an empty list both mean "the whole tree", the
 *    same as [[]] (the root prefix, which every namespace has). An empty
 *    list is read as "no namespace restriction" rather than "match nothing"
 *    because a subscription that can never deliver is never what a client
 *    means.
 *  - `depth` limits how far below the matching prefix an event may be: an
 *    event with namespace E matches prefix P when P is a prefix of E and
 *    len(E) - len(P) <= depth. With several prefixes, one that satisfies both
 *    conditions is enough. `depth` absent means unlimited. So depth 0 with
 *    the root prefix (or with no namespaces) delivers only root events, and
 *    depth 0 with ["a"] only events whose namespace is exactly ["a"].
 *
 * Thread-safety: a filter is immutable after aps_filter_init; any number of
 * threads may match against it at once. Init and deinit need exclusive use.
 */
#ifndef APS_FILTER_H
#define APS_FILTER_H

#include "aps/arena.h"
#include "aps/common.h"
#include "aps/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol's fixed channels, plus OTHER for events outside them. */
typedef enum aps_channel {
    APS_CHANNEL_VALUES = 0,
    APS_CHANNEL_UPDATES,
    APS_CHANNEL_MESSAGES,
    APS_CHANNEL_TOOLS,
    APS_CHANNEL_LIFECYCLE,
    APS_CHANNEL_INPUT,
    APS_CHANNEL_CHECKPOINTS,
    APS_CHANNEL_TASKS,
    APS_CHANNEL_CUSTOM,
    APS_CHANNEL_OTHER /* a method the protocol does not define; never matched */
} aps_channel;

/* Number of aps_channel values (OTHER included). */
#define APS_CHANNEL_COUNT 10

/*
 * The channel an event with this `method` is on (see the interpretations
 * above). `method` need not be NUL-terminated; NULL with len 0 gives OTHER.
 * Thread-safe.
 */
aps_channel aps_channel_of_method(const char *method, size_t len);

/* The wire name of a fixed channel ("values", ...; "" for OTHER). Thread-safe. */
const char *aps_channel_name(aps_channel channel);

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

/* A decoded namespace: `count` segments (NULL when count is 0), borrowed. */
typedef struct aps_namespace {
    const aps_slice *segments;
    size_t count;
} aps_namespace;

/*
 * What a subscription asked for, as decoded from the request (slices borrow
 * from the decoder's input or arena; aps_filter_init copies what it keeps).
 * All zero except `channels` means: every namespace, unlimited depth.
 */
typedef struct aps_filter_spec {
    const aps_slice *channels;      /* channel names; at least one */
    size_t channel_count;
    const aps_namespace *namespaces; /* prefixes; NULL when namespace_count is 0 */
    size_t namespace_count;         /* 0: absent or empty list, both "the whole tree" */
    int has_depth;                  /* 0: `depth` absent, unlimited */
    uint64_t depth;                 /* max segments below a prefix, when has_depth */
} aps_filter_spec;

/*
 * A compiled filter. Treat the members as private: they are here only so the
 * filter can live in caller storage.
 */
typedef struct aps_filter {
    uint32_t channel_bits;      /* bit c set: fixed channel c subscribed */
    size_t custom_count;        /* `custom:NAME` channels */
    const aps_slice *custom;    /* their NAMEs, into `storage` */
    size_t prefix_count;        /* 0: every namespace */
    const aps_namespace_view *prefixes; /* into `storage` */
    int has_depth;
    uint64_t depth;
    void *storage;              /* one block holding everything above */
    size_t storage_size;
    aps_allocator allocator;
} aps_filter;

/*
 * Compiles `spec` into `f` (caller storage), copying every name and
 * namespace, so the request it was decoded from may be freed afterwards.
 * Allocates one block through `allocator` (NULL or alloc == NULL:
 * malloc/free) unless the filter needs no names or prefixes.
 * Returns APS_OK; APS_E_ARGUMENT (f or spec NULL, no channels, a NULL
 * array with a non-zero count); APS_E_UNKNOWN (a channel name that is not a
 * protocol channel; err->offset is its index in spec->channels);
 * APS_E_PATTERN (`custom:` with an empty name); APS_E_LIMIT (a namespace
 * whose bytes do not fit 32-bit offsets); APS_E_NOMEM. On failure `f` holds
 * nothing to release. `err` may be NULL.
 */
APS_NODISCARD aps_status aps_filter_init(aps_filter *f, const aps_filter_spec *spec,
                                         const aps_allocator *allocator, aps_error *err);

/* Releases what aps_filter_init allocated; NULL-safe and idempotent. */
void aps_filter_deinit(aps_filter *f);

/*
 * True (1) when an event on `channel` with namespace `ns` passes the filter.
 * `custom_name` is the event's `data.name` for APS_CHANNEL_CUSTOM (ptr NULL
 * or len 0: unnamed) and is ignored for other channels. Never allocates.
 */
int aps_filter_match(const aps_filter *f, aps_channel channel, aps_slice custom_name,
                     aps_namespace_view ns);

/*
 * aps_filter_match for a decoded namespace, as a server sees it on an event
 * it is about to send live.
 */
int aps_filter_match_namespace(const aps_filter *f, aps_channel channel, aps_slice custom_name,
                               aps_namespace ns);

/* True when fixed channel `channel` is subscribed by name (e.g. `values`). */
int aps_filter_has_channel(const aps_filter *f, aps_channel channel);

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
#endif /* APS_FILTER_H */
