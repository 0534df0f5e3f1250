/* tmpl.c - the template engine (see tmpl.h). */
#include "tmpl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum tv_kind { TV_STR, TV_LIST, TV_OBJ } tv_kind;

struct tmpl_value {
    tv_kind kind;
    const char *str;
    tmpl_value **items;  /* list items, or object values */
    const char **keys;   /* object keys */
    size_t count;
};

/* The templates cddlgen carries, embedded at build time (see CMakeLists.txt). */
typedef struct embedded_file {
    const char *name;
    const char *text;
    const size_t *len;
} embedded_file;
extern const embedded_file cddl_builtin_templates[];

tmpl_value *tmpl_object(cddl_ctx *ctx)
{
    tmpl_value *v = cddl_alloc(ctx, sizeof *v);
    v->kind = TV_OBJ;
    return v;
}

tmpl_value *tmpl_list(cddl_ctx *ctx)
{
    tmpl_value *v = cddl_alloc(ctx, sizeof *v);
    v->kind = TV_LIST;
    return v;
}

tmpl_value *tmpl_put(cddl_ctx *ctx, tmpl_value *obj, const char *key, tmpl_value *v)
{
    size_t n = obj->count, i;
    for (i = 0; i < obj->count; i++) {
        if (strcmp(obj->keys[i], key) == 0) {
            obj->items[i] = v;
            return obj;
        }
    }
    cddl_push(ctx, &obj->keys, &n, sizeof key, &key);
    cddl_push(ctx, &obj->items, &obj->count, sizeof v, &v);
    return obj;
}

tmpl_value *tmpl_set(cddl_ctx *ctx, tmpl_value *obj, const char *key, const char *s)
{
    size_t len = strlen(s);
    tmpl_value *v = cddl_alloc(ctx, sizeof *v + len + 1); /* one allocation: emission makes millions */
    char *copy = (char *)(v + 1);
    memcpy(copy, s, len);
    v->kind = TV_STR;
    v->str = copy;
    return tmpl_put(ctx, obj, key, v);
}

tmpl_value *tmpl_setf(cddl_ctx *ctx, tmpl_value *obj, const char *key, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tmpl_set(ctx, obj, key, buf);
}

void tmpl_flag(cddl_ctx *ctx, tmpl_value *obj, const char *key, int cond)
{
    static tmpl_value one = { TV_STR, "1", NULL, NULL, 0 }; /* values are never changed once set */
    if (cond)
        tmpl_put(ctx, obj, key, &one);
}

void tmpl_append(cddl_ctx *ctx, tmpl_value *list, tmpl_value *item)
{
    cddl_push(ctx, &list->items, &list->count, sizeof item, &item);
}

size_t tmpl_count(const tmpl_value *list)
{
    return list ? list->count : 0;
}

/* ---- rendering -------------------------------------------------------------- */

#define TMPL_MAX_STACK 32

typedef struct render {
    cddl_ctx *ctx;
    const tmpl_source *src;
    FILE *out;
    const tmpl_value *stack[TMPL_MAX_STACK];
    int top;
    int errors;
    int depth;  /* partial nesting */
    size_t written, max_bytes;
    int too_large; /* the output would pass max_bytes: nothing more is written */
} render;

/* Writes text to the output while it stays within max_bytes, so no schema can write far past it. */
static void put(render *r, const char *p, size_t n)
{
    if (r->too_large || n > r->max_bytes - r->written) {
        r->too_large = 1;
        return;
    }
    fwrite(p, 1, n, r->out);
    r->written += n;
}

static const tmpl_value *lookup(const render *r, const char *name, size_t len)
{
    int s;
    size_t i;
    if (len == 1 && name[0] == '.')
        return r->stack[r->top - 1];
    for (s = r->top - 1; s >= 0; s--) {
        const tmpl_value *v = r->stack[s];
        if (v->kind != TV_OBJ)
            continue;
        for (i = 0; i < v->count; i++)
            if (strlen(v->keys[i]) == len && memcmp(v->keys[i], name, len) == 0)
                return v->items[i];
    }
    return NULL;
}

static int truthy(const tmpl_value *v)
{
    if (v == NULL)
        return 0;
    if (v->kind == TV_STR)
        return v->str[0] != '\0';
    if (v->kind == TV_LIST)
        return v->count > 0;
    return 1;
}

static void fail(render *r, const char *tname, const char *text, const char *at, const char *msg,
                 size_t len, const char *name)
{
    unsigned line = 1;
    const char *p;
    for (p = text; p < at; p++)
        line += *p == '\n';
    diag_plain(r->ctx->diag, DIAG_ERROR, "cddlgen", "template %s.tmpl:%u: %s '%.*s'", tname, line, msg,
               (int)len, name);
    r->errors++;
}

/* True when [line_start, tag) and (tag_end, line_end) hold only blanks; sets the span to drop. */
static int standalone(const char *begin, const char *end, const char *tag, const char *tag_end,
                      const char **drop_from, const char **drop_to)
{
    const char *a = tag, *b = tag_end;
    while (a > begin && (a[-1] == ' ' || a[-1] == '\t'))
        a--;
    if (a > begin && a[-1] != '\n')
        return 0;
    while (b < end && (*b == ' ' || *b == '\t' || *b == '\r'))
        b++;
    if (b < end && *b != '\n')
        return 0;
    *drop_from = a;
    *drop_to = b < end ? b + 1 : b;
    return 1;
}

static const char *template_text(render *r, const char *name, size_t *len, char **owned);

