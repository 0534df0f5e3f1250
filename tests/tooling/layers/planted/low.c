/* A lower layer that calls up into the higher one: calls.sh must say so. */
int planted_high(int x);

int planted_low(int x)
{
    return planted_high(x) + 1;
}
