/*
 * random_schema.c - the property "generated C compiles for every schema
 * cddlgen accepts", tested on schemas nobody wrote by hand: for each seed a
 * schema is built (by a generator of random rules, or by small edits to a
 * golden schema), `cddlgen generate` runs on it, and then
 *   exit 0  the output must compile with -std=c99 and the project's -Werror
 *           warnings (several outputs per compiler run, two runs at a time);
 *   exit 1  stderr must hold a located diagnostic, SCHEMA:LINE:COL:;
 *   else    (another status, a signal, the CPU or memory limit) a failure.
 * Every schema is saved in WORKDIR as sSEED.cddl, and a failure names its
 * seed, so `--seed SEED` runs that one schema again. At the end it prints
 * "N schemas: A generated and compiled, R rejected", and fails when fewer
 * than half were accepted (a generator that only makes rejected schemas
 * would test nothing).
 *
 * Usage: pipeline-random-schemas [--seeds N | --seed S] CDDLGEN CC WORKDIR
 *                                GOLDEN_DIR INCLUDE_DIR...
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"
#include "test_util.h"

#ifdef CDDLGEN_TEST_SANITIZED
/* ASan reserves terabytes of address space for its shadow: there, the CPU limit only */
#define MEMORY_LIMIT RLIM_INFINITY
#else
#define MEMORY_LIMIT ((rlim_t)512 << 20)
#endif
#define CPU_LIMIT 10 /* seconds: catches a hang; a schema here takes milliseconds */
#define BATCH 8      /* outputs per compiler run */
#define JOBS 2       /* compiler runs at a time */
#define MAX_RULES 10

/* ---- the generator ------------------------------------------------------ */

static uint64_t rng;

static unsigned pick(unsigned n)
{
    return (unsigned)(test_rand(&rng) % n);
}

static int chance(unsigned percent)
{
    return pick(100) < percent;
}

/*
 * Rule names chosen to meet each other once derived into C: a choice Foo
 * beside FooKind, a map Bar beside BarEntry, C keywords, names that differ
 * only in case or in '-' against '_', camel against snake case.
 */
static const char *const rule_names[] = {
    "Foo", "FooKind", "Bar", "BarEntry", "Baz", "BazType", "default", "int", "struct",
    "a-b", "a_b", "A-B", "fooBar", "foo_bar", "FooBar", "Item", "item", "ITEM", "msg.Type",
    "msg-type", "Value", "ValueKind", "Node", "NodeEntry", "union", "unsigned", "Enum",
};
/* Member names: the same kinds of collisions, inside one map. */
static const char *const member_names[] = {
    "int", "default", "kind", "type", "value", "a-b", "a_b", "A_B", "fooBar", "foo_bar",
    "FooBar", "struct", "count", "name", "x", "id", "if", "while", "n", "entry", "_", "has_x",
};
static const char *const prelude[] = {
    "int", "uint", "nint", "text", "tstr", "bool", "float", "float64", "number", "null",
    "nil", "any", "true", "false",
};

typedef struct gen {
    tlog out;
    const char *names[MAX_RULES]; /* the schema's rules, decided first */
    int is_group[MAX_RULES];      /* rule i is a group, ( ... ) */
    unsigned rules;
    unsigned generics; /* G0 .. G(generics-1): two-parameter generic maps */
    int type_socket, group_socket, plugged_type, plugged_group;
    unsigned depth;
    unsigned current; /* the rule being written: it refers to earlier ones, mostly */
    int in_group;     /* writing a group rule: its members are named after it */
} gen;

static void type(gen *g, int in_generic);

/* A member name not yet in this map (`taken`, a bit per name), mostly. */
static void member_name(gen *g, uint64_t *taken)
{
    unsigned n = sizeof member_names / sizeof *member_names, k = pick(n);
    if (g->in_group) /* a map that inlines the group can hold the same names */
        tlog_printf(&g->out, "g%u-", g->current);
    if (chance(70) && !(*taken & ((uint64_t)1 << k))) {
        *taken |= (uint64_t)1 << k;
        tlog_str(&g->out, member_names[k]);
    } else {
        tlog_printf(&g->out, "m%u", pick(1000));
    }
}

