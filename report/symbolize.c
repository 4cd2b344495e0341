/* symbolize.c - stub */
typedef int hwprof_pedantic_unused;
