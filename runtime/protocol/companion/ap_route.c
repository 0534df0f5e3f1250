/* ap_route.c - an event's method, channel, namespace and custom name (see ap_route.h). */
#include "ap_route.h"

#include <string.h>

aps_slice ap_event_method(const ap_event_t *ev)
{
    aps_slice m;
    m.ptr = ap_event_data_kind_name(ev->event_data.kind); /* the discriminant: "" for an unknown kind */
    m.len = strlen(m.ptr);
    return m;
}

aps_channel ap_event_channel(const ap_event_t *ev)
{
    aps_slice m = ap_event_method(ev);
    return aps_channel_of_method(m.ptr, m.len);
}

/* Where an event is: every EventData alternative has params.namespace and params.timestamp; messages
 * and tools events also a node. All NULL for an unknown kind. */
typedef struct place {
    ap_namespace_t *ns;
    ap_timestamp_t *timestamp;
    bool *has_node;
    aps_slice *node;
} place;

#define PLACE(params) (p.ns = &(params).namespace_, p.timestamp = &(params).timestamp)
#define PLACE_NODE(params) (PLACE(params), p.has_node = &(params).has_node, p.node = &(params).node)

static place place_of(ap_event_data_t *d)
{
    place p = { NULL, NULL, NULL, NULL };
    switch (d->kind) {
    case AP_EVENT_DATA_LIFECYCLE_EVENT: PLACE(d->u.lifecycle_event.params); break;
    case AP_EVENT_DATA_MESSAGES_EVENT: PLACE_NODE(d->u.messages_event.params); break;
    case AP_EVENT_DATA_TOOLS_EVENT: PLACE_NODE(d->u.tools_event.params); break;
    case AP_EVENT_DATA_INPUT_EVENT: PLACE(d->u.input_event.params); break;
    case AP_EVENT_DATA_VALUES_EVENT: PLACE(d->u.values_event.params); break;
    case AP_EVENT_DATA_UPDATES_EVENT: PLACE(d->u.updates_event.params); break;
    case AP_EVENT_DATA_CHECKPOINTS_EVENT: PLACE(d->u.checkpoints_event.params); break;
    case AP_EVENT_DATA_TASKS_EVENT: PLACE(d->u.tasks_event.params); break;
    case AP_EVENT_DATA_CUSTOM_EVENT: PLACE(d->u.custom_event.params); break;
    default: break;
    }
    return p;
}

aps_namespace ap_event_namespace(const ap_event_t *ev)
{
    aps_namespace none = { NULL, 0 };
    /* read only: the cast lets one table serve the getter and the setter */
    place p = place_of((ap_event_data_t *)&ev->event_data);
    return p.ns != NULL ? *p.ns : none;
}

aps_status ap_event_set_place(ap_event_t *ev, aps_namespace ns, aps_slice node, uint64_t timestamp)
{
    place p = place_of(&ev->event_data);
    if (p.ns == NULL)
        return APS_E_ARGUMENT;
    *p.ns = ns; /* borrowed, as every slice of a value built in C */
    *p.timestamp = timestamp;
    if (p.node != NULL) {
        *p.has_node = node.ptr != NULL;
        *p.node = node;
    }
    return APS_OK;
}

aps_slice ap_event_custom_name(const ap_event_t *ev)
{
    aps_slice none = { NULL, 0 };
    const ap_event_data_t *d = &ev->event_data;
    if (d->kind == AP_EVENT_DATA_CUSTOM_EVENT && d->u.custom_event.params.data.has_name)
        return d->u.custom_event.params.data.name;
    return none;
}