/*
 * A name of a type rule: an earlier one, so the schema is acyclic, or now
 * and then any (recursion, including rules with no base case).
 */
static void type_rule_ref(gen *g)
{
    unsigned i, n = chance(4) || g->current == 0 ? g->rules : g->current, start = pick(n);
    for (i = 0; i < n; i++) {
        unsigned k = (start + i) % n;
        if (!g->is_group[k]) {
            tlog_str(&g->out, g->names[k]);
            return;
        }
    }
    tlog_str(&g->out, "int");
}

static void control(gen *g)
{
    switch (pick(8)) {
    case 0: tlog_printf(&g->out, "tstr .size %u", 1 + pick(8)); break;
    case 1: tlog_printf(&g->out, "uint .size %u", 1 + pick(4)); break;
    case 2: tlog_str(&g->out, "tstr .regexp \"[a-z][a-z0-9-]*\""); break;
    case 3: tlog_printf(&g->out, "uint .lt %u", 1 + pick(100)); break;
    case 4: tlog_printf(&g->out, "int .le %d", (int)pick(20) - 10); break;
    case 5: tlog_printf(&g->out, "%d..%d", -(int)pick(5), (int)pick(100)); break;
    case 6: tlog_str(&g->out, "0.0..1.0"); break;
    default: tlog_printf(&g->out, "tstr .size (%u..%u)", pick(3), 3 + pick(10)); break;
    }
}

static void literal(gen *g, unsigned i)
{
    if (chance(70))
        tlog_printf(&g->out, "\"%s%u\"", chance(50) ? "v" : "a-b", i);
    else
        tlog_printf(&g->out, "%u", i);
}

static void members(gen *g, int in_generic, int allow_socket)
{
    unsigned i, n = 1 + pick(3);
    uint64_t taken = 0;
    for (i = 0; i < n; i++) {
        if (i)
            tlog_str(&g->out, ", ");
        if (chance(40))
            tlog_str(&g->out, "? ");
        member_name(g, &taken);
        tlog_str(&g->out, ": ");
        if (chance(15)) {
            tlog_printf(&g->out, "uint .default %u", pick(10));
            continue;
        }
        type(g, in_generic);
    }
    for (i = 0; i < g->current; i++) /* earlier groups only: a group inside itself is an error */
        if (g->is_group[i] && chance(25))
            tlog_printf(&g->out, ", %s", g->names[i]);
    if (allow_socket && g->group_socket && chance(40))
        tlog_str(&g->out, ", $$ext");
    if (chance(10))
        tlog_str(&g->out, ", * text => any");
}

static void map(gen *g, int in_generic)
{
    tlog_str(&g->out, "{ ");
    members(g, in_generic, 1);
    tlog_str(&g->out, " }");
}

static void type(gen *g, int in_generic)
{
    unsigned r;
    if (++g->depth > 3) {
        tlog_str(&g->out, prelude[pick(sizeof prelude / sizeof *prelude)]);
        g->depth--;
        return;
    }
    r = pick(in_generic ? 12 : 11);
    switch (r) {
    case 0: case 1: case 2:
        tlog_str(&g->out, prelude[pick(sizeof prelude / sizeof *prelude)]);
        break;
    case 3:
        type_rule_ref(g);
        break;
    case 4:
        control(g);
        break;
    case 5:
        map(g, in_generic);
        break;
    case 6:
        tlog_str(&g->out, chance(50) ? "[* " : "[+ ");
        type(g, in_generic);
        tlog_str(&g->out, "]");
        break;
    case 7: /* a mixed array */
        tlog_str(&g->out, "[");
        type(g, in_generic);
        tlog_str(&g->out, ", ");
        type(g, in_generic);
        tlog_str(&g->out, "]");
        break;
    case 8:
        if (g->generics && !in_generic) { /* (a generic in a generic could grow without end) */
            /* shallow arguments: every instance is C of its own, and deep
             * ones made outputs of megabytes that took seconds to compile */
            unsigned depth = g->depth;
            g->depth = 3;
            tlog_printf(&g->out, "G%u<", pick(g->generics));
            type(g, in_generic);
            tlog_str(&g->out, ", ");
            if (chance(50))
                type_rule_ref(g);
            else
                type(g, in_generic);
            tlog_str(&g->out, ">");
            g->depth = depth;
        } else {
            tlog_str(&g->out, "text");
        }
        break;
    case 9:
        if (g->type_socket)
            tlog_str(&g->out, "$msg");
        else
            tlog_str(&g->out, "float");
        break;
    case 10: /* parenthesized: a generic argument ends at '/' otherwise */
        tlog_str(&g->out, "(");
        literal(g, pick(5));
        tlog_str(&g->out, " / ");
        literal(g, 5 + pick(5));
        tlog_str(&g->out, ")");
        break;
    default:
        tlog_str(&g->out, chance(50) ? "T" : "U");
        break;
    }
    g->depth--;
}

