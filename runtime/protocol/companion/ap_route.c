/* ap_route.c - an event's method, channel, namespace and custom name (see ap_route.h). */
#include "ap_route.h"

aps_slice ap_event_method(const ap_event_t *ev)
{
    aps_slice m = { "", 0 };
    const aps_type *u = &ap_event_data_type;
    if (ev->event_data.kind >= 1 && (size_t)ev->event_data.kind <= u->u.un.nalts) {
        m.ptr = u->u.un.disc[ev->event_data.kind - 1].text;
        m.len = u->u.un.disc[ev->event_data.kind - 1].len;
    }
    return m;
}

aps_channel ap_event_channel(const ap_event_t *ev)
{
    aps_slice m = ap_event_method(ev);
    return aps_channel_of_method(m.ptr, m.len);
}

/* The generated namespace of each kind of event: every EventData alternative has params.namespace. */
static const ap_namespace_t *namespace_of(const ap_event_data_t *d)
{
    switch (d->kind) {
    case AP_EVENT_DATA_LIFECYCLE_EVENT: return &d->u.lifecycle_event.params.namespace_;
    case AP_EVENT_DATA_MESSAGES_EVENT: return &d->u.messages_event.params.namespace_;
    case AP_EVENT_DATA_TOOLS_EVENT: return &d->u.tools_event.params.namespace_;
    case AP_EVENT_DATA_INPUT_EVENT: return &d->u.input_event.params.namespace_;
    case AP_EVENT_DATA_VALUES_EVENT: return &d->u.values_event.params.namespace_;
    case AP_EVENT_DATA_UPDATES_EVENT: return &d->u.updates_event.params.namespace_;
    case AP_EVENT_DATA_CHECKPOINTS_EVENT: return &d->u.checkpoints_event.params.namespace_;
    case AP_EVENT_DATA_TASKS_EVENT: return &d->u.tasks_event.params.namespace_;
    case AP_EVENT_DATA_CUSTOM_EVENT: return &d->u.custom_event.params.namespace_;
    default: return NULL;
    }
}

aps_namespace ap_event_namespace(const ap_event_t *ev)
{
    aps_namespace ns = { NULL, 0 };
    const ap_namespace_t *n = namespace_of(&ev->event_data);
    if (n != NULL) {
        ns.segments = n->items;
        ns.count = n->count;
    }
    return ns;
}

aps_slice ap_event_custom_name(const ap_event_t *ev)
{
    aps_slice none = { NULL, 0 };
    const ap_event_data_t *d = &ev->event_data;
    if (d->kind == AP_EVENT_DATA_CUSTOM_EVENT && d->u.custom_event.params.data.has_name)
        return d->u.custom_event.params.data.name;
    return none;
}
