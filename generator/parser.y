/*
 * parser.y - the CDDL grammar (RFC 8610 Appendix B as updated by RFC 9682).
 *
 * Nonterminals are named after the ABNF so the two can be read side by side.
 * Actions only call the AST constructors of ast_build.c; every check that
 * needs more than the syntax happens later, in sema.
 *
 * CDDL has no rule terminator: `a = b c = d` is two rules. The token filter
 * at the end of this file looks ahead and turns an `id` that starts a rule
 * (followed by `=`, `/=`, `//=`, or by generic parameters and one of those)
 * into RULENAME, which makes the grammar LALR(1) and gives error recovery a
 * synchronisation point: after a syntax error the parser skips to the next
 * RULENAME and goes on, so one run reports the errors of every rule.
 */
%require "3.5"
%define api.pure full
%define api.prefix {cddl_yy}
%define api.location.type {src_loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {cddl_parser *p}

%code requires {
#include "ast.h"

typedef struct cddl_parser cddl_parser;

/* What an occurrence indicator, a tag head and a parameter list carry. */
typedef struct cddl_occur_tok {
    char form;
    uint64_t min, max;
    ast_str text;
} cddl_occur_tok;

typedef struct cddl_tag_tok {
    unsigned major;
    int has_number;
    ast_str number;
    uint64_t value;
} cddl_tag_tok;

typedef struct cddl_params {
    ast_str *names;
    src_loc *locs;
    size_t count;
} cddl_params;

/* A rule's range starts at its first non-empty symbol: `? a: int` and `a: int`
 * (whose empty occurrence sits where the previous token ended) both start at
 * their first token, so diagnostics and doc comments find the right line. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                   \
    do {                                                              \
        if (N) {                                                      \
            int first_ = 1;                                           \
            while (first_ < (N) && YYRHSLOC(Rhs, first_).offset ==    \
                                       YYRHSLOC(Rhs, first_).end)     \
                first_++;                                             \
            (Cur).src = YYRHSLOC(Rhs, 1).src;                         \
            (Cur).offset = YYRHSLOC(Rhs, first_).offset;              \
            (Cur).end = YYRHSLOC(Rhs, N).end;                         \
        } else {                                                      \
            (Cur).src = YYRHSLOC(Rhs, 0).src;                         \
            (Cur).offset = (Cur).end = YYRHSLOC(Rhs, 0).end;          \
        }                                                             \
    } while (0)
}

%union {
    ast_str str;
    ast_value value;
    cddl_occur_tok occur;
    cddl_tag_tok tag;
    ast_type *type;
    ast_type_list types;
    ast_group *group;
    ast_grpchoice *grpchoice;
    ast_entry *entry;
    ast_rule *rule;
    cddl_params params;
    ast_assign assign;
}

%code provides {
#include "cddl.h"

/* One token as the raw lexer produced it, queued by the rule-start filter. */
typedef struct cddl_token {
    int kind;
    CDDL_YYSTYPE value;
    src_loc loc;
} cddl_token;

/* State of one parse: the lexer, the filter's queue, the document built. */
struct cddl_parser {
    cddl_ctx *ctx;
    cddl_source *src;
    void *scanner;          /* flex's yyscan_t */
    size_t pos;             /* lexer's byte offset */
    int tab_reported;       /* the -Wpedantic warning on tabs is given once per source */
    cddl_token *queue;      /* lookahead of the filter */
    size_t qhead, qcount;
    unsigned depth;         /* open ( [ { < */
    unsigned depth_before_rule; /* depth when the last RULENAME reset it, for error messages */
    int unmatched_closer;   /* the last token was a ) ] } > that nothing opened */
    src_loc *openers;       /* where each of them was opened (CDDL_MAX_DEPTH + 1 slots) */
    int gave_up;            /* nesting too deep: stop the parse */
    unsigned group_slashes; /* 1 + the depth where zcbor's `/ *x` made '/' mean '//' (0: none) */
    ast_document *doc;
};

/* Capacity of the filter's lookahead queue, in tokens. */
#define CDDL_TOKEN_QUEUE 512

int cddl_lex_raw(CDDL_YYSTYPE *yylval_param, src_loc *yylloc_param, void *yyscanner);
int cddl_yylex(CDDL_YYSTYPE *lval, src_loc *lloc, cddl_parser *p);
void cddl_yyerror(src_loc *loc, cddl_parser *p, const char *msg);
}

%code {
#include "ast_build.h"
}

%initial-action {
    @$.src = p->src;
    @$.offset = @$.end = 0;
}

%token <str> ID "name" RULENAME "rule name" CTLOP "control operator"
%token <value> NUMBER "number" TEXT "text string" BYTES "byte string"
%token <occur> OCCUR "occurrence indicator"
%token <tag> TAG_OPEN "tag" TAG6_LT "tag with a type as number" TAG7_LT "simple value with a type as number"
%token <tag> TAG_MAJOR "major type"
%token HASH "#"
%token DEFINE "=" TYPE_ALT "/=" GROUP_ALT "//=" ARROW "=>"
%token INCL ".." EXCL "..." SLASH "/" DSLASH "//"
%token LPAREN "(" RPAREN ")" LBRACKET "[" RBRACKET "]" LBRACE "{" RBRACE "}"
%token LT "<" GT ">" COMMA "," COLON ":" TILDE "~" AMP "&" CARET "^"

%type <rule> rule
%type <params> genericparm idlist
%type <assign> assign
%type <type> type type1 type2 value_type controlled
%type <types> typechoice genericarg typelist
%type <value> value
%type <group> group
%type <grpchoice> grpchoice
%type <entry> grpent
%type <occur> occur

%%

cddl
    : %empty
    | cddl rule     { ast_doc_add_rule(p, $2); }
    | cddl error
    ;

rule
    : RULENAME genericparm assign grpent
        { $$ = ast_new_rule(p, $1, @1, &$2, $3, @3, $4, @$); }
    ;

assign
    : "="           { $$ = AST_ASSIGN_DEFINE; }
    | "/="          { $$ = AST_ASSIGN_TYPE_ALT; }
    | "//="         { $$ = AST_ASSIGN_GROUP_ALT; }
    ;

genericparm
    : %empty        { $$.names = NULL; $$.locs = NULL; $$.count = 0; }
    | "<" idlist ">" { $$ = $2; }
    ;

idlist
    : ID            { $$.names = NULL; $$.locs = NULL; $$.count = 0; ast_params_push(p, &$$, $1, @1); }
    | idlist "," ID { $$ = $1; ast_params_push(p, &$$, $3, @3); }
    ;

genericarg
    : %empty        { $$.items = NULL; $$.count = 0; }
    | "<" typelist ">" { $$ = $2; }
    ;

typelist
    : type1         { $$.items = NULL; $$.count = 0; ast_list_push(p, &$$, $1); }
    | typelist "," type1 { $$ = $1; ast_list_push(p, &$$, $3); }
    ;

type
    : typechoice    { $$ = ast_new_choice(p, $1, @$); }
    ;

typechoice
    : type1         { $$.items = NULL; $$.count = 0; ast_list_push(p, &$$, $1); }
    | typechoice "/" type1 { $$ = $1; ast_list_push(p, &$$, $3); }
    ;

type1
    : type2
    | type2 ".." type2          { $$ = ast_new_range(p, $1, $3, 1, @$); }
    | type2 "..." type2         { $$ = ast_new_range(p, $1, $3, 0, @$); }
    | controlled
    ;

/* RFC 8610 has one control operator per type1; zcbor's schemas chain them
 * (`bstr .size 5 .cbor T`), read as nested from the left, with a warning. */
controlled
    : type2 CTLOP type2         { $$ = ast_new_control(p, $1, $2, @2, $3, @$); }
    | controlled CTLOP type2
        { /* as if the first were parenthesized, which is how print writes it */
          $$ = ast_new_control(p, ast_new_paren(p, $1, @1), $2, @2, $3, @$);
          diag_report(p->ctx->diag, DIAG_WARNING, DIAG_W_LOOSE, @2, "a second control operator on one type: "
                      "not RFC 8610 CDDL but zcbor's, read as applied to the controlled type before it"); }
    ;

type2
    : value_type
    | ID genericarg             { $$ = ast_new_name(p, AST_T_NAME, $1, @1, $2, @2.end > @2.offset, @$); }
    | "(" group ")"             { $$ = ast_new_group_type(p, AST_T_PAREN, $2, @$); }
    | "{" group "}"             { $$ = ast_new_group_type(p, AST_T_MAP, $2, @$); }
    | "[" group "]"             { $$ = ast_new_group_type(p, AST_T_ARRAY, $2, @$); }
    | "~" ID genericarg         { $$ = ast_new_name(p, AST_T_UNWRAP, $2, @2, $3, @3.end > @3.offset, @$); }
    | "&" "(" group ")"         { $$ = ast_new_group_type(p, AST_T_ENUM, $3, @$); }
    | "&" ID genericarg         { $$ = ast_new_name(p, AST_T_ENUM_NAME, $2, @2, $3, @3.end > @3.offset, @$); }
    | TAG_OPEN type ")"         { $$ = ast_new_tag(p, &$1, NULL, $2, @$); }
    | TAG6_LT type ">" "(" type ")" { $$ = ast_new_tag(p, &$1, $2, $5, @$); }
    | TAG7_LT type ">"          { $$ = ast_new_tag(p, &$1, $2, NULL, @$); }
    | TAG_MAJOR                 { $$ = ast_new_tag(p, &$1, NULL, NULL, @$); }
    | "#"                       { $$ = ast_new_any(p, @$); }
    ;

value_type
    : value                     { $$ = ast_new_value(p, &$1, @$); }
    ;

value
    : NUMBER
    | TEXT
    | BYTES
    ;

group
    : grpchoice                 { $$ = ast_new_group(p, $1, @$); }
    | group "//" grpchoice      { $$ = $1; ast_group_push(p, $$, $3, @$); }
    ;

grpchoice
    : %empty                    { $$ = ast_new_grpchoice(p, @$); }
    | grpchoice grpent          { $$ = $1; ast_grpchoice_push(p, $$, $2, @$); }
    | grpchoice grpent ","      { $$ = $1; ast_grpchoice_push(p, $$, $2, @$); }
    ;

grpent
    : occur type                { $$ = ast_new_entry(p, &$1, AST_KEY_NONE, 0, NULL, NULL, $2, @$); }
    | occur type1 "=>" type     { $$ = ast_new_entry(p, &$1, AST_KEY_TYPE, 0, NULL, $2, $4, @$); }
    | occur type1 "^" "=>" type { $$ = ast_new_entry(p, &$1, AST_KEY_TYPE, 1, NULL, $2, $5, @$); }
    | occur ID ":" type         { $$ = ast_new_entry(p, &$1, AST_KEY_BAREWORD, 0, &$2, NULL, $4, @$); }
    | occur value_type ":" type { $$ = ast_new_entry(p, &$1, AST_KEY_VALUE, 0, NULL, $2, $4, @$); }
    ;

occur
    : %empty                    { $$.form = 0; $$.min = 1; $$.max = 1; $$.text.ptr = NULL; $$.text.len = 0; }
    | OCCUR
    ;

%%

/* ---- syntax error reporting ---------------------------------------------- */

void cddl_yyerror(src_loc *loc, cddl_parser *p, const char *msg)
{
    diag_report(p->ctx->diag, DIAG_ERROR, DIAG_W_NONE, *loc, "%s", msg);
}

/* The closing token for an opener of the filter's bracket stack. */
static char closer_of(const cddl_parser *p, const src_loc *opener)
{
    char c = p->src->text[opener->offset];
    return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : c == '<' ? '>' : ')';
}

static cddl_token *peek(cddl_parser *p, size_t i);

/* True when the closer of the innermost open bracket is among the expected tokens. */
static int expects_closer(const cddl_parser *p, const yysymbol_kind_t *expected, int n)
{
    char c = closer_of(p, &p->openers[p->depth - 1]);
    int i;
    for (i = 0; i < n; i++)
        if (yysymbol_name(expected[i])[0] == c && yysymbol_name(expected[i])[1] == '\0')
            return 1;
    return 0;
}

static int expects(const yysymbol_kind_t *expected, int n, yysymbol_kind_t k)
{
    int i;
    for (i = 0; i < n; i++)
        if (expected[i] == k)
            return 1;
    return 0;
}

static int starts_type(yysymbol_kind_t k)
{
    switch (k) {
    case YYSYMBOL_ID: case YYSYMBOL_NUMBER: case YYSYMBOL_TEXT: case YYSYMBOL_BYTES:
    case YYSYMBOL_LPAREN: case YYSYMBOL_LBRACKET: case YYSYMBOL_LBRACE: case YYSYMBOL_TILDE:
    case YYSYMBOL_AMP: case YYSYMBOL_TAG_OPEN: case YYSYMBOL_TAG6_LT: case YYSYMBOL_TAG7_LT:
    case YYSYMBOL_TAG_MAJOR: case YYSYMBOL_HASH: case YYSYMBOL_OCCUR:
        return 1;
    default:
        return 0;
    }
}

static int expects_type(const yysymbol_kind_t *expected, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (starts_type(expected[i]))
            return 1;
    return 0;
}

/*
 * Reports a syntax error the way gcc words it: what could have come
 * ("expected ']' or a type before 'b'"), an unclosed bracket at its opener,
 * and a rule name without its '='.
 */
static int yyreport_syntax_error(const yypcontext_t *yyctx, cddl_parser *p)
{
    yysymbol_kind_t expected[YYNTOKENS];
    yysymbol_kind_t got = yypcontext_token(yyctx);
    const src_loc *loc = yypcontext_location(yyctx);
    diag_ctx *d = p->ctx->diag;
    char buf[512];
    size_t used = 0;
    int i, n = yypcontext_expected_tokens(yyctx, expected, YYNTOKENS), named = 0, type = 0;
    if (p->gave_up)
        return 0;
    if (got == YYSYMBOL_RULENAME)
        p->depth = p->depth_before_rule; /* the brackets the new rule's name found open */
    if (got == YYSYMBOL_YYEOF && p->depth > 0 && expects_closer(p, expected, n)) {
        const src_loc *open = &p->openers[p->depth - 1];
        diag_report(d, DIAG_ERROR, DIAG_W_NONE, *open, "'%c' is never closed",
                    p->src->text[open->offset]);
        return 0;
    }
    if (p->unmatched_closer && !expects_type(expected, n) &&
        (got == YYSYMBOL_RPAREN || got == YYSYMBOL_RBRACKET || got == YYSYMBOL_RBRACE || got == YYSYMBOL_GT)) {
        diag_report(d, DIAG_ERROR, DIAG_W_NONE, *loc, "unmatched '%s'", yysymbol_name(got));
        return 0;
    }
    if (p->depth == 0 && got == YYSYMBOL_COMMA && expects(expected, n, YYSYMBOL_RULENAME)) {
        /* a rule is not a group entry: nothing separates rules */
        diag_report(d, DIAG_ERROR, DIAG_W_NONE, *loc, "unexpected ',' after a rule (rules are not separated by commas)");
        return 0;
    }
    if (got == YYSYMBOL_ID && expects(expected, n, YYSYMBOL_RULENAME) && p->depth == 0) {
        /* `a int`: a name at rule level that no assignment follows. */
        src_loc at = peek(p, 0)->loc;
        diag_report(d, DIAG_ERROR, DIAG_W_NONE, at, "expected '=', '/=' or '//=' after rule name '%.*s'",
                    diag_clip(loc->end - loc->offset, 40), p->src->text + loc->offset);
        return 0;
    }
    used += (size_t)snprintf(buf, sizeof buf, "expected ");
    if (p->depth > 0 && expects_closer(p, expected, n)) {
        /* The closer of the innermost open bracket is what was forgotten. */
        used += (size_t)snprintf(buf + used, sizeof buf - used, "'%c'",
                                 closer_of(p, &p->openers[p->depth - 1]));
        named = 1;
    } else {
        for (i = 0; i < n; i++)
            type |= starts_type(expected[i]);
        for (i = 0; i < n && used < sizeof buf && named < 4; i++) {
            const char *name = yysymbol_name(expected[i]);
            int punct = name[0] != '\0' && strchr("=/.()[]{}<>,:~&^#", name[0]) != NULL;
            if (starts_type(expected[i]))
                continue;
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s%s%s", named ? ", " : "",
                                     punct ? "'" : "", name, punct ? "'" : "");
            named++;
        }
        if (type && used < sizeof buf)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%sa type", named ? " or " : "");
        if (!named && !type)
            used = (size_t)snprintf(buf, sizeof buf, "syntax error");
    }
    if (used < sizeof buf) {
        if (got == YYSYMBOL_YYEOF)
            snprintf(buf + used, sizeof buf - used, " at end of input");
        else if (loc->end > loc->offset)
            snprintf(buf + used, sizeof buf - used, " before '%.*s'",
                     diag_clip(loc->end - loc->offset, 40), p->src->text + loc->offset);
        else
            snprintf(buf + used, sizeof buf - used, " before %s", yysymbol_name(got));
    }
    diag_report(d, DIAG_ERROR, DIAG_W_NONE, *loc, "%s", buf);
    if (p->depth > 0 && got == YYSYMBOL_RULENAME) {
        diag_report(d, DIAG_NOTE, DIAG_W_NONE, p->openers[p->depth - 1], "to match this '%c'",
                    p->src->text[p->openers[p->depth - 1].offset]);
        p->depth = 0;
    }
    return 0;
}

