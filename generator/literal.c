/*
 * literal.c - checking and decoding CDDL literals the way RFC 8610
 * Appendix B and RFC 9682 spell them (see literal.h).
 */
#include "literal.h"

#include <stdlib.h>
#include <string.h>

#include "aps/utf8.h"

#define ERR_AT(p, loc, ...) \
    diag_report((p)->ctx->diag, DIAG_ERROR, DIAG_W_NONE, (loc), __VA_ARGS__)

/* The location of bytes [from, to) inside the token at `loc`. */
static src_loc sub_loc(src_loc loc, size_t from, size_t to)
{
    src_loc r = loc;
    r.offset = loc.offset + (uint32_t)from;
    r.end = loc.offset + (uint32_t)to;
    return r;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int cddl_parse_uint(const char *s, size_t len, uint64_t *out)
{
    unsigned base = 10;
    uint64_t v = 0;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, i = 2;
    else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, i = 2;
    else if (len > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
        base = 8, i = 2; /* zcbor's octal (cddl_lex_number warns) */
    if (i >= len)
        return -1;
    for (; i < len; i++) {
        int d = hexval((unsigned char)s[i]);
        if (d < 0 || (unsigned)d >= base)
            return -1;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return -1;
        v = v * base + (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* Length of a run of characters of `s` from `i` that satisfy `pred`. */
static size_t span(const char *s, size_t i, size_t n, int (*pred)(int))
{
    size_t j = i;
    while (j < n && pred((unsigned char)s[j]))
        j++;
    return j - i;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c) { return hexval(c) >= 0; }
static int is_bin(int c) { return c == '0' || c == '1'; }
static int is_oct(int c) { return c >= '0' && c <= '7'; }

/* Parses with strtod a spelling already checked against the ABNF. */
static double to_double(const char *s, size_t len)
{
    char buf[128];
    char *copy = len < sizeof buf ? buf : malloc(len + 1);
    double v;
    if (copy == NULL)
        return 0.0;
    memcpy(copy, s, len);
    copy[len] = '\0';
    v = strtod(copy, NULL);
    if (copy != buf)
        free(copy);
    return v;
}

void cddl_lex_number(cddl_parser *p, ast_str text, src_loc loc, ast_value *out)
{
    const char *s = text.ptr;
    size_t n = text.len, i = 0, digits;
    int is_float = 0, hex = 0;
    memset(out, 0, sizeof *out);
    out->kind = AST_V_INT;
    out->text = text;
    if (s[i] == '-')
        out->negative = 1, i++;
    if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        hex = 1;
        digits = span(s, i + 2, n, is_hex);
        if (digits == 0)
            goto bad;
        i += 2 + digits;
        if (i < n && (s[i] == '.' || s[i] == 'p' || s[i] == 'P')) {
            /* hexfloat = ["-"] "0x" 1*HEXDIG ["." 1*HEXDIG] "p" exponent */
            if (s[i] == '.') {
                digits = span(s, i + 1, n, is_hex);
                if (digits == 0)
                    goto bad;
                i += 1 + digits;
            }
            if (i >= n || (s[i] != 'p' && s[i] != 'P'))
                goto bad;
            i++;
            if (i < n && (s[i] == '+' || s[i] == '-'))
                i++;
            digits = span(s, i, n, is_digit);
            if (digits == 0)
                goto bad;
            i += digits;
            is_float = 1;
        }
    } else if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        digits = span(s, i + 2, n, is_bin);
        if (digits == 0)
            goto bad;
        i += 2 + digits;
    } else if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'o' || s[i + 1] == 'O')) {
        /* not in RFC 8610's ABNF (0x and 0b are); zcbor's schemas use it, and zcbor reads it */
        digits = span(s, i + 2, n, is_oct);
        if (digits == 0 || i + 2 + digits != n)
            goto bad;
        i += 2 + digits;
        diag_report(p->ctx->diag, DIAG_WARNING, DIAG_W_LOOSE, loc,
                    "octal number '%.*s': not RFC 8610 CDDL (zcbor's extension), read as octal", diag_clip(n, 40), s);
    } else {
        digits = span(s, i, n, is_digit);
        if (digits == 0)
            goto bad;
        if (digits > 1 && s[i] == '0') {
            ERR_AT(p, loc, "leading zero in number '%.*s'", diag_clip(n, 40), s);
            return;
        }
        i += digits;
        if (i < n && s[i] == '.') {
            digits = span(s, i + 1, n, is_digit);
            if (digits == 0)
                goto bad;
            i += 1 + digits;
            is_float = 1;
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            i++;
            if (i < n && (s[i] == '+' || s[i] == '-'))
                i++;
            digits = span(s, i, n, is_digit);
            if (digits == 0)
                goto bad;
            i += digits;
            is_float = 1;
        }
    }
    if (i != n)
        goto bad;
    if (is_float) {
        out->kind = AST_V_FLOAT;
        out->f = to_double(s, n);
        return;
    }
    (void)hex;
    if (cddl_parse_uint(s + out->negative, n - (size_t)out->negative, &out->magnitude) != 0)
        out->overflow = 1;
    return;
bad:
    ERR_AT(p, loc, "invalid number '%.*s'", diag_clip(n, 40), s);
}

/* Checks one raw (unescaped) character of a text, byte string or comment at
 * s[i]: returns its length, or 0 after reporting why it is not allowed
 * (then *skip says how many bytes the offending character takes). */
static size_t check_char(cddl_parser *p, const char *s, size_t i, size_t n, src_loc loc,
                         const char *what, size_t *skip)
{
    unsigned char c = (unsigned char)s[i];
    size_t len;
    uint32_t cp;
    *skip = 1;
    if (c >= 0x20 && c < 0x7F)
        return 1;
    if (c < 0x80) {
        ERR_AT(p, sub_loc(loc, i, i + 1), "control character 0x%02X in %s", c, what);
        return 0;
    }
    len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (i + len > n || aps_utf8_check((const uint8_t *)s + i, len) != SIZE_MAX) {
        ERR_AT(p, sub_loc(loc, i, i + 1), "invalid UTF-8 in %s", what);
        return 0;
    }
    cp = len == 2 ? (uint32_t)(c & 0x1F) : len == 3 ? (uint32_t)(c & 0x0F) : (uint32_t)(c & 0x07);
    {
        size_t k;
        for (k = 1; k < len; k++)
            cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
    }
    /* NONASCII = %xA0-D7FF / %xE000-10FFFD: C1 controls are excluded. */
    if (cp < 0xA0 || cp > 0x10FFFD) {
        ERR_AT(p, sub_loc(loc, i, i + len), "character U+%04X is not allowed in %s", (unsigned)cp, what);
        *skip = len; /* one error for the character, not one per byte */
        return 0;
    }
    return len;
}

/* Reads exactly 4 hex digits at s[i]; -1 if they are not there. */
static long hex4(const char *s, size_t i, size_t n)
{
    long v = 0;
    size_t k;
    if (i + 4 > n)
        return -1;
    for (k = 0; k < 4; k++) {
        int d = hexval((unsigned char)s[i + k]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * Decodes one escape at s[i] == '\\' (SESC of RFC 9682, plus `\'` where
 * `allow_quote`). Appends the UTF-8 to out[*olen]. Returns the bytes consumed,
 * or 0 after reporting the error.
 */
static size_t decode_escape(cddl_parser *p, const char *s, size_t i, size_t n, src_loc loc,
                            int allow_quote, char *out, size_t *olen)
{
    uint32_t cp;
    size_t used;
    char c = i + 1 < n ? s[i + 1] : '\0';
    switch (c) {
    case '"': out[(*olen)++] = '"'; return 2;
    case '/': out[(*olen)++] = '/'; return 2;
    case '\\': out[(*olen)++] = '\\'; return 2;
    case 'b': out[(*olen)++] = '\b'; return 2;
    case 'f': out[(*olen)++] = '\f'; return 2;
    case 'n': out[(*olen)++] = '\n'; return 2;
    case 'r': out[(*olen)++] = '\r'; return 2;
    case 't': out[(*olen)++] = '\t'; return 2;
    case '\'':
        if (allow_quote) {
            out[(*olen)++] = '\'';
            return 2;
        }
        break;
    case 'u':
        if (i + 2 < n && s[i + 2] == '{') {
            /* \u{...}: any number of leading zeros, a scalar value up to 10FFFF */
            size_t k = i + 3, sig = 0;
            cp = 0;
            while (k < n && s[k] == '0')
                k++;
            while (k < n && is_hex((unsigned char)s[k]) && sig < 7) {
                cp = cp * 16 + (uint32_t)hexval((unsigned char)s[k]);
                k++, sig++;
            }
            if (k == i + 3 || k >= n || s[k] != '}' || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                ERR_AT(p, sub_loc(loc, i, k < n ? k + 1 : k),
                       "invalid escape: \\u{...} needs hex digits of a Unicode scalar value (at most 10FFFF, no surrogates)");
                return 0;
            }
            used = k + 1 - i;
        } else {
            long hi = hex4(s, i + 2, n);
            if (hi < 0) {
                ERR_AT(p, sub_loc(loc, i, i + 2), "invalid escape: \\u needs four hex digits or {...}");
                return 0;
            }
            cp = (uint32_t)hi;
            used = 6;
            if (hi >= 0xDC00 && hi <= 0xDFFF) {
                ERR_AT(p, sub_loc(loc, i, i + 6), "lone low surrogate \\u%04lX", hi);
                return 0;
            }
            if (hi >= 0xD800 && hi <= 0xDBFF) {
                long lo = (i + 7 < n && s[i + 6] == '\\' && s[i + 7] == 'u') ? hex4(s, i + 8, n) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    ERR_AT(p, sub_loc(loc, i, i + 6), "high surrogate \\u%04lX not followed by a low surrogate escape", hi);
                    return 0;
                }
                cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                used = 12;
            }
        }
        *olen += aps_utf8_encode(cp, (uint8_t *)out + *olen);
        return used;
    default:
        break;
    }
    if (c == '\0' && i + 1 >= n) {
        ERR_AT(p, sub_loc(loc, i, i + 1), "backslash at the end of a string");
        return 0;
    }
    ERR_AT(p, sub_loc(loc, i, i + 2), "unknown escape sequence '\\%c'", c >= 0x20 && c < 0x7F ? c : '?');
    return 0;
}

void cddl_lex_text(cddl_parser *p, ast_str text, src_loc loc, ast_value *out)
{
    const char *s = text.ptr;
    size_t n = text.len, i = 1, olen = 0, skip;
    char *buf = cddl_alloc(p->ctx, n + 1);
    memset(out, 0, sizeof *out);
    out->kind = AST_V_TEXT;
    while (i < n && s[i] != '"') {
        size_t used;
        if (s[i] == '\\') {
            used = decode_escape(p, s, i, n, loc, 0, buf, &olen);
            i += used ? used : 2;
            continue;
        }
        used = check_char(p, s, i, n, loc, "a text string", &skip);
        if (used == 0) {
            i += skip;
            continue;
        }
        memcpy(buf + olen, s + i, used);
        olen += used;
        i += used;
    }
    buf[olen] = '\0';
    out->text.ptr = buf;
    out->text.len = olen;
}

/* Checks the content of h'' or b64'' after escapes: digits of the base,
 * with spaces, newlines and comments ignored (RFC 9682 section 2.2). */
static void check_base_content(cddl_parser *p, const char *s, size_t n, src_loc loc,
                               size_t base_off, ast_bytes_qual qual)
{
    size_t i = 0, count = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r') {
            i++;
        } else if (c == ';') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (qual == AST_BYTES_HEX ? is_hex(c)
                   : (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) ||
                     c == '+' || c == '/' || c == '-' || c == '_' || c == '=') {
            i++;
            count++;
        } else {
            ERR_AT(p, sub_loc(loc, base_off + i, base_off + i + 1), "'%c' is not a %s digit",
                   c >= 0x20 && c < 0x7F ? c : '?', qual == AST_BYTES_HEX ? "hex" : "base64");
            return;
        }
    }
    if (qual == AST_BYTES_HEX && count % 2 != 0)
        ERR_AT(p, loc, "odd number of hex digits in byte string");
}

void cddl_lex_bytes(cddl_parser *p, ast_str text, src_loc loc, ast_value *out)
{
    const char *s = text.ptr;
    size_t n = text.len, q = 0, i, olen = 0, skip;
    char *buf;
    memset(out, 0, sizeof *out);
    out->kind = AST_V_BYTES;
    out->qual = AST_BYTES_PLAIN;
    if (s[0] == 'h' || s[0] == 'H')
        out->qual = AST_BYTES_HEX, q = 1;
    else if (s[0] == 'b' || s[0] == 'B')
        out->qual = AST_BYTES_B64, q = 3;
    out->text.ptr = s + q + 1;
    out->text.len = n - q - 2;
    buf = cddl_alloc(p->ctx, n + 1);
    for (i = q + 1; i + 1 < n;) {
        size_t used;
        if (s[i] == '\\') {
            used = decode_escape(p, s, i, n - 1, loc, 1, buf, &olen);
            i += used ? used : 2;
            continue;
        }
        if (s[i] == '\n' || (s[i] == '\r' && i + 2 < n && s[i + 1] == '\n')) {
            size_t k = s[i] == '\r' ? 2 : 1;
            memcpy(buf + olen, s + i, k);
            olen += k, i += k;
            continue;
        }
        used = check_char(p, s, i, n - 1, loc, "a byte string", &skip);
        if (used == 0) {
            i += skip;
            continue;
        }
        memcpy(buf + olen, s + i, used);
        olen += used;
        i += used;
    }
    if (out->qual != AST_BYTES_PLAIN)
        check_base_content(p, buf, olen, loc, q + 1, out->qual);
}

void cddl_lex_occur(cddl_parser *p, ast_str text, src_loc loc, cddl_occur_tok *out)
{
    const char *star;
    out->text = text;
    out->form = text.ptr[0] == '?' ? '?' : text.ptr[0] == '+' ? '+' : '*';
    out->min = out->form == '+' ? 1 : 0;
    out->max = out->form == '?' ? 1 : AST_OCCUR_INF;
    if (out->form != '*')
        return;
    star = memchr(text.ptr, '*', text.len);
    if (star > text.ptr && cddl_parse_uint(text.ptr, (size_t)(star - text.ptr), &out->min) != 0)
        ERR_AT(p, loc, "occurrence bound too large");
    if (star + 1 < text.ptr + text.len &&
        cddl_parse_uint(star + 1, (size_t)(text.ptr + text.len - star - 1), &out->max) != 0)
        ERR_AT(p, loc, "occurrence bound too large");
}

void cddl_lex_tag(cddl_parser *p, ast_str text, src_loc loc, cddl_tag_tok *out)
{
    const char *s = text.ptr, *end = text.ptr + text.len;
    memset(out, 0, sizeof *out);
    out->major = (unsigned)(s[1] - '0');
    if (end[-1] == '(')
        end--;
    if (text.len > 2 && s[2] == '.') {
        out->has_number = 1;
        out->number.ptr = s + 3;
        out->number.len = (size_t)(end - (s + 3));
        if (out->number.ptr[0] == '<')
            out->number.len = 0; /* the number is a type: #6.<type>(...), #7.<type> */
        else if (
            cddl_parse_uint(out->number.ptr, out->number.len, &out->value) != 0)
            ERR_AT(p, loc, "tag number too large");
    }
}

void cddl_lex_comment(cddl_parser *p, ast_str text, src_loc loc)
{
    ast_comment c;
    size_t i, n = text.len, start = loc.offset;
    if (n > 1 && text.ptr[n - 1] == '\r')
        n--;
    for (i = 1; i < n;) {
        size_t skip, used = check_char(p, text.ptr, i, n, loc, "a comment", &skip);
        i += used ? used : skip;
    }
    c.loc = loc;
    c.text.ptr = text.ptr + 1;
    c.text.len = n - 1;
    while (start > 0 && p->src->text[start - 1] == ' ')
        start--;
    c.own_line = start == 0 || p->src->text[start - 1] == '\n';
    cddl_push(p->ctx, &p->doc->comments, &p->doc->ncomments, sizeof c, &c);
}

void cddl_lex_stray(cddl_parser *p, ast_str text, src_loc loc)
{
    unsigned char c = (unsigned char)text.ptr[0];
    if (text.len > 1 && aps_utf8_check((const uint8_t *)text.ptr, text.len) == SIZE_MAX)
        ERR_AT(p, loc, "stray '%.*s' in schema", (int)text.len, text.ptr);
    else if (c >= 0x21 && c < 0x7F)
        ERR_AT(p, loc, "stray '%c' in schema", c);
    else
        ERR_AT(p, loc, "stray byte 0x%02X in schema", c);
}
