/* stackdump.c - prints the samples and stacks of a sample file, for tests that check call
 * graphs before a report shows them:
 *   stack ID NR NR_KERNEL TRUNCATED IP...   (hex, innermost caller first)
 *   sample PID TID IP STACK_ID              (hex ip)
 * Exits 0 when the file read whole, 1 when it was cut or damaged (the message on stderr). */
#include <inttypes.h>
#include <stdio.h>

#include "hwprof/sampfile.h"

int main(int argc, char **argv)
{
	struct hwprof_reader *r;
	struct hwprof_record rec;
	char err[512];
	const char *msg;

	if (argc != 2) {
		fprintf(stderr, "usage: stackdump FILE\n");
		return 64;
	}
	if (hwprof_reader_open(&r, argv[1], err, sizeof(err))) {
		fprintf(stderr, "stackdump: %s\n", err);
		return 2;
	}
	while (hwprof_reader_next(r, &rec) == 1) {
		if (rec.type == HWPROF_REC_STACK) {
			const struct hwprof_rec_stack *k = &rec.stack;
			printf("stack %" PRIu32 " %" PRIu32 " %" PRIu32 " %d", k->id, k->nr,
			       k->nr_kernel, k->truncated);
			for (uint32_t i = 0; i < k->nr; i++)
				printf(" %" PRIx64, k->ips[i]);
			printf("\n");
		} else if (rec.type == HWPROF_REC_SAMPLE) {
			printf("sample %" PRIu32 " %" PRIu32 " %" PRIx64 " %" PRIu32 "\n",
			       rec.sample.pid, rec.sample.tid, rec.sample.ip, rec.sample.stack_id);
		}
	}
	if (hwprof_reader_status(r, &msg) != HWPROF_READ_OK) {
		fprintf(stderr, "stackdump: %s\n", msg);
		hwprof_reader_close(r);
		return 1;
	}
	hwprof_reader_close(r);
	return 0;
}
