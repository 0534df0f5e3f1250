/*
 * main.c - the cddlgen command line.
 *
 *   cddlgen check [OPTIONS] FILE...     every stage of generate but writing: the same diagnostics
 *   cddlgen print FILE                  re-emit a schema as canonical CDDL
 *   cddlgen generate FILE... --prefix P --out DIR [--root RULE]... [--templates DIR] [--embed-runtime] [--size] [--cbor]
 *   cddlgen validate SCHEMA --type RULE [--input F] [--output text|json] [FILE...]
 *   cddlgen diff [--direction backward|forward] OLD NEW
 *
 * Exit status: 0 ok, 1 schema errors, 2 usage or I/O errors.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cddl.h"
#include "diff.h"
#include "emit.h"
#include "embed_runtime.h"
#include "frontend.h"
#include "outfile.h"
#include "validate.h"

#ifndef CDDLGEN_VERSION
#define CDDLGEN_VERSION "0.0.0"
#endif

static const char usage_text[] =
    "usage: cddlgen COMMAND [OPTIONS] FILE...\n"
    "\n"
    "Commands:\n"
    "  check FILE...        check CDDL schemas (RFC 8610, 9165, 9682): every stage of\n"
    "                       generate but writing, with the same diagnostics\n"
    "  print FILE           print a schema back as canonical CDDL\n"
    "  generate FILE...     write C types, descriptors and codecs: PREFIX.h and PREFIX.c\n"
    "                       (several files are one schema, read in order)\n"
    "  validate SCHEMA [FILE...]  check JSON instances against rule --type of SCHEMA\n"
    "                       (FILE \"-\" or none: standard input; files are read as streams)\n"
    "  diff OLD NEW         what changed between two schemas, and whether each change is\n"
    "                       compatible backward and forward (exit 1 when something breaks;\n"
    "                       --direction backward|forward checks one direction only)\n"
    "\n"
    "Options:\n"
    "  --prefix P           prefix of every generated symbol (generate; default: ap)\n"
    "  --out DIR            where generate writes its files (default: .; made with its parents if missing)\n"
    "  --root RULE          generate only what RULE reaches (repeatable)\n"
    "  --feature NAME       enable an RFC 9165 feature beside \"json\" (repeatable): a type\n"
    "                       marked `.feature` with a name not enabled matches nothing\n"
    "  --templates DIR      templates to use instead of the built-in ones\n"
    "  --embed-runtime      generate: put the runtime in PREFIX.h and PREFIX.c too, so the\n"
    "                       pair compiles alone (vendoring; one such pair per program)\n"
    "  --cbor               generate: also PREFIX_T_decode_cbor / _encode_cbor for every type\n"
    "                       (RFC 8949 CBOR over the same C types; docs/cbor.md); check: read the\n"
    "                       schema as generate --cbor reads it\n"
    "  --size               generate: descriptors only, no straight-line readers, validators\n"
    "                       or encoders: the runtime's tables decode, check and encode every\n"
    "                       type (a twentieth of the machine code, a third of the speed)\n"
    "  --type RULE          validate: the rule every instance must match\n"
    "  --input F            validate: the input format: json (one document), jsonl, sse or\n"
    "                       auto (default: detected from the head of each file); cbor (one\n"
    "                       item) or cborseq (an RFC 8742 sequence, each item a record)\n"
    "  --output text|json   validate: report format (default text: FILE:LINE: error: ...)\n"
    "  --format F           validate: jsonl, sse or auto is --input F; json is --output json\n"
    "                       (the older spelling, kept)\n"
    "  --max-errors N       validate: show at most N errors (default 100; 0: all)\n"
    "  --case C             validate: key spelling either (default), schema or snake\n"
    "  --tolerant           validate: accept unknown variants, as a consuming application\n"
    "                       does (by default validation reports them)\n"
    "  --syntax-only        check: stop after names and kinds; do not ask whether C and\n"
    "                       JSON can represent the schema (for CBOR-only schemas)\n"
    "  -fmax-errors=N       stop showing errors (and warnings) after N of each\n"
    "                       (default 20; 0: no limit); the count of the rest is printed\n"
    "  --strict             treat loose readings of the schema as errors;\n"
    "                       validate: also SSE that ends inside an event\n"
    "  -Wunused             warn about rules nothing references\n"
    "  -Wno-GROUP           silence a warning group (loose, choice, naming, shadow, range,\n"
    "                       pedantic, json)\n"
    "  -Werror              treat all warnings as errors\n"
    "  --help, --version\n"
    "\n"
    "Exit status: 0 ok, 1 schema errors, 2 usage or I/O errors.\n";

/*
 * `cddlgen COMMAND --help`: the command's synopsis, then its entries of
 * usage_text (the command and the options it takes), so that the two texts
 * cannot drift apart. diff's own option is not in usage_text.
 */
