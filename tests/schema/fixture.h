/*
 * fixture.h - a hand-written slice of protocol.cddl as cddlgen would emit
 * it: C types plus constant aps_type descriptors built with offsetof. The
 * schema tests, the fuzz target and the throughput program share it.
 *
 * Included once per program (everything is static).
 */
#ifndef SCHEMA_FIXTURE_H
#define SCHEMA_FIXTURE_H

#include "aps/schema.h"

#include <stddef.h>
#include <stdint.h>

/* ---- helpers that keep the tables short ---------------------------------- */

#define TXT(s) { APS_LIT_TEXT, s, sizeof(s) - 1, 0, 0, 0 }
#define LITERAL(name, s) \
    static const aps_type name = { APS_K_LITERAL, NULL, 0, { .lit = TXT(s) }, NULL, NULL, NULL }
/* A wire name and its length, as cddlgen emits them. */
#define KEY(k) k, sizeof(k) - 1
#define F(S, key, snake, type, m) { KEY(key), KEY(snake), &type, offsetof(S, m), 0, 0, APS_F_PLAIN_NAMES, NULL, 0 }
#define OPT(S, key, snake, type, m) \
    { KEY(key), KEY(snake), &type, offsetof(S, m), offsetof(S, has_##m), 0, APS_F_OPTIONAL | APS_F_PLAIN_NAMES, NULL, 0 }
#define NUL(S, key, snake, type, m) \
    { KEY(key), KEY(snake), &type, offsetof(S, m), 0, offsetof(S, m##_is_null), APS_F_NULLABLE | APS_F_PLAIN_NAMES, NULL, 0 }
#define LIT(key, type) { KEY(key), KEY(key), &type, 0, 0, 0, APS_F_LITERAL | APS_F_PLAIN_NAMES, NULL, 0 }
#define OPTLIT(S, key, type, m) { KEY(key), KEY(key), &type, 0, offsetof(S, has_##m), 0, APS_F_OPTIONAL | APS_F_LITERAL, NULL, 0 }
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define STRUCT(name, S, fields, open, xoff, xtype, variants, voff)                                 \
    static const aps_type name = { APS_K_STRUCT, #S, sizeof(S),                                    \
                                   { .st = { fields, N(fields), open, xoff, xtype, variants, voff, 0, 0 } }, NULL, NULL, NULL }
#define CLOSED(name, S, fields) STRUCT(name, S, fields, false, 0, NULL, NULL, 0)
#define OPEN(name, S, fields) STRUCT(name, S, fields, true, offsetof(S, extras), NULL, NULL, 0)

/* ---- basic types ------------------------------------------------------------ */

static const aps_type T_text = { APS_K_TEXT, "text", sizeof(aps_slice), { .text = { 0, SIZE_MAX, NULL } }, NULL, NULL, NULL };
static const aps_type T_uint = { APS_K_UINT, "uint", sizeof(uint64_t), { .u = { 0, UINT64_MAX, 0 } }, NULL, NULL, NULL };
static const aps_type T_int = { APS_K_INT, "int", sizeof(int64_t), { .i = { INT64_MIN, INT64_MAX } }, NULL, NULL, NULL };
static const aps_type T_js_uint = { APS_K_UINT, "js-uint", sizeof(uint64_t),
                                    { .u = { 0, 9007199254740991ull, 0 } }, NULL, NULL, NULL };
static const aps_type T_js_int = { APS_K_INT, "js-int", sizeof(int64_t),
                                   { .i = { -9007199254740991ll, 9007199254740991ll } }, NULL, NULL, NULL };
static const aps_type T_float = { APS_K_FLOAT, "float", sizeof(double), { .f = { 0, 0, false, false, false, false } }, NULL, NULL, NULL };
static const aps_type T_bool = { APS_K_BOOL, "bool", sizeof(bool), { .i = { 0, 0 } }, NULL, NULL, NULL };
static const aps_type T_any = { APS_K_ANY, "any", sizeof(aps_json_raw), { .i = { 0, 0 } }, NULL, NULL, NULL };
static const aps_type T_null = { APS_K_LITERAL, "null", 0, { .lit = { APS_LIT_NULL, NULL, 0, 0, 0, 0 } }, NULL, NULL, NULL };

/* Namespace = [* text] */
static const aps_type T_Namespace = { APS_K_ARRAY, "Namespace", sizeof(aps_array),
                                      { .arr = { &T_text, 0, SIZE_MAX } }, NULL, NULL, NULL };

/* {* text => any} */
typedef struct AnyEntry {
    aps_slice key;
    aps_json_raw value;
} AnyEntry;
static const aps_type T_AnyMap = { APS_K_MAP, NULL, sizeof(aps_array),
                                   { .map = { &T_any, sizeof(AnyEntry), offsetof(AnyEntry, value), 0, SIZE_MAX } }, NULL, NULL, NULL };

/* MetadataScalar = null / bool / int / float / text (by JSON kind) */
typedef struct MetadataScalar {
    int kind;
    aps_json_raw raw;
    union {
        bool b;
        int64_t i;
        double f;
        aps_slice s;
    } u;
} MetadataScalar;
static const aps_type *const MetadataScalar_alts[] = { &T_null, &T_bool, &T_int, &T_float, &T_text };
static const aps_type T_MetadataScalar = {
    APS_K_UNION, "MetadataScalar", sizeof(MetadataScalar),
    { .un = { APS_U_KIND, MetadataScalar_alts, 5, NULL, NULL, offsetof(MetadataScalar, kind),
              offsetof(MetadataScalar, u), offsetof(MetadataScalar, raw) } }, NULL, NULL, NULL };

/* BlockIndex = js-int / text */
typedef struct BlockIndex {
    int kind;
    aps_json_raw raw;
    union {
        int64_t i;
        aps_slice s;
    } u;
} BlockIndex;
static const aps_type *const BlockIndex_alts[] = { &T_js_int, &T_text };
static const aps_type T_BlockIndex = {
    APS_K_UNION, "BlockIndex", sizeof(BlockIndex),
    { .un = { APS_U_KIND, BlockIndex_alts, 2, NULL, NULL, offsetof(BlockIndex, kind),
              offsetof(BlockIndex, u), offsetof(BlockIndex, raw) } }, NULL, NULL, NULL };

/* ---- content block deltas ------------------------------------------------- */

LITERAL(L_text_delta, "text-delta");
LITERAL(L_reasoning_delta, "reasoning-delta");
LITERAL(L_data_delta, "data-delta");
LITERAL(L_block_delta, "block-delta");
LITERAL(L_tool_call_delta, "tool-call-delta");
LITERAL(L_base64, "base64");

typedef struct TextDelta {
    aps_slice text;
    aps_json_members extras;
} TextDelta;
static const aps_field TextDelta_fields[] = { LIT("type", L_text_delta), F(TextDelta, "text", "text", T_text, text) };
OPEN(T_TextDelta, TextDelta, TextDelta_fields);

typedef struct ReasoningDelta {
    aps_slice reasoning;
    aps_json_members extras;
} ReasoningDelta;
static const aps_field ReasoningDelta_fields[] = { LIT("type", L_reasoning_delta),
                                                   F(ReasoningDelta, "reasoning", "reasoning", T_text, reasoning) };
OPEN(T_ReasoningDelta, ReasoningDelta, ReasoningDelta_fields);

typedef struct DataDelta {
    aps_slice data;
    bool has_encoding;
    aps_json_members extras;
} DataDelta;
static const aps_field DataDelta_fields[] = { LIT("type", L_data_delta), F(DataDelta, "data", "data", T_text, data),
                                              OPTLIT(DataDelta, "encoding", L_base64, encoding) };
OPEN(T_DataDelta, DataDelta, DataDelta_fields);

/* BlockDeltaFields = { type: text, * text => any } */
typedef struct BlockDeltaFields {
    aps_slice type;
    aps_json_members extras;
} BlockDeltaFields;
static const aps_field BlockDeltaFields_fields[] = { F(BlockDeltaFields, "type", "type", T_text, type) };
OPEN(T_BlockDeltaFields, BlockDeltaFields, BlockDeltaFields_fields);

typedef struct BlockDelta {
    BlockDeltaFields fields;
    aps_json_members extras;
} BlockDelta;
static const aps_field BlockDelta_fields[] = { LIT("type", L_block_delta),
                                               F(BlockDelta, "fields", "fields", T_BlockDeltaFields, fields) };
OPEN(T_BlockDelta, BlockDelta, BlockDelta_fields);

typedef struct ToolCallDelta {
    aps_slice args;
    aps_json_members extras;
} ToolCallDelta;
static const aps_field ToolCallDelta_fields[] = { LIT("type", L_tool_call_delta),
                                                  F(ToolCallDelta, "args", "args", T_text, args) };
OPEN(T_ToolCallDelta, ToolCallDelta, ToolCallDelta_fields);

enum { CBD_UNKNOWN, CBD_TEXT, CBD_REASONING, CBD_DATA, CBD_BLOCK, CBD_TOOL_CALL };
typedef struct ContentBlockDelta {
    int kind;
    aps_json_raw raw;
    union {
        TextDelta text_delta;
        ReasoningDelta reasoning_delta;
        DataDelta data_delta;
        BlockDelta block_delta;
        ToolCallDelta tool_call_delta;
    } u;
} ContentBlockDelta;
static const aps_type *const ContentBlockDelta_alts[] = { &T_TextDelta, &T_ReasoningDelta, &T_DataDelta,
                                                          &T_BlockDelta, &T_ToolCallDelta };
static const aps_literal ContentBlockDelta_disc[] = { TXT("text-delta"), TXT("reasoning-delta"), TXT("data-delta"),
                                                      TXT("block-delta"), TXT("tool-call-delta") };
static const aps_type T_ContentBlockDelta = {
    APS_K_UNION, "ContentBlockDelta", sizeof(ContentBlockDelta),
    { .un = { APS_U_DISCRIMINATED, ContentBlockDelta_alts, 5, "type", ContentBlockDelta_disc,
              offsetof(ContentBlockDelta, kind), offsetof(ContentBlockDelta, u), offsetof(ContentBlockDelta, raw) } }, NULL, NULL, NULL };

/* ---- messages data -------------------------------------------------------- */

/* MessageRole = "ai" / "human" / "system" */
static const aps_literal MessageRole_values[] = { TXT("ai"), TXT("human"), TXT("system") };
static const aps_type T_MessageRole = { APS_K_ENUM, "MessageRole", sizeof(int),
                                        { .enm = { MessageRole_values, 3, NULL, 0, NULL } }, NULL, NULL, NULL };

/* MessageMetadata = { ? provider: text, ? model: text, ? modelType: text, * text => MetadataScalar } */
typedef struct MessageMetadata {
    aps_slice provider, model, model_type;
    bool has_provider, has_model, has_model_type;
    aps_json_members extras;
} MessageMetadata;
static const aps_field MessageMetadata_fields[] = {
    OPT(MessageMetadata, "provider", "provider", T_text, provider),
    OPT(MessageMetadata, "model", "model", T_text, model),
    OPT(MessageMetadata, "modelType", "model_type", T_text, model_type),
};
STRUCT(T_MessageMetadata, MessageMetadata, MessageMetadata_fields, true, offsetof(MessageMetadata, extras),
       &T_MetadataScalar, NULL, 0);

LITERAL(L_message_start, "message-start");
LITERAL(L_content_block_delta, "content-block-delta");

typedef struct MessageStartData {
    int role;
    aps_slice id;
    bool has_metadata;
    MessageMetadata metadata;
    aps_json_members extras;
} MessageStartData;
static const aps_field MessageStartData_fields[] = {
    LIT("event", L_message_start),
    F(MessageStartData, "role", "role", T_MessageRole, role),
    F(MessageStartData, "id", "id", T_text, id),
    OPT(MessageStartData, "metadata", "metadata", T_MessageMetadata, metadata),
};
OPEN(T_MessageStartData, MessageStartData, MessageStartData_fields);

typedef struct ContentBlockDeltaData {
    uint64_t index;
    ContentBlockDelta delta;
    bool has_block;
    BlockIndex block; /* not in the schema: exercises a kind union in a struct */
    aps_json_members extras;
} ContentBlockDeltaData;
static const aps_field ContentBlockDeltaData_fields[] = {
    LIT("event", L_content_block_delta),
    F(ContentBlockDeltaData, "index", "index", T_uint, index),
    F(ContentBlockDeltaData, "delta", "delta", T_ContentBlockDelta, delta),
    OPT(ContentBlockDeltaData, "blockIndex", "block_index", T_BlockIndex, block),
};
OPEN(T_ContentBlockDeltaData, ContentBlockDeltaData, ContentBlockDeltaData_fields);

typedef struct MessagesData {
    int kind;
    aps_json_raw raw;
    union {
        MessageStartData message_start;
        ContentBlockDeltaData content_block_delta;
    } u;
} MessagesData;
static const aps_type *const MessagesData_alts[] = { &T_MessageStartData, &T_ContentBlockDeltaData };
static const aps_literal MessagesData_disc[] = { TXT("message-start"), TXT("content-block-delta") };
static const aps_type T_MessagesData = {
    APS_K_UNION, "MessagesData", sizeof(MessagesData),
    { .un = { APS_U_DISCRIMINATED, MessagesData_alts, 2, "event", MessagesData_disc, offsetof(MessagesData, kind),
              offsetof(MessagesData, u), offsetof(MessagesData, raw) } }, NULL, NULL, NULL };

/* ---- events: an envelope with inlined variants ------------------------------ */

typedef struct MessagesParams {
    aps_array namespace_;
    uint64_t timestamp;
    bool has_node;
    aps_slice node;
    MessagesData data;
} MessagesParams;
static const aps_field MessagesParams_fields[] = {
    F(MessagesParams, "namespace", "namespace", T_Namespace, namespace_),
    F(MessagesParams, "timestamp", "timestamp", T_uint, timestamp),
    OPT(MessagesParams, "node", "node", T_text, node),
    F(MessagesParams, "data", "data", T_MessagesData, data),
};
CLOSED(T_MessagesParams, MessagesParams, MessagesParams_fields);

typedef struct ValuesParams {
    aps_array namespace_;
    uint64_t timestamp;
    aps_json_raw data;
} ValuesParams;
static const aps_field ValuesParams_fields[] = {
    F(ValuesParams, "namespace", "namespace", T_Namespace, namespace_),
    F(ValuesParams, "timestamp", "timestamp", T_uint, timestamp),
    F(ValuesParams, "data", "data", T_any, data),
};
CLOSED(T_ValuesParams, ValuesParams, ValuesParams_fields);

LITERAL(L_messages, "messages");
LITERAL(L_values, "values");
typedef struct MessagesEvent {
    MessagesParams params;
} MessagesEvent;
static const aps_field MessagesEvent_fields[] = { LIT("method", L_messages),
                                                  F(MessagesEvent, "params", "params", T_MessagesParams, params) };
CLOSED(T_MessagesEvent, MessagesEvent, MessagesEvent_fields);
typedef struct ValuesEvent {
    ValuesParams params;
} ValuesEvent;
static const aps_field ValuesEvent_fields[] = { LIT("method", L_values),
                                                F(ValuesEvent, "params", "params", T_ValuesParams, params) };
CLOSED(T_ValuesEvent, ValuesEvent, ValuesEvent_fields);

enum { ED_UNKNOWN, ED_MESSAGES, ED_VALUES };
typedef struct EventData {
    int kind;
    aps_json_raw raw;
    union {
        MessagesEvent messages;
        ValuesEvent values;
    } u;
} EventData;
static const aps_type *const EventData_alts[] = { &T_MessagesEvent, &T_ValuesEvent };
static const aps_literal EventData_disc[] = { TXT("messages"), TXT("values") };
static const aps_type T_EventData = {
    APS_K_UNION, "EventData", sizeof(EventData),
    { .un = { APS_U_DISCRIMINATED, EventData_alts, 2, "method", EventData_disc, offsetof(EventData, kind),
              offsetof(EventData, u), offsetof(EventData, raw) } }, NULL, NULL, NULL };

LITERAL(L_event, "event");
typedef struct Event {
    bool has_event_id, has_seq, has_run_id;
    aps_slice event_id;
    uint64_t seq;
    aps_slice run_id;
    EventData data;
    aps_json_members extras;
} Event;
static const aps_field Event_fields[] = {
    LIT("type", L_event),
    OPT(Event, "eventId", "event_id", T_text, event_id),
    OPT(Event, "seq", "seq", T_js_uint, seq),
    OPT(Event, "runId", "run_id", T_text, run_id),
};
STRUCT(T_Event, Event, Event_fields, true, offsetof(Event, extras), NULL, &T_EventData, offsetof(Event, data));

/* ---- responses and Message ------------------------------------------------ */

/* ErrorCode (a few of them) */
static const aps_literal ErrorCode_values[] = { TXT("invalid_argument"), TXT("unknown_command"), TXT("unknown_error"),
                                                TXT("no_such_run") };
static const aps_type T_ErrorCode = { APS_K_ENUM, "ErrorCode", sizeof(int), { .enm = { ErrorCode_values, 4, NULL, 0, NULL } }, NULL, NULL, NULL };

/* RunResult = { ? runId: text } ; AgentResult = { tree: any } ; EmptyResult = { Extensible } */
typedef struct RunResult {
    bool has_run_id;
    aps_slice run_id;
} RunResult;
static const aps_field RunResult_fields[] = { OPT(RunResult, "runId", "run_id", T_text, run_id) };
CLOSED(T_RunResult, RunResult, RunResult_fields);
typedef struct AgentResult {
    aps_json_raw tree;
} AgentResult;
static const aps_field AgentResult_fields[] = { F(AgentResult, "tree", "tree", T_any, tree) };
CLOSED(T_AgentResult, AgentResult, AgentResult_fields);
typedef struct EmptyResult {
    aps_json_members extras;
} EmptyResult;
static const aps_type T_EmptyResult = { APS_K_STRUCT, "EmptyResult", sizeof(EmptyResult),
                                        { .st = { NULL, 0, true, offsetof(EmptyResult, extras), NULL, NULL, 0, 0, 0 } }, NULL, NULL, NULL };

/* ResultData = RunResult // AgentResult // EmptyResult (untagged) */
typedef struct ResultData {
    int kind;
    aps_json_raw raw;
    union {
        RunResult run;
        AgentResult agent;
        EmptyResult empty;
    } u;
} ResultData;
static const aps_type *const ResultData_alts[] = { &T_RunResult, &T_AgentResult, &T_EmptyResult };
static const aps_type T_ResultData = {
    APS_K_UNION, "ResultData", sizeof(ResultData),
    { .un = { APS_U_UNTAGGED, ResultData_alts, 3, NULL, NULL, offsetof(ResultData, kind), offsetof(ResultData, u),
              offsetof(ResultData, raw) } }, NULL, NULL, NULL };

LITERAL(L_success, "success");
LITERAL(L_error, "error");
typedef struct CommandResponse {
    uint64_t id;
    ResultData result;
    aps_json_members extras;
} CommandResponse;
static const aps_field CommandResponse_fields[] = { LIT("type", L_success), F(CommandResponse, "id", "id", T_js_uint, id),
                                                    F(CommandResponse, "result", "result", T_ResultData, result) };
OPEN(T_CommandResponse, CommandResponse, CommandResponse_fields);

typedef struct ErrorResponse {
    uint64_t id;
    bool id_is_null;
    int error;
    aps_slice message;
    bool has_stacktrace;
    aps_slice stacktrace;
    aps_json_members extras;
} ErrorResponse;
static const aps_field ErrorResponse_fields[] = {
    LIT("type", L_error),
    NUL(ErrorResponse, "id", "id", T_js_uint, id),
    F(ErrorResponse, "error", "error", T_ErrorCode, error),
    F(ErrorResponse, "message", "message", T_text, message),
    OPT(ErrorResponse, "stacktrace", "stacktrace", T_text, stacktrace),
};
OPEN(T_ErrorResponse, ErrorResponse, ErrorResponse_fields);

enum { MSG_UNKNOWN, MSG_SUCCESS, MSG_ERROR, MSG_EVENT };
typedef struct Message {
    int kind;
    aps_json_raw raw;
    union {
        CommandResponse success;
        ErrorResponse error;
        Event event;
    } u;
} Message;
static const aps_type *const Message_alts[] = { &T_CommandResponse, &T_ErrorResponse, &T_Event };
static const aps_literal Message_disc[] = { TXT("success"), TXT("error"), TXT("event") };
static const aps_type T_Message = {
    APS_K_UNION, "Message", sizeof(Message),
    { .un = { APS_U_DISCRIMINATED, Message_alts, 3, "type", Message_disc, offsetof(Message, kind),
              offsetof(Message, u), offsetof(Message, raw) } }, NULL, NULL, NULL };

/* ---- commands ----------------------------------------------------------------- */

/* Channel = "values" / ... / tstr .regexp "custom:.+" */
static const aps_type T_ChannelCustom = { APS_K_TEXT, NULL, sizeof(aps_slice), { .text = { 0, SIZE_MAX, "custom:.+" } }, NULL, NULL, NULL };
static const aps_literal Channel_values[] = { TXT("values"), TXT("updates"), TXT("messages"), TXT("tools"),
                                              TXT("lifecycle"), TXT("input"), TXT("checkpoints"), TXT("tasks"),
                                              TXT("custom") };
typedef struct Channel {
    int kind;
    aps_slice other;
} Channel;
static const aps_type T_Channel = { APS_K_ENUM, "Channel", sizeof(Channel),
                                    { .enm = { Channel_values, 9, &T_ChannelCustom, offsetof(Channel, other), NULL } }, NULL, NULL, NULL };
static const aps_type T_Channels = { APS_K_ARRAY, NULL, sizeof(aps_array), { .arr = { &T_Channel, 1, SIZE_MAX } }, NULL, NULL, NULL };

typedef struct SubscribeParams {
    aps_array channels;
    bool has_depth;
    uint64_t depth;
    aps_json_members extras;
} SubscribeParams;
static const aps_field SubscribeParams_fields[] = { F(SubscribeParams, "channels", "channels", T_Channels, channels),
                                                    OPT(SubscribeParams, "depth", "depth", T_uint, depth) };
OPEN(T_SubscribeParams, SubscribeParams, SubscribeParams_fields);

typedef struct RunStartParams {
    aps_slice assistant_id;
    aps_json_raw input;
    bool has_config;
    aps_array config;
} RunStartParams;
static const aps_field RunStartParams_fields[] = {
    F(RunStartParams, "assistantId", "assistant_id", T_text, assistant_id),
    F(RunStartParams, "input", "input", T_any, input),
    OPT(RunStartParams, "config", "config", T_AnyMap, config),
};
CLOSED(T_RunStartParams, RunStartParams, RunStartParams_fields);

/* RunSend = { node: text, ? input: any } */
typedef struct RunSend {
    aps_slice node;
    bool has_input;
    aps_json_raw input;
} RunSend;
static const aps_field RunSend_fields[] = { F(RunSend, "node", "node", T_text, node),
                                            OPT(RunSend, "input", "input", T_any, input) };
CLOSED(T_RunSend, RunSend, RunSend_fields);

/* GotoItem = text / RunSend ; Goto = text / RunSend / [* GotoItem] */
typedef struct GotoItem {
    int kind;
    aps_json_raw raw;
    union {
        aps_slice node;
        RunSend send;
    } u;
} GotoItem;
static const aps_type *const GotoItem_alts[] = { &T_text, &T_RunSend };
static const aps_type T_GotoItem = { APS_K_UNION, NULL, sizeof(GotoItem),
                                     { .un = { APS_U_KIND, GotoItem_alts, 2, NULL, NULL, offsetof(GotoItem, kind),
                                               offsetof(GotoItem, u), offsetof(GotoItem, raw) } }, NULL, NULL, NULL };
static const aps_type T_GotoList = { APS_K_ARRAY, NULL, sizeof(aps_array), { .arr = { &T_GotoItem, 0, SIZE_MAX } }, NULL, NULL, NULL };
typedef struct Goto {
    int kind;
    aps_json_raw raw;
    union {
        aps_slice node;
        RunSend send;
        aps_array list;
    } u;
} Goto;
static const aps_type *const Goto_alts[] = { &T_text, &T_RunSend, &T_GotoList };
static const aps_type T_Goto = { APS_K_UNION, "Goto", sizeof(Goto),
                                 { .un = { APS_U_KIND, Goto_alts, 3, NULL, NULL, offsetof(Goto, kind),
                                           offsetof(Goto, u), offsetof(Goto, raw) } }, NULL, NULL, NULL };

typedef struct InputRespondEntry {
    aps_array namespace_;
    aps_slice interrupt_id;
    aps_json_raw response;
} InputRespondEntry;
static const aps_field InputRespondEntry_fields[] = {
    F(InputRespondEntry, "namespace", "namespace", T_Namespace, namespace_),
    F(InputRespondEntry, "interruptId", "interrupt_id", T_text, interrupt_id),
    F(InputRespondEntry, "response", "response", T_any, response),
};
CLOSED(T_InputRespondEntry, InputRespondEntry, InputRespondEntry_fields);
static const aps_type T_Entries = { APS_K_ARRAY, NULL, sizeof(aps_array), { .arr = { &T_InputRespondEntry, 1, SIZE_MAX } }, NULL, NULL, NULL };

typedef struct InputRespondOne {
    aps_array namespace_;
    aps_slice interrupt_id;
    aps_json_raw response;
    bool has_goto_;
    Goto goto_;
} InputRespondOne;
static const aps_field InputRespondOne_fields[] = {
    F(InputRespondOne, "namespace", "namespace", T_Namespace, namespace_),
    F(InputRespondOne, "interruptId", "interrupt_id", T_text, interrupt_id),
    F(InputRespondOne, "response", "response", T_any, response),
    OPT(InputRespondOne, "goto", "goto", T_Goto, goto_),
};
CLOSED(T_InputRespondOne, InputRespondOne, InputRespondOne_fields);
typedef struct InputRespondMany {
    aps_array responses;
    bool has_goto_;
    Goto goto_;
} InputRespondMany;
static const aps_field InputRespondMany_fields[] = {
    F(InputRespondMany, "responses", "responses", T_Entries, responses),
    OPT(InputRespondMany, "goto", "goto", T_Goto, goto_),
};
CLOSED(T_InputRespondMany, InputRespondMany, InputRespondMany_fields);
typedef struct InputRespondParams {
    int kind;
    aps_json_raw raw;
    union {
        InputRespondOne one;
        InputRespondMany many;
    } u;
} InputRespondParams;
static const aps_type *const InputRespondParams_alts[] = { &T_InputRespondOne, &T_InputRespondMany };
static const aps_type T_InputRespondParams = {
    APS_K_UNION, "InputRespondParams", sizeof(InputRespondParams),
    { .un = { APS_U_UNTAGGED, InputRespondParams_alts, 2, NULL, NULL, offsetof(InputRespondParams, kind),
              offsetof(InputRespondParams, u), offsetof(InputRespondParams, raw) } }, NULL, NULL, NULL };

LITERAL(L_run_start, "run.start");
LITERAL(L_subscribe, "subscription.subscribe");
LITERAL(L_input_respond, "input.respond");
typedef struct RunStart {
    RunStartParams params;
} RunStart;
static const aps_field RunStart_fields[] = { LIT("method", L_run_start),
                                             F(RunStart, "params", "params", T_RunStartParams, params) };
CLOSED(T_RunStart, RunStart, RunStart_fields);
typedef struct Subscribe {
    SubscribeParams params;
} Subscribe;
static const aps_field Subscribe_fields[] = { LIT("method", L_subscribe),
                                              F(Subscribe, "params", "params", T_SubscribeParams, params) };
CLOSED(T_Subscribe, Subscribe, Subscribe_fields);
typedef struct InputRespond {
    InputRespondParams params;
} InputRespond;
static const aps_field InputRespond_fields[] = { LIT("method", L_input_respond),
                                                 F(InputRespond, "params", "params", T_InputRespondParams, params) };
CLOSED(T_InputRespond, InputRespond, InputRespond_fields);

enum { CMD_UNKNOWN, CMD_RUN_START, CMD_SUBSCRIBE, CMD_INPUT_RESPOND };
typedef struct CommandData {
    int kind;
    aps_json_raw raw;
    union {
        RunStart run_start;
        Subscribe subscribe;
        InputRespond input_respond;
    } u;
} CommandData;
static const aps_type *const CommandData_alts[] = { &T_RunStart, &T_Subscribe, &T_InputRespond };
static const aps_literal CommandData_disc[] = { TXT("run.start"), TXT("subscription.subscribe"), TXT("input.respond") };
static const aps_type T_CommandData = {
    APS_K_UNION, "CommandData", sizeof(CommandData),
    { .un = { APS_U_DISCRIMINATED, CommandData_alts, 3, "method", CommandData_disc, offsetof(CommandData, kind),
              offsetof(CommandData, u), offsetof(CommandData, raw) } }, NULL, NULL, NULL };

typedef struct Command {
    uint64_t id;
    CommandData data;
    aps_json_members extras;
} Command;
static const aps_field Command_fields[] = { F(Command, "id", "id", T_js_uint, id) };
STRUCT(T_Command, Command, Command_fields, true, offsetof(Command, extras), NULL, &T_CommandData,
       offsetof(Command, data));

/* ---- a recursive type: AgentTreeNode = { graphName: text, ? children: [* AgentTreeNode] } ---- */

typedef struct TreeNode {
    aps_slice graph_name;
    bool has_children;
    aps_array children;
} TreeNode;
static const aps_type T_TreeNode;
static const aps_type T_TreeNodes = { APS_K_ARRAY, NULL, sizeof(aps_array), { .arr = { &T_TreeNode, 0, SIZE_MAX } }, NULL, NULL, NULL };
static const aps_field TreeNode_fields[] = { F(TreeNode, "graphName", "graph_name", T_text, graph_name),
                                             OPT(TreeNode, "children", "children", T_TreeNodes, children) };
static const aps_type T_TreeNode = { APS_K_STRUCT, "TreeNode", sizeof(TreeNode),
                                     { .st = { TreeNode_fields, 2, false, 0, NULL, NULL, 0, 0, 0 } }, NULL, NULL, NULL };

#endif
