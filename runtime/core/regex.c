/*
 * regex.c - aps_regex_match: the XSD-style regular expressions of CDDL
 * `.regexp`, matched in bounded time.
 *
 * The pattern is compiled into a small program (Thompson's construction)
 * in a fixed buffer on the stack and run as a Pike VM: every live thread
 * advances one code point at a time, so matching costs O(len x program) and
 * no input can make it backtrack. Jumps are relative, which lets counted
 * repetition copy a compiled piece without relocating it.
 */
#include "aps/regex.h"

#include <stdint.h>

#include <string.h>

#define MAX_INSNS 512
#define MAX_RANGES 256
#define MAX_NEST 32
#define MAX_COUNT 1000
#define NO_CP 0xFFFFFFFFu

enum { OP_CHAR, OP_ANY, OP_CLASS, OP_SPLIT, OP_JMP, OP_MATCH };

typedef struct insn {
    uint8_t op;
    uint8_t neg;    /* OP_CLASS: negated */
    uint16_t nr;    /* OP_CLASS: number of ranges */
    int16_t x, y;   /* OP_JMP: x; OP_SPLIT: x and y; relative to this instruction */
    uint32_t c;     /* OP_CHAR: code point; OP_CLASS: first range */
} insn;

typedef struct range {
    uint32_t lo, hi;
} range;

typedef struct compiler {
    const char *p;     /* next pattern byte */
    const char *end;
    int depth;
    size_t n;
    size_t nr;
    insn prog[MAX_INSNS];
    range ranges[MAX_RANGES];
} compiler;

/* Decodes one UTF-8 code point at *pp (strictly); NO_CP when malformed. */
static uint32_t next_cp(const char **pp, const char *end)
{
    const unsigned char *p = (const unsigned char *)*pp;
    uint32_t cp;
    size_t n, i;
    if (p[0] < 0x80) {
        *pp += 1;
        return p[0];
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 1;
        cp = p[0] & 0x1Fu;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 2;
        cp = p[0] & 0x0Fu;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 3;
        cp = p[0] & 0x07u;
    } else {
        return NO_CP;
    }
    if ((size_t)(end - *pp) <= n)
        return NO_CP;
    for (i = 1; i <= n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return NO_CP;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
        return NO_CP;
    *pp += n + 1;
    return cp;
}

/* ---- compiling --------------------------------------------------------- */

static int emit(compiler *c, uint8_t op, int x, int y, uint32_t v)
{
    insn *i;
    if (c->n >= MAX_INSNS)
        return 0;
    i = &c->prog[c->n++];
    memset(i, 0, sizeof *i);
    i->op = op;
    i->x = (int16_t)x;
    i->y = (int16_t)y;
    i->c = v;
    return 1;
}

/* Inserts a SPLIT at `at`, shifting the self-contained code after it. */
static int insert_split(compiler *c, size_t at, int x, int y)
{
    if (c->n >= MAX_INSNS)
        return 0;
    memmove(&c->prog[at + 1], &c->prog[at], (c->n - at) * sizeof(insn));
    c->n++;
    memset(&c->prog[at], 0, sizeof(insn));
    c->prog[at].op = OP_SPLIT;
    c->prog[at].x = (int16_t)x;
    c->prog[at].y = (int16_t)y;
    return 1;
}

/* Appends a copy of prog[from, from + len). */
static int copy(compiler *c, size_t from, size_t len)
{
    if (len > MAX_INSNS - c->n)
        return 0;
    memmove(&c->prog[c->n], &c->prog[from], len * sizeof(insn));
    c->n += len;
    return 1;
}

static int add_range(compiler *c, uint32_t lo, uint32_t hi)
{
    if (c->nr >= MAX_RANGES || lo > hi)
        return 0;
    c->ranges[c->nr].lo = lo;
    c->ranges[c->nr].hi = hi;
    c->nr++;
    return 1;
}

static const range digit_set[] = { { '0', '9' } };
static const range word_set[] = { { '0', '9' }, { 'A', 'Z' }, { '_', '_' }, { 'a', 'z' } };
static const range space_set[] = { { '\t', '\n' }, { '\r', '\r' }, { ' ', ' ' } };

/* Adds the ranges of a sorted set, or of its complement over all code points. */
static int add_set(compiler *c, const range *set, size_t n, int negate)
{
    size_t i;
    uint32_t next = 0;
    if (!negate) {
        for (i = 0; i < n; i++) {
            if (!add_range(c, set[i].lo, set[i].hi))
                return 0;
        }
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (set[i].lo > next && !add_range(c, next, set[i].lo - 1))
            return 0;
        next = set[i].hi + 1;
    }
    return add_range(c, next, 0x10FFFF);
}

/* Adds the class escape \d \D \w \W \s \S named by e; -1 if e is no class escape. */
static int add_class_escape(compiler *c, char e)
{
    switch (e) {
    case 'd': case 'D': return add_set(c, digit_set, 1, e == 'D');
    case 'w': case 'W': return add_set(c, word_set, 4, e == 'W');
    case 's': case 'S': return add_set(c, space_set, 3, e == 'S');
    default: return -1;
    }
}

/* The code point a single-character escape \e stands for; NO_CP if unsupported. */
static uint32_t escaped_char(char e)
{
    switch (e) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case '\\': case '|': case '.': case '-': case '^': case '?': case '*': case '+':
    case '{': case '}': case '(': case ')': case '[': case ']': case '$': case '/':
        return (uint32_t)(unsigned char)e;
    default: return NO_CP;
    }
}

