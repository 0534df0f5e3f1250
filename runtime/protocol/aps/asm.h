/*
 * aps/asm.h - message assembly: turns the decoded events of the
 * `messages` and `tools` channels into final messages and tool executions,
 * applying the protocol's delta rules and enforcing the event lifecycle.
 *
 * The assembler works on decoded values, never on JSON events: the caller
 * (apstream, an application) decodes each event with the generated decoder
 * and describes it with a small aps_asm_event view: its kind, namespace,
 * node and the members of its kind. Content blocks, metadata, usage and tool
 * input/output stay raw JSON, because the assembler's job on them is
 * JSON-level (append to a member, merge members, hand back the final block).
 *
 *     aps_assembler a;
 *     aps_asm_callbacks cb = { 0 };
 *     cb.on_message_done = print_message;  (aps_asm_message_write into a writer)
 *     cb.on_violation = print_violation;
 *     aps_asm_init(&a, NULL, &cb);
 *     for (each decoded event e) {
 *         aps_asm_event ev = { 0 };
 *         ev.kind = APS_ASM_BLOCK_DELTA; ev.ns = segs; ev.ns_len = n; ...
 *         if (aps_asm_feed(&a, &ev, &err) != APS_OK) ...  (out of memory)
 *     }
 *     (or, with several decoded events at hand, views in an array and
 *     aps_asm_feed_batch, faster for token streams)
 *     aps_asm_finish(&a);        (delivers what is still open)
 *     aps_asm_deinit(&a);
 *
 * Two modes (docs/assembly.md has every rule of each). The default follows
 * the reference client, LangGraph's MessageAssembler (@langchain/langgraph-sdk
 * 1.15.0): messages are routed by namespace, node and run id; blocks are
 * placed by index; a delta of another type than its block's makes a block
 * of its own; events with no open message open one; messages still open at
 * aps_asm_finish are delivered as abandoned (status error, code "aborted").
 * Nothing is lost, and every deviation from the rules below is reported
 * through on_violation all the same. Strict mode (aps_asm_options.strict)
 * applies the rules below as the protocol states them.
 *
 * Rules (seed 000 and the protocol.cddl comments; strict mode):
 *   - messages are tracked per (namespace, node); blocks of one message do
 *     not interleave: block N is started (index N, counting from 0),
 *     extended by deltas and finished before block N+1 starts;
 *   - text-delta appends to the block's `text`, reasoning-delta to
 *     `reasoning`, data-delta to `base64`, tool-call-delta to `args`; a
 *     member that is absent or null starts empty;
 *   - block-delta copies each member of `fields` onto the block, replacing
 *     the member of that name (`type` included: the block may change type);
 *   - content-block-finish replaces the block with the finished content;
 *   - message-finish closes the message with its usage, an error event
 *     fails it; a delta of an unknown type is skipped (after the block
 *     lifecycle checks) and processing goes on;
 *   - tools are tracked by toolCallId: tool-started, tool-output-delta*
 *     (concatenated), then tool-finished (output) or tool-error.
 *
 * Violations. An event that breaks the lifecycle (see aps_asm_violation) is
 * reported through on_violation with the event's position; in the default
 * mode the assembly goes on as the reference client's does (a run of deltas
 * that the fast path takes is reported once, at its first). In strict mode
 * (and in both for the limits and memory) it fails the message or tool it
 * belongs to: that one is delivered at once with status
 * error, and its later events (up to the next message-start for the same
 * namespace and node; for tools, all events of that toolCallId) are ignored
 * without further reports. A violation never affects other messages.
 * Violations are not errors of the call: aps_asm_feed returns APS_OK.
 *
 * Memory. Everything is allocated through the allocator hooks and bounded
 * by aps_asm_options: open messages and tools, bytes per message or tool
 * (exceeding it is a violation, APS_ASM_E_LIMIT, for that message only),
 * members per block, remembered finished items, bytes of remembered
 * tool-call blocks. Appending is amortised O(1) per byte: each appended
 * member is a growing buffer, and the final JSON of a block is written once,
 * when asked for. A message or tool is freed right after its done callback.
 *
 * Thread-safety: an assembler belongs to one thread at a time; callbacks
 * run on the thread calling aps_asm_feed or aps_asm_finish and must not
 * call back into the same assembler.
 */
