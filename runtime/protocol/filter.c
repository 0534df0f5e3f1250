/* filter.c - the protocol's subscription filter (see aps/filter.h). */
#include "aps/filter.h"

#include <stdlib.h>
#include <string.h>

/* Index of the fixed channel `name` names, -1 for none. */
static int fixed_channel(aps_slice name)
{
    int c;
    for (c = 0; c < APS_CHANNEL_OTHER; c++) {
        const char *wire = aps_channel_name((aps_channel)c);
        if (name.len == strlen(wire) && memcmp(name.ptr, wire, name.len) == 0)
            return c;
    }
    return -1;
}

static int is_custom_channel(aps_slice name)
{
    return name.len >= 7 && memcmp(name.ptr, "custom:", 7) == 0;
}

static void *filter_alloc(const aps_allocator *a, size_t size)
{
    return a->alloc != NULL ? a->alloc(a->ctx, size) : malloc(size);
}

aps_status aps_filter_init(aps_filter *f, const aps_filter_spec *spec,
                           const aps_allocator *allocator, aps_error *err)
{
    size_t i, names_bytes = 0, ns_bytes = 0, custom_count = 0, size;
    aps_slice *custom;
    aps_namespace_view *prefixes;
    char *p;

    if (f != NULL)
        memset(f, 0, sizeof *f);
    if (f == NULL || spec == NULL || spec->channel_count == 0 || spec->channels == NULL ||
        (spec->namespace_count > 0 && spec->namespaces == NULL))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "a filter needs a spec with at least one channel");
    if (allocator != NULL)
        f->allocator = *allocator;

    /* First pass: validate and size, so the filter is one allocation. */
    for (i = 0; i < spec->channel_count; i++) {
        aps_slice name = spec->channels[i];
        if (name.ptr == NULL && name.len > 0)
            return aps_error_set(err, APS_E_ARGUMENT, i, "channel %zu is a NULL slice", i);
        if (fixed_channel(name) >= 0)
            continue;
        if (!is_custom_channel(name))
            return aps_error_set(err, APS_E_UNKNOWN, i,
                                 "channel %zu \"%.*s\" is not a protocol channel (values, "
                                 "updates, messages, tools, lifecycle, input, checkpoints, "
                                 "tasks, custom or custom:NAME)",
                                 i, name.len > 64 ? 64 : (int)name.len,
                                 name.ptr != NULL ? name.ptr : "");
        if (name.len == 7)
            return aps_error_set(err, APS_E_PATTERN, i,
                                 "channel %zu \"custom:\" needs a name after the colon", i);
        custom_count++;
        names_bytes += name.len - 7;
    }
    for (i = 0; i < spec->namespace_count; i++) {
        aps_namespace ns = spec->namespaces[i];
        size_t n, j;
        if (ns.items == NULL && ns.count > 0)
            return aps_error_set(err, APS_E_ARGUMENT, i, "namespace %zu is a NULL array", i);
        for (j = 0; j < ns.count; j++)
            if (ns.items[j].ptr == NULL && ns.items[j].len > 0)
                return aps_error_set(err, APS_E_ARGUMENT, i,
                                     "namespace %zu segment %zu is a NULL slice", i, j);
        n = aps_namespace_packed_size(ns);
        if (n == SIZE_MAX || n > SIZE_MAX / 2 - ns_bytes)
            return aps_error_set(err, APS_E_LIMIT, i, "namespace %zu is too long", i);
        ns_bytes += (n + 3) & ~(size_t)3;
    }

    /* Both counts index caller arrays of larger elements, so these products
     * cannot overflow; ns_bytes and names_bytes are bounded above. */
    size = custom_count * sizeof(aps_slice) + spec->namespace_count * sizeof(aps_namespace_view);
    if (size > SIZE_MAX / 2 - ns_bytes || names_bytes > SIZE_MAX / 2 - ns_bytes - size)
        return aps_error_set(err, APS_E_LIMIT, SIZE_MAX, "the filter is too large");
    size += ns_bytes + names_bytes;
    custom = NULL;
    prefixes = NULL;
    p = NULL;
    if (size > 0) {
        f->storage = filter_alloc(&f->allocator, size);
        if (f->storage == NULL)
            return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no memory for the filter");
        f->storage_size = size;
        /* Layout: slices, views (pointer-aligned), packed prefixes (4-aligned), names. */
        custom = (aps_slice *)f->storage;
        prefixes = (aps_namespace_view *)(custom + custom_count);
        p = (char *)(prefixes + spec->namespace_count);
    }
    for (i = 0; i < spec->namespace_count; i++) {
        size_t n = aps_namespace_packed_size(spec->namespaces[i]);
        prefixes[i] = aps_namespace_pack(p, spec->namespaces[i]);
        p += (n + 3) & ~(size_t)3;
    }
    for (i = 0; i < spec->channel_count; i++) {
        aps_slice name = spec->channels[i];
        int c = fixed_channel(name);
        if (c >= 0) {
            f->channel_bits |= 1u << c;
            continue;
        }
        custom[f->custom_count].ptr = p;
        custom[f->custom_count].len = name.len - 7;
        memcpy(p, name.ptr + 7, name.len - 7);
        p += name.len - 7;
        f->custom_count++;
    }
    f->custom = custom;
    f->prefixes = prefixes;
    f->prefix_count = spec->namespace_count;
    f->has_depth = spec->has_depth;
    f->depth = spec->depth;
    return APS_OK;
}

