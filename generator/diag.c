/* diag.c - gcc-style diagnostics with source line and caret (see diag.h). */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

#include "aps/utf8.h"

/* Widest source window shown under a diagnostic, in characters. */
#define DIAG_WINDOW 120

/* Length of the character at s[i]: a valid UTF-8 sequence, or one byte. */
static size_t char_len(const char *s, size_t i, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    size_t want = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (want == 1 || i + want > n)
        return 1;
    return aps_utf8_check((const uint8_t *)s + i, want) == SIZE_MAX ? want : 1;
}

static int build_lines(cddl_source *src)
{
    size_t i, n = 1;
    if (src->line_starts != NULL)
        return 0;
    for (i = 0; i < src->len; i++)
        if (src->text[i] == '\n')
            n++;
    src->line_starts = malloc(n * sizeof *src->line_starts);
    if (src->line_starts == NULL)
        return -1;
    src->line_starts[0] = 0;
    src->nlines = 1;
    for (i = 0; i < src->len; i++)
        if (src->text[i] == '\n')
            src->line_starts[src->nlines++] = i + 1;
    return 0;
}

/* Index of the line holding `offset` (binary search in the line table). */
static size_t line_index(const cddl_source *src, size_t offset)
{
    size_t lo = 0, hi = src->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (src->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static size_t line_end(const cddl_source *src, size_t start)
{
    const char *nl = memchr(src->text + start, '\n', src->len - start);
    size_t end = nl ? (size_t)(nl - src->text) : src->len;
    if (end > start && src->text[end - 1] == '\r')
        end--;
    return end;
}

static unsigned count_chars(const char *s, size_t from, size_t to)
{
    unsigned cols = 0;
    while (from < to) {
        from += char_len(s, from, to);
        cols++;
    }
    return cols;
}

void cddl_source_position(cddl_source *src, size_t offset, unsigned *line, unsigned *col)
{
    size_t li;
    if (offset > src->len)
        offset = src->len;
    if (build_lines(src) != 0) {
        *line = 0;
        *col = 0;
        return;
    }
    li = line_index(src, offset);
    *line = (unsigned)li + 1;
    *col = count_chars(src->text, src->line_starts[li], offset) + 1;
}

void cddl_source_deinit(cddl_source *src)
{
    free(src->line_starts);
    src->line_starts = NULL;
    src->nlines = 0;
}

void diag_init(diag_ctx *d, FILE *out)
{
    int g;
    memset(d, 0, sizeof *d);
    d->out = out;
    for (g = 0; g < DIAG_W_COUNT; g++)
        d->enabled[g] = 1;
    d->enabled[DIAG_W_UNUSED] = 0;
}

int diag_clip(size_t len, int max)
{
    return len > (size_t)max ? max : (int)len;
}

/* Prints the source line of `loc` and a caret line under its range. */
static void show_source(diag_ctx *d, const src_loc *loc)
{
    cddl_source *src = (cddl_source *)loc->src;
    size_t li, start, end, from, i, caret_to;
    unsigned line, col, cols_before;
    int gutter;
    char num[24];
    if (build_lines(src) != 0)
        return;
    li = line_index(src, loc->offset);
    start = src->line_starts[li];
    end = line_end(src, start);
    line = (unsigned)li + 1;
    /* Long lines: show a window that keeps the caret in view. */
    from = start;
    cols_before = count_chars(src->text, start, loc->offset < end ? loc->offset : end);
    if (cols_before > DIAG_WINDOW / 2) {
        unsigned skip = cols_before - DIAG_WINDOW / 4;
        while (skip-- > 0 && from < end)
            from += char_len(src->text, from, end);
    }
    gutter = snprintf(num, sizeof num, "%5u", line);
    fprintf(d->out, "%s | ", num);
    col = 0;
    for (i = from; i < end && col < DIAG_WINDOW; col++) {
        size_t n = char_len(src->text, i, end);
        unsigned char c = (unsigned char)src->text[i];
        if (n == 1 && (c < 0x20 || c >= 0x7F))
            fputc('?', d->out);
        else
            fwrite(src->text + i, 1, n, d->out);
        i += n;
    }
    if (i < end)
        fputs("...", d->out);
    fputc('\n', d->out);
    fprintf(d->out, "%*s | ", gutter, "");
    col = 0;
    for (i = from; i < loc->offset && i < end; col++)
        i += char_len(src->text, i, end);
    fprintf(d->out, "%*s^", (int)col, "");
    caret_to = loc->end < end ? loc->end : end;
    if (i < caret_to)
        i += char_len(src->text, i, end);
    for (; i < caret_to && col < DIAG_WINDOW; col++) {
        fputc('~', d->out);
        i += char_len(src->text, i, end);
    }
    fputc('\n', d->out);
}

static const char *level_name(diag_level level)
{
    return level == DIAG_ERROR ? "error" : level == DIAG_WARNING ? "warning" : "note";
}

static const char *group_flag(diag_group g)
{
    switch (g) {
    case DIAG_W_LOOSE: return "-Wloose";
    case DIAG_W_UNUSED: return "-Wunused";
    case DIAG_W_CHOICE: return "-Wchoice";
    case DIAG_W_NAMING: return "-Wnaming";
    case DIAG_W_SHADOW: return "-Wshadow";
    case DIAG_W_RANGE: return "-Wrange";
    case DIAG_W_PEDANTIC: return "-Wpedantic";
    case DIAG_W_JSON: return "-Wjson";
    default: return NULL;
    }
}

int diag_will_show(const diag_ctx *d, diag_level level)
{
    unsigned max = d->max_errors ? d->max_errors : DIAG_MAX_ERRORS;
    return (level == DIAG_ERROR ? d->errors - d->repeats : d->warnings) < max;
}

/* Decides whether to show a diagnostic and updates the counters. */
static int admit(diag_ctx *d, diag_level *level, diag_group group)
{
    unsigned max = d->max_errors ? d->max_errors : DIAG_MAX_ERRORS;
    if (*level == DIAG_NOTE)
        return d->last_shown;
    if (*level == DIAG_WARNING) {
        if (!d->enabled[group])
            return d->last_shown = 0;
        if (d->as_error[group])
            *level = DIAG_ERROR;
    }
    if (*level == DIAG_ERROR) {
        d->errors++;
        if (d->errors - d->repeats > max) {
            d->suppressed++;
            return d->last_shown = 0;
        }
    } else {
        /* a warning repeated for every instance of a generic must not flood either */
        d->warnings++;
        if (d->warnings > max) {
            d->suppressed_warnings++;
            return d->last_shown = 0;
        }
    }
    return d->last_shown = 1;
}

/* FNV-1a over `n` bytes, continuing from `h`. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n-- > 0)
        h = (h ^ *b++) * 0x100000001b3ull;
    return h;
}

/* True when a diagnostic of this level, place and reason (format) was reported before; else remembers it. */
static int repeated(diag_ctx *d, diag_level level, const src_loc *loc, const char *text)
{
    const size_t slots = sizeof d->seen / sizeof d->seen[0];
    uint64_t h = fnv(0xcbf29ce484222325ull, &level, sizeof level);
    size_t i;
    h = fnv(h, &loc->src, sizeof loc->src);
    h = fnv(h, &loc->offset, sizeof loc->offset);
    h = fnv(h, text, strlen(text));
    h |= 1; /* 0 marks an empty slot */
    for (i = (size_t)h & (slots - 1); d->seen[i] != 0; i = (i + 1) & (slots - 1))
        if (d->seen[i] == h)
            return 1;
    if (d->nseen + 1 < slots) { /* keep one slot empty so that lookups end */
        d->seen[i] = h;
        d->nseen++;
    }
    return 0;
}

void diag_vreport(diag_ctx *d, diag_level level, diag_group group, src_loc loc,
                  const char *fmt, va_list ap)
{
    unsigned line, col;
    const char *flag = group_flag(group);
    diag_level shown = level;
    char text[4096];
    vsnprintf(text, sizeof text, fmt, ap);
    /* the same reason (its format) at the same place is said once, whatever it is about
     * (every level of a growing generic, every instance of a warned-about member) */
    if (level != DIAG_NOTE && (level == DIAG_ERROR || d->enabled[group]) && repeated(d, level, &loc, fmt)) {
        /* still counted as an error, for the passes that ask whether they reported one */
        if (level == DIAG_ERROR || d->as_error[group]) {
            d->errors++;
            d->repeats++;
        }
        d->last_shown = 0;
        return;
    }
    if (!admit(d, &shown, group))
        return;
    if (loc.src == NULL) {
        /* a place the compiler made up (a node of its own) has no line to show: said without one */
        fprintf(d->out, "cddlgen: %s: ", level_name(shown));
    } else {
        cddl_source_position((cddl_source *)loc.src, loc.offset, &line, &col);
        fprintf(d->out, "%s:%u:%u: %s: ", loc.src->name, line, col, level_name(shown));
    }
    fputs(text, d->out);
    if (level == DIAG_WARNING && flag != NULL)
        fprintf(d->out, shown == DIAG_ERROR ? " [-Werror=%s]" : " [-W%s]", flag + 2);
    fputc('\n', d->out);
    if (loc.src != NULL)
        show_source(d, &loc);
}

void diag_report(diag_ctx *d, diag_level level, diag_group group, src_loc loc,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, level, group, loc, fmt, ap);
    va_end(ap);
}

void diag_plain(diag_ctx *d, diag_level level, const char *where, const char *fmt, ...)
{
    va_list ap;
    diag_level shown = level;
    if (!admit(d, &shown, DIAG_W_NONE))
        return;
    fprintf(d->out, "%s: %s: ", where, level_name(shown));
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
    fputc('\n', d->out);
}
