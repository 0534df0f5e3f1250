/* test_filter.c - the subscription filter and its documented interpretations. */
#include "../test.h"
#include "test_util.h"

#include "aps/channel.h"
#include "aps/filter.h"
#include "aps/namespace.h"

#include <stdint.h>
#include <stdlib.h>

static aps_slice S(const char *s)
{
    aps_slice r;
    r.ptr = s;
    r.len = strlen(s);
    return r;
}

static const aps_slice NONAME = { NULL, 0 };

/* A namespace from up to 4 NUL-terminated segments (NULL ends the list). */
typedef struct ns_buf {
    aps_slice seg[4];
    aps_namespace ns;
} ns_buf;

static aps_namespace mk_ns(ns_buf *b, const char *a, const char *c, const char *d)
{
    const char *in[3];
    size_t n = 0, i;
    in[0] = a;
    in[1] = c;
    in[2] = d;
    for (i = 0; i < 3 && in[i] != NULL; i++)
        b->seg[n++] = S(in[i]);
    b->ns.items = b->seg;
    b->ns.count = n;
    return b->ns;
}

/* Matches through both entry points (packed and decoded) and checks they agree. */
static int match(const aps_filter *f, aps_channel ch, aps_slice name, aps_namespace ns)
{
    uint32_t packed[64];
    int a, b;
    size_t size = aps_namespace_packed_size(ns);
    CHECK(size <= sizeof packed);
    a = aps_filter_match(f, ch, name, aps_namespace_pack(packed, ns));
    b = aps_filter_match_namespace(f, ch, name, ns);
    CHECK_INT(a, b);
    return a;
}

static aps_status make(aps_filter *f, const char **channels, size_t nch,
                       const aps_namespace *prefixes, size_t nns, int has_depth,
                       uint64_t depth, aps_error *err)
{
    aps_slice ch[16];
    aps_filter_spec spec;
    size_t i;
    for (i = 0; i < nch; i++)
        ch[i] = S(channels[i]);
    memset(&spec, 0, sizeof spec);
    spec.channels = ch;
    spec.channel_count = nch;
    spec.namespaces = prefixes;
    spec.namespace_count = nns;
    spec.has_depth = has_depth;
    spec.depth = depth;
    return aps_filter_init(f, &spec, NULL, err);
}

static void test_channel_of_method(void)
{
    CHECK_INT(aps_channel_of_method("values", 6), APS_CHANNEL_VALUES);
    CHECK_INT(aps_channel_of_method("updates", 7), APS_CHANNEL_UPDATES);
    CHECK_INT(aps_channel_of_method("messages", 8), APS_CHANNEL_MESSAGES);
    CHECK_INT(aps_channel_of_method("tools", 5), APS_CHANNEL_TOOLS);
    CHECK_INT(aps_channel_of_method("lifecycle", 9), APS_CHANNEL_LIFECYCLE);
    CHECK_INT(aps_channel_of_method("checkpoints", 11), APS_CHANNEL_CHECKPOINTS);
    CHECK_INT(aps_channel_of_method("tasks", 5), APS_CHANNEL_TASKS);
    CHECK_INT(aps_channel_of_method("custom", 6), APS_CHANNEL_CUSTOM);
    /* input.requested and input.answered are the methods whose channel is not their name. */
    CHECK_INT(aps_channel_of_method("input.requested", 15), APS_CHANNEL_INPUT);
    CHECK_INT(aps_channel_of_method("input.answered", 14), APS_CHANNEL_INPUT);
    CHECK_INT(aps_channel_of_method("input.respond", 13), APS_CHANNEL_OTHER);
    CHECK_INT(aps_channel_of_method("input", 5), APS_CHANNEL_OTHER);
    CHECK_INT(aps_channel_of_method("custom:progress", 15), APS_CHANNEL_OTHER);
    CHECK_INT(aps_channel_of_method("valuesX", 7), APS_CHANNEL_OTHER);
    CHECK_INT(aps_channel_of_method("values", 5), APS_CHANNEL_OTHER); /* "value" */
    CHECK_INT(aps_channel_of_method("", 0), APS_CHANNEL_OTHER);
    CHECK_INT(aps_channel_of_method(NULL, 0), APS_CHANNEL_OTHER);
    CHECK_STR(aps_channel_name(APS_CHANNEL_INPUT), "input");
    CHECK_STR(aps_channel_name(APS_CHANNEL_CHECKPOINTS), "checkpoints");
    CHECK_STR(aps_channel_name(APS_CHANNEL_OTHER), "");
    CHECK_STR(aps_channel_name((aps_channel)99), "");
}

