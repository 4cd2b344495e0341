/* wl_plt.c - calls libwlplt.so's plt_id N times (default 50000000) through the PLT: recorded
 * with cpu-clock, the PLT slot takes a share of the samples, named plt_id@plt as objdump and
 * perf name it. Built with ld.bfd (.plt), with IBT (.plt.sec) and with ld.lld. */
#include <stdlib.h>

int plt_id(int x);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000000, s = 0;

	for (long i = 0; i < n; i++)
		s += plt_id((int)i);
	return (int)(s & 1);
}
