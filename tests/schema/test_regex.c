/* test_regex.c - aps_regex_match: XSD-style patterns, anchoring, UTF-8, bounded time. */
#include "../test.h"

#include "aps/schema.h"

#include <stdlib.h>

static int m(const char *pattern, const char *s)
{
    return aps_regex_match(pattern, s, strlen(s));
}

int main(void)
{
    char *big;
    size_t i, n = 100000;

    /* The schema's own pattern, implicitly anchored. */
    CHECK_INT(m("custom:.+", "custom:a"), 1);
    CHECK_INT(m("custom:.+", "custom:my-stream"), 1);
    CHECK_INT(m("custom:.+", "custom:"), 0);
    CHECK_INT(m("custom:.+", "xcustom:a"), 0);
    CHECK_INT(m("custom:.+", "Custom:a"), 0);
    CHECK_INT(m("custom:.+", "custom:a\nb"), 0); /* XSD: '.' excludes newlines */
    CHECK_INT(m("custom:.+", "custom:\xc3\xa9"), 1);

    /* Literals, concatenation, anchoring at both ends. */
    CHECK_INT(m("abc", "abc"), 1);
    CHECK_INT(m("abc", "abcd"), 0);
    CHECK_INT(m("abc", "zabc"), 0);
    CHECK_INT(m("", ""), 1);
    CHECK_INT(m("", "a"), 0);
    CHECK_INT(m("^abc$", "abc"), 1); /* redundant anchors */
    CHECK_INT(m("a^b", "a^b"), 1);   /* elsewhere a literal, as in XSD */
    CHECK_INT(m("a\\$", "a$"), 1);

    /* Alternation and groups. */
    CHECK_INT(m("cat|dog", "dog"), 1);
    CHECK_INT(m("cat|dog", "cats"), 0);
    CHECK_INT(m("a(b|c)d", "acd"), 1);
    CHECK_INT(m("a(b|c)d", "ad"), 0);
    CHECK_INT(m("(a|ab)(c|bcd)(d*)", "abcd"), 1);
    CHECK_INT(m("a||b", ""), 1);
    CHECK_INT(m("(|x)y", "y"), 1);
    CHECK_INT(m("((a|b)(c|d))|e", "bd"), 1);
    CHECK_INT(m("((a|b)(c|d))|e", "e"), 1);
    CHECK_INT(m("((a|b)(c|d))|e", "be"), 0);

    /* Quantifiers. */
    CHECK_INT(m("ab*c", "ac"), 1);
    CHECK_INT(m("ab*c", "abbbc"), 1);
    CHECK_INT(m("ab+c", "ac"), 0);
    CHECK_INT(m("ab+c", "abc"), 1);
    CHECK_INT(m("ab?c", "abbc"), 0);
    CHECK_INT(m("(ab)*", "ababab"), 1);
    CHECK_INT(m("(ab)*", "ababa"), 0);
    CHECK_INT(m("()*a", "a"), 1);
    CHECK_INT(m("(a*)*b", "aaab"), 1);
    CHECK_INT(m("a{3}", "aaa"), 1);
    CHECK_INT(m("a{3}", "aa"), 0);
    CHECK_INT(m("a{3}", "aaaa"), 0);
    CHECK_INT(m("a{2,}", "a"), 0);
    CHECK_INT(m("a{2,}", "aaaaaaa"), 1);
    CHECK_INT(m("a{2,4}", "aaaa"), 1);
    CHECK_INT(m("a{2,4}", "aaaaa"), 0);
    CHECK_INT(m("a{0,2}", ""), 1);
    CHECK_INT(m("a{0,2}", "aa"), 1);
    CHECK_INT(m("a{0,2}", "aaa"), 0);
    CHECK_INT(m("a{0}b", "b"), 1);
    CHECK_INT(m("a{0,}", "aaaa"), 1);
    CHECK_INT(m("(ab|c){2}", "abc"), 1);
    CHECK_INT(m("(ab|c){2}", "cab"), 1);
    CHECK_INT(m("(ab|c){2}", "ab"), 0);
    CHECK_INT(m("[0-9]{4}-[0-9]{2}-[0-9]{2}", "2026-08-13"), 1);
    CHECK_INT(m("[0-9]{4}-[0-9]{2}-[0-9]{2}", "2026-8-13"), 0);

    /* Classes and escapes. */
    CHECK_INT(m("[a-c]+", "abcabc"), 1);
    CHECK_INT(m("[a-c]+", "abd"), 0);
    CHECK_INT(m("[^a-c]", "d"), 1);
    CHECK_INT(m("[^a-c]", "b"), 0);
    CHECK_INT(m("[^a]", "\xc3\xa9"), 1);
    CHECK_INT(m("[-a]+", "-a-"), 1);
    CHECK_INT(m("[a-]+", "-a-"), 1);
    CHECK_INT(m("[\\]\\-]+", "]-"), 1);
    CHECK_INT(m("[\\d_]+", "1_2"), 1);
    CHECK_INT(m("[^\\d]", "5"), 0);
    CHECK_INT(m("\\d+", "0123456789"), 1);
    CHECK_INT(m("\\d", "a"), 0);
    CHECK_INT(m("\\D", "a"), 1);
    CHECK_INT(m("\\D", "7"), 0);
    CHECK_INT(m("\\w+", "Ab_9"), 1);
    CHECK_INT(m("\\W", "-"), 1);
    CHECK_INT(m("\\W", "x"), 0);
    CHECK_INT(m("a\\sb", "a b"), 1);
    CHECK_INT(m("a\\sb", "a\tb"), 1);
    CHECK_INT(m("a\\Sb", "a b"), 0);
    CHECK_INT(m("a\\.b", "a.b"), 1);
    CHECK_INT(m("a\\.b", "axb"), 0);
    CHECK_INT(m("\\(\\)\\[\\]\\{\\}\\*\\+\\?\\|\\\\", "()[]{}*+?|\\"), 1);
    CHECK_INT(m("a\\nb", "a\nb"), 1);

    /* UTF-8: '.' is one code point; literals and ranges beyond ASCII. */
    CHECK_INT(m(".", "\xc3\xa9"), 1);
    CHECK_INT(m("..", "\xc3\xa9"), 0);
    CHECK_INT(m(".", "\xf0\x9f\x98\x80"), 1);
    CHECK_INT(m("\xc3\xa9+", "\xc3\xa9\xc3\xa9"), 1);
    CHECK_INT(m("[\xc3\xa0-\xc3\xbf]", "\xc3\xa9"), 1);
    CHECK_INT(m("[\xc3\xa0-\xc3\xbf]", "e"), 0);
    CHECK_INT(m("a.{2}b", "a\xe2\x82\xac\xe2\x82\xac" "b"), 1);

    /* Malformed or unsupported patterns. */
    CHECK_INT(m("(", "x"), -1);
    CHECK_INT(m(")", "x"), -1);
    CHECK_INT(m("a)", "x"), -1);
    CHECK_INT(m("[a", "x"), -1);
    CHECK_INT(m("[]", "x"), -1);
    CHECK_INT(m("[z-a]", "x"), -1);
    CHECK_INT(m("*a", "a"), -1);
    CHECK_INT(m("a**", "a"), -1);
    CHECK_INT(m("a*?", "a"), -1);
    CHECK_INT(m("a{2,1}", "a"), -1);
    CHECK_INT(m("a{", "a"), -1);
    CHECK_INT(m("a{x}", "a"), -1);
    CHECK_INT(m("a{1001}", "a"), -1);
    CHECK_INT(m("\\p{L}", "a"), -1);
    CHECK_INT(m("[a-z-[aeiou]]", "b"), -1);
    CHECK_INT(m("a\\", "a"), -1);
    CHECK_INT(m("\xc3", "a"), -1);
    CHECK_INT(m("(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))", "a"), -1);
    CHECK_INT(m("(a{1000}){1000}", "a"), -1); /* program too large */
    CHECK_INT(aps_regex_match(NULL, "a", 1), -1);
    CHECK_INT(aps_regex_match("a*", NULL, 0), 1);

    /* Embedded NUL bytes in the subject are characters. */
    CHECK_INT(aps_regex_match("a.b", "a\0b", 3), 1);

    /* Hostile: exponential for a backtracker, linear here. */
    big = (char *)malloc(n + 2);
    for (i = 0; i < n; i++)
        big[i] = 'a';
    big[n] = 'b';
    big[n + 1] = '\0';
    CHECK_INT(aps_regex_match("(a*)*c", big, n + 1), 0);
    CHECK_INT(aps_regex_match("(a|aa)*b", big, n + 1), 1);
    CHECK_INT(aps_regex_match("(a?){30}a{30}", big, 30), 1);
    CHECK_INT(aps_regex_match("(.*.*.*.*)*x", big, n), 0);
    free(big);
    return test_report();
}