/* ---- the rule-start token filter -------------------------------------------- */

/* Most generic parameters the filter looks through before deciding. */
#define CDDL_MAX_GENERIC_PARAMS 64

/* Returns the i-th token after the head of the queue, lexing as needed. */
static cddl_token *peek(cddl_parser *p, size_t i)
{
    while (p->qcount <= i) {
        cddl_token t;
        size_t slot;
        if (p->qhead + p->qcount == CDDL_TOKEN_QUEUE) {
            /* Compact: the filter never looks further ahead than
             * 2 * CDDL_MAX_GENERIC_PARAMS + 4 tokens, far below the size. */
            memmove(p->queue, p->queue + p->qhead, p->qcount * sizeof *p->queue);
            p->qhead = 0;
        }
        t.kind = cddl_lex_raw(&t.value, &t.loc, p->scanner);
        slot = p->qhead + p->qcount;
        p->queue[slot] = t;
        p->qcount++;
    }
    return &p->queue[p->qhead + i];
}

/* True when the tokens from index 1 on are `=`, `/=`, `//=`, or `<id, ...>` and one of those. */
static int starts_rule(cddl_parser *p)
{
    size_t i = 1;
    int k = peek(p, i)->kind;
    if (k == LT) {
        size_t params = 0;
        if (peek(p, i + 1)->kind == GT)
            return 1; /* `a<> = ...`: a rule whose parameter list the grammar rejects */
        for (;;) {
            if (peek(p, ++i)->kind != ID || ++params > CDDL_MAX_GENERIC_PARAMS)
                return 0;
            k = peek(p, ++i)->kind;
            if (k == GT)
                break;
            if (k != COMMA)
                return 0;
        }
        k = peek(p, ++i)->kind;
    }
    return k == DEFINE || k == TYPE_ALT || k == GROUP_ALT;
}

