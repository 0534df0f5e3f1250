/*
 * aps/regex.h - the regular expressions of CDDL's `.regexp` control
 * (XSD Appendix G, RFC 8610 3.8.3), matched without backtracking.
 *
 * Thread-safety: reentrant; no state outside the call.
 */
#ifndef APS_REGEX_H
#define APS_REGEX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * True when the whole of `s` matches `pattern`, an XSD-style regular
 * expression as `.regexp` uses (implicitly anchored at both ends). Supported:
 * literals, `.`, escapes `\\. \\d \\w \\s` and their negations, classes
 * `[a-z]` `[^...]`, groups `( )` (also written `(?: )`, `(?<name> )` and
 * `(?P<name> )`: nothing is captured, so they are the same), alternation
 * `|`, and `* + ? {n} {n,} {n,m}`.
 * Characters are code points of UTF-8 (`.` matches one code point except
 * newline and carriage return, as in XSD); `\\d \\w \\s` are ASCII classes
 * ([0-9], [A-Za-z0-9_], [ \\t\\n\\r]). A leading `^` and a trailing `$` are
 * accepted as redundant anchors. Other escapes: `\\n \\r \\t` and any
 * escaped punctuation. Returns 1, 0, or -1 when the pattern itself is
 * malformed or unsupported (`\\p{..}`, class subtraction, or a compiled
 * program over 512 steps). Matching time is O(len x pattern size), with no
 * exponential backtracking and no allocation. `s` may be NULL when len is 0.
 */
int aps_regex_match(const char *pattern, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* APS_REGEX_H */