#ifndef APS_ASM_H
#define APS_ASM_H

#include "aps/arena.h"
#include "aps/common.h"
#include "aps/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an event is: the `event` member of its data, per channel. */
typedef enum aps_asm_kind {
    APS_ASM_OTHER = 0,         /* anything else (an unknown messages event, another
                                  channel): ignored by the assembler, kept in order
                                  by the coalescer */
    APS_ASM_MESSAGE_START,     /* messages: message-start */
    APS_ASM_BLOCK_START,       /* messages: content-block-start */
    APS_ASM_BLOCK_DELTA,       /* messages: content-block-delta */
    APS_ASM_BLOCK_FINISH,      /* messages: content-block-finish */
    APS_ASM_MESSAGE_FINISH,    /* messages: message-finish */
    APS_ASM_MESSAGE_ERROR,     /* messages: error */
    APS_ASM_TOOL_STARTED,      /* tools: tool-started */
    APS_ASM_TOOL_OUTPUT_DELTA, /* tools: tool-output-delta */
    APS_ASM_TOOL_FINISHED,     /* tools: tool-finished */
    APS_ASM_TOOL_ERROR,        /* tools: tool-error */
    APS_ASM_MESSAGE_USAGE      /* messages: usage (sent by real servers, not in the schema):
                                  its `usage` replaces the message's; ignored in strict mode */
} aps_asm_kind;

/* The `type` of a content-block-delta's delta. */
typedef enum aps_asm_delta {
    APS_ASM_DELTA_UNKNOWN = 0, /* a type the assembler does not know: skipped */
    APS_ASM_DELTA_TEXT,        /* text-delta: `text` appended to the block's `text` */
    APS_ASM_DELTA_REASONING,   /* reasoning-delta: `reasoning` appended to `reasoning` */
    APS_ASM_DELTA_DATA,        /* data-delta: `data` appended to `base64` */
    APS_ASM_DELTA_BLOCK,       /* block-delta: `fields` merged onto the block */
    APS_ASM_DELTA_TOOL_CALL    /* tool-call-delta: `args` appended to `args` */
} aps_asm_delta;

/*
 * A decoded event, as the assembler sees it. Zero-initialise it, set `kind`,
 * the routing members and the members of that kind; others are ignored.
 * Every slice and raw value is borrowed for the duration of the call that
 * receives the event. A slice with ptr NULL means absent (a JSON null where
 * the member may be null); a raw value with ptr NULL means absent.
 */
typedef struct aps_asm_event {
    /* First the members a text delta uses, so they share two cache lines: batches read faster. */
    aps_asm_kind kind;
    aps_asm_delta delta;      /* BLOCK_DELTA: its type */
    const aps_slice *ns;      /* namespace segments, root first (NULL when ns_len is 0) */
    size_t ns_len;
    aps_slice node;           /* params.node, or absent */
    uint64_t index;           /* BLOCK_START, BLOCK_DELTA, BLOCK_FINISH: the block */
    aps_slice text;           /* BLOCK_DELTA: the appended text (TEXT, REASONING, DATA, TOOL_CALL;
                                 absent counts as empty); TOOL_OUTPUT_DELTA: the `delta` */
    aps_json_raw fields;      /* BLOCK_DELTA of type BLOCK: the `fields` object */
    /* Also read by the fast path, so here: */
    aps_slice run_id;         /* messages: data.run_id, which real servers send, or absent;
                                 routes events in the default mode (ignored in strict mode) */
    aps_json_raw content;     /* BLOCK_START: initial block; BLOCK_FINISH: final block (JSON
                                 objects); BLOCK_DELTA: absent, or the `content` of a
                                 content-shaped (legacy) delta, used instead of `delta` */
    uint64_t position;        /* the caller's counter (a line number...), reported in violations */

    /* MESSAGE_START */
    aps_slice id;             /* message id */
    aps_slice role;           /* "ai", "human", ... taken as given; may be absent */
    aps_json_raw metadata;    /* optional */

    /* MESSAGE_FINISH, MESSAGE_USAGE, and MESSAGE_START (real servers send it there too) */
    aps_json_raw usage;       /* optional */

    /* MESSAGE_ERROR, TOOL_ERROR */
    aps_slice message;        /* what went wrong */
    aps_slice code;           /* optional */

    /* TOOL_* */
    aps_slice tool_call_id;
    aps_slice tool_name;      /* TOOL_STARTED */
    aps_json_raw input;       /* TOOL_STARTED, optional */
    aps_json_raw output;      /* TOOL_FINISHED */

} aps_asm_event;

