/*
 * ap_route.h - where a decoded event goes: its method, channel, namespace
 * and custom name, the facts subscriptions (aps/filter.h) and the replay
 * buffer (aps/replay.h) route by. Part of the protocol companion of the
 * committed bindings ap.h (docs/companion.md); hand-written, not generated:
 * which member of which event is its namespace is protocol knowledge.
 *
 * Every function here is pure: it reads the event and returns views into
 * it (or into static tables), valid as long as the event is. Thread-safe.
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

/* The `data.name` of a custom event (its `custom:NAME` channel); ptr NULL for other events and unnamed ones. */
aps_slice ap_event_custom_name(const ap_event_t *ev);

#ifdef __cplusplus
}
#endif
#endif /* AP_ROUTE_H */
