/*
 * aps/channel.h - the protocol's channels: which channel an event is on,
 * and the channels' wire names. Subscriptions (aps/filter.h) select events
 * by channel.
 *
 * An event's channel is its `method`; `input.requested` and
 * `input.answered` are on `input` (`input` is a channel, not a method: no
 * event is sent with it). `input.answered` is not in our schema; the
 * reference client puts it on `input` (its `inferChannel`), and so do we.
 * aps_channel_of_method maps every other method (including a method spelled
 * `custom:NAME`, which the schema does not define) to APS_CHANNEL_OTHER,
 * which no filter matches. Tested in tests/replay/test_filter.c.
 */
#ifndef APS_CHANNEL_H
#define APS_CHANNEL_H

#include <stddef.h>

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
 * The channel an event with this `method` is on (see above). `method`
 * need not be NUL-terminated; NULL with len 0 gives OTHER. Thread-safe.
 */
aps_channel aps_channel_of_method(const char *method, size_t len);

/* The wire name of a fixed channel ("values", ...; "" for OTHER). Thread-safe. */
const char *aps_channel_name(aps_channel channel);

#ifdef __cplusplus
}
#endif
#endif /* APS_CHANNEL_H */
