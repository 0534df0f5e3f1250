/* json_raw.c - helpers over raw JSON values (see aps/json.h). */
#include "aps/json_impl.h"

#include "aps/utf8.h"

#include <string.h>

aps_json_kind aps_json_raw_kind(aps_json_raw raw)
{
    aps_json_reader r;
    aps_json_reader_init(&r, raw.ptr, raw.len, NULL, NULL);
    return aps_json_peek(&r);
}

void aps_json_raw_reader(aps_json_reader *r, aps_json_raw raw, aps_arena *arena)
{
    aps_json_reader_init(r, raw.ptr, raw.len, arena, NULL);
}

aps_status aps_json_raw_member(aps_json_raw obj, const char *name, size_t len, aps_arena *arena,
                               aps_json_raw *out, aps_error *err)
{
    aps_json_reader r;
    aps_slice key;
    aps_status st;
    int more;
    aps_json_reader_init(&r, obj.ptr, obj.len, arena, NULL);
    if ((st = aps_json_read_object(&r, err)) != APS_OK)
        return st;
    while ((st = aps_json_next_member(&r, &key, &more, err)) == APS_OK && more) {
        if (key.len == len && memcmp(key.ptr, name, len) == 0)
            return aps_json_read_raw(&r, out, err);
        if ((st = aps_json_skip(&r, err)) != APS_OK)
            return st;
    }
    return st != APS_OK ? st : APS_E_NOT_FOUND;
}

/* ---- equality ------------------------------------------------------------
 * The texts are trusted to be valid (they are aps_json_raw values), so a
 * light cursor suffices; it still never reads past the end, and reports
 * APS_E_SYNTAX for anything it does not expect.
 */

typedef struct cursor {
    const char *p;
    const char *end;
} cursor;

static void ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

/* Moves past the string at c->p (its opening quote). 0 if unterminated. */
static int pass_string(cursor *c)
{
    const char *p = c->p + 1;
    while (p < c->end && *p != '"')
        p += *p == '\\' ? 2 : 1;
    if (p >= c->end)
        return 0;
    c->p = p + 1;
    return 1;
}

/* Moves past one value, iteratively. 0 on malformed input. */
static int pass_value(cursor *c)
{
    size_t depth = 0;
    ws(c);
    do {
        if (c->p >= c->end)
            return 0;
        switch (*c->p) {
        case '"':
            if (!pass_string(c))
                return 0;
            break;
        case '{': case '[':
            depth++;
            c->p++;
            break;
        case '}': case ']':
            if (depth == 0)
                return 0;
            depth--;
            c->p++;
            break;
        default:
            c->p++;
            break;
        }
        if (depth > 0) {
            ws(c);
            /* Inside a container, punctuation and scalars simply go by. */
            while (c->p < c->end && *c->p != '"' && *c->p != '{' && *c->p != '[' &&
                   *c->p != '}' && *c->p != ']')
                c->p++;
        } else {
            while (c->p < c->end && (*c->p == '-' || *c->p == '+' || *c->p == '.' ||
                                     (*c->p >= '0' && *c->p <= '9') || *c->p == 'e' ||
                                     *c->p == 'E' || (*c->p >= 'a' && *c->p <= 'z')))
                c->p++;
        }
    } while (depth > 0);
    return 1;
}

/* Unescaped bytes of a string, one at a time. */
typedef struct string_iter {
    const char *p;
    const char *end; /* the closing quote */
    uint8_t pend[4];
    size_t npend;
    size_t ipend;
} string_iter;

static void iter_init(string_iter *it, const char *open, const char *close)
{
    it->p = open + 1;
    it->end = close;
    it->npend = it->ipend = 0;
}

