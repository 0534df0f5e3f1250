/* Built against the installed runtime with nothing but `pkg-config --cflags --libs cddlgen-runtime`. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aps/json.h"
#include "aps/utf8.h"

int main(void)
{
    static const char text[] = "{\"greeting\":\"h\\u00e9llo\"}";
    aps_error err = APS_ERROR_INIT;
    aps_json_writer w;
    int ok;
    aps_json_writer_init(&w, NULL);
    aps_json_write_string(&w, "h\xc3\xa9llo", 6);
    ok = aps_utf8_check((const uint8_t *)text, strlen(text)) == SIZE_MAX &&
         aps_json_validate(text, strlen(text), NULL, &err) == APS_OK &&
         aps_json_writer_finish(&w, &err) == APS_OK;
    if (ok)
        printf("runtime ok: %.*s\n", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
    else
        printf("runtime failed: %s\n", err.message);
    aps_json_writer_deinit(&w);
    return ok ? 0 : 1;
}
