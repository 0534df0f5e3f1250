/*
 * ap_assemble.h - a decoded message handed to the assembler (aps/asm.h)
 * as it is: no copying member by member. Part of the protocol companion of
 * the committed bindings ap.h (docs/companion.md).
 *
 *     ap_message_t msg;
 *     aps_asm_event ev;
 *     aps_arena_reset(&arena);
 *     if (ap_message_decode(json, len, &arena, &msg, &err) == APS_OK &&
 *         ap_asm_event_from_message(&msg, 0, &arena, &ev) == APS_OK)
 *         (void)aps_asm_feed(&assembler, &ev, &err);  (other messages come back as APS_ASM_OTHER: ignored)
 *
 * Thread-safety: reentrant; the caller owns the message, the arena and the view.
 */
#ifndef AP_ASSEMBLE_H
#define AP_ASSEMBLE_H

#include "ap.h"
#include "aps/asm.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Describes `msg` for aps_asm_feed in `*ev` (zeroed first): for an event
 * of the `messages` or `tools` channel, its kind, namespace, node and the
 * members of its kind; for any other message, kind APS_ASM_OTHER, which
 * the assembler ignores. Strings and content blocks are borrowed from
 * `msg` (and so from the text it was decoded from); members the assembler
 * takes as JSON but the bindings decode into structs (message metadata,
 * usage, the `fields` of a block-delta) are encoded again, losslessly
 * (unknown members included), into `arena`, where they live until its next
 * reset. `ev->position` is 0: set it to the caller's counter.
 *
 * strict: zero (the default of the assembler and of apstream) also reads
 * what real servers send beyond the schema, kept in the decoded value's raw
 * text: `run_id` on messages events (routing, as the reference client
 * does), `usage` on message-start, and a `usage` event (APS_ASM_MESSAGE_USAGE);
 * nonzero: only what the schema defines. Pass aps_asm_options.strict.
 *
 * Returns APS_OK, or APS_E_NOMEM when the arena could not hold an encoded
 * member (the view is then unusable).
 */
APS_NODISCARD aps_status ap_asm_event_from_message(const ap_message_t *msg, int strict, aps_arena *arena,
                                                   aps_asm_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* AP_ASSEMBLE_H */