static void test_init_errors(void)
{
    aps_filter f;
    aps_error err = APS_ERROR_INIT;
    const char *unknown[] = { "values", "input.requested" };
    const char *empty_custom[] = { "custom:" };
    const char *bad_case[] = { "Values" };
    aps_filter_spec spec;
    aps_slice nul = { NULL, 3 };

    CHECK_INT(make(&f, unknown, 2, NULL, 0, 0, 0, &err), APS_E_UNKNOWN);
    CHECK_INT(err.code, APS_E_UNKNOWN);
    CHECK_INT(err.offset, 1); /* the index of the offending channel */
    CHECK(strstr(err.message, "\"input.requested\" is not a protocol channel") != NULL);
    CHECK(f.storage == NULL);

    aps_error_clear(&err);
    CHECK_INT(make(&f, empty_custom, 1, NULL, 0, 0, 0, &err), APS_E_PATTERN);
    CHECK(strstr(err.message, "needs a name") != NULL);
    aps_error_clear(&err);
    CHECK_INT(make(&f, bad_case, 1, NULL, 0, 0, 0, &err), APS_E_UNKNOWN);

    /* No channels at all: the schema requires at least one. */
    CHECK_INT(make(&f, NULL, 0, NULL, 0, 0, 0, NULL), APS_E_ARGUMENT);
    memset(&spec, 0, sizeof spec);
    spec.channels = &nul;
    spec.channel_count = 1;
    CHECK_INT(aps_filter_init(&f, &spec, NULL, NULL), APS_E_ARGUMENT);
    spec.channels = NULL;
    CHECK_INT(aps_filter_init(&f, &spec, NULL, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_filter_init(NULL, &spec, NULL, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_filter_init(&f, NULL, NULL, NULL), APS_E_ARGUMENT);
    spec.channels = &nul;
    nul.ptr = "values";
    nul.len = 6;
    spec.namespace_count = 1; /* with a NULL array */
    CHECK_INT(aps_filter_init(&f, &spec, NULL, NULL), APS_E_ARGUMENT);
    aps_filter_deinit(&f);
    aps_filter_deinit(NULL);
}

static void test_channels(void)
{
    aps_filter f;
    ns_buf b;
    aps_namespace root = mk_ns(&b, NULL, NULL, NULL);
    const char *ch[] = { "messages", "input", "messages" };
    int c;

    CHECK_INT(make(&f, ch, 3, NULL, 0, 0, 0, NULL), APS_OK);
    for (c = 0; c < APS_CHANNEL_COUNT; c++)
        CHECK_INT(match(&f, (aps_channel)c, NONAME, root),
                  c == APS_CHANNEL_MESSAGES || c == APS_CHANNEL_INPUT);
    CHECK(aps_filter_has_channel(&f, APS_CHANNEL_INPUT));
    CHECK(!aps_filter_has_channel(&f, APS_CHANNEL_VALUES));
    CHECK(!aps_filter_has_channel(&f, APS_CHANNEL_OTHER));
    CHECK(!aps_filter_has_channel(NULL, APS_CHANNEL_INPUT));
    CHECK(!match(NULL, APS_CHANNEL_MESSAGES, NONAME, root));
    CHECK(!aps_filter_match_namespace(NULL, APS_CHANNEL_MESSAGES, NONAME, root));
    /* An event of an input.requested method lands on `input`. */
    CHECK(match(&f, aps_channel_of_method("input.requested", 15), NONAME, root));
    aps_filter_deinit(&f);
    CHECK(f.storage == NULL);
}

static void test_custom(void)
{
    aps_filter base, named, both;
    ns_buf b;
    aps_namespace root = mk_ns(&b, NULL, NULL, NULL);
    const char *c1[] = { "custom" };
    const char *c2[] = { "custom:progress", "custom:a:b" };
    const char *c3[] = { "custom", "custom:progress" };

    CHECK_INT(make(&base, c1, 1, NULL, 0, 0, 0, NULL), APS_OK);
    CHECK_INT(make(&named, c2, 2, NULL, 0, 0, 0, NULL), APS_OK);
    CHECK_INT(make(&both, c3, 2, NULL, 0, 0, 0, NULL), APS_OK);

    /* `custom` sees every custom event, named or not. */
    CHECK(match(&base, APS_CHANNEL_CUSTOM, NONAME, root));
    CHECK(match(&base, APS_CHANNEL_CUSTOM, S("progress"), root));
    CHECK(match(&base, APS_CHANNEL_CUSTOM, S("other"), root));
    /* `custom:N` sees custom events named N only. */
    CHECK(match(&named, APS_CHANNEL_CUSTOM, S("progress"), root));
    CHECK(match(&named, APS_CHANNEL_CUSTOM, S("a:b"), root));
    CHECK(!match(&named, APS_CHANNEL_CUSTOM, S("progres"), root));
    CHECK(!match(&named, APS_CHANNEL_CUSTOM, S("progress2"), root));
    CHECK(!match(&named, APS_CHANNEL_CUSTOM, S("Progress"), root));
    CHECK(!match(&named, APS_CHANNEL_CUSTOM, NONAME, root));
    CHECK(!match(&named, APS_CHANNEL_CUSTOM, S(""), root)); /* empty name = unnamed */
    /* The name only counts on custom events. */
    CHECK(!match(&named, APS_CHANNEL_MESSAGES, S("progress"), root));
    CHECK(!match(&named, APS_CHANNEL_OTHER, S("progress"), root));
    CHECK(!aps_filter_has_channel(&named, APS_CHANNEL_CUSTOM));
    CHECK(match(&both, APS_CHANNEL_CUSTOM, NONAME, root));
    CHECK(match(&both, APS_CHANNEL_CUSTOM, S("x"), root));
    aps_filter_deinit(&base);
    aps_filter_deinit(&named);
    aps_filter_deinit(&both);
}

static void test_namespaces(void)
{
    aps_filter all, empty_list, rootp, root0, a, a1, a0, multi, seg;
    ns_buf b0, b1, b2, b3, b4, b5, p0, p1, p2, p3;
    const char *ch[] = { "updates" };
    aps_namespace root = mk_ns(&b0, NULL, NULL, NULL);
    aps_namespace na = mk_ns(&b1, "a", NULL, NULL);
    aps_namespace nab = mk_ns(&b2, "a", "b", NULL);
    aps_namespace nabc = mk_ns(&b3, "a", "b", "c");
    aps_namespace nab_ = mk_ns(&b4, "ab", NULL, NULL);
    aps_namespace nb = mk_ns(&b5, "b", NULL, NULL);
    aps_namespace pre_root = mk_ns(&p0, NULL, NULL, NULL);
    aps_namespace pre_a = mk_ns(&p1, "a", NULL, NULL);
    aps_namespace pre_multi[2];
    aps_namespace pre_seg = mk_ns(&p3, "a", "bc", NULL);
    ns_buf e1;
    aps_namespace ev_abc = mk_ns(&e1, "ab", "c", NULL);

    pre_multi[0] = mk_ns(&p2, "b", NULL, NULL);
    pre_multi[1] = nabc;

    /* Absent and empty `namespaces`: the whole tree, like [[]]. */
    CHECK_INT(make(&all, ch, 1, NULL, 0, 0, 0, NULL), APS_OK);
    CHECK_INT(make(&empty_list, ch, 1, pre_multi, 0, 0, 0, NULL), APS_OK);
    CHECK_INT(make(&rootp, ch, 1, &pre_root, 1, 0, 0, NULL), APS_OK);
    CHECK(match(&all, APS_CHANNEL_UPDATES, NONAME, root));
    CHECK(match(&all, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK(match(&empty_list, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK(match(&rootp, APS_CHANNEL_UPDATES, NONAME, root));
    CHECK(match(&rootp, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK(!match(&rootp, APS_CHANNEL_VALUES, NONAME, root));

    /* depth 0 below the root prefix: root events only. */
    CHECK_INT(make(&root0, ch, 1, &pre_root, 1, 1, 0, NULL), APS_OK);
    CHECK(match(&root0, APS_CHANNEL_UPDATES, NONAME, root));
    CHECK(!match(&root0, APS_CHANNEL_UPDATES, NONAME, na));
    aps_filter_deinit(&root0);
    /* depth without namespaces limits nothing (the reference client's reading). */
    CHECK_INT(make(&root0, ch, 1, NULL, 0, 1, 0, NULL), APS_OK);
    CHECK(match(&root0, APS_CHANNEL_UPDATES, NONAME, root));
    CHECK(match(&root0, APS_CHANNEL_UPDATES, NONAME, na));
    CHECK(match(&root0, APS_CHANNEL_UPDATES, NONAME, nabc));
    aps_filter_deinit(&root0);
    CHECK_INT(make(&root0, ch, 1, pre_multi, 0, 1, 1, NULL), APS_OK);
    CHECK(match(&root0, APS_CHANNEL_UPDATES, NONAME, nabc));

    /* Prefix by whole segments. */
    CHECK_INT(make(&a, ch, 1, &pre_a, 1, 0, 0, NULL), APS_OK);
    CHECK(!match(&a, APS_CHANNEL_UPDATES, NONAME, root));
    CHECK(match(&a, APS_CHANNEL_UPDATES, NONAME, na));
    CHECK(match(&a, APS_CHANNEL_UPDATES, NONAME, nab));
    CHECK(match(&a, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK(!match(&a, APS_CHANNEL_UPDATES, NONAME, nab_));
    CHECK(!match(&a, APS_CHANNEL_UPDATES, NONAME, nb));

    /* depth counts segments below the prefix. */
    CHECK_INT(make(&a1, ch, 1, &pre_a, 1, 1, 1, NULL), APS_OK);
    CHECK(match(&a1, APS_CHANNEL_UPDATES, NONAME, na));
    CHECK(match(&a1, APS_CHANNEL_UPDATES, NONAME, nab));
    CHECK(!match(&a1, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK_INT(make(&a0, ch, 1, &pre_a, 1, 1, 0, NULL), APS_OK);
    CHECK(match(&a0, APS_CHANNEL_UPDATES, NONAME, na));
    CHECK(!match(&a0, APS_CHANNEL_UPDATES, NONAME, nab));

    /* Several prefixes: one that satisfies prefix and depth is enough. */
    CHECK_INT(make(&multi, ch, 1, pre_multi, 2, 1, 0, NULL), APS_OK);
    CHECK(match(&multi, APS_CHANNEL_UPDATES, NONAME, nb));
    CHECK(match(&multi, APS_CHANNEL_UPDATES, NONAME, nabc));
    CHECK(!match(&multi, APS_CHANNEL_UPDATES, NONAME, nab));
    CHECK(!match(&multi, APS_CHANNEL_UPDATES, NONAME, root));

    /* Same bytes, different segment boundaries: ["a","bc"] is not a prefix of ["ab","c"]. */
    CHECK_INT(make(&seg, ch, 1, &pre_seg, 1, 0, 0, NULL), APS_OK);
    CHECK(!match(&seg, APS_CHANNEL_UPDATES, NONAME, ev_abc));

    aps_filter_deinit(&all);
    aps_filter_deinit(&empty_list);
    aps_filter_deinit(&rootp);
    aps_filter_deinit(&root0);
    aps_filter_deinit(&a);
    aps_filter_deinit(&a1);
    aps_filter_deinit(&a0);
    aps_filter_deinit(&multi);
    aps_filter_deinit(&seg);
}

/*
 * Dynamic suffixes: a filter segment without ':' matches an event segment
 * cut at its first ':'; one with ':' only itself. depth counts from the
 * matched prefix.
 */
static void test_suffixes(void)
{
    static const struct {
        const char *prefix[2];
        const char *event[3];
        int has_depth;
        uint64_t depth;
        int want;
    } cases[] = {
        { { "model_request", NULL }, { "model_request:db60c136", NULL, NULL }, 0, 0, 1 },
        { { "model_request", NULL }, { "model_request:db:60", "x", NULL }, 0, 0, 1 },
        { { "model_request", NULL }, { "model_request", NULL, NULL }, 0, 0, 1 },
        { { "model_request", NULL }, { "model_requests:1", NULL, NULL }, 0, 0, 0 },
        { { "model_request", NULL }, { "model_reques:1", NULL, NULL }, 0, 0, 0 },
        { { "model_request", NULL }, { "model", NULL, NULL }, 0, 0, 0 },
        { { "model_request:1", NULL }, { "model_request:1", NULL, NULL }, 0, 0, 1 },
        { { "model_request:1", NULL }, { "model_request:12", NULL, NULL }, 0, 0, 0 },
        { { "model_request:1", NULL }, { "model_request:1:2", NULL, NULL }, 0, 0, 0 },
        { { "model_request:1", NULL }, { "model_request", NULL, NULL }, 0, 0, 0 },
        { { "", NULL }, { ":abc", NULL, NULL }, 0, 0, 1 },
        { { "", NULL }, { "abc", NULL, NULL }, 0, 0, 0 },
        { { "a", "b" }, { "a:1", "b:2", NULL }, 0, 0, 1 },
        { { "a", "b" }, { "a:1", "b:2", "c:3" }, 1, 0, 0 },
        { { "a", "b" }, { "a:1", "b:2", "c:3" }, 1, 1, 1 },
        { { "a", "b:2" }, { "a:1", "b:2", NULL }, 0, 0, 1 },
        { { "a", "b:2" }, { "a:1", "b:3", NULL }, 0, 0, 0 },
        { { "a:1", "b" }, { "a", "b", NULL }, 0, 0, 0 },
    };
    const char *ch[] = { "tools" };
    size_t i, k;
    int got;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aps_slice pseg[2], eseg[3];
        aps_namespace pre = { pseg, 0 }, ev = { eseg, 0 };
        aps_filter f;
        for (k = 0; k < 2 && cases[i].prefix[k] != NULL; k++, pre.count++)
            pseg[k] = S(cases[i].prefix[k]);
        for (k = 0; k < 3 && cases[i].event[k] != NULL; k++, ev.count++)
            eseg[k] = S(cases[i].event[k]);
        CHECK_INT(make(&f, ch, 1, &pre, 1, cases[i].has_depth, cases[i].depth, NULL), APS_OK);
        got = match(&f, APS_CHANNEL_TOOLS, NONAME, ev);
        if (got != cases[i].want)
            fprintf(stderr, "suffix case %zu: want %d\n", i, cases[i].want);
        CHECK_INT(got, cases[i].want);
        aps_filter_deinit(&f);
    }
}

/* The filter copies what it keeps: the request may be freed right after init. */
static void test_copies(void)
{
    char chan[] = "custom:zz";
    char seg0[] = "sub";
    aps_slice ch = { chan, 9 };
    aps_slice s = { seg0, 3 };
    aps_namespace pre = { &s, 1 };
    aps_filter_spec spec;
    aps_filter f;
    ns_buf b;
    memset(&spec, 0, sizeof spec);
    spec.channels = &ch;
    spec.channel_count = 1;
    spec.namespaces = &pre;
    spec.namespace_count = 1;
    CHECK_INT(aps_filter_init(&f, &spec, NULL, NULL), APS_OK);
    memset(chan, 'x', sizeof chan - 1);
    memset(seg0, 'y', sizeof seg0 - 1);
    CHECK(match(&f, APS_CHANNEL_CUSTOM, S("zz"), mk_ns(&b, "sub", "k", NULL)));
    CHECK(!match(&f, APS_CHANNEL_CUSTOM, S("zz"), mk_ns(&b, "yyy", NULL, NULL)));
    aps_filter_deinit(&f);
}

static void test_allocator(void)
{
    test_alloc c;
    aps_allocator a;
    aps_filter f;
    aps_filter_spec spec;
    aps_slice ch[2];
    ns_buf b;
    aps_namespace pre = mk_ns(&b, "x", NULL, NULL);
    test_alloc_init(&c, -1, 1);
    a = test_alloc_hooks(&c);
    ch[0] = S("custom:n");
    ch[1] = S("values");
    memset(&spec, 0, sizeof spec);
    spec.channels = ch;
    spec.channel_count = 2;
    spec.namespaces = &pre;
    spec.namespace_count = 1;
    CHECK_INT(aps_filter_init(&f, &spec, &a, NULL), APS_OK);
    CHECK_INT(c.allocs, 1); /* one block for everything */
    aps_filter_deinit(&f);
    CHECK_INT(c.frees, 1);
    CHECK_INT(c.live, 0);

    c.fail_at = 0;
    CHECK_INT(aps_filter_init(&f, &spec, &a, NULL), APS_E_NOMEM);
    CHECK_INT(c.frees, 1);

    /* Fixed channels only: nothing to allocate. */
    c.fail_at = 0;
    spec.channels = ch + 1;
    spec.channel_count = 1;
    spec.namespace_count = 0;
    CHECK_INT(aps_filter_init(&f, &spec, &a, NULL), APS_OK);
    aps_filter_deinit(&f);
}

int main(void)
{
    test_channel_of_method();
    test_init_errors();
    test_channels();
    test_custom();
    test_namespaces();
    test_suffixes();
    test_copies();
    test_allocator();
    return test_report();
}