/* Lifecycle violations, each with the offending event's position. */
typedef enum aps_asm_violation {
    APS_ASM_OK = 0,
    APS_ASM_E_NO_MESSAGE,        /* a message event other than message-start for a
                                    (namespace, node) with no open message */
    APS_ASM_E_MESSAGE_FINISHED,  /* an event after the message finished or failed (a second finish) */
    APS_ASM_E_MESSAGE_OPEN,      /* message-start while a message is open there: the open one fails */
    APS_ASM_E_BLOCK_OPEN,        /* content-block-start while the previous block is open */
    APS_ASM_E_BLOCK_INDEX,       /* content-block-start whose index is not the next one */
    APS_ASM_E_BLOCK_NOT_STARTED, /* delta or finish for a block never started */
    APS_ASM_E_BLOCK_FINISHED,    /* delta or finish for a block already finished */
    APS_ASM_E_DELTA_MISMATCH,    /* a delta that does not fit the block's type */
    APS_ASM_E_FIELD_TYPE,        /* an append to a member that is neither a string, null nor absent */
    APS_ASM_E_NOT_OBJECT,        /* content or fields that are not a JSON object */
    APS_ASM_E_FINISH_BLOCK_OPEN, /* message-finish with a block still open */
    APS_ASM_E_TOOL_UNKNOWN,      /* a tool event other than tool-started for an unknown toolCallId */
    APS_ASM_E_TOOL_STARTED,      /* tool-started for a toolCallId already running: the running one fails */
    APS_ASM_E_TOOL_FINISHED,     /* a tool event after the tool finished or failed */
    APS_ASM_E_LIMIT,             /* a limit of aps_asm_options was exceeded */
    APS_ASM_E_NOMEM,             /* out of memory: never passed to on_violation (aps_asm_feed
                                    returns APS_E_NOMEM); the error code, "out-of-memory", of the
                                    message or tool it failed */
    APS_ASM_E_LEGACY_DELTA       /* a content-shaped delta (`content` instead of `delta`) */
} aps_asm_violation;

/* Short static name of a violation ("block-not-started", ...); used as the error code. */
const char *aps_asm_violation_name(aps_asm_violation v);

/* Where a message or tool stands. */
typedef enum aps_asm_state {
    APS_ASM_OPEN = 0,   /* message started, not finished (tool: started) */
    APS_ASM_FINISHED,   /* message-finish / tool-finished */
    APS_ASM_ERROR       /* error event, tool-error, or a violation */
} aps_asm_state;

/* A message being assembled. Opaque; read it with the aps_asm_message_* accessors. */
typedef struct aps_asm_message aps_asm_message;

/* A tool execution. Opaque; read it with the aps_asm_tool_* accessors. */
typedef struct aps_asm_tool aps_asm_tool;

/*
 * What the assembler tells the application. Every member may be NULL. The
 * message or tool passed is valid only during the call. `ctx` is passed
 * unchanged.
 */
