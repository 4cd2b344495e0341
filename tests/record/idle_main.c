/* idle_main.c - a process whose main thread sleeps while a second thread spins: what
 * `hwprof record -p` of a server with a thread pool looks like. Runs until killed. */
#include <pthread.h>
#include <unistd.h>

static void *spin(void *arg)
{
	volatile unsigned long s = 0;

	for (;;)
		s++; /* HOT: worker */
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, spin, NULL))
		return 1;
	for (;;)
		pause();
}
