/* decode_message.c - fuzz target for the generated Message codec: see decode_roundtrip.h. */
#define RT_TYPE ap_message_t
#define RT_DECODE ap_message_decode_opts
#define RT_ENCODE ap_message_encode_opts
#define RT_DESC ap_message_type
#define RT_VALIDATE ap_message_validate
#include "decode_roundtrip.h"