static uint32_t raw_hex4(const char *p)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* Next byte, or -1 at the end. */
static int iter_next(string_iter *it)
{
    if (it->ipend < it->npend)
        return it->pend[it->ipend++];
    if (it->p >= it->end)
        return -1;
    if (*it->p != '\\')
        return (unsigned char)*it->p++;
    if (it->end - it->p < 2)
        return -1;
    switch (it->p[1]) {
    case 'b': it->p += 2; return '\b';
    case 'f': it->p += 2; return '\f';
    case 'n': it->p += 2; return '\n';
    case 'r': it->p += 2; return '\r';
    case 't': it->p += 2; return '\t';
    case 'u': {
        uint32_t cp;
        if (it->end - it->p < 6)
            return -1;
        cp = raw_hex4(it->p + 2);
        it->p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && it->end - it->p >= 6 && it->p[0] == '\\' &&
            it->p[1] == 'u') {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (raw_hex4(it->p + 2) - 0xDC00);
            it->p += 6;
        }
        it->npend = aps_utf8_encode(cp, it->pend);
        it->ipend = 0;
        return it->npend > 0 ? it->pend[it->ipend++] : -1;
    }
    default: {
        int ch = (unsigned char)it->p[1];
        it->p += 2;
        return ch;
    }
    }
}

/* Compares the strings whose opening quotes are at a and b. */
static int string_equal(cursor *a, cursor *b)
{
    const char *sa = a->p, *sb = b->p;
    string_iter ia, ib;
    int ca, cb;
    if (!pass_string(a) || !pass_string(b))
        return -1;
    iter_init(&ia, sa, a->p - 1);
    iter_init(&ib, sb, b->p - 1);
    do {
        ca = iter_next(&ia);
        cb = iter_next(&ib);
        if (ca != cb)
            return 0;
    } while (ca != -1);
    return 1;
}

/* A number as sign, significant digits (no leading/trailing zeros) and exponent. */
typedef struct number {
    int neg;
    const char *int_digits, *frac_digits; /* raw digit runs */
    size_t n_int, n_frac;
    long long exp;                         /* of the first significant digit */
    size_t lead;                           /* leading zeros to skip over int+frac */
    size_t count;                          /* significant digits */
} number;

static char digit_at(const number *n, size_t i)
{
    i += n->lead;
    return i < n->n_int ? n->int_digits[i] : n->frac_digits[i - n->n_int];
}

static int parse_number(cursor *c, number *n)
{
    const char *p = c->p, *end = c->end;
    long long e = 0;
    int eneg = 0;
    size_t total, last;
    memset(n, 0, sizeof *n);
    if (p < end && *p == '-') {
        n->neg = 1;
        p++;
    }
    n->int_digits = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    n->n_int = (size_t)(p - n->int_digits);
    n->frac_digits = p;
    if (p < end && *p == '.') {
        n->frac_digits = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        n->n_frac = (size_t)(p - n->frac_digits);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        while (p < end && *p >= '0' && *p <= '9') {
            if (e < 1000000000000000LL)
                e = e * 10 + (*p - '0');
            p++;
        }
    }
    if (n->n_int == 0)
        return 0;
    c->p = p;
    total = n->n_int + n->n_frac;
    while (n->lead < total && digit_at(n, 0) == '0')
        n->lead++;
    if (n->lead == total) {
        n->count = 0; /* zero, whatever its sign */
        return 1;
    }
    last = total;
    while (last > n->lead && (last - 1 < n->n_int ? n->int_digits[last - 1]
                                                  : n->frac_digits[last - 1 - n->n_int]) == '0')
        last--;
    n->count = last - n->lead;
    n->exp = (eneg ? -e : e) + (long long)n->n_int - (long long)n->lead;
    return 1;
}

static int number_equal(cursor *a, cursor *b)
{
    number x, y;
    size_t i;
    if (!parse_number(a, &x) || !parse_number(b, &y))
        return -1;
    if (x.count == 0 || y.count == 0)
        return x.count == y.count;
    if (x.neg != y.neg || x.count != y.count || x.exp != y.exp)
        return 0;
    for (i = 0; i < x.count; i++) {
        if (digit_at(&x, i) != digit_at(&y, i))
            return 0;
    }
    return 1;
}

static int value_equal(cursor *a, cursor *b, int depth);