/* Removes n tokens of the queue from index i on (they have been peeked). */
static void drop(cddl_parser *p, size_t i, size_t n)
{
    cddl_token *q = p->queue + p->qhead;
    memmove(q + i, q + i + n, (p->qcount - i - n) * sizeof *q);
    p->qcount -= n;
}

/* Inserts a token of `kind` (no value) at index i of the queue, placed at `at`. */
static void insert(cddl_parser *p, size_t i, int kind, src_loc at)
{
    cddl_token *q;
    if (p->qhead + p->qcount == CDDL_TOKEN_QUEUE) {
        memmove(p->queue, p->queue + p->qhead, p->qcount * sizeof *p->queue);
        p->qhead = 0;
    }
    q = p->queue + p->qhead;
    memmove(q + i + 1, q + i, (p->qcount - i) * sizeof *q);
    memset(&q[i], 0, sizeof q[i]);
    q[i].kind = kind;
    q[i].loc = at;
    p->qcount++;
}

static void zcbor_warning(cddl_parser *p, src_loc at, const char *what)
{
    diag_report(p->ctx->diag, DIAG_WARNING, DIAG_W_LOOSE, at, "%s: not RFC 8610 CDDL but zcbor's, read as zcbor reads it", what);
}

/*
 * zcbor's schemas (its test cases, the SUIT manifests it generates code
 * for) use a few forms RFC 8610's grammar has no place for. They are
 * rewritten here, at the token level, into the RFC form that means the
 * same, each with a -Wloose warning (an error with --strict):
 *
 *   a / label: b          a label on a type choice's alternative: dropped
 *   label: key => type    a label before a member key: dropped
 *   label: +type          an occurrence after the label: moved before it
 *   a / *b / c            an alternative with an occurrence: a group
 *                         alternative, so this '/' and the next ones of the
 *                         same brackets read as '//'
 *   #6.n(label: type)     a label inside a tag: dropped
 *   .op lo..hi            a range as a control's argument: parenthesized
 *
 * None of the token sequences on the left can parse as RFC 8610, so no
 * valid schema changes meaning.
 */