/* The body of rule i; rules that are groups get a group. */
static void rule_body(gen *g, unsigned i)
{
    unsigned k, n;
    if (g->is_group[i]) {
        tlog_str(&g->out, "( ");
        if (chance(60))
            tlog_printf(&g->out, "method: \"m%u\", ", i);
        g->in_group = 1;
        members(g, 0, 0);
        g->in_group = 0;
        tlog_str(&g->out, " )");
        return;
    }
    switch (pick(9)) {
    case 0: case 1:
        map(g, 0);
        break;
    case 2: /* an enum of text, or of integers */
        n = 2 + pick(5);
        for (k = 0; k < n; k++) {
            if (k)
                tlog_str(&g->out, " / ");
            if (chance(85))
                tlog_printf(&g->out, "\"%s\"", member_names[pick(sizeof member_names / sizeof *member_names)]);
            else
                tlog_printf(&g->out, "%u", k);
        }
        break;
    case 3: /* a choice of maps, with or without a literal that tells them apart */
        n = 2 + pick(3);
        for (k = 0; k < n; k++) {
            tlog_str(&g->out, k ? " / { " : "{ ");
            if (chance(70))
                tlog_printf(&g->out, "type: \"t%u\", ", k);
            members(g, 0, 1);
            tlog_str(&g->out, " }");
        }
        break;
    case 4: /* a map with a group choice of groups */
        tlog_str(&g->out, "{ m-id: uint, ( ");
        n = 2 + pick(2);
        for (k = 0; k < n; k++) {
            if (k)
                tlog_str(&g->out, " // ");
            if (chance(60))
                tlog_printf(&g->out, "op: \"o%u\", ", k);
            members(g, 0, 0);
        }
        tlog_str(&g->out, " ) }");
        break;
    case 5: /* an alias, possibly of another alias */
        type_rule_ref(g);
        break;
    case 6: /* a choice of rules */
        type_rule_ref(g);
        tlog_str(&g->out, " / ");
        type_rule_ref(g);
        break;
    default:
        type(g, 0);
        break;
    }
}