void aps_filter_deinit(aps_filter *f)
{
    if (f == NULL)
        return;
    if (f->storage != NULL) {
        if (f->allocator.alloc != NULL) {
            if (f->allocator.free != NULL)
                f->allocator.free(f->allocator.ctx, f->storage, f->storage_size);
        } else {
            free(f->storage);
        }
    }
    memset(f, 0, sizeof *f);
}

int aps_filter_has_channel(const aps_filter *f, aps_channel channel)
{
    return f != NULL && (unsigned)channel < APS_CHANNEL_OTHER &&
           (f->channel_bits >> channel & 1u) != 0;
}

static int channel_ok(const aps_filter *f, aps_channel channel, aps_slice name)
{
    size_t i;
    if ((unsigned)channel >= APS_CHANNEL_OTHER)
        return 0;
    if (f->channel_bits >> channel & 1u)
        return 1;
    if (channel != APS_CHANNEL_CUSTOM || name.ptr == NULL || name.len == 0)
        return 0;
    for (i = 0; i < f->custom_count; i++)
        if (f->custom[i].len == name.len && memcmp(f->custom[i].ptr, name.ptr, name.len) == 0)
            return 1;
    return 0;
}

static int depth_ok(const aps_filter *f, size_t event_len, size_t prefix_len)
{
    return !f->has_depth || (uint64_t)(event_len - prefix_len) <= f->depth;
}

/*
 * Whether an event's namespace segment `e` matches a filter's segment `p`:
 * byte for byte, or, when `p` has no ':', `e` up to its first ':' (the
 * dynamic suffix a server adds, "model_request:db60c136-...").
 */
static int segment_matches(const char *p, size_t plen, const char *e, size_t elen)
{
    if (elen == plen)
        return plen == 0 || memcmp(p, e, plen) == 0;
    return elen > plen && e[plen] == ':' && (plen == 0 || (memcmp(p, e, plen) == 0 &&
                                                           memchr(p, ':', plen) == NULL));
}

int aps_filter_match(const aps_filter *f, aps_channel channel, aps_slice custom_name,
                     aps_namespace_view ns)
{
    size_t i, j;
    if (f == NULL || !channel_ok(f, channel, custom_name))
        return 0;
    if (f->prefix_count == 0)
        return 1;
    for (i = 0; i < f->prefix_count; i++) {
        const aps_namespace_view *p = &f->prefixes[i];
        uint32_t pstart = 0, estart = 0;
        if (p->count > ns.count || !depth_ok(f, ns.count, p->count))
            continue;
        /* Equal segment ends mean equal segment lengths, so one memcmp of the
         * concatenated bytes then decides a literal match of the whole prefix. */
        if (p->count == 0 ||
            (memcmp(p->ends, ns.ends, p->count * sizeof(uint32_t)) == 0 &&
             memcmp(p->bytes, ns.bytes, p->ends[p->count - 1]) == 0))
            return 1;
        for (j = 0; j < p->count; j++) {
            if (!segment_matches(p->bytes + pstart, p->ends[j] - pstart, ns.bytes + estart,
                                 ns.ends[j] - estart))
                break;
            pstart = p->ends[j];
            estart = ns.ends[j];
        }
        if (j == p->count)
            return 1;
    }
    return 0;
}

int aps_filter_match_namespace(const aps_filter *f, aps_channel channel, aps_slice custom_name,
                               aps_namespace ns)
{
    size_t i, j;
    if (f == NULL || !channel_ok(f, channel, custom_name))
        return 0;
    if (f->prefix_count == 0)
        return 1;
    for (i = 0; i < f->prefix_count; i++) {
        const aps_namespace_view *p = &f->prefixes[i];
        uint32_t start = 0;
        if (p->count > ns.count || !depth_ok(f, ns.count, p->count))
            continue;
        for (j = 0; j < p->count; j++) {
            if (!segment_matches(p->bytes + start, p->ends[j] - start, ns.items[j].ptr,
                                 ns.items[j].len))
                break;
            start = p->ends[j];
        }
        if (j == p->count)
            return 1;
    }
    return 0;
}
