/* dmi.c - SMBIOS memory devices; see dmi.h. */
#include "dmi.h"

#include "hwprof/event.h"

#include <ctype.h>
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

/* The channel S names, into KEY (LEN bytes): S up to a "channel" word and its id ("P0
 * CHANNEL A", "P0_Node0_Channel0", "ChannelA"), or up to a "DIMM" word and the one letter
 * before the slot number at S's end ("CPU0_DIMM_A", "P1-DIMMA"). Returns whether S names
 * one. */
static bool channel_in(const char *s, char *key, size_t len)
{
	const char *c = strcasestr(s, "channel"), *d = strcasestr(s, "dimm"), *p;

	if (c) {
		p = c + strlen("channel");
		p += *p == ' ' || *p == '_';
		while (isalnum((unsigned char)*p))
			p++;
		if (p > c + strlen("channel") + 1 || isalnum((unsigned char)p[-1])) {
			snprintf(key, len, "%.*s", (int)(p - s), s);
			return true;
		}
	}
	if (d) {
		p = d + strlen("dimm");
		p += *p == ' ' || *p == '_' || *p == '-';
		if (isalpha((unsigned char)p[0]) && isdigit((unsigned char)p[1]) &&
		    strspn(p + 1, "0123456789") == strlen(p + 1)) {
			snprintf(key, len, "%.*s", (int)(p + 1 - s), s);
			return true;
		}
	}
	return false;
}

/* Sets each DIMM's channel, M->channels and M->peak_bps (see dmi_memory_read()). */
static void group_channels(struct dmi_memory *m)
{
	char keys[64][64];
	unsigned speed[64] = {0}, width[64] = {0};

	m->channels = 0;
	m->peak_bps = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct dmi_dimm *d = &m->dimm[i];
		char key[64];
		size_t c;

		if (!channel_in(d->bank, key, sizeof(key)) &&
		    !channel_in(d->locator, key, sizeof(key)))
			snprintf(key, sizeof(key), "#%zu", i); /* a channel of its own */
		for (c = 0; c < m->channels && strcmp(keys[c], key); c++)
			;
		if (c == m->channels)
			snprintf(keys[m->channels++], sizeof(keys[0]), "%s", key);
		d->channel = (unsigned)c;
		if (d->speed_mts > speed[c])
			speed[c] = d->speed_mts;
		if (d->width_bits > width[c])
			width[c] = d->width_bits;
	}
	for (size_t c = 0; c < m->channels; c++)
		m->peak_bps += (double)speed[c] * 1e6 * width[c] / 8;
}

/* Groups M's DIMMs into channels and sums the peak; -ENODATA (peak 0) when there is no
 * DIMM or one of unknown speed or width (UNKNOWN). */
static int finish(struct dmi_memory *m, bool unknown)
{
	group_channels(m);
	if (!m->n || unknown) {
		m->peak_bps = 0;
		return -ENODATA;
	}
	return 0;
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
	}
	if (r < 0)
		return r;
	return finish(m, unknown);
}

/* The value of "\tKEY: VALUE" in LINE, or NULL when LINE is another key's. */
static const char *text_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	line += strspn(line, " \t");
	return strncmp(line, key, n) || line[n] != ':' ? NULL
						       : line + n + 1 + strspn(line + n + 1, " ");
}

/* A number of MT/s or bits at V ("2933 MT/s", "64 bits"); 0 for "Unknown". */
static unsigned text_number(const char *v)
{
	return (unsigned)strtoul(v, NULL, 10);
}

/* A size at V in MiB ("32 GB", "16384 MB", "512 kB"); 0 for "No Module Installed". */
static uint64_t text_size(const char *v, bool *empty)
{
	char *unit;
	uint64_t n = strtoull(v, &unit, 10);

	*empty = unit == v;
	unit += strspn(unit, " ");
	if (!strncmp(unit, "TB", 2))
		return n << 20;
	if (!strncmp(unit, "GB", 2))
		return n << 10;
	if (!strncmp(unit, "kB", 2))
		return n >> 10;
	return n;
}

