/* channel.c - the protocol's channels (see aps/channel.h). */
#include "aps/channel.h"

#include <string.h>

static const char *const channel_names[APS_CHANNEL_COUNT] = {
    "values", "updates", "messages", "tools", "lifecycle",
    "input", "checkpoints", "tasks", "custom", ""
};

static int slice_is(const char *p, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len == n && memcmp(p, lit, n) == 0;
}

aps_channel aps_channel_of_method(const char *method, size_t len)
{
    int c;
    if (method == NULL)
        return APS_CHANNEL_OTHER;
    if (slice_is(method, len, "input.requested") || slice_is(method, len, "input.answered"))
        return APS_CHANNEL_INPUT;
    /* `input` is a channel, not a method: no event is sent with it. */
    for (c = 0; c < APS_CHANNEL_OTHER; c++)
        if (c != APS_CHANNEL_INPUT && slice_is(method, len, channel_names[c]))
            return (aps_channel)c;
    return APS_CHANNEL_OTHER;
}

const char *aps_channel_name(aps_channel channel)
{
    return (unsigned)channel < APS_CHANNEL_COUNT ? channel_names[channel] : "";
}