static void random_schema(uint64_t seed, tlog *out)
{
    gen g;
    unsigned i, k;
    memset(&g, 0, sizeof g);
    rng = seed * 0x2545F4914F6CDD1Dull + 1;
    g.rules = 3 + pick(MAX_RULES - 2);
    for (i = 0; i < g.rules; i++) {
        /* distinct names: a rule defined twice differently is (rightly) an error */
        const char *name;
        int used;
        do {
            name = chance(60) ? rule_names[pick(sizeof rule_names / sizeof *rule_names)] : NULL;
            used = 0;
            for (k = 0; k < i && name != NULL; k++)
                used |= strcmp(g.names[k], name) == 0;
        } while (used);
        if (name == NULL) {
            static char numbered[MAX_RULES][16];
            snprintf(numbered[i], sizeof numbered[i], "r%u", i);
            name = numbered[i];
        }
        g.names[i] = name;
        g.is_group[i] = i > 0 && chance(20);
    }
    g.generics = pick(3);
    g.type_socket = chance(30);
    g.group_socket = chance(30);
    g.plugged_type = chance(75);
    g.plugged_group = chance(50);
    tlog_printf(&g.out, "; random schema, seed %llu\n", (unsigned long long)seed);
    for (i = 0; i < g.rules; i++) {
        g.current = i;
        tlog_printf(&g.out, "%s = ", g.names[i]);
        rule_body(&g, i);
        tlog_str(&g.out, "\n");
    }
    g.current = g.rules;
    for (i = 0; i < g.generics; i++) {
        tlog_printf(&g.out, "G%u<T, U> = ", i);
        if (chance(50)) {
            tlog_str(&g.out, "{ ");
            members(&g, 1, 0);
            tlog_str(&g.out, " }");
        } else {
            type(&g, 1);
        }
        tlog_str(&g.out, "\n");
    }
    if (g.type_socket && g.plugged_type) {
        tlog_str(&g.out, "$msg /= ");
        type_rule_ref(&g);
        tlog_str(&g.out, "\n$msg /= { kind: \"plug\" }\n");
    }
    if (g.group_socket && g.plugged_group)
        tlog_str(&g.out, "$$ext //= ( ? trace: text )\n");
    *out = g.out;
}

/* ---- the mutator -------------------------------------------------------- */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '$' || c == '@';
}

/* The names the schema's rules define (at a line start, before '=' or '<'). */
static unsigned defined_names(const char *s, char names[][64], unsigned max)
{
    unsigned n = 0;
    const char *line = s;
    while (*line && n < max) {
        size_t len = 0;
        while (ident_char(line[len]))
            len++;
        if (len > 0 && len < 64 && line[0] != '$' && !isdigit((unsigned char)line[0])) {
            const char *p = line + len;
            while (*p == ' ')
                p++;
            if (*p == '=' || *p == '<') {
                memcpy(names[n], line, len);
                names[n++][len] = '\0';
            }
        }
        line = strchr(line, '\n');
        if (line == NULL)
            break;
        line++;
    }
    return n;
}

/* s with every whole-word `from` replaced by `to`. */
static void replace_word(const char *s, const char *from, const char *to, tlog *out)
{
    size_t n = strlen(from);
    const char *p = s;
    while (*p) {
        if (strncmp(p, from, n) == 0 && (p == s || !ident_char(p[-1])) && !ident_char(p[n])) {
            tlog_str(out, to);
            p += n;
        } else {
            tlog_add(out, p, 1);
            p++;
        }
    }
}