typedef struct aps_asm_callbacks {
    /*
     * Text was appended to block `index` of `m` by a text, reasoning, data
     * or tool-call delta (`kind`); `appended` is the delta's text (borrowed
     * from the event). For incremental rendering.
     */
    void (*on_append)(void *ctx, const aps_asm_message *m, uint64_t index, aps_asm_delta kind,
                      aps_slice appended);
    /* `m` finished, failed, or (from aps_asm_finish) is still open. */
    void (*on_message_done)(void *ctx, const aps_asm_message *m);
    /* `t` finished, failed, or (from aps_asm_finish) is still running. */
    void (*on_tool_done)(void *ctx, const aps_asm_tool *t);
    /*
     * The event at `position` broke the lifecycle: `code` says how, `text`
     * (NUL-terminated, valid during the call) says it to a person.
     */
    void (*on_violation)(void *ctx, uint64_t position, aps_asm_violation code, const char *text);
    void *ctx;
} aps_asm_callbacks;

/* Defaults used when an option is 0. */
#define APS_ASM_DEFAULT_OPEN_MESSAGES 1024u
#define APS_ASM_DEFAULT_OPEN_TOOLS 1024u
#define APS_ASM_DEFAULT_ITEM_BYTES (64u << 20)
#define APS_ASM_DEFAULT_BLOCK_MEMBERS 256u
#define APS_ASM_DEFAULT_CLOSED 1024u
#define APS_ASM_DEFAULT_LINK_BYTES (1u << 20)

/* Limits and memory of an assembler. All zero means the defaults above and malloc/free. */
typedef struct aps_asm_options {
    aps_allocator allocator;  /* zero: malloc/free */
    size_t max_open_messages; /* messages open at once; one more is APS_ASM_E_LIMIT for it */
    size_t max_open_tools;    /* tools running at once; likewise */
    size_t max_item_bytes;    /* bytes one message or tool may hold (copies, blocks, appended text) */
    size_t max_block_members; /* members one block may have while it streams */
    size_t max_closed;        /* finished (namespace, node) and toolCallIds remembered, oldest
                                 forgotten first, so that late events are reported as such
                                 (after that they are reported as having no message / tool) */
    size_t max_link_bytes;    /* bytes of finished tool-call blocks kept for aps_asm_tool_call_block,
                                 oldest dropped first */
    /*
     * Nonzero: the caller promises that every string of every event fed
     * (namespace segments, node, text) is padded, followed by APS_PADDING
     * readable bytes (aps/common.h), as decoded strings are when the
     * decoder's input buffer has APS_PADDING bytes after the input. The
     * fast path then compares short names and copies tokens as whole
     * 16-byte words. Results are the same either way; a broken promise is
     * a read out of bounds.
     */
    int padded;
    /*
     * Nonzero: the protocol's lifecycle rules as seed 000 states them: a
     * violation fails the message or tool it belongs to (see Violations).
     * Zero, the default: the reference client's rules (docs/assembly.md):
     * every violation is still reported through on_violation, and the
     * content goes on being assembled as the reference client assembles it.
     */
    int strict;
} aps_asm_options;

/* Private: the assembler's index of open, finished and linked items. */
typedef struct aps_asm_map {
    struct aps_asm_slot *slots;
    size_t cap;   /* power of two, 0 before the first insert */
    size_t count;
} aps_asm_map;

/* Private: a list of items (open ones in start order, or a FIFO of remembered ones). */
typedef struct aps_asm_list {
    struct aps_asm_item *head, *tail;
    size_t count;
    size_t bytes;
} aps_asm_list;

/* Private: entries of the assembler's cache of recently fed messages (sets of 2). */
#define APS_ASM_RECENT 32

/*
 * An assembler, in caller storage. Fields are private.
 */
typedef struct aps_assembler {
    aps_allocator allocator;
    aps_asm_callbacks cb;
    aps_asm_options opt;
    aps_asm_map map;
    aps_asm_list open;       /* open messages and tools, in start order */
    aps_asm_list closed;     /* tombstones of finished or failed items */
    aps_asm_list links;      /* finished tool-call blocks by id */
    aps_asm_list places;     /* (namespace, node) with an open message: which one is current */
    size_t open_messages;
    size_t open_tools;
    aps_asm_message *last;   /* the message the previous event went to (fast path) */
    aps_asm_message *recent[APS_ASM_RECENT]; /* open messages fed lately, by a hash of the place */
    char *key;               /* scratch: the key of the event being fed */
    size_t key_cap;
    aps_arena scratch;       /* reset per event: unescaped names and strings */
    uint64_t seed;
    uint64_t violations;
    uint64_t position;       /* of the event the general path is applying */
    int masked_copy;         /* the CPU copies short tokens by a masked load (AVX-512BW): set by aps_asm_init */
    char text[256];          /* the violation being reported */
} aps_assembler;

