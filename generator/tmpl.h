/*
 * tmpl.h - a small logic-less template engine (a subset of mustache) that
 * the emitters fill with computed names and values.
 *
 *   {{name}}              the string value `name`, looked up innermost-out
 *   {{#name}}...{{/name}} a list: once per item; a non-empty string or an
 *                         object: once; absent or empty: not at all
 *   {{^name}}...{{/name}} only when `name` is absent or empty
 *   {{>name}}             another template, by file name without ".tmpl"
 *
 * A section, inverted-section or partial tag alone on its line takes the
 * line with it, so templates can be laid out for reading. Output is exactly
 * the text in between: the engine adds no whitespace of its own.
 */
#ifndef CDDLGEN_TMPL_H
#define CDDLGEN_TMPL_H

#include <stdio.h>

#include "cddl.h"

typedef struct tmpl_value tmpl_value;

tmpl_value *tmpl_object(cddl_ctx *ctx);
tmpl_value *tmpl_list(cddl_ctx *ctx);
/* Sets `key` of an object to a string (copied) / to a value; returns obj. */
tmpl_value *tmpl_set(cddl_ctx *ctx, tmpl_value *obj, const char *key, const char *s);
tmpl_value *tmpl_setf(cddl_ctx *ctx, tmpl_value *obj, const char *key, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
tmpl_value *tmpl_put(cddl_ctx *ctx, tmpl_value *obj, const char *key, tmpl_value *v);
/* Sets `key` to "1" when `cond`, so {{#key}} sections can test it. */
void tmpl_flag(cddl_ctx *ctx, tmpl_value *obj, const char *key, int cond);
void tmpl_append(cddl_ctx *ctx, tmpl_value *list, tmpl_value *item);
size_t tmpl_count(const tmpl_value *list);

/* Where templates come from: a directory on disk, or the ones built in. */
typedef struct tmpl_set_src {
    const char *dir;  /* NULL: the embedded templates */
} tmpl_source;

/*
 * Renders template `name` with `data` to `out`. Unknown variables, unclosed
 * sections and missing templates are reported as errors through ctx->diag
 * (with the template name and line). Output that would pass `max_bytes` is
 * an error naming `out_name`, and writing stops there (checked at every
 * write, not after: a schema cannot make it write gigabytes first).
 * Returns 0 or the number of errors.
 */
int tmpl_render(cddl_ctx *ctx, const tmpl_source *src, const char *name, const tmpl_value *data, FILE *out,
                const char *out_name, size_t max_bytes);

#endif