static int zcbor_forms(cddl_parser *p)
{
    cddl_token *t = peek(p, 0);
    if (t->kind == SLASH && peek(p, 1)->kind == ID && peek(p, 2)->kind == COLON) {
        zcbor_warning(p, peek(p, 1)->loc, "a label on an alternative of a type choice");
        drop(p, 1, 2);
    } else if (t->kind == TAG_OPEN && peek(p, 1)->kind == ID && peek(p, 2)->kind == COLON) {
        zcbor_warning(p, peek(p, 1)->loc, "a label inside a tag");
        drop(p, 1, 2);
    } else if (t->kind == CTLOP && (peek(p, 1)->kind == NUMBER || peek(p, 1)->kind == ID) &&
               (peek(p, 2)->kind == INCL || peek(p, 2)->kind == EXCL) &&
               (peek(p, 3)->kind == NUMBER || peek(p, 3)->kind == ID)) {
        src_loc range = peek(p, 1)->loc;
        range.end = peek(p, 3)->loc.end;
        zcbor_warning(p, range, "a range as a control operator's argument, without parentheses");
        insert(p, 4, RPAREN, (src_loc){ range.src, range.end, range.end });
        insert(p, 1, LPAREN, (src_loc){ range.src, range.offset, range.offset });
    } else if (t->kind == SLASH && peek(p, 1)->kind == OCCUR) {
        zcbor_warning(p, peek(p, 1)->loc, "an occurrence indicator in a type choice (read as a group choice)");
        p->group_slashes = p->depth + 1;
        t->kind = DSLASH;
    } else if (t->kind == SLASH && p->group_slashes == p->depth + 1) {
        t->kind = DSLASH;
        return 0; /* (reported at the first) */
    } else if (t->kind == ID && peek(p, 1)->kind == COLON) {
        int k = peek(p, 2)->kind;
        if ((k == NUMBER || k == TEXT || k == BYTES || k == ID) && peek(p, 3)->kind == ARROW) {
            zcbor_warning(p, t->loc, "a label before a member key");
            drop(p, 0, 2);
        } else if (k == OCCUR) {
            cddl_token occur = *peek(p, 2), *q = p->queue + p->qhead;
            zcbor_warning(p, occur.loc, "an occurrence indicator after a label");
            memmove(q + 1, q, 2 * sizeof *q);
            q[0] = occur;
        } else {
            return 0;
        }
    } else {
        return 0;
    }
    return 1;
}

