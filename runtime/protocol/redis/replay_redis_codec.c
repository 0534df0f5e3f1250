/* replay_redis_codec.c - the bytes the Redis backend reads from outside:
 * redis:// URLs and event records read back from the stream (see
 * aps/replay_redis.h). No hiredis here, so the fuzz targets need none. */
#include "aps/replay_redis.h"

#include <string.h>

#define HEADER 20u

aps_status aps_replay_redis_parse_url(const char *url, size_t len, aps_replay_redis_url *out,
                                      aps_error *err)
{
    static const char scheme[] = "redis://";
    size_t i = sizeof scheme - 1, start, n;
    long v;
    if (url == NULL || out == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no URL given");
    memset(out, 0, sizeof *out);
    out->port = 6379;
    if (len < i || memcmp(url, scheme, i) != 0)
        return aps_error_set(err, APS_E_SYNTAX, 0, "redis URL must start with redis://");
    if (i < len && url[i] == '[') {
        start = ++i;
        while (i < len && url[i] != ']' &&
               (url[i] == ':' || url[i] == '.' || (url[i] >= '0' && url[i] <= '9') ||
                (url[i] >= 'a' && url[i] <= 'f') || (url[i] >= 'A' && url[i] <= 'F')))
            i++;
        if (i >= len || url[i] != ']')
            return aps_error_set(err, APS_E_SYNTAX, i, "redis URL: unterminated or invalid [IPv6] host");
        n = i - start;
        i++;
    } else {
        start = i;
        while (i < len && ((url[i] >= 'a' && url[i] <= 'z') || (url[i] >= 'A' && url[i] <= 'Z') ||
                           (url[i] >= '0' && url[i] <= '9') || url[i] == '-' || url[i] == '.' ||
                           url[i] == '_'))
            i++;
        n = i - start;
    }
    if (n == 0)
        return aps_error_set(err, APS_E_SYNTAX, i, "redis URL: expected a host at byte %zu", i + 1);
    if (n >= sizeof out->host)
        return aps_error_set(err, APS_E_SYNTAX, start, "redis URL: host longer than %zu bytes",
                             sizeof out->host - 1);
    memcpy(out->host, url + start, n);
    out->host[n] = '\0';
    if (i < len && url[i] == ':') {
        start = ++i;
        for (v = 0; i < len && url[i] >= '0' && url[i] <= '9' && i - start < 6; i++)
            v = v * 10 + (url[i] - '0');
        if (i == start || v < 1 || v > 65535 || (i < len && url[i] >= '0' && url[i] <= '9'))
            return aps_error_set(err, APS_E_SYNTAX, start,
                                 "redis URL: port at byte %zu must be 1..65535", start + 1);
        out->port = (int)v;
    }
    if (i < len && url[i] == '/') {
        start = ++i;
        for (v = 0; i < len && url[i] >= '0' && url[i] <= '9' && i - start < 6; i++)
            v = v * 10 + (url[i] - '0');
        if (i == start || v > 65535 || (i < len && url[i] >= '0' && url[i] <= '9'))
            return aps_error_set(err, APS_E_SYNTAX, start,
                                 "redis URL: database at byte %zu must be 0..65535", start + 1);
        out->db = (int)v;
    }
    if (i != len)
        return aps_error_set(err, APS_E_SYNTAX, i,
                             "redis URL: unexpected byte at %zu (expected redis://HOST[:PORT][/DB])",
                             i + 1);
    return APS_OK;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The parts of a record, in order. */
static size_t name_len_of(const aps_replay_meta *meta)
{
    return meta->channel == APS_CHANNEL_CUSTOM && meta->custom_name.ptr != NULL
               ? meta->custom_name.len
               : 0;
}

size_t aps_replay_redis_record_size(const aps_replay_meta *meta, size_t len)
{
    size_t ns = aps_namespace_packed_size(meta->ns), name = name_len_of(meta),
           id = meta->event_id.ptr != NULL ? meta->event_id.len : 0;
    if (ns == SIZE_MAX || name > UINT32_MAX || id > UINT32_MAX || len > UINT32_MAX)
        return SIZE_MAX;
    return HEADER + ns + name + id + len; /* each term < 2^32 */
}

void aps_replay_redis_record_encode(void *out, const void *bytes, size_t len,
                                    const aps_replay_meta *meta)
{
    uint8_t *p = (uint8_t *)out;
    size_t i, name = name_len_of(meta), id = meta->event_id.ptr != NULL ? meta->event_id.len : 0;
    uint32_t end = 0;
    p[0] = 'A';
    p[1] = '1';
    p[2] = (uint8_t)meta->channel;
    p[3] = meta->event_id.ptr != NULL ? 1 : 0;
    put32(p + 4, (uint32_t)meta->ns.count);
    for (i = 0; i < meta->ns.count; i++)
        end += (uint32_t)meta->ns.items[i].len;
    put32(p + 8, end);
    put32(p + 12, (uint32_t)name);
    put32(p + 16, (uint32_t)id);
    p += HEADER;
    end = 0;
    for (i = 0; i < meta->ns.count; i++) {
        end += (uint32_t)meta->ns.items[i].len;
        put32(p, end);
        p += 4;
    }
    for (i = 0; i < meta->ns.count; i++) {
        if (meta->ns.items[i].len > 0)
            memcpy(p, meta->ns.items[i].ptr, meta->ns.items[i].len);
        p += meta->ns.items[i].len;
    }
    if (name > 0)
        memcpy(p, meta->custom_name.ptr, name);
    p += name;
    if (id > 0)
        memcpy(p, meta->event_id.ptr, id);
    p += id;
    if (len > 0)
        memcpy(p, bytes, len);
}

aps_status aps_replay_redis_record_decode(const void *rec, size_t len, aps_replay_event *ev,
                                          uint32_t *ends, size_t ends_cap, aps_error *err)
{
    const uint8_t *p = (const uint8_t *)rec;
    uint32_t count, seg_bytes, name, id, prev = 0, i;
    size_t at;
    if (rec == NULL || ev == NULL || (ends == NULL && ends_cap > 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "invalid record decode arguments");
    if (len < HEADER || p[0] != 'A' || p[1] != '1')
        return aps_error_set(err, APS_E_SYNTAX, 0, "replay record: not a version-1 record");
    if (p[2] > APS_CHANNEL_OTHER)
        return aps_error_set(err, APS_E_SYNTAX, 2, "replay record: unknown channel %u", p[2]);
    if (p[3] > 1)
        return aps_error_set(err, APS_E_SYNTAX, 3, "replay record: unknown flags %u", p[3]);
    count = get32(p + 4);
    seg_bytes = get32(p + 8);
    name = get32(p + 12);
    id = get32(p + 16);
    if (name > 0 && p[2] != APS_CHANNEL_CUSTOM)
        return aps_error_set(err, APS_E_SYNTAX, 12, "replay record: a custom name on a non-custom event");
    if (count > (len - HEADER) / 4)
        return aps_error_set(err, APS_E_SYNTAX, 4, "replay record: %u segments do not fit", count);
    if (count > ends_cap)
        return aps_error_set(err, APS_E_LIMIT, 4, "replay record: more than %zu segments", ends_cap);
    at = HEADER + (size_t)count * 4;
    /* Each length is checked against what is left, so no sum can overflow. */
    if (seg_bytes > len - at || name > len - at - seg_bytes || id > len - at - seg_bytes - name)
        return aps_error_set(err, APS_E_SYNTAX, 8, "replay record: lengths exceed the record");
    for (i = 0; i < count; i++) {
        uint32_t e = get32(p + HEADER + (size_t)i * 4);
        if (e < prev || e > seg_bytes)
            return aps_error_set(err, APS_E_SYNTAX, HEADER + (size_t)i * 4,
                                 "replay record: segment end %u out of order", i);
        ends[i] = prev = e;
    }
    if (count > 0 && prev != seg_bytes)
        return aps_error_set(err, APS_E_SYNTAX, 8, "replay record: segments do not fill their bytes");
    if (count == 0 && seg_bytes != 0)
        return aps_error_set(err, APS_E_SYNTAX, 8, "replay record: segment bytes without segments");
    ev->channel = (aps_channel)p[2];
    ev->ns.count = count;
    ev->ns.ends = count > 0 ? ends : NULL;
    ev->ns.bytes = (const char *)p + at;
    at += seg_bytes;
    ev->custom_name.ptr = name > 0 ? (const char *)p + at : NULL;
    ev->custom_name.len = name;
    at += name;
    ev->event_id.ptr = p[3] ? (const char *)p + at : NULL;
    ev->event_id.len = id;
    if (!p[3] && id > 0)
        return aps_error_set(err, APS_E_SYNTAX, 16, "replay record: an eventId length without the flag");
    at += id;
    ev->bytes = p + at;
    ev->len = len - at;
    return APS_OK;
}