/* One character of a class (after '[' or a range's '-'); NO_CP when malformed. */
static uint32_t class_char(compiler *c)
{
    if (c->p >= c->end)
        return NO_CP;
    if (*c->p == '\\') {
        if (c->p + 1 >= c->end)
            return NO_CP;
        c->p += 2;
        return escaped_char(c->p[-1]);
    }
    if (*c->p == '[')
        return NO_CP; /* XSD class subtraction and nested classes are not supported */
    return next_cp(&c->p, c->end);
}

static int parse_class(compiler *c)
{
    size_t first = c->nr;
    int neg = 0, items = 0;
    c->p++; /* '[' */
    if (c->p < c->end && *c->p == '^') {
        neg = 1;
        c->p++;
    }
    while (c->p < c->end && (*c->p != ']' || items == 0)) {
        uint32_t lo, hi;
        if (*c->p == '\\' && c->p + 1 < c->end) {
            int r = add_class_escape(c, c->p[1]);
            if (r == 0)
                return 0;
            if (r == 1) {
                c->p += 2;
                items++;
                continue;
            }
        }
        if (*c->p == '-' && items > 0 && c->p + 1 < c->end && c->p[1] == '[')
            return 0; /* subtraction */
        if ((lo = class_char(c)) == NO_CP)
            return 0;
        hi = lo;
        if (c->p + 1 < c->end && *c->p == '-' && c->p[1] != ']') {
            c->p++;
            if ((hi = class_char(c)) == NO_CP || hi < lo)
                return 0;
        }
        if (!add_range(c, lo, hi))
            return 0;
        items++;
    }
    if (c->p >= c->end)
        return 0;
    c->p++; /* ']' */
    if (!emit(c, OP_CLASS, 0, 0, (uint32_t)first))
        return 0;
    c->prog[c->n - 1].nr = (uint16_t)(c->nr - first);
    c->prog[c->n - 1].neg = (uint8_t)neg;
    return 1;
}

static int parse_alt(compiler *c);

/*
 * After a '(': skips `?:`, `?<name>` or `?P<name>` (non-capturing and named
 * groups, which real specs write in PCRE and ECMAScript style). Nothing is
 * captured here, so each is an ordinary group. Fails on other `(?`
 * constructs (lookaround, flags), which are not supported.
 */
