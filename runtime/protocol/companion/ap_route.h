/*
 * ap_route.h - where an event goes: its method, channel, namespace and
 * custom name, the facts subscriptions (aps/filter.h) and the replay
 * buffer (aps/replay.h) route by; and placing an event built in C. Part of the protocol companion of the
 * committed bindings ap.h (docs/companion.md); hand-written, not generated:
 * which member of which event is its namespace is protocol knowledge.
 *
 * The getters are pure: they read the event and return views into it (or
 * into static tables), valid as long as the event is; ap_event_set_place
 * writes the event it is given. Thread-safe.
 */
#ifndef AP_ROUTE_H
#define AP_ROUTE_H

#include "ap.h"
#include "aps/channel.h"
#include "aps/namespace.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The method of a decoded event, as the wire spells it ("messages",
 * "input.requested", ...): the SSE `event:` name. Empty (len 0, ptr a
 * static "") when the event's kind is unknown.
 */
aps_slice ap_event_method(const ap_event_t *ev);

/* The channel of a decoded event (aps_channel_of_method of its method); APS_CHANNEL_OTHER when unknown. */
aps_channel ap_event_channel(const ap_event_t *ev);

/*
 * The namespace of a decoded event (`params.namespace`, which every event
 * of the protocol carries), borrowed from `ev`; count 0 when the event's
 * kind is unknown.
 */
aps_namespace ap_event_namespace(const ap_event_t *ev);

/*
 * Places an event built in C (its kind already chosen, say by a builder):
 * sets its `params.namespace` to `ns` (borrowed), its `params.timestamp`,
 * and for a messages or tools event its `params.node` (ptr NULL: none;
 * other events have no node: ignored). Returns APS_OK, or APS_E_ARGUMENT
 * when the event's kind is not chosen.
 */
APS_NODISCARD aps_status ap_event_set_place(ap_event_t *ev, aps_namespace ns, aps_slice node, uint64_t timestamp);

/* The `data.name` of a custom event (its `custom:NAME` channel); ptr NULL for other events and unnamed ones. */
aps_slice ap_event_custom_name(const ap_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif /* AP_ROUTE_H */
