/*
 * The runtime's version macros (aps/common.h) against the CMake project
 * version, which the build passes as EXPECTED_VERSION: generated code trusts
 * them to name the runtime it compiles against, so they must move with every
 * release. Exits 1, saying which macro differs, when one does.
 */
#include <stdio.h>
#include <string.h>

#include "aps/common.h"

#ifndef EXPECTED_VERSION
#error "compile with -DEXPECTED_VERSION=\"MAJOR.MINOR.PATCH\" (the CMake project version)"
#endif

int main(void)
{
    char parts[64];
    int failed = 0;
    snprintf(parts, sizeof parts, "%d.%d.%d", APS_VERSION_MAJOR, APS_VERSION_MINOR, APS_VERSION_PATCH);
    if (strcmp(APS_VERSION_STRING, EXPECTED_VERSION) != 0) {
        printf("APS_VERSION_STRING is \"%s\"; the project version is \"%s\"\n", APS_VERSION_STRING, EXPECTED_VERSION);
        failed = 1;
    }
    if (strcmp(parts, EXPECTED_VERSION) != 0) {
        printf("APS_VERSION_MAJOR.MINOR.PATCH is %s; the project version is %s\n", parts, EXPECTED_VERSION);
        failed = 1;
    }
    if (APS_VERSION_NUMBER != APS_VERSION_MAJOR * 10000 + APS_VERSION_MINOR * 100 + APS_VERSION_PATCH ||
        APS_VERSION_MINOR > 99 || APS_VERSION_PATCH > 99) {
        printf("APS_VERSION_NUMBER %d does not encode %s as MAJOR * 10000 + MINOR * 100 + PATCH\n",
               APS_VERSION_NUMBER, parts);
        failed = 1;
    }
    if (!failed)
        printf("aps runtime %s\n", APS_VERSION_STRING);
    return failed;
}
