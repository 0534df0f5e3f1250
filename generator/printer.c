/*
 * printer.c - writes an AST back as canonical CDDL: one space around
 * operators, `, ` between entries, groups with documented members or more
 * than two members of a map laid out one member per line, docs as comments.
 * Parsing the output gives the same AST (tested for every corpus file).
 */
#include <string.h>

#include "cddl.h"

static void print_type(FILE *out, const ast_type *t, int indent);
static void print_group(FILE *out, const ast_group *g, char open, char close, int indent);

static void print_str(FILE *out, ast_str s)
{
    fwrite(s.ptr, 1, s.len, out);
}

static void print_text(FILE *out, ast_str s)
{
    size_t i;
    fputc('"', out);
    for (i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            /* C0, DEL and C1 controls are not SCHAR: escape them. */
            if (c < 0x20 || c == 0x7F)
                fprintf(out, "\\u%04X", c);
            else if (c == 0xC2 && i + 1 < s.len && (unsigned char)s.ptr[i + 1] < 0xA0)
                fprintf(out, "\\u%04X", (unsigned char)s.ptr[++i]);
            else if (c == 0xF4 && i + 3 < s.len && (unsigned char)s.ptr[i + 1] == 0x8F &&
                     (unsigned char)s.ptr[i + 2] == 0xBF && (unsigned char)s.ptr[i + 3] >= 0xBE) {
                /* U+10FFFE and U+10FFFF are not NONASCII: escape them */
                fprintf(out, "\\u{10FFF%c}", (unsigned char)s.ptr[i + 3] == 0xBE ? 'E' : 'F');
                i += 3;
            } else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

static void print_value(FILE *out, const ast_value *v)
{
    switch (v->kind) {
    case AST_V_INT: case AST_V_FLOAT:
        print_str(out, v->text);
        break;
    case AST_V_TEXT:
        print_text(out, v->text);
        break;
    case AST_V_BYTES:
        fputs(v->qual == AST_BYTES_HEX ? "h'" : v->qual == AST_BYTES_B64 ? "b64'" : "'", out);
        print_str(out, v->text);
        fputc('\'', out);
        break;
    }
}

static void print_args(FILE *out, const ast_type_list *args, int indent)
{
    size_t i;
    if (args->count == 0)
        return;
    fputc('<', out);
    for (i = 0; i < args->count; i++) {
        if (i > 0)
            fputs(", ", out);
        print_type(out, args->items[i], indent);
    }
    fputc('>', out);
}

/* `#6`, `#6.32` or `#6.<type>`: the head shared by tags and major types. */
static void print_tag_head(FILE *out, const ast_type *t, int indent)
{
    fprintf(out, "#%u", t->u.tag.major);
    if (t->u.tag.number_type != NULL) {
        fputs(".<", out);
        print_type(out, t->u.tag.number_type, indent);
        fputc('>', out);
    } else if (t->u.tag.has_number) {
        fputc('.', out);
        print_str(out, t->u.tag.number);
    }
}

static void print_type(FILE *out, const ast_type *t, int indent)
{
    size_t i;
    switch (t->kind) {
    case AST_T_VALUE:
        print_value(out, &t->u.value);
        break;
    case AST_T_NAME: case AST_T_UNWRAP: case AST_T_ENUM_NAME:
        fputs(t->kind == AST_T_UNWRAP ? "~" : t->kind == AST_T_ENUM_NAME ? "&" : "", out);
        print_str(out, t->u.name.name);
        print_args(out, &t->u.name.args, indent);
        break;
    case AST_T_PAREN:
        print_group(out, t->u.group, '(', ')', indent);
        break;
    case AST_T_MAP:
        print_group(out, t->u.group, '{', '}', indent);
        break;
    case AST_T_ARRAY:
        print_group(out, t->u.group, '[', ']', indent);
        break;
    case AST_T_ENUM:
        fputc('&', out);
        print_group(out, t->u.group, '(', ')', indent);
        break;
    case AST_T_TAG:
        print_tag_head(out, t, indent);
        fputc('(', out);
        print_type(out, t->u.tag.content, indent);
        fputc(')', out);
        break;
    case AST_T_MAJOR:
        print_tag_head(out, t, indent);
        break;
    case AST_T_ANY:
        fputc('#', out);
        break;
    case AST_T_RANGE:
        print_type(out, t->u.range.lo, indent);
        fputs(t->u.range.inclusive ? " .. " : " ... ", out);
        print_type(out, t->u.range.hi, indent);
        break;
    case AST_T_CONTROL:
        print_type(out, t->u.control.target, indent);
        fputs(" .", out);
        print_str(out, t->u.control.op);
        fputc(' ', out);
        print_type(out, t->u.control.arg, indent);
        break;
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++) {
            if (i > 0)
                fputs(" / ", out);
            print_type(out, t->u.choice.items[i], indent);
        }
        break;
    }
}

static void print_entry(FILE *out, const ast_entry *e, int indent)
{
    if (e->has_occur) {
        print_str(out, e->occur_text);
        fputc(' ', out);
    }
    switch (e->key_kind) {
    case AST_KEY_NONE:
        break;
    case AST_KEY_BAREWORD:
        print_str(out, e->bareword);
        fputs(": ", out);
        break;
    case AST_KEY_VALUE:
        print_type(out, e->key, indent);
        fputs(": ", out);
        break;
    case AST_KEY_TYPE:
        print_type(out, e->key, indent);
        fputs(e->cut ? " ^ => " : " => ", out);
        break;
    }
    print_type(out, e->type, indent);
}

static void print_doc_lines(FILE *out, ast_doc doc, int indent)
{
    const char *p = doc.ptr, *end = doc.len ? doc.ptr + doc.len : doc.ptr;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        fprintf(out, "%*s;%s%.*s\n", indent, "", stop > p ? " " : "", (int)(stop - p), p);
        p = nl ? nl + 1 : end;
    }
}

