/*
 * docs.c - attaches comments to the declarations they document.
 *
 * A rule's doc is the block of whole-line comments directly above it (no
 * blank line between), or else a comment at the end of a one-line rule.
 * A member's doc is the comment at the end of its line (after an optional
 * comma), or else the whole-line block directly above it. Any other comment
 * (section banners, notes between rules) documents nothing and lands nowhere.
 */
#include <string.h>

#include "cddl.h"

/* True when text[from, to) holds only spaces and exactly `newlines` line ends. */
static int only_blank(const char *text, size_t from, size_t to, int newlines)
{
    int seen = 0;
    for (; from < to; from++) {
        char c = text[from];
        if (c == '\n')
            seen++;
        else if (c != ' ' && c != '\r')
            return 0;
    }
    return seen == newlines;
}

/* Index of the first comment starting at or after `offset`. */
static size_t first_after(const ast_document *doc, size_t offset)
{
    size_t lo = 0, hi = doc->ncomments;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (doc->comments[mid].loc.offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Joins comments [first, last] into one doc text, one line each, leading space dropped. */
static ast_doc join(cddl_ctx *ctx, const ast_document *doc, size_t first, size_t last)
{
    size_t i, len = 0;
    char *buf, *w;
    ast_doc d;
    for (i = first; i <= last; i++)
        len += doc->comments[i].text.len + 1;
    w = buf = cddl_alloc(ctx, len + 1);
    for (i = first; i <= last; i++) {
        ast_str t = doc->comments[i].text;
        if (t.len > 0 && t.ptr[0] == ' ')
            t.ptr++, t.len--;
        while (t.len > 0 && t.ptr[t.len - 1] == ' ')
            t.len--;
        memcpy(w, t.ptr, t.len);
        w += t.len;
        *w++ = '\n';
    }
    while (w > buf && w[-1] == '\n')
        w--;
    *w = '\0';
    d.ptr = buf;
    d.len = (size_t)(w - buf);
    return d;
}

/* The block of whole-line comments ending on the line directly above `offset`. */
static ast_doc block_above(cddl_ctx *ctx, const ast_document *doc, size_t offset)
{
    ast_doc none = { NULL, 0 };
    const char *text = doc->src->text;
    size_t i = first_after(doc, offset), last, first;
    if (i == 0)
        return none;
    last = i - 1;
    if (!doc->comments[last].own_line ||
        !only_blank(text, doc->comments[last].loc.end, offset, 1))
        return none;
    first = last;
    while (first > 0 && doc->comments[first - 1].own_line &&
           only_blank(text, doc->comments[first - 1].loc.end, doc->comments[first].loc.offset, 1))
        first--;
    return join(ctx, doc, first, last);
}

/* The comment on the same line after `end`, with only blanks and one comma between. */
static ast_doc beside(cddl_ctx *ctx, const ast_document *doc, size_t end)
{
    ast_doc none = { NULL, 0 };
    const char *text = doc->src->text;
    size_t i = first_after(doc, end), k;
    int commas = 0;
    if (i >= doc->ncomments)
        return none;
    for (k = end; k < doc->comments[i].loc.offset; k++) {
        if (text[k] == ',' && commas++ == 0)
            continue;
        if (text[k] != ' ')
            return none;
    }
    return join(ctx, doc, i, i);
}

ast_doc cddl_doc_beside(cddl_ctx *ctx, const ast_document *doc, size_t end)
{
    return beside(ctx, doc, end);
}

static void attach_group(cddl_ctx *ctx, const ast_document *doc, ast_group *g);

static void attach_type(cddl_ctx *ctx, const ast_document *doc, ast_type *t)
{
    size_t i;
    if (t == NULL)
        return;
    switch (t->kind) {
    case AST_T_PAREN: case AST_T_MAP: case AST_T_ARRAY: case AST_T_ENUM:
        attach_group(ctx, doc, t->u.group);
        break;
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++)
            attach_type(ctx, doc, t->u.choice.items[i]);
        break;
    case AST_T_CONTROL:
        attach_type(ctx, doc, t->u.control.target);
        break;
    case AST_T_TAG:
        attach_type(ctx, doc, t->u.tag.content);
        break;
    default:
        break;
    }
}

static void attach_group(cddl_ctx *ctx, const ast_document *doc, ast_group *g)
{
    size_t c, e;
    for (c = 0; c < g->count; c++) {
        for (e = 0; e < g->choices[c]->count; e++) {
            ast_entry *en = g->choices[c]->entries[e];
            en->doc = beside(ctx, doc, en->loc.end);
            if (en->doc.len == 0)
                en->doc = block_above(ctx, doc, en->loc.offset);
            attach_type(ctx, doc, en->type);
        }
    }
}

void cddl_attach_docs(cddl_ctx *ctx, ast_document *doc)
{
    size_t i;
    if (doc->ncomments == 0)
        return;
    for (i = 0; i < doc->nrules; i++) {
        ast_rule *r = doc->rules[i];
        const char *nl = memchr(doc->src->text + r->loc.offset, '\n', r->loc.end - r->loc.offset);
        r->doc = block_above(ctx, doc, r->loc.offset);
        if (r->doc.len == 0 && nl == NULL)
            r->doc = beside(ctx, doc, r->loc.end);
        attach_type(ctx, doc, r->body->type);
    }
}
