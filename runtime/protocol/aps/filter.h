/*
 * aps/filter.h - the protocol's subscription filter: which events a
 * subscriber (`EventStreamRequest` or `subscription.subscribe` params) sees,
 * decided from an event's channel and namespace alone, never from its JSON.
 * Channels are in aps/channel.h, namespaces in aps/namespace.h; this
 * header includes both.
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
 *  - An event's channel is its `method` (aps_channel_of_method, see
 *    aps/channel.h); APS_CHANNEL_OTHER, for methods the protocol does not
 *    define, is matched by no filter.
 *  - A `custom` event whose `data.name` is N is on `custom` AND on
 *    `custom:N`: a subscriber to either sees it. A custom event without a
 *    name (or with an empty one) is only on `custom`; a `custom:N`
 *    subscriber does not see it. Names compare byte for byte.
 *  - Channel names other than the nine fixed ones and `custom:NAME` (NAME
 *    non-empty) are rejected by aps_filter_init with APS_E_UNKNOWN
 *    (`custom:` alone: APS_E_PATTERN), so the server answers
 *    `invalid_argument` instead of silently never delivering: `Channel` is a
 *    closed choice in the schema. Repeated channel names are harmless.
 *  - Namespaces match by prefix, segment by segment, as the reference
 *    client's `matchesSubscription` and langgraph-api's `is_prefix_match`
 *    do: a filter segment with a ':' compares byte for byte; one without
 *    also matches an event segment whose part before its first ':' is that
 *    segment, because servers add a dynamic suffix to every subgraph
 *    segment ("model_request:db60c136-..."). So ["a"] is a prefix of
 *    ["a","b"] and of ["a:1"], not of ["ab"] nor of ["ab:1"]; ["a:1"] is a
 *    prefix of ["a:1"] only.
 *  - `namespaces` absent or an empty list both mean "the whole tree", the
 *    same as [[]] (the root prefix, which every namespace has). An empty
 *    list is read as "no namespace restriction" rather than "match nothing"
 *    because a subscription that can never deliver is never what a client
 *    means.
 *  - `depth` limits how far below the matching prefix an event may be: an
 *    event with namespace E matches prefix P when P is a prefix of E and
 *    len(E) - len(P) <= depth. With several prefixes, one that satisfies both
 *    conditions is enough. `depth` absent means unlimited. So depth 0 with
 *    the root prefix [[]] delivers only root events, and depth 0 with ["a"]
 *    only events whose namespace is ["a"] (or ["a:..."]).
 *  - `depth` without namespaces (absent or empty) limits nothing: no prefix
 *    was matched to count from. The reference client reads it so; an
 *    earlier reading of ours counted from the root. apstream warns about
 *    such a request (an error with --strict): say [[]] to count from the
 *    root.
 *
 * Thread-safety: a filter is immutable after aps_filter_init; any number of
 * threads may match against it at once. Init and deinit need exclusive use.
 */
#ifndef APS_FILTER_H
#define APS_FILTER_H

#include "aps/arena.h"
#include "aps/channel.h"
#include "aps/common.h"
#include "aps/json.h"
#include "aps/namespace.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif /* APS_FILTER_H */