static int group_is_multiline(const ast_group *g, char open)
{
    size_t c, e, n = 0;
    for (c = 0; c < g->count; c++) {
        for (e = 0; e < g->choices[c]->count; e++) {
            if (g->choices[c]->entries[e]->doc.len > 0)
                return 1;
            n++;
        }
    }
    return open == '{' && n > 2;
}

static void print_group(FILE *out, const ast_group *g, char open, char close, int indent)
{
    size_t c, e;
    int multi = group_is_multiline(g, open);
    fputc(open, out);
    for (c = 0; c < g->count; c++) {
        const ast_grpchoice *ch = g->choices[c];
        if (c > 0)
            fputs(multi ? "\n" : " // ", out);
        if (c > 0 && multi)
            fprintf(out, "%*s//", indent + 2, "");
        for (e = 0; e < ch->count; e++) {
            const ast_entry *en = ch->entries[e];
            int one_line_doc = en->doc.len > 0 && memchr(en->doc.ptr, '\n', en->doc.len) == NULL;
            if (multi) {
                fputc('\n', out);
                if (en->doc.len > 0 && !one_line_doc)
                    print_doc_lines(out, en->doc, indent + 2);
                fprintf(out, "%*s", indent + 2, "");
            } else if (e > 0) {
                fputs(", ", out);
            }
            print_entry(out, en, indent + 2);
            if (multi && (e + 1 < ch->count))
                fputc(',', out);
            if (multi && one_line_doc)
                fprintf(out, " ; %.*s", (int)en->doc.len, en->doc.ptr);
        }
    }
    if (multi)
        fprintf(out, "\n%*s", indent, "");
    fputc(close, out);
}

void cddl_print(FILE *out, const ast_document *doc)
{
    size_t i, k;
    for (i = 0; i < doc->nrules; i++) {
        const ast_rule *r = doc->rules[i];
        if (i > 0)
            fputc('\n', out);
        print_doc_lines(out, r->doc, 0);
        print_str(out, r->name);
        if (r->nparams > 0) {
            fputc('<', out);
            for (k = 0; k < r->nparams; k++) {
                if (k > 0)
                    fputs(", ", out);
                print_str(out, r->params[k]);
            }
            fputc('>', out);
        }
        fputs(r->assign == AST_ASSIGN_DEFINE ? " = " : r->assign == AST_ASSIGN_TYPE_ALT ? " /= " : " //= ", out);
        print_entry(out, r->body, 0);
        fputc('\n', out);
    }
}