/*
 * Initialises `a`. `options` may be NULL (defaults) and `callbacks` NULL
 * (none); both are copied. Allocates nothing. Cannot fail.
 */
void aps_asm_init(aps_assembler *a, const aps_asm_options *options,
                  const aps_asm_callbacks *callbacks);

/*
 * Frees everything `a` holds, without delivering open items (call
 * aps_asm_finish first for that). NULL-safe. `a` may be initialised again.
 */
void aps_asm_deinit(aps_assembler *a);

/*
 * Applies one event. Returns APS_OK when the event was applied, ignored
 * (APS_ASM_OTHER, events of a failed message) or reported as a violation
 * through on_violation; APS_E_ARGUMENT when `ev` is malformed (a kind out
 * of range, or a NULL pointer with a non-zero length in the namespace, the
 * node or a member of the event's kind); APS_E_NOMEM when an
 * allocation failed: then the message or tool the event belongs to, if it
 * exists, is failed with code "out-of-memory" and delivered, and the
 * assembler stays usable. `err` may be NULL; it receives the position as
 * offset. Callbacks run before it returns.
 */
APS_NODISCARD aps_status aps_asm_feed(aps_assembler *a, const aps_asm_event *ev, aps_error *err);

/*
 * Applies evs[0..n) in order, exactly as n calls of aps_asm_feed would
 * (the same callbacks, violations and results), and faster for a token
 * stream: a run of text deltas for the message of the previous event is
 * taken in one loop that holds the message's place in registers (for
 * places of one namespace segment of 17 to 64 bytes and a node of 1 to 15,
 * the usual "model_request:<uuid>" and "model", when no on_append is set).
 * A caller that has several decoded events at hand (the lines of one read)
 * describes them in an array and feeds them here. Stops at the first event
 * for which aps_asm_feed would not return APS_OK and returns that status;
 * *fed (may be NULL) gets how many events were applied before it (n when
 * all were).
 */
APS_NODISCARD aps_status aps_asm_feed_batch(aps_assembler *a, const aps_asm_event *evs, size_t n, size_t *fed,
                                            aps_error *err);

/*
 * Ends the stream: delivers every message still open (status open) and
 * every tool still running (status started), in the order they started,
 * then forgets everything, so `a` can assemble another stream.
 */
void aps_asm_finish(aps_assembler *a);

/* Violations reported since init. */
static inline uint64_t aps_asm_violations(const aps_assembler *a)
{
    return a->violations;
}

/* ---- messages --------------------------------------------------------- */

/* Message id (from message-start). */
aps_slice aps_asm_message_id(const aps_asm_message *m);
/* Role as given by message-start; ptr NULL when it had none. */
aps_slice aps_asm_message_role(const aps_asm_message *m);
/* Namespace segments: returns their count and sets *segs (NULL when 0). */
size_t aps_asm_message_namespace(const aps_asm_message *m, const aps_slice **segs);
/* Node; ptr NULL when absent. */
aps_slice aps_asm_message_node(const aps_asm_message *m);
/* Metadata of message-start; ptr NULL when absent. */
aps_json_raw aps_asm_message_metadata(const aps_asm_message *m);
/* Usage of message-finish; ptr NULL when absent or not finished. */
aps_json_raw aps_asm_message_usage(const aps_asm_message *m);
aps_asm_state aps_asm_message_state(const aps_asm_message *m);
/*
 * When the message failed, returns 1 and sets `message` and `code` (either
 * may be NULL; code's ptr is NULL when the error event had none); else 0.
 * For a violation the message is its text and the code its
 * aps_asm_violation_name.
 */
int aps_asm_message_error(const aps_asm_message *m, aps_slice *message, aps_slice *code);
/* Number of blocks so far (default mode: the highest index + 1; holes included). */
size_t aps_asm_message_block_count(const aps_asm_message *m);
/*
 * Whether block `i` is finished; when it is, *out (may be NULL) gets its
 * final content as given by content-block-finish.
 */