int dmi_memory_parse_text(FILE *f, struct dmi_memory *m)
{
	char line[512];
	struct dmi_dimm d;
	bool in = false, empty = false, unknown = false, any = false;
	unsigned speed = 0, conf = 0;

	memset(m, 0, sizeof(*m));
	for (bool more = true; more;) {
		const char *v;

		more = fgets(line, sizeof(line), f) != NULL;
		line[strcspn(line, "\n")] = '\0';
		/* A block ends at its blank line (or the end of the text). */
		if (in && (!more || !line[0] || strncmp(line, "\t", 1))) {
			d.speed_mts = conf ? conf : speed;
			if (empty)
				m->empty++;
			else if (m->n < sizeof(m->dimm) / sizeof(*m->dimm))
				m->dimm[m->n++] = d;
			unknown |= !empty && (!d.speed_mts || !d.width_bits);
			in = false;
		}
		if (!strcmp(line, "Memory Device")) {
			memset(&d, 0, sizeof(d));
			in = any = true;
			empty = false;
			speed = conf = 0;
			continue;
		}
		if (!in)
			continue;
		if ((v = text_value(line, "Data Width")))
			d.width_bits = text_number(v);
		else if ((v = text_value(line, "Size")))
			d.size_mib = text_size(v, &empty);
		else if ((v = text_value(line, "Locator")))
			snprintf(d.locator, sizeof(d.locator), "%s", v);
		else if ((v = text_value(line, "Bank Locator")))
			snprintf(d.bank, sizeof(d.bank), "%s", v);
		else if ((v = text_value(line, "Speed")))
			speed = text_number(v);
		else if ((v = text_value(line, "Configured Memory Speed")) ||
			 (v = text_value(line, "Configured Clock Speed")))
			conf = text_number(v);
	}
	if (!any)
		return -ENOENT;
	return finish(m, unknown);
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

/* The fastest speed and widest width of channel C's DIMMs. */
static void channel_rate(const struct dmi_memory *m, unsigned c, unsigned *speed, unsigned *width)
{
	*speed = *width = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->dimm[i].channel != c)
			continue;
		if (m->dimm[i].speed_mts > *speed)
			*speed = m->dimm[i].speed_mts;
		if (m->dimm[i].width_bits > *width)
			*width = m->dimm[i].width_bits;
	}
}

void dmi_memory_describe(const struct dmi_memory *m, char *buf, size_t len)
{
	bool shared = m->channels < m->n;
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < m->channels; c++) {
		unsigned sp, wd, s2, w2;
		size_t same = 0;
		bool seen = false;

		channel_rate(m, c, &sp, &wd);
		for (unsigned k = 0; k < c && !seen; k++) {
			channel_rate(m, k, &s2, &w2);
			seen = s2 == sp && w2 == wd;
		}
		if (seen)
			continue;
		for (unsigned k = c; k < m->channels; k++) {
			channel_rate(m, k, &s2, &w2);
			same += s2 == sp && w2 == wd;
		}
		cat(buf, len, &at, "%s%zu%s x %u MT/s x %u bit", at ? " + " : "", same,
		    shared ? " channels" : "", sp, wd);
	}
	if (shared)
		cat(buf, len, &at, " (%zu DIMMs: ", m->n);
	for (size_t i = 0; i < m->n; i++) {
		const struct dmi_dimm *d = &m->dimm[i];

		cat(buf, len, &at, "%s%s%s%s",
		    i	     ? ", "
		    : shared ? ""
			     : " (",
		    shared && d->bank[0] ? d->bank : "", shared && d->bank[0] ? " " : "",
		    d->locator[0] ? d->locator : "?");
	}
	if (m->n)
		cat(buf, len, &at, ")");
	if (at >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}
