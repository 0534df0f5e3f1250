/* json_number.c - JSON number text to double, correctly rounded and locale-proof. */
#include "aps/json_impl.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

/* Significant digits kept for strtod; more cannot change the rounding (768 can). */
#define MAX_DIGITS 780

static const double exact_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

int aps_json_impl_to_double(const char *p, const char *end, double *out)
{
    char buf[MAX_DIGITS + 40];
    size_t nd = 0;
    long exp10 = 0, written = 0;
    int neg = 0, sticky = 0, eneg = 0;
    uint64_t mant = 0;
    double v;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    buf[nd++] = neg ? '-' : '+';
    /* Digits of the significand, leading zeros dropped; value = digits * 10^exp10. */
    for (; p < end && (unsigned)(*p - '0') <= 9; p++) {
        if (nd == 1 && *p == '0')
            continue;
        if (nd <= MAX_DIGITS) {
            buf[nd++] = *p;
            mant = mant * 10 + (uint64_t)(*p - '0');
        } else {
            sticky |= *p != '0';
            exp10++;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && (unsigned)(*p - '0') <= 9; p++) {
            if (nd == 1 && *p == '0') {
                exp10--;
                continue;
            }
            if (nd <= MAX_DIGITS) {
                buf[nd++] = *p;
                mant = mant * 10 + (uint64_t)(*p - '0');
                exp10--;
            } else {
                sticky |= *p != '0';
            }
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < end && (unsigned)(*p - '0') <= 9; p++) {
            if (written < 100000000L)
                written = written * 10 + (*p - '0');
        }
    }
    exp10 += eneg ? -written : written;
    if (nd == 1) {
        *out = neg ? -0.0 : 0.0;
        return 1;
    }
    /* Exact when both the digits and the power of ten are exact doubles. */
    if (FLT_EVAL_METHOD == 0 && nd - 1 <= 15 && exp10 >= -22 && exp10 <= 22) {
        v = (double)mant;
        v = exp10 < 0 ? v / exact_pow10[-exp10] : v * exact_pow10[exp10];
        *out = neg ? -v : v;
        return 1;
    }
    if (sticky) {
        buf[nd++] = '1';
        exp10--;
    }
    if (exp10 > 1000000L)
        exp10 = 1000000L;
    if (exp10 < -1000000L)
        exp10 = -1000000L;
    /* No decimal point is written, so the C locale's choice of one cannot matter. */
    snprintf(buf + nd, sizeof buf - nd, "e%ld", exp10);
    v = strtod(buf, NULL);
    if (v > DBL_MAX || v < -DBL_MAX)
        return 0;
    *out = v;
    return 1;
}