/* The start of the k-th (mod count) line that is a member, `  name: ...`; NULL if none. */
static const char *member_line(const char *s, unsigned k)
{
    const char *lines[512];
    unsigned n = 0;
    const char *line = s;
    while (line && *line && n < 512) {
        const char *p = line;
        if (*p == ' ' || *p == '\t') {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '?')
                p++;
            while (*p == ' ')
                p++;
            if (ident_char(*p)) {
                while (ident_char(*p))
                    p++;
                if (*p == ':')
                    lines[n++] = line;
            }
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return n ? lines[k % n] : NULL;
}

static void mutate_once(char **text)
{
    char names[64][64];
    unsigned n = defined_names(*text, names, 64);
    const char *line;
    tlog out;
    memset(&out, 0, sizeof out);
    switch (pick(4)) {
    case 0: { /* rename a rule to another's derived name: Foo beside FooKind */
        static const char *const suffix[] = { "Kind", "Entry", "Type", "_kind", "-entry", "" };
        char to[80];
        unsigned a, b;
        if (n < 2)
            return;
        a = pick(n);
        b = pick(n);
        if (a == b)
            b = (b + 1) % n;
        snprintf(to, sizeof to, "%s%s", names[a], suffix[pick(6)]);
        if (strcmp(to, names[a]) == 0) /* same name, but differing in case or '-' */
            to[0] = (char)(isupper((unsigned char)to[0]) ? tolower((unsigned char)to[0]) : toupper((unsigned char)to[0]));
        tlog_printf(&out, "; renamed %s to %s\n", names[b], to);
        replace_word(*text, names[b], to, &out);
        break;
    }
    case 1: /* duplicate a member */
        line = member_line(*text, pick(1000));
        if (line == NULL)
            return;
        tlog_add(&out, *text, (size_t)(line - *text));
        tlog_add(&out, line, (size_t)(strchr(line, '\n') - line) + 1);
        tlog_str(&out, line);
        break;
    case 2: { /* swap a prelude type for another */
        static const char *const types[] = { "int", "uint", "text", "float", "bool", "tstr", "any", "null" };
        const char *from = types[pick(8)], *to = types[pick(8)];
        replace_word(*text, from, to, &out);
        break;
    }
    default: /* make a member optional */
        line = member_line(*text, pick(1000));
        if (line == NULL)
            return;
        tlog_add(&out, *text, (size_t)(line - *text));
        tlog_str(&out, "  ? ");
        tlog_str(&out, line);
        break;
    }
    free(*text);
    *text = out.s;
}

typedef struct goldens {
    char *paths[256];
    unsigned n;
} goldens;

static void add_golden(void *ctx, const char *path, const char *name)
{
    goldens *g = ctx;
    (void)name;
    if (g->n < 256)
        g->paths[g->n++] = strdup(path);
}

/* A golden schema with one to three edits. */
static int mutated_schema(uint64_t seed, const goldens *gs, tlog *out)
{
    char *text;
    unsigned i, edits;
    rng = seed * 0x2545F4914F6CDD1Dull + 7;
    text = test_read_file(gs->paths[pick(gs->n)], NULL);
    if (text == NULL)
        return -1;
    edits = 1 + pick(3);
    for (i = 0; i < edits && text; i++)
        mutate_once(&text);
    if (text == NULL)
        return -1;
    tlog_printf(out, "; golden schema mutated, seed %llu\n", (unsigned long long)seed);
    tlog_str(out, text);
    free(text);
    return 0;
}

/* ---- running cddlgen and the compiler ------------------------------------ */

/* Forks argv with stdout and stderr to `log` (in `dir` if not NULL); returns the pid. */
static pid_t start(const char *const *argv, const char *log, const char *dir, int limits)
{
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        struct rlimit mem = { MEMORY_LIMIT, MEMORY_LIMIT }, cpu = { CPU_LIMIT, CPU_LIMIT };
        if (limits && (setrlimit(RLIMIT_AS, &mem) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0))
            _exit(120);
        if ((dir != NULL && chdir(dir) != 0) || freopen(log, "w", stdout) == NULL ||
            dup2(fileno(stdout), 2) < 0)
            _exit(120);
        execvp(argv[0], (char *const *)argv);
        _exit(121);
    }
    return pid;
}

static int finish(pid_t pid)
{
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

/* Does `err` hold "PATH:LINE:COL:"? */
static int located(const char *err, const char *path)
{
    size_t n = strlen(path);
    const char *p = err;
    while ((p = strstr(p, path)) != NULL) {
        const char *q = p + n;
        p = q;
        if (*q++ != ':' || !isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ':' || !isdigit((unsigned char)*q))
            continue;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q == ':')
            return 1;
    }
    return 0;
}

typedef struct run {
    const char *cddlgen, *cc;
    char *work;
    char **includes;
    int nincludes;
    unsigned long accepted[1024];
    unsigned naccepted, rejected, failed, uncompiled;
} run;

static void print_file(const char *path)
{
    char *text = test_read_file(path, NULL);
    fprintf(stderr, "%s\n", text ? text : "(unreadable)");
    free(text);
}