int aps_asm_message_block_final(const aps_asm_message *m, size_t i, aps_json_raw *out);
/*
 * Writes block `i` as a JSON object into `w`: the final content when it is
 * finished, else the block as the deltas built it so far (null when `i` is
 * out of range or a hole: in the default mode blocks are placed by index).
 */
void aps_asm_message_write_block(const aps_asm_message *m, size_t i, aps_json_writer *w);
/*
 * Writes the message as one JSON object into `w` (the line apstream
 * assemble prints), absent values as null:
 * {"kind":"message","id","namespace","node","role","metadata",
 *  "status":"finished"|"error"|"open","content":[blocks],"usage",
 *  "error":{"message","code"}}
 */
void aps_asm_message_write(const aps_asm_message *m, aps_json_writer *w);

/* ---- tools ------------------------------------------------------------ */

/* Call id of the tool run (tool-started's toolCallId). */
aps_slice aps_asm_tool_call_id(const aps_asm_tool *t);
/* Namespace of tool-started: returns the count and sets *segs (NULL when 0). */
size_t aps_asm_tool_namespace(const aps_asm_tool *t, const aps_slice **segs);
/* Node of tool-started; ptr NULL when absent. */
aps_slice aps_asm_tool_node(const aps_asm_tool *t);
aps_slice aps_asm_tool_name(const aps_asm_tool *t);
/* Input of tool-started; ptr NULL when absent. */
aps_json_raw aps_asm_tool_input(const aps_asm_tool *t);
/* APS_ASM_OPEN (started, running), APS_ASM_FINISHED or APS_ASM_ERROR. */
aps_asm_state aps_asm_tool_state(const aps_asm_tool *t);
/*
 * The tool-output-delta texts concatenated; returns 1 and sets *out (may be
 * NULL) when there was at least one, else 0.
 */
int aps_asm_tool_output_delta(const aps_asm_tool *t, aps_slice *out);
/* Output of tool-finished; ptr NULL when absent. */
aps_json_raw aps_asm_tool_output(const aps_asm_tool *t);
/* Like aps_asm_message_error, for tool-error and violations. */
int aps_asm_tool_error(const aps_asm_tool *t, aps_slice *message, aps_slice *code);
/*
 * The finished tool-call content block whose `id` equals the toolCallId,
 * when one was seen (and is still remembered, see max_link_bytes); ptr NULL
 * otherwise. Blocks of the types text, reasoning, image, audio, video, file,
 * non_standard and server_tool_result are never linked; every other block
 * with a string `id` is (tool_call, invalid_tool_call, server_tool_call and
 * provider types such as the "input_json_delta" seen in real traces). When
 * several match, the latest finished wins.
 */
aps_json_raw aps_asm_tool_call_block(const aps_asm_tool *t);
/*
 * Writes the tool as one JSON object into `w`, absent values as null:
 * {"kind":"tool","toolCallId","namespace","node","toolName","input",
 *  "status":"started"|"finished"|"error","outputDelta","output","error"}
 * (outputDelta is the tool-output-delta texts concatenated, "" when none arrived).
 */
void aps_asm_tool_write(const aps_asm_tool *t, aps_json_writer *w);

/* ---- coalescing, for producers ------------------------------------------ */

/* Defaults used when an option is 0. */
#define APS_ASM_COALESCE_DEFAULT_EVENTS 64u
#define APS_ASM_COALESCE_DEFAULT_BYTES 4096u

/* Window of a coalescer. All zero means the defaults above and malloc/free. */
typedef struct aps_asm_coalesce_options {
    aps_allocator allocator; /* zero: malloc/free */
    size_t max_events;       /* most deltas merged into one */
    size_t max_bytes;        /* most appended bytes in one merged delta (a longer
                                single delta passes through as it is) */
} aps_asm_coalesce_options;

