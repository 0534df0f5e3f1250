/* Built against the installed runtime with nothing but `pkg-config --cflags --libs cddlgen-runtime`. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apr_json.h"
#include "apr_utf8.h"

int main(void)
{
    static const char text[] = "{\"greeting\":\"h\\u00e9llo\"}";
    apr_error err = APR_ERROR_INIT;
    apr_json_writer w;
    int ok;
    apr_json_writer_init(&w, NULL);
    apr_json_write_string(&w, "h\xc3\xa9llo", 6);
    ok = apr_utf8_check((const uint8_t *)text, strlen(text)) == SIZE_MAX &&
         apr_json_validate(text, strlen(text), NULL, &err) == APR_OK &&
         apr_json_writer_finish(&w, &err) == APR_OK;
    if (ok)
        printf("runtime ok: %.*s\n", (int)apr_json_writer_len(&w), apr_json_writer_data(&w));
    else
        printf("runtime failed: %s\n", err.message);
    apr_json_writer_deinit(&w);
    return ok ? 0 : 1;
}
