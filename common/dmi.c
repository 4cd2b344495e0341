/* dmi.c - SMBIOS memory devices; see dmi.h. */
#include "dmi.h"

#include "hwprof/event.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned word(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* String number I (1-based) of the record whose formatted area is FLEN bytes of RAW. */
static void string_at(const uint8_t *raw, size_t len, size_t flen, unsigned i, char *buf,
		      size_t blen)
{
	size_t at = flen;

	buf[0] = '\0';
	for (unsigned k = 1; i && at < len; k++) {
		size_t n = strnlen((const char *)raw + at, len - at);
		if (!n)
			return;
		if (k == i) {
			snprintf(buf, blen, "%.*s", (int)n, (const char *)raw + at);
			return;
		}
		at += n + 1;
	}
}

int dmi_dimm_parse(const uint8_t *raw, size_t len, struct dmi_dimm *d)
{
	unsigned size, speed = 0, width;

	memset(d, 0, sizeof(*d));
	if (len < 0x17 || raw[0] != 17 || raw[1] < 0x17 || raw[1] > len)
		return -EINVAL;
	size = word(raw + 0x0C);
	if (size == 0)
		return 0;
	if (size == 0x7FFF && raw[1] >= 0x20)
		d->size_mib = (uint64_t)word(raw + 0x1C) | (uint64_t)word(raw + 0x1E) << 16;
	else if (size != 0xFFFF)
		d->size_mib = size & 0x8000 ? (size & 0x7FFF) / 1024 : size;
	width = word(raw + 0x0A);
	d->width_bits = width == 0xFFFF ? 0 : width;
	if (raw[1] >= 0x22)
		speed = word(raw + 0x20);
	if (!speed || speed == 0xFFFF)
		speed = word(raw + 0x15);
	d->speed_mts = speed == 0xFFFF ? 0 : speed;
	string_at(raw, len, raw[1], raw[0x10], d->locator, sizeof(d->locator));
	string_at(raw, len, raw[1], raw[0x11], d->bank, sizeof(d->bank));
	return 1;
}

/* The instance number N of an entry "17-N", for the firmware's order. */
static long entry_number(const char *name)
{
	return strtol(name + 3, NULL, 10);
}

static int cmp_entry(const void *a, const void *b)
{
	long x = entry_number(*(char *const *)a), y = entry_number(*(char *const *)b);
	return (x > y) - (x < y);
}

int dmi_memory_read(struct dmi_memory *m)
{
	char dir[4096], path[4096 + 300], *names[256];
	uint8_t raw[4096];
	struct dirent *de;
	bool unknown = false;
	size_t nn = 0;
	int r = -ENOENT;
	DIR *dp;

	memset(m, 0, sizeof(*m));
	snprintf(dir, sizeof(dir), "%s/firmware/dmi/entries", hwprof_sysfs_root());
	dp = opendir(dir);
	if (!dp)
		return errno == EACCES ? -EACCES : -ENOENT;
	while ((de = readdir(dp)) && nn < sizeof(names) / sizeof(*names))
		if (!strncmp(de->d_name, "17-", 3) && (names[nn] = strdup(de->d_name)))
			nn++;
	closedir(dp);
	/* readdir's order is the file system's: the firmware's is the instance number's. */
	qsort(names, nn, sizeof(*names), cmp_entry);
	for (size_t i = 0; i < nn; i++) {
		struct dmi_dimm d;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/%s/raw", dir, names[i]);
		free(names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			r = errno == EACCES ? -EACCES : r;
			continue;
		}
		n = read(fd, raw, sizeof(raw));
		close(fd);
		if (r == -ENOENT)
			r = 0;
		if (n <= 0 || dmi_dimm_parse(raw, (size_t)n, &d) <= 0) {
			m->empty += n > 0;
			continue;
		}
		if (m->n < sizeof(m->dimm) / sizeof(*m->dimm))
			m->dimm[m->n++] = d;
		unknown |= !d.speed_mts || !d.width_bits;
		m->peak_bps += (double)d.speed_mts * 1e6 * d.width_bits / 8;
	}
	if (r < 0)
		return r;
	if (!m->n || unknown) {
		m->peak_bps = 0;
		return -ENODATA;
	}
	return 0;
}

/* Appends printf FMT to BUF at *AT (LEN bytes), cut to fit. */
static void cat(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cat(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	*at = n < 0 ? len : *at + (size_t)n;
}

void dmi_memory_describe(const struct dmi_memory *m, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		size_t same = 0;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = m->dimm[k].speed_mts == m->dimm[i].speed_mts &&
			       m->dimm[k].width_bits == m->dimm[i].width_bits;
		if (seen)
			continue;
		for (size_t k = i; k < m->n; k++)
			same += m->dimm[k].speed_mts == m->dimm[i].speed_mts &&
				m->dimm[k].width_bits == m->dimm[i].width_bits;
		cat(buf, len, &at, "%s%zu x %u MT/s x %u bit", at ? " + " : "", same,
		    m->dimm[i].speed_mts, m->dimm[i].width_bits);
	}
	for (size_t i = 0; i < m->n; i++)
		cat(buf, len, &at, "%s%s", i ? ", " : " (",
		    m->dimm[i].locator[0] ? m->dimm[i].locator : "?");
	if (m->n)
		cat(buf, len, &at, ")");
	if (at >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}