int cddl_yylex(CDDL_YYSTYPE *lval, src_loc *lloc, cddl_parser *p)
{
    cddl_token *t;
    if (p->gave_up)
        return CDDL_YYEOF;
    {
        int rewrites = 0; /* one form can uncover another (`/ label: *x`): each takes tokens away or turns one */
        while (rewrites++ < 8 && zcbor_forms(p))
            ;
    }
    t = peek(p, 0);
    if (t->kind == ID && starts_rule(p))
        t = peek(p, 0), t->kind = RULENAME;
    t = peek(p, 0);
    switch (t->kind) {
    case LPAREN: case LBRACKET: case LBRACE: case LT: case TAG_OPEN: case TAG6_LT: case TAG7_LT:
        if (p->depth == CDDL_MAX_DEPTH) {
            diag_report(p->ctx->diag, DIAG_ERROR, DIAG_W_NONE, t->loc,
                        "nesting deeper than %d levels", CDDL_MAX_DEPTH);
            p->gave_up = 1;
            return CDDL_YYEOF;
        }
        p->openers[p->depth++] = t->loc;
        break;
    case RPAREN: case RBRACKET: case RBRACE: case GT:
        p->unmatched_closer = p->depth == 0;
        if (p->depth > 0)
            p->depth--;
        if (p->group_slashes > p->depth)
            p->group_slashes = 0; /* the brackets of zcbor's group alternatives are closed */
        break;
    case RULENAME:
        /* A new rule closes whatever an earlier broken rule left open. */
        p->depth_before_rule = p->depth;
        p->depth = 0;
        p->group_slashes = 0;
        break;
    default:
        break;
    }
    *lval = t->value;
    *lloc = t->loc;
    p->qhead++;
    p->qcount--;
    if (p->qcount == 0)
        p->qhead = 0;
    return t->kind;
}