static const struct command_help {
    const char *name, *synopsis;
    const char *options[14]; /* the names of its entries under Options: */
    const char *own;         /* options of its own, as written here */
} command_help[] = {
    { "check", "check [OPTIONS] FILE...",
      { "--feature", "--cbor", "--syntax-only", "-fmax-errors", "--strict", "-Wunused", "-Wno-GROUP", "-Werror" }, NULL },
    { "print", "print [OPTIONS] FILE",
      { "--feature", "-fmax-errors", "--strict", "-Wunused", "-Wno-GROUP", "-Werror" }, NULL },
    { "generate", "generate FILE... [--prefix P] [--out DIR] [--root RULE]... [--templates DIR] [--embed-runtime] [--size] [--cbor]",
      { "--prefix", "--out", "--root", "--feature", "--templates", "--embed-runtime", "--size", "--cbor", "-fmax-errors",
        "--strict", "-Wunused", "-Wno-GROUP", "-Werror" },
      NULL },
    { "validate", "validate SCHEMA --type RULE [OPTIONS] [FILE...]",
      { "--type", "--input", "--output", "--format", "--max-errors", "--case", "--tolerant", "--feature", "--strict" },
      NULL },
    { "diff", "diff [--direction backward|forward|both] OLD NEW", { NULL },
      "  --direction D        backward, forward or both (the default): which compatibility to check\n" },
};

/* Whether `line` (of usage_text) starts an entry named `name`: "  NAME" then a space, ',' or '='. */
static int entry_named(const char *line, const char *name)
{
    size_t n = strlen(name);
    return strncmp(line, "  ", 2) == 0 && strncmp(line + 2, name, n) == 0 &&
           (line[2 + n] == ' ' || line[2 + n] == ',' || line[2 + n] == '=');
}

/* Prints the entry of usage_text named `name` (under `section`), with its continuation lines. */
static void print_entry(FILE *out, const char *section, const char *name)
{
    const char *p = strstr(usage_text, section), *end;
    int in = 0;
    /* the section ends at its blank line; every line of usage_text ends with '\n' */
    for (; p != NULL && (end = strchr(p, '\n')) != NULL && end != p; p = end + 1) {
        if (p[0] == ' ' && p[1] == ' ' && p[2] != ' ')
            in = entry_named(p, name);
        if (in)
            fwrite(p, 1, (size_t)(end - p) + 1, out);
    }
}

/* `cddlgen COMMAND --help` on `out`; -1 when COMMAND is not one of ours. */
static int print_command_help(FILE *out, const char *command)
{
    size_t i, k;
    for (i = 0; i < sizeof command_help / sizeof command_help[0]; i++) {
        const struct command_help *h = &command_help[i];
        if (strcmp(h->name, command) != 0)
            continue;
        fprintf(out, "usage: cddlgen %s\n\n", h->synopsis);
        print_entry(out, "Commands:\n", h->name);
        fputs("\nOptions:\n", out);
        for (k = 0; k < sizeof h->options / sizeof h->options[0] && h->options[k] != NULL; k++)
            print_entry(out, "Options:\n", h->options[k]);
        if (h->own != NULL)
            fputs(h->own, out);
        fputs("  --help, -h\n\nExit status: 0 ok, 1 schema errors, 2 usage or I/O errors.\n", out);
        return 0;
    }
    return -1;
}

typedef struct options {
    const char *command;
    const char **files;
    int nfiles;
    const char **roots;
    int nroots;
    const char **features;     /* --feature NAME */
    int nfeatures;
    cddl_compile_options compile; /* --strict and the -W flags */
    emit_options emit;
    int embed_runtime;         /* generate --embed-runtime */
    int syntax_only;           /* check --syntax-only */
    long max_errors;           /* -fmax-errors=N; -1: not given */
    validate_options validate;
    const char *max_record_errors; /* validate --max-errors (records), parsed by parse_count */
} options;