/* Builds and tries seed's schema; failures are printed with the seed. */
static void try_seed(run *r, unsigned long seed, const goldens *gs)
{
    char schema[4096], out[4096], log[4096], prefix[32];
    tlog text;
    FILE *f;
    int status;
    memset(&text, 0, sizeof text);
    if (seed % 4 == 0 && gs->n > 0) {
        if (mutated_schema(seed, gs, &text) != 0) {
            fprintf(stderr, "seed %lu: cannot read a golden schema\n", seed);
            r->failed++;
            return;
        }
    } else {
        random_schema(seed, &text);
    }
    snprintf(prefix, sizeof prefix, "s%lu", seed);
    snprintf(schema, sizeof schema, "%s/%s.cddl", r->work, prefix);
    snprintf(out, sizeof out, "%s/%s", r->work, prefix);
    snprintf(log, sizeof log, "%s/%s.stderr", r->work, prefix);
    f = fopen(schema, "wb");
    if (f == NULL || fwrite(text.s, 1, text.len, f) != text.len || fclose(f) != 0) {
        perror(schema);
        exit(2);
    }
    tlog_free(&text);
    {
        const char *argv[] = { r->cddlgen, "generate", schema, "--prefix", prefix, "--out", out, NULL };
        status = finish(start(argv, log, NULL, 1));
    }
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        r->accepted[r->naccepted++] = seed;
        return;
    }
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1) {
        char *err = test_read_file(log, NULL);
        int ok = err != NULL && located(err, schema);
        free(err);
        if (ok) {
            r->rejected++;
            return;
        }
        fprintf(stderr, "FAIL seed %lu: cddlgen rejected %s without a located diagnostic:\n", seed, schema);
    } else if (status != -1 && WIFSIGNALED(status)) {
        fprintf(stderr, "FAIL seed %lu: cddlgen killed by signal %d on %s (limits: %d s CPU, 512 MB)\n", seed,
                WTERMSIG(status), schema, CPU_LIMIT);
    } else {
        fprintf(stderr, "FAIL seed %lu: cddlgen exited with status %d on %s\n", seed,
                status == -1 ? -1 : WEXITSTATUS(status), schema);
    }
    print_file(log);
    fprintf(stderr, "schema:\n");
    print_file(schema);
    r->failed++;
}

/* Compiler argv for the outputs of seeds[0..n): sources compiled in r->work/objects. */
static const char **compile_argv(const run *r, const unsigned long *seeds, unsigned n, char **owned)
{
    static const char *const flags[] = { "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow",
                                         "-Wstrict-prototypes", "-Wmissing-prototypes", "-Werror", "-c" };
    const char **argv = calloc(32 + (size_t)r->nincludes + n, sizeof *argv);
    size_t k = 0, i;
    if (argv == NULL)
        exit(2);
    argv[k++] = r->cc;
    for (i = 0; i < sizeof flags / sizeof *flags; i++)
        argv[k++] = flags[i];
    for (i = 0; i < (size_t)r->nincludes; i++) {
        owned[i] = malloc(strlen(r->includes[i]) + 3);
        if (owned[i] == NULL)
            exit(2);
        sprintf(owned[i], "-I%s", r->includes[i]);
        argv[k++] = owned[i];
    }
    for (i = 0; i < n; i++) {
        char *src = malloc(strlen(r->work) + 64);
        if (src == NULL)
            exit(2);
        sprintf(src, "%s/s%lu/s%lu.c", r->work, seeds[i], seeds[i]);
        owned[r->nincludes + i] = src;
        argv[k++] = src;
    }
    return argv;
}

static void free_argv(const char **argv, char **owned, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(owned[i]);
    free((void *)argv);
}