/* Renders text[from, to) of template `tname`. */
static void render_span(render *r, const char *tname, const char *text, const char *from,
                        const char *to)
{
    const char *p = from;
    while (p < to && !r->too_large) {
        const char *open = strstr(p, "{{"), *close, *name, *drop_from, *drop_to;
        size_t len;
        char sigil;
        int alone;
        if (open == NULL || open >= to) {
            put(r, p, (size_t)(to - p));
            return;
        }
        close = strstr(open + 2, "}}");
        if (close == NULL || close + 2 > to) {
            fail(r, tname, text, open, "unclosed tag", 2, "{{");
            return;
        }
        sigil = open[2];
        name = open + 2 + (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '>');
        len = (size_t)(close - name);
        alone = sigil != '{' && strchr("#^/>", sigil) &&
                standalone(text, to, open, close + 2, &drop_from, &drop_to);
        if (!alone)
            drop_from = open, drop_to = close + 2;
        put(r, p, (size_t)(drop_from - p));
        p = drop_to;
        if (sigil == '#' || sigil == '^') {
            /* find the matching close tag, counting nested sections of the same name */
            const char *q = p, *end_open = NULL, *end_to = NULL, *inner_end;
            int level = 1;
            const tmpl_value *v = lookup(r, name, len);
            while (level > 0) {
                const char *o = strstr(q, "{{"), *c;
                if (o == NULL || o >= to)
                    break;
                c = strstr(o + 2, "}}");
                if (c == NULL)
                    break;
                if ((o[2] == '#' || o[2] == '^') && (size_t)(c - o - 3) == len && memcmp(o + 3, name, len) == 0)
                    level++;
                else if (o[2] == '/' && (size_t)(c - o - 3) == len && memcmp(o + 3, name, len) == 0 && --level == 0)
                    end_open = o, end_to = c + 2;
                q = c + 2;
            }
            if (end_open == NULL) {
                fail(r, tname, text, open, "unclosed section", len, name);
                return;
            }
            inner_end = end_open;
            {
                const char *df, *dt;
                if (standalone(text, to, end_open, end_to, &df, &dt)) {
                    inner_end = df;
                    end_to = dt;
                }
            }
            if (sigil == '^') {
                if (!truthy(v))
                    render_span(r, tname, text, p, inner_end);
            } else if (truthy(v) && r->top < TMPL_MAX_STACK) {
                if (v->kind == TV_LIST) {
                    size_t i;
                    for (i = 0; i < v->count; i++) {
                        r->stack[r->top++] = v->items[i];
                        render_span(r, tname, text, p, inner_end);
                        r->top--;
                    }
                } else {
                    r->stack[r->top++] = v;
                    render_span(r, tname, text, p, inner_end);
                    r->top--;
                }
            }
            p = end_to;
        } else if (sigil == '/') {
            fail(r, tname, text, open, "close tag without a section", len, name);
        } else if (sigil == '>') {
            char pname[128];
            char *owned = NULL;
            size_t plen;
            const char *ptext;
            snprintf(pname, sizeof pname, "%.*s", (int)len, name);
            ptext = r->depth < 16 ? template_text(r, pname, &plen, &owned) : NULL;
            if (ptext == NULL) {
                fail(r, tname, text, open, "no such template", len, name);
            } else {
                r->depth++;
                render_span(r, pname, ptext, ptext, ptext + plen);
                r->depth--;
            }
            free(owned);
        } else {
            const tmpl_value *v = lookup(r, name, len);
            if (v == NULL || v->kind != TV_STR)
                fail(r, tname, text, open, "no string value for", len, name);
            else
                put(r, v->str, strlen(v->str));
        }
    }
}

static const char *template_text(render *r, const char *name, size_t *len, char **owned)
{
    size_t i;
    *owned = NULL;
    if (r->src != NULL && r->src->dir != NULL) {
        char path[1024];
        FILE *f;
        long n;
        snprintf(path, sizeof path, "%s/%s.tmpl", r->src->dir, name);
        f = fopen(path, "rb");
        if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            char *buf = malloc((size_t)n + 1);
            if (buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n) {
                buf[n] = '\0';
                fclose(f);
                *owned = buf;
                *len = (size_t)n;
                return buf;
            }
            free(buf);
        }
        if (f != NULL)
            fclose(f);
        /* a template the directory does not override comes from the built-in set */
    }
    for (i = 0; cddl_builtin_templates[i].name != NULL; i++) {
        if (strcmp(cddl_builtin_templates[i].name, name) == 0) {
            *len = *cddl_builtin_templates[i].len;
            return cddl_builtin_templates[i].text;
        }
    }
    return NULL;
}

int tmpl_render(cddl_ctx *ctx, const tmpl_source *src, const char *name, const tmpl_value *data, FILE *out,
                const char *out_name, size_t max_bytes)
{
    render r;
    size_t len;
    char *owned;
    const char *text;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.src = src;
    r.out = out;
    r.max_bytes = max_bytes;
    r.stack[r.top++] = data;
    text = template_text(&r, name, &len, &owned);
    if (text == NULL) {
        diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "no template named '%s'", name);
        return 1;
    }
    render_span(&r, name, text, text, text + len);
    free(owned);
    if (r.too_large) {
        diag_plain(ctx->diag, DIAG_ERROR, out_name, "the generated file would be larger than %zu MB: not written",
                   max_bytes >> 20);
        r.errors++;
    }
    return r.errors;
}
