/* wl_plt_lib.c - libwlplt.so: a function small enough that its callers' PLT slot takes a
 * good share of the time spent calling it. */
int plt_id(int x)
{
	return x;
}
