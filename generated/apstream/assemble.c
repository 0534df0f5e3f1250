/*
 * assemble.c - `apstream assemble`: turns a stream of decoded events into
 * final messages and tool runs with the runtime's assembler.
 */
#include <stdio.h>

#include "apstream.h"

int apstream_assemble(const apstream_options *o)
{
    (void)o;
    fprintf(stderr, "apstream: error: assemble is not available in this build\n");
    return 2;
}