/* -WGROUP or -Wno-GROUP: the later of two flags for one group wins. */
static int set_warning(cddl_compile_options *o, const char *name, int on)
{
    static const struct { const char *name; diag_group group; } groups[] = {
        { "loose", DIAG_W_LOOSE }, { "unused", DIAG_W_UNUSED }, { "choice", DIAG_W_CHOICE },
        { "naming", DIAG_W_NAMING }, { "shadow", DIAG_W_SHADOW }, { "range", DIAG_W_RANGE },
        { "pedantic", DIAG_W_PEDANTIC }, { "json", DIAG_W_JSON },
    };
    size_t i;
    for (i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        if (strcmp(groups[i].name, name) == 0) {
            unsigned bit = CDDL_WARN(groups[i].group);
            o->warn_on = on ? o->warn_on | bit : o->warn_on & ~bit;
            o->warn_off = on ? o->warn_off & ~bit : o->warn_off | bit;
            return 0;
        }
    }
    return -1;
}

static int valid_prefix(const char *p)
{
    size_t i;
    if (p[0] == '\0' || !((p[0] >= 'a' && p[0] <= 'z') || p[0] == '_') || strlen(p) > 32)
        return 0;
    for (i = 0; p[i] != '\0'; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
            return 0;
    return 1;
}

/* A count: decimal digits only (no sign, no space, no suffix), within unsigned long long. */
static int parse_count(const char *s, unsigned long long *out)
{
    unsigned long long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s != '\0'; s++) {
        unsigned d = (unsigned)(unsigned char)*s - '0';
        if (d > 9 || v > (ULLONG_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Parses argv into `o`. Returns 0, or 2 after printing usage. */
static int parse_args(int argc, char **argv, options *o)
{
    int i;
    o->files = calloc((size_t)argc, sizeof *o->files);
    o->roots = calloc((size_t)argc, sizeof *o->roots);
    o->features = calloc((size_t)argc, sizeof *o->features);
    o->emit.prefix = "ap";
    o->emit.out_dir = ".";
    if (o->files == NULL || o->roots == NULL || o->features == NULL)
        return 2;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **value = strcmp(a, "--prefix") == 0 ? &o->emit.prefix
                             : strcmp(a, "--out") == 0 ? &o->emit.out_dir
                             : strcmp(a, "--templates") == 0 ? &o->emit.templates_dir
                             : strcmp(a, "--type") == 0 ? &o->validate.type
                             : strcmp(a, "--format") == 0 ? &o->validate.format
                             : strcmp(a, "--output") == 0 ? &o->validate.output
                             : strcmp(a, "--input") == 0 ? &o->validate.input
                             : strcmp(a, "--case") == 0 ? &o->validate.key_case
                             : strcmp(a, "--max-errors") == 0 ? &o->max_record_errors
                             : strcmp(a, "--root") == 0 ? &o->roots[o->nroots]
                             : strcmp(a, "--feature") == 0 ? &o->features[o->nfeatures] : NULL;
        if (value == NULL && strncmp(a, "--", 2) == 0 && strchr(a, '=') != NULL) {
            /* --name=value, for each option that takes a value */
            static const char *const names[] = { "--format=", "--input=", "--output=", "--case=", "--type=",
                                                 "--max-errors=" };
            const char **slots[6];
            size_t k;
            slots[0] = &o->validate.format;
            slots[1] = &o->validate.input;
            slots[2] = &o->validate.output;
            slots[3] = &o->validate.key_case;
            slots[4] = &o->validate.type;
            slots[5] = &o->max_record_errors;
            for (k = 0; k < 6; k++)
                if (strncmp(a, names[k], strlen(names[k])) == 0)
                    break;
            if (k < 6) {
                *slots[k] = a + strlen(names[k]);
                continue;
            }
        }
        if (value != NULL) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cddlgen: error: '%s' needs a value\n", a);
                return 2;
            }
            *value = argv[++i];
            if (value == &o->roots[o->nroots])
                o->nroots++;
            if (value == &o->features[o->nfeatures])
                o->nfeatures++;
            continue;
        }
        if (strcmp(a, "--strict") == 0) {
            o->compile.strict = 1;
            o->validate.strict = 1;
        } else if (strcmp(a, "--tolerant") == 0) {
            o->validate.tolerant = 1;
        } else if (strcmp(a, "--embed-runtime") == 0) {
            o->embed_runtime = 1;
            o->emit.embed_runtime = 1;
        } else if (strcmp(a, "--size") == 0) {
            o->emit.tables_only = 1;
        } else if (strcmp(a, "--cbor") == 0) {
            o->emit.cbor = 1;
            o->compile.cbor = 1;
        } else if (strcmp(a, "--syntax-only") == 0) {
            o->syntax_only = 1;
        } else if (strncmp(a, "-fmax-errors=", 13) == 0) {
            char *end;
            o->max_errors = strtol(a + 13, &end, 10);
            if (a[13] == '\0' || *end != '\0' || o->max_errors < 0 || o->max_errors > 1000000) {
                fprintf(stderr, "cddlgen: error: '%s' needs a count from 0 to 1000000\n", a);
                return 2;
            }
        } else if (strcmp(a, "-Werror") == 0) {
            o->compile.warn_error = CDDL_WARN_ALL;
        } else if (strncmp(a, "-Wno-", 5) == 0 && set_warning(&o->compile, a + 5, 0) == 0) {
        } else if (strncmp(a, "-W", 2) == 0 && set_warning(&o->compile, a + 2, 1) == 0) {
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cddlgen: error: unknown option '%s'\n%s", a, usage_text);
            return 2;
        } else if (o->command == NULL) {
            o->command = a;
        } else {
            o->files[o->nfiles++] = a;
        }
    }
    if (o->command == NULL) {
        fputs(usage_text, stderr);
        return 2;
    }
    o->validate.max_errors = 100;
    o->compile.features = o->features;
    o->compile.nfeatures = (size_t)o->nfeatures;
    o->validate.features = o->features;
    o->validate.nfeatures = (size_t)o->nfeatures;
    if (o->max_record_errors != NULL && parse_count(o->max_record_errors, &o->validate.max_errors) != 0) {
        fprintf(stderr, "cddlgen: error: --max-errors takes a whole number of decimal digits, not '%.60s'\n",
                o->max_record_errors);
        return 2;
    }
    if (!valid_prefix(o->emit.prefix)) {
        fprintf(stderr, "cddlgen: error: prefix '%s' is not a C identifier of lower-case letters, digits and '_'\n",
                o->emit.prefix);
        return 2;
    }
    return 0;
}

typedef enum action { ACT_CHECK, ACT_PRINT, ACT_GENERATE } action;

/*
 * Writes PREFIX.h and PREFIX.c for a lowered unit; with `check_only`,
 * everything but the writing, so `check` says what generate would.
 * Returns 0, 1 schema errors, 2 I/O error.
 */
static int generate(cddl_ctx *ctx, cddl_unit *u, const options *o, int check_only)
{
    const char *base = strrchr(u->path, '/');
    unsigned errors_before = ctx->diag->errors;
    emit_options eo = o->emit;
    if (check_only)
        eo.out_dir = NULL;
    u->mod.schema_name = base ? base + 1 : u->path;
    /* the --out folder with its parents, as mkdir -p; failing here is an I/O error (2) */
    if (!check_only && cddl_outfile_mkdirs(ctx, o->emit.out_dir) != 0)
        return 2;
    if (emit_module(ctx, &u->mod, &eo) != 0)
        return ctx->io_errors == 0 && ctx->diag->errors > errors_before ? 1 : 2;
    if (!check_only && o->embed_runtime && embed_runtime(ctx, &o->emit) != 0)
        return 2;
    return 0;
}

/* Compiles one file (and `more` after it, as one schema), then prints or generates. Returns 0 ok, 1
 * schema errors, 2 I/O error. */
static int compile_file(const char *path, const char *const *more, size_t nmore, action act, const options *o,
                        diag_ctx *d)
{
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_unit u;
    cddl_compile_options copt = o->compile;
    volatile int rc;
    cddl_ctx_init(&ctx, d);
    cddl_unit_init_file(&u, path);
    if (cddl_unit_add_files(&u, more, nmore) != 0) {
        fprintf(stderr, "cddlgen: error: out of memory\n");
        cddl_ctx_deinit(&ctx);
        return 2;
    }
    /* check runs what generate runs but emission, so it says what generate would say */
    copt.stop_after = act == ACT_PRINT || o->syntax_only ? CDDL_STAGE_CHECK : CDDL_STAGE_LOWER;
    copt.roots = o->roots;
    copt.nroots = (size_t)o->nroots;
    rc = cddl_compile(&ctx, &u, &copt);
    /* the emitters allocate from the arena too */
    if (setjmp(oom) != 0) {
        rc = 2;
    } else if (rc == 0) {
        ctx.oom = &oom;
        if (act == ACT_PRINT)
            cddl_print(stdout, u.doc);
        else if (act == ACT_GENERATE || !o->syntax_only)
            rc = generate(&ctx, &u, o, act == ACT_CHECK);
    }
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return rc;
}

static void report_suppressed(diag_ctx *d)
{
    if (d->suppressed > 0)
        fprintf(d->out, "cddlgen: %d more errors not shown\n", d->suppressed);
    if (d->suppressed_warnings > 0)
        fprintf(d->out, "cddlgen: %d more warnings not shown\n", d->suppressed_warnings);
}

int main(int argc, char **argv)
{
    options o;
    diag_ctx d;
    int rc = 0, i;
    memset(&o, 0, sizeof o);
    o.max_errors = -1;
    diag_init(&d, stderr);
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_text, stdout);
        return 0;
    }
    /* COMMAND --help (or -h) anywhere after it: that command's usage, whatever else is given */
    for (i = 2; i < argc; i++)
        if ((strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) && print_command_help(stdout, argv[1]) == 0)
            return 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            printf("cddlgen %s\n", CDDLGEN_VERSION);
            return 0;
        }
    }
    /* diff has options of its own (--direction) and reads two schemas */
    if (argc >= 2 && strcmp(argv[1], "diff") == 0)
        return diff_command(argc - 2, argv + 2);
    if ((rc = parse_args(argc, argv, &o)) != 0) {
        free(o.files);
        free(o.roots);
        free(o.features);
        return rc;
    }
    if (o.max_errors >= 0)
        d.max_errors = o.max_errors == 0 ? DIAG_NO_LIMIT : (unsigned)o.max_errors;
    if (strcmp(o.command, "check") == 0 || strcmp(o.command, "print") == 0 ||
        strcmp(o.command, "generate") == 0) {
        action act = o.command[0] == 'c' ? ACT_CHECK : o.command[0] == 'p' ? ACT_PRINT : ACT_GENERATE;
        if (o.nfiles == 0 || (act == ACT_PRINT && o.nfiles != 1)) {
            fprintf(stderr, "cddlgen: error: '%s' needs %s\n", o.command, act == ACT_PRINT ? "one FILE" : "FILE...");
            rc = 2;
        }
        if (act == ACT_GENERATE && rc != 2) { /* several files: one schema */
            rc = compile_file(o.files[0], o.files + 1, (size_t)o.nfiles - 1, act, &o, &d);
        } else {
            for (i = 0; rc != 2 && i < o.nfiles; i++) {
                int r = compile_file(o.files[i], NULL, 0, act, &o, &d);
                if (r > rc)
                    rc = r;
            }
        }
    } else if (strcmp(o.command, "validate") == 0) {
        static const char *const standard_input[] = { "-" };
        if (o.nfiles < 1 || o.validate.type == NULL) {
            fprintf(stderr, "cddlgen: error: 'validate' needs SCHEMA, --type RULE and FILE... (none: standard input)\n");
            rc = 2;
        } else if (o.nfiles == 1) {
            rc = validate_files(o.files[0], standard_input, 1, &o.validate, &d);
        } else {
            rc = validate_files(o.files[0], o.files + 1, (size_t)o.nfiles - 1, &o.validate, &d);
        }
    } else {
        fprintf(stderr, "cddlgen: error: unknown command '%s'\n%s", o.command, usage_text);
        rc = 2;
    }
    report_suppressed(&d);
    free(o.files);
    free(o.roots);
    free(o.features);
    return rc;
}
