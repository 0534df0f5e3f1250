/*
 * embed_runtime.h - `cddlgen generate --embed-runtime`: turns the PREFIX.h
 * and PREFIX.c that emit_module wrote into a self-contained pair, for
 * projects that vendor the generated code instead of linking the runtime.
 */
#ifndef CDDLGEN_EMBED_RUNTIME_H
#define CDDLGEN_EMBED_RUNTIME_H

#include "cddl.h"
#include "emit.h"

/*
 * Rewrites OUT_DIR/PREFIX.h so it declares the runtime itself (its
 * `#include "aps/NAME.h"` lines give way to the runtime's public headers) and
 * OUT_DIR/PREFIX.c so it includes only PREFIX.h and ends with the runtime
 * sources the generated code needs. Both files come out with the runtime's
 * identifiers under the pair's prefix (aps_x -> PREFIX_aps_x, APS_X ->
 * UPPERPREFIX_APS_X, the generated code's uses included; its string literals
 * untouched), so pairs of different schemas share no name. A prefix that is
 * the runtime's own (`aps`, `aps_...`) is refused.
 * The runtime text was joined at build time (generator/amalgamate.cmake) and
 * travels inside cddlgen. Run it once, right after emit_module succeeded.
 * Returns 0, or the number of errors reported through ctx->diag.
 */
int embed_runtime(cddl_ctx *ctx, const emit_options *opt);

#endif
