/* decode_command.c - fuzz target for the generated Command codec: see decode_roundtrip.h. */
#define RT_TYPE ap_command_t
#define RT_DECODE ap_command_decode_opts
#define RT_ENCODE ap_command_encode_opts
#define RT_DESC ap_command_type
#define RT_VALIDATE ap_command_validate
#include "decode_roundtrip.h"