/*
 * Receives the coalescer's output. A merged delta (and the namespace, node
 * and text it points to) is valid only during the call; any other event is
 * the caller's own, passed through. A non-OK status stops the push or
 * flush that called it and is returned from there.
 */
typedef aps_status (*aps_asm_emit_fn)(void *ctx, const aps_asm_event *ev);

/*
 * Merges runs of consecutive text, reasoning, data and tool-call deltas of
 * the same (namespace, node), block index and delta type into one delta
 * (whose position is that of the run's first), within the window; any other
 * event (a delta with a run id or a content-shaped one too) flushes the
 * run and passes through. Lossless: assembling the output
 * gives the same messages, tools and violations as assembling the input
 * (a violation inside a run, such as the item byte limit, is reported at the
 * run's position). Caller storage; fields are private.
 */
typedef struct aps_asm_coalescer {
    aps_allocator allocator;
    size_t max_events, max_bytes;
    aps_asm_emit_fn emit;
    void *ctx;
    aps_asm_event pending;   /* the run being merged; kind OTHER when none */
    size_t pending_events;
    char *text;              /* pending's text (max_bytes once allocated) */
    size_t text_cap;
    aps_slice *segs;         /* pending's namespace */
    size_t segs_cap;
    char *names;             /* bytes of pending's namespace and node */
    size_t names_cap;
} aps_asm_coalescer;

/*
 * Initialises `c` to send its output to `emit` (required) with `ctx`.
 * `options` may be NULL; it is copied. Allocates nothing. Cannot fail.
 */
void aps_asm_coalescer_init(aps_asm_coalescer *c, const aps_asm_coalesce_options *options,
                            aps_asm_emit_fn emit, void *ctx);

/*
 * Takes the next event: merges it into the pending run or emits what it
 * must. Returns APS_OK, the first non-OK status of `emit`, or
 * APS_E_ARGUMENT for a malformed event. It never fails for memory: when a
 * buffer cannot be allocated the event passes through unmerged.
 */
APS_NODISCARD aps_status aps_asm_coalescer_push(aps_asm_coalescer *c, const aps_asm_event *ev);

/* Emits the pending run, if any (call at the end of the stream). Returns emit's status. */
APS_NODISCARD aps_status aps_asm_coalescer_flush(aps_asm_coalescer *c);

/* Frees the coalescer's buffers, dropping a pending run. NULL-safe. */
void aps_asm_coalescer_deinit(aps_asm_coalescer *c);

/* ---- reading captured events without the schema ---------------------------- */

#define APS_ASM_READER_MAX_NS 32

/*
 * Reads protocol events (one JSON text each) straight into assembler views,
 * for captures the schema rejects: real servers send message-starts without
 * `role`, snake_case members and events the schema does not define, and an
 * application that assembles their streams still wants the messages. Use the
 * generated decoders first; this is the lenient fallback. Caller storage.
 */
typedef struct aps_asm_reader {
    aps_arena arena;                        /* reset per event */
    aps_slice ns[APS_ASM_READER_MAX_NS];
} aps_asm_reader;

/* Initialises a reader in caller storage; aps_asm_reader_deinit frees its arena. */
void aps_asm_reader_init(aps_asm_reader *ad);
void aps_asm_reader_deinit(aps_asm_reader *ad);

/*
 * Turns one event's JSON text into `ev`, with member names in camelCase or
 * snake_case. Returns 1 with *ev set for a messages or tools event, 0 for
 * any other valid event (kind OTHER), -1 for a text it cannot use (not JSON,
 * a member of the wrong type, a missing member: hostile input is refused,
 * never trusted). A message-start without `role` gets an absent role; a
 * "usage" event becomes MESSAGE_USAGE, another unknown messages `event`
 * kind OTHER; `run_id` (a string) becomes run_id, and the `content` of a
 * content-block-delta (unless null) makes it content-shaped. Members may
 * come in any order (`params` before `method` is kept whole and read once
 * the method is known). The event's slices point into `json` or the
 * reader's arena until the next call.
 */
int aps_asm_event_from_json(aps_asm_reader *ad, const char *json, size_t len, uint64_t position,
                            aps_asm_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* APS_ASM_H */