/* Compiles the accepted outputs BATCH at a time, JOBS at once; a failed batch file by file. */
static void compile_all(run *r)
{
    char objects[4096], log[4096 + 64];
    unsigned at = 0;
    snprintf(objects, sizeof objects, "%s/objects", r->work);
    if (mkdir(objects, 0777) != 0 && access(objects, W_OK) != 0) {
        perror(objects);
        exit(2);
    }
    while (at < r->naccepted) {
        pid_t pids[JOBS];
        unsigned from[JOBS], count[JOBS], j, jobs = 0;
        for (j = 0; j < JOBS && at < r->naccepted; j++, jobs++) {
            char *owned[64 + BATCH];
            const char **argv;
            from[j] = at;
            count[j] = r->naccepted - at < BATCH ? r->naccepted - at : BATCH;
            at += count[j];
            argv = compile_argv(r, r->accepted + from[j], count[j], owned);
            snprintf(log, sizeof log, "%s/batch%u.log", objects, j);
            pids[j] = start(argv, log, objects, 0);
            free_argv(argv, owned, (size_t)r->nincludes + count[j]);
        }
        for (j = 0; j < jobs; j++) {
            int status = finish(pids[j]);
            unsigned i;
            if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
                continue;
            for (i = 0; i < count[j]; i++) { /* which output does not compile */
                unsigned long seed = r->accepted[from[j] + i];
                char *owned[64 + 1];
                const char **argv = compile_argv(r, &seed, 1, owned);
                snprintf(log, sizeof log, "%s/s%lu.cc.log", r->work, seed);
                status = finish(start(argv, log, objects, 0));
                free_argv(argv, owned, (size_t)r->nincludes + 1);
                if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
                    continue;
                fprintf(stderr, "FAIL seed %lu: the C generated from %s/s%lu.cddl does not compile:\n", seed,
                        r->work, seed);
                print_file(log);
                snprintf(log, sizeof log, "%s/s%lu.cddl", r->work, seed);
                fprintf(stderr, "schema:\n");
                print_file(log);
                r->failed++;
                r->uncompiled++;
            }
        }
    }
}

int main(int argc, char **argv)
{
    static run r;
    goldens gs;
    unsigned long first = 1, last = 120, seed;
    int a = 1, i;
    memset(&gs, 0, sizeof gs);
    if (a + 1 < argc && strcmp(argv[a], "--seeds") == 0) {
        last = strtoul(argv[a + 1], NULL, 10);
        a += 2;
    } else if (a + 1 < argc && strcmp(argv[a], "--seed") == 0) {
        first = last = strtoul(argv[a + 1], NULL, 10);
        a += 2;
    }
    if (argc - a < 5 || last < first || last - first >= 1024) {
        fprintf(stderr, "usage: pipeline-random-schemas [--seeds N | --seed S] CDDLGEN CC WORKDIR GOLDEN_DIR "
                        "INCLUDE_DIR...\n");
        return 2;
    }
    r.cddlgen = argv[a];
    r.cc = argv[a + 1];
    r.includes = argv + a + 4;
    r.nincludes = argc - a - 4;
    /* absolute: the compiler runs in WORKDIR/objects */
    if (r.nincludes > 64 || (mkdir(argv[a + 2], 0777) != 0 && access(argv[a + 2], W_OK) != 0) ||
        (r.work = realpath(argv[a + 2], NULL)) == NULL) {
        perror(argv[a + 2]);
        return 2;
    }
    for (i = 0; i < r.nincludes; i++) {
        if ((r.includes[i] = realpath(r.includes[i], NULL)) == NULL) {
            perror(argv[a + 4 + i]);
            return 2;
        }
    }
    if (test_for_each_file(argv[a + 3], ".cddl", add_golden, &gs) <= 0) {
        fprintf(stderr, "no golden schemas in %s\n", argv[a + 3]);
        return 2;
    }
    for (seed = first; seed <= last; seed++)
        try_seed(&r, seed, &gs);
    compile_all(&r);
    printf("%lu schemas: %u generated and compiled, %u rejected (seeds %lu..%lu; schemas in %s)\n",
           last - first + 1, r.naccepted - r.uncompiled, r.rejected, first, last, r.work);
    if (r.failed)
        printf("%u failed: rerun one with --seed SEED\n", r.failed);
    CHECK_INT((int)r.failed, 0);
    if (first != last) /* a generator that only makes rejected schemas tests nothing */
        CHECK(r.naccepted * 2 >= last - first + 1);
    while (gs.n > 0)
        free(gs.paths[--gs.n]);
    for (i = 0; i < r.nincludes; i++)
        free(r.includes[i]);
    free(r.work);
    return test_report();
}