/* Finds member `key` (cursor at its quote) among the members of the object whose '{' starts obj. */
static int find_member(const cursor *key, cursor obj, cursor *value)
{
    obj.p++;
    ws(&obj);
    while (obj.p < obj.end && *obj.p == '"') {
        cursor k = *key, o = obj;
        int eq = string_equal(&k, &o);
        if (eq < 0)
            return -1;
        obj = o;
        ws(&obj);
        if (obj.p >= obj.end || *obj.p != ':')
            return -1;
        obj.p++;
        ws(&obj);
        if (eq) {
            *value = obj;
            return 1;
        }
        if (!pass_value(&obj))
            return -1;
        ws(&obj);
        if (obj.p < obj.end && *obj.p == ',') {
            obj.p++;
            ws(&obj);
        }
    }
    return 0;
}

static long count_members(cursor c)
{
    long n = 0;
    c.p++;
    ws(&c);
    while (c.p < c.end && *c.p == '"') {
        if (!pass_string(&c))
            return -1;
        ws(&c);
        if (c.p >= c.end || *c.p != ':')
            return -1;
        c.p++;
        if (!pass_value(&c))
            return -1;
        n++;
        ws(&c);
        if (c.p < c.end && *c.p == ',') {
            c.p++;
            ws(&c);
        }
    }
    return n;
}

/* 1 equal, 0 different, -1 malformed, -2 too deep. Advances both cursors past their values. */
static int value_equal(cursor *a, cursor *b, int depth)
{
    ws(a);
    ws(b);
    if (a->p >= a->end || b->p >= b->end)
        return -1;
    if (depth > APS_JSON_MAX_DEPTH_DEFAULT)
        return -2;
    switch (*a->p) {
    case '"':
        if (*b->p != '"')
            return 0;
        return string_equal(a, b);
    case '{': {
        long na, nb;
        if (*b->p != '{')
            return 0;
        na = count_members(*a);
        nb = count_members(*b);
        if (na < 0 || nb < 0)
            return -1;
        if (na != nb)
            return 0;
        a->p++;
        ws(a);
        /* Same member count and no duplicates: equal iff each of a's is in b. */
        while (a->p < a->end && *a->p == '"') {
            cursor key = *a, vb;
            int r;
            if (!pass_string(a))
                return -1;
            ws(a);
            if (a->p >= a->end || *a->p != ':')
                return -1;
            a->p++;
            r = find_member(&key, *b, &vb);
            if (r <= 0)
                return r;
            if ((r = value_equal(a, &vb, depth + 1)) <= 0)
                return r;
            ws(a);
            if (a->p < a->end && *a->p == ',') {
                a->p++;
                ws(a);
            }
        }
        if (a->p >= a->end || *a->p != '}' || !pass_value(b))
            return -1;
        a->p++;
        return 1;
    }
    case '[': {
        if (*b->p != '[')
            return 0;
        a->p++;
        b->p++;
        for (;;) {
            int r;
            ws(a);
            ws(b);
            if (a->p >= a->end || b->p >= b->end)
                return -1;
            if (*a->p == ']' || *b->p == ']') {
                if (*a->p != ']' || *b->p != ']')
                    return 0;
                a->p++;
                b->p++;
                return 1;
            }
            if ((r = value_equal(a, b, depth + 1)) <= 0)
                return r;
            ws(a);
            ws(b);
            if (a->p < a->end && *a->p == ',')
                a->p++;
            if (b->p < b->end && *b->p == ',')
                b->p++;
        }
    }
    case 't': case 'f': case 'n': {
        size_t n = *a->p == 'f' ? 5 : 4;
        if ((size_t)(a->end - a->p) < n || (size_t)(b->end - b->p) < n)
            return -1;
        if (memcmp(a->p, b->p, n) != 0)
            return 0;
        a->p += n;
        b->p += n;
        return 1;
    }
    default:
        if (*b->p != '-' && (*b->p < '0' || *b->p > '9'))
            return 0;
        return number_equal(a, b);
    }
}

aps_status aps_json_raw_equal(aps_json_raw a, aps_json_raw b, int *equal)
{
    cursor ca, cb;
    int r;
    ca.p = a.ptr;
    ca.end = a.ptr + a.len;
    cb.p = b.ptr;
    cb.end = b.ptr + b.len;
    r = value_equal(&ca, &cb, 0);
    if (r == -2)
        return APS_E_DEPTH;
    if (r < 0)
        return APS_E_SYNTAX;
    *equal = r;
    return APS_OK;
}
