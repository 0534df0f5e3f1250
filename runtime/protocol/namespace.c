/* namespace.c - namespaces, decoded and packed (see aps/namespace.h). */
#include "aps/namespace.h"

#include <string.h>

size_t aps_namespace_packed_size(aps_namespace ns)
{
    size_t i, total = 0;
    if (ns.count > (UINT32_MAX - 8) / sizeof(uint32_t))
        return SIZE_MAX;
    for (i = 0; i < ns.count; i++) {
        if (ns.items[i].len > UINT32_MAX - total)
            return SIZE_MAX;
        total += ns.items[i].len;
    }
    return ns.count * sizeof(uint32_t) + total;
}

aps_namespace_view aps_namespace_pack(void *out, aps_namespace ns)
{
    aps_namespace_view v;
    uint32_t *ends = (uint32_t *)out;
    char *bytes = (char *)out + ns.count * sizeof(uint32_t);
    uint32_t end = 0;
    size_t i;
    for (i = 0; i < ns.count; i++) {
        if (ns.items[i].len > 0)
            memcpy(bytes + end, ns.items[i].ptr, ns.items[i].len);
        end += (uint32_t)ns.items[i].len;
        ends[i] = end;
    }
    v.ends = ns.count > 0 ? ends : NULL;
    v.bytes = bytes;
    v.count = ns.count;
    return v;
}