static int skip_group_name(compiler *c)
{
    const char *p = c->p;
    if (p >= c->end || *p != '?')
        return 1;
    p++;
    if (p < c->end && *p == ':') {
        c->p = p + 1;
        return 1;
    }
    if (p < c->end && *p == 'P')
        p++;
    if (p >= c->end || *p != '<')
        return 0;
    p++;
    if (p >= c->end || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
        return 0; /* `(?<=` and `(?<!` are lookbehind */
    while (p < c->end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
        p++;
    if (p >= c->end || *p != '>')
        return 0;
    c->p = p + 1;
    return 1;
}

static int parse_atom(compiler *c)
{
    char ch = *c->p;
    uint32_t cp;
    switch (ch) {
    case '(':
        if (++c->depth > MAX_NEST)
            return 0;
        c->p++;
        if (!skip_group_name(c))
            return 0;
        if (!parse_alt(c) || c->p >= c->end || *c->p != ')')
            return 0;
        c->p++;
        c->depth--;
        return 1;
    case '[':
        return parse_class(c);
    case '.':
        c->p++;
        return emit(c, OP_ANY, 0, 0, 0);
    case '\\': {
        size_t first = c->nr;
        int r;
        if (c->p + 1 >= c->end)
            return 0;
        if ((r = add_class_escape(c, c->p[1])) >= 0) {
            if (r == 0 || !emit(c, OP_CLASS, 0, 0, (uint32_t)first))
                return 0;
            c->p += 2;
            c->prog[c->n - 1].nr = (uint16_t)(c->nr - first);
            return 1;
        }
        if ((cp = escaped_char(c->p[1])) == NO_CP)
            return 0;
        c->p += 2;
        return emit(c, OP_CHAR, 0, 0, cp);
    }
    case '*': case '+': case '?': case '{':
        return 0; /* nothing to repeat */
    default:
        if ((cp = next_cp(&c->p, c->end)) == NO_CP)
            return 0;
        return emit(c, OP_CHAR, 0, 0, cp);
    }
}

/* Reads a decimal count of a {n,m} quantifier; -1 when there is none or it is too big. */
static long read_count(compiler *c)
{
    long v = 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        v = v * 10 + (*c->p - '0');
        if (v > MAX_COUNT)
            return -1;
        c->p++;
    }
    return c->p == start ? -1 : v;
}

/* Applies a quantifier, if one follows, to the code at [a, n). */
static int parse_quantifier(compiler *c, size_t a)
{
    size_t len = c->n - a, i;
    long lo, hi;
    if (c->p >= c->end)
        return 1;
    switch (*c->p) {
    case '?':
        c->p++;
        return insert_split(c, a, 1, (int)len + 1);
    case '*':
        c->p++;
        return insert_split(c, a, 1, (int)len + 2) && emit(c, OP_JMP, (int)a - (int)c->n, 0, 0);
    case '+':
        c->p++;
        return emit(c, OP_SPLIT, (int)a - (int)c->n, 1, 0);
    case '{':
        break;
    default:
        return 1;
    }
    c->p++;
    if ((lo = read_count(c)) < 0)
        return 0;
    hi = lo;
    if (c->p < c->end && *c->p == ',') {
        c->p++;
        hi = c->p < c->end && *c->p == '}' ? -1 : read_count(c);
        if (hi == -1 && (c->p >= c->end || *c->p != '}'))
            return 0;
        if (hi != -1 && hi < lo)
            return 0;
    }
    if (c->p >= c->end || *c->p != '}')
        return 0;
    c->p++;
    if (lo == 0) {
        if (hi == 0) {
            c->n = a;
            return 1;
        }
        if (hi == -1)
            return insert_split(c, a, 1, (int)len + 2) && emit(c, OP_JMP, (int)a - (int)c->n, 0, 0);
        /* First copy optional in place, then hi - 1 more optional copies. */
        if (!insert_split(c, a, 1, (int)len + 1))
            return 0;
        for (i = 1; i < (size_t)hi; i++) {
            if (!emit(c, OP_SPLIT, 1, (int)len + 1, 0) || !copy(c, a + 1, len))
                return 0;
        }
        return 1;
    }
    for (i = 1; i < (size_t)lo; i++) {
        if (!copy(c, a, len))
            return 0;
    }
    if (hi == -1)
        return emit(c, OP_SPLIT, -(int)len, 1, 0);
    for (i = (size_t)lo; i < (size_t)hi; i++) {
        if (!emit(c, OP_SPLIT, 1, (int)len + 1, 0) || !copy(c, a, len))
            return 0;
    }
    return 1;
}

static int parse_seq(compiler *c)
{
    while (c->p < c->end && *c->p != '|' && *c->p != ')') {
        size_t a = c->n;
        /* A trailing '$' is a redundant anchor: the match is anchored anyway. */
        if (*c->p == '$' && c->p + 1 == c->end && c->depth == 0) {
            c->p++;
            break;
        }
        if (!parse_atom(c) || !parse_quantifier(c, a))
            return 0;
        if (c->p < c->end && (*c->p == '*' || *c->p == '+' || *c->p == '?' || *c->p == '{'))
            return 0; /* a repeated quantifier (also lazy `*?`) is not XSD */
    }
    return 1;
}

static int parse_alt(compiler *c)
{
    size_t start = c->n;
    long chain = -1; /* JMPs to the end, linked through their `c` field */
    if (!parse_seq(c))
        return 0;
    while (c->p < c->end && *c->p == '|') {
        c->p++;
        if (!insert_split(c, start, 1, (int)(c->n - start) + 2))
            return 0;
        if (!emit(c, OP_JMP, 0, 0, (uint32_t)chain))
            return 0;
        chain = (long)(c->n - 1);
        start = c->n;
        if (!parse_seq(c))
            return 0;
    }
    while (chain != -1) {
        insn *j = &c->prog[chain];
        long prev = j->c == (uint32_t)-1 ? -1 : (long)j->c;
        j->x = (int16_t)((long)c->n - chain);
        j->c = 0;
        chain = prev;
    }
    return 1;
}

/* ---- matching ---------------------------------------------------------- */

typedef struct thread_list {
    size_t n;
    uint16_t pc[MAX_INSNS];
} thread_list;

/* Adds pc and everything reachable from it without input to l (marks: gen). */
static void add_thread(const compiler *c, thread_list *l, uint32_t *mark, uint32_t gen, size_t pc)
{
    uint16_t stack[MAX_INSNS];
    size_t top = 0;
    if (mark[pc] == gen)
        return;
    mark[pc] = gen;
    stack[top++] = (uint16_t)pc;
    while (top > 0) {
        const insn *i;
        pc = stack[--top];
        i = &c->prog[pc];
        if (i->op == OP_JMP || i->op == OP_SPLIT) {
            size_t t1 = (size_t)((long)pc + i->x);
            if (mark[t1] != gen) {
                mark[t1] = gen;
                stack[top++] = (uint16_t)t1;
            }
            if (i->op == OP_SPLIT) {
                size_t t2 = (size_t)((long)pc + i->y);
                if (mark[t2] != gen) {
                    mark[t2] = gen;
                    stack[top++] = (uint16_t)t2;
                }
            }
        } else {
            l->pc[l->n++] = (uint16_t)pc;
        }
    }
}

static int in_class(const compiler *c, const insn *i, uint32_t cp)
{
    size_t k;
    for (k = 0; k < i->nr; k++) {
        const range *r = &c->ranges[i->c + k];
        if (cp >= r->lo && cp <= r->hi)
            return !i->neg;
    }
    return i->neg;
}

static int run(const compiler *c, const char *s, size_t len)
{
    thread_list a, b, *cur = &a, *nxt = &b, *tmp;
    uint32_t mark[MAX_INSNS], gen = 1;
    const char *p = s, *end = s + len;
    size_t k;
    memset(mark, 0, c->n * sizeof mark[0]);
    a.n = 0;
    add_thread(c, cur, mark, gen, 0);
    while (p < end) {
        uint32_t cp = next_cp(&p, end);
        if (cp == NO_CP) {
            cp = 0xFFFD; /* a stray byte is one unknown character */
            p++;
        }
        gen++;
        nxt->n = 0;
        for (k = 0; k < cur->n; k++) {
            const insn *i = &c->prog[cur->pc[k]];
            int ok;
            switch (i->op) {
            case OP_CHAR: ok = cp == i->c; break;
            case OP_ANY: ok = cp != '\n' && cp != '\r'; break;
            case OP_CLASS: ok = in_class(c, i, cp); break;
            default: ok = 0; break;
            }
            if (ok)
                add_thread(c, nxt, mark, gen, (size_t)cur->pc[k] + 1);
        }
        tmp = cur;
        cur = nxt;
        nxt = tmp;
        if (cur->n == 0)
            return 0;
    }
    for (k = 0; k < cur->n; k++) {
        if (c->prog[cur->pc[k]].op == OP_MATCH)
            return 1;
    }
    return 0;
}

int aps_regex_match(const char *pattern, const char *s, size_t len)
{
    compiler c;
    if (pattern == NULL || (s == NULL && len != 0))
        return -1;
    c.p = pattern;
    c.end = pattern + strlen(pattern);
    c.depth = 0;
    c.n = 0;
    c.nr = 0;
    if (c.p < c.end && *c.p == '^')
        c.p++; /* a redundant anchor */
    if (!parse_alt(&c) || c.p != c.end || !emit(&c, OP_MATCH, 0, 0, 0))
        return -1;
    return run(&c, s != NULL ? s : "", len);
}
