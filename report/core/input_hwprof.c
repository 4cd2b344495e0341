/* input_hwprof.c - the hwprof.data producer: hwprof's sample file reader (libhwprof) into the
 * loader. */
#include "producer.h"

#include "sampfile_format.h"

#include <inttypes.h>
#include <string.h>

static bool hwprof_probe(const unsigned char *head, size_t n)
{
	return n >= SF_MAGIC_LEN && !memcmp(head, SF_MAGIC, SF_MAGIC_LEN);
}

static int hwprof_read(struct input *in, const char *path, int fd, char *err, size_t errlen)
{
	struct hwprof_reader *r = NULL;
	struct hwprof_record rec;
	const char *msg = NULL;
	enum hwprof_read_status st;
	int ret = fd >= 0 ? hwprof_reader_open_fd(&r, fd, path, err, errlen)
			  : hwprof_reader_open(&r, path, err, errlen);

	if (ret < 0)
		return ret;
	ret = input_begin(in, hwprof_reader_header(r));
	while (ret == 0 && hwprof_reader_next(r, &rec) == 1)
		ret = input_record(in, &rec);
	if (ret == 0) {
		st = hwprof_reader_status(r, &msg);
		ret = input_end(in, hwprof_reader_trailer(r), st, msg);
	}
	if (ret == 0 && hwprof_reader_trailing_bytes(r))
		ret = input_note(in,
				 "%s: %" PRIu64 " bytes follow the recording's trailer, not "
				 "read (appended to the file after recording; the recording "
				 "itself is whole)",
				 path, hwprof_reader_trailing_bytes(r));
	hwprof_reader_close(r);
	return ret;
}

const struct producer producer_hwprof = {
    .name = "hwprof.data",
    .probe = hwprof_probe,
    .read = hwprof_read,
};
