/* With cycle_b.c, two files of one layer that call each other: calls.sh must name both. */
int planted_cycle_b(int x);

int planted_high(int x)
{
    return x * 2;
}

int planted_cycle_a(int x)
{
    return x > 0 ? planted_cycle_b(x - 1) : 0;
}
