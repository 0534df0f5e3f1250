/* See cycle_a.c. */
int planted_cycle_a(int x);

int planted_cycle_b(int x)
{
    return x > 0 ? planted_cycle_a(x - 1) : 1;
}
