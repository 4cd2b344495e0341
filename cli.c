/* cli.c - error reporting and number parsing for the hwprof subcommands (see cli.h). */
#include "cli.h"
#include "closest.h"
#include "grow.h"
#include "sampfile_format.h"
#include "textfmt.h"
#include "hwprof/hwprof.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prefix = "hwprof";

/* Notes and warnings held by cli_hold_messages(), in order: "KIND\0TEXT" each. */
static char **held;
static size_t nheld, capheld;
static bool holding;

/* glibc's hook of error(3), declared here: <error.h> also declares an error() that is not
 * cli.h's. */
extern void (*error_print_progname)(void);

/* Set when a library has printed through glibc's error(3) (lib_error_prefix), and when the
 * command returned its own status (cli_finish()). */
static bool lib_error_printed, returned;

/* glibc's error(3) calls this instead of printing the program's name. elfutils' libraries
 * call error(EXIT_FAILURE, ENOMEM, ...) when an allocation fails, and error() then exits:
 * the message gets the command's prefix and is fatal. */
static void lib_error_prefix(void)
{
	fflush(stdout);
	fprintf(stderr, "%s: fatal: ", prefix);
	lib_error_printed = true;
}

/* An exit with error(3)'s EXIT_FAILURE after a library's message, not the command's own
 * return: 1 is hwprof's "partial" (docs/exit-codes.md), so the status becomes EXIT_FATAL. */
static void lib_error_exit(int status, void *arg)
{
	(void)arg;
	if (lib_error_printed && !returned && status == EXIT_FAILURE) {
		fflush(NULL);
		_exit(EXIT_FATAL);
	}
}

int cli_finish(int status)
{
	returned = true;
	return status;
}

void cli_set_prefix(const char *p)
{
	static bool hooked;

	prefix = p ? p : "hwprof";
	if (!hooked) {
		hooked = true;
		error_print_progname = lib_error_prefix;
		on_exit(lib_error_exit, NULL);
	}
}

const char *cli_prefix(void)
{
	return prefix;
}

/* Prints one message of KIND ("error", "fatal", ...; NULL for none) with %m standing for
 * strerror(ERR). errno is restored, so a caller may go on to use it. */
static void vreport(const char *kind, int err, const char *fmt, va_list ap)
{
	/* One fprintf per message so that lines from threads or children do not interleave. */
	char buf[4096];
	int saved = errno;

	/* FMT is never NULL from our callers; the guard keeps gcc -O2 with UBSan from seeing a
	 * null format on a path it made up (-Wformat-truncation). */
	hwprof_vmsgf(buf, sizeof(buf), err, fmt ? fmt : "(no message)", ap);
	/* Messages name files and symbols from binaries made elsewhere: tamed as the text
	 * outputs are, and so kept on one line. */
	hwprof_text_tame(buf);
	if (holding && kind && (!strcmp(kind, "note") || !strcmp(kind, "warning"))) {
		size_t k = strlen(kind), n = strlen(buf);
		char *m = malloc(k + n + 2);

		if (m && hwprof_grow((void **)&held, &capheld, nheld + 1, sizeof(*held)) == 0) {
			memcpy(m, kind, k + 1);
			memcpy(m + k + 1, buf, n + 1);
			held[nheld++] = m;
			errno = saved;
			return;
		}
		free(m); /* out of memory: printed now rather than lost */
	} else if (holding) {
		cli_release_messages(); /* an error or fatal ends the run: what came first, first */
	}
	if (kind)
		fprintf(stderr, "%s: %s: %s\n", prefix, kind, buf);
	else
		fprintf(stderr, "%s: %s\n", prefix, buf);
	errno = saved;
}

void cli_hold_messages(void)
{
	holding = true;
}

size_t cli_held_messages(const char **kinds, const char **texts, size_t max)
{
	for (size_t i = 0; i < nheld && i < max; i++) {
		kinds[i] = held[i];
		texts[i] = held[i] + strlen(held[i]) + 1;
	}
	return nheld;
}

void cli_drop_messages(void)
{
	for (size_t i = 0; i < nheld; i++)
		free(held[i]);
	free(held);
	held = NULL;
	nheld = capheld = 0;
	holding = false;
}

void cli_release_messages(void)
{
	char **v = held;
	size_t n = nheld;

	held = NULL;
	nheld = capheld = 0;
	holding = false;
	for (size_t i = 0; i < n; i++) {
		fprintf(stderr, "%s: %s: %s\n", prefix, v[i], v[i] + strlen(v[i]) + 1);
		free(v[i]);
	}
	free(v);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", errno, fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", err, fmt, ap);
	va_end(ap);
	return -1;
}

int error_status(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", errno, fmt, ap);
	va_end(ap);
	return status;
}

int error_errno_status(int status, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", err, fmt, ap);
	va_end(ap);
	return status;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", errno, fmt, ap);
	va_end(ap);
}

void warning_errno(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", err, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note", errno, fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fatal", errno, fmt, ap);
	va_end(ap);
	exit(EXIT_FATAL);
}

void die_errno(int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fatal", err, fmt, ap);
	va_end(ap);
	exit(EXIT_FATAL);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", errno, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: try '%s --help'\n", prefix, prefix);
	exit(EXIT_USAGE);
}

void cli_bad_option(char **argv, const char *short_options, const struct option *long_options)
{
	/* getopt leaves the offending word at argv[optind - 1]. For long options glibc sets
	 * optopt to 0 when the name is unknown and to the option's val when its value is
	 * missing or not allowed; that val is ours, not what the user typed, so the word is
	 * named instead. */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	const char *cur = argv[optind];
	bool at_end = cur == NULL;

	/* An unknown letter inside a bundle ("-xa") leaves optind on that word: the word
	 * before it is not the culprit. */
	if (cur && cur[0] == '-' && cur[1] && cur[1] != '-' && optopt > 0 && optopt < 128 &&
	    strchr(cur + 1, optopt))
		word = cur;

	if (word[0] == '-' && word[1] == '-') {
		const char *eq = strchr(word, '=');
		int len = eq ? (int)(eq - word) : (int)strlen(word);

		if (!optopt) {
			struct hwprof_suggest sg;
			char typed[128];
			const char *best;

			snprintf(typed, sizeof(typed), "%.*s", len - 2, word + 2);
			hwprof_suggest_init(&sg, typed);
			for (const struct option *o = long_options; o && o->name; o++)
				hwprof_suggest_consider(&sg, o->name);
			best = hwprof_suggest_result(&sg);
			if (*best)
				die_usage("'%.*s': unknown option (did you mean '--%s'?)", len,
					  word, best);
			die_usage("'%.*s': unknown option", len, word);
		}
		if (eq)
			die_usage("'%.*s': takes no value", len, word);
		die_usage("'%.*s': missing its value", len, word);
	}
	/* A short option's value can be missing only when it is the last letter of the last
	 * word: then the option is known, and SHORT_OPTIONS says it takes a value. */
	const char *known = optopt && optopt != ':' ? strchr(short_options, optopt) : NULL;

	if (at_end && known && known[1] == ':' && word[0] == '-' &&
	    word[strlen(word) - 1] == optopt)
		die_usage("'-%c': missing its value", optopt);
	die_usage("'-%c': unknown option", optopt);
}

double cli_parse_real(const char *opt, const char *arg, double min, double max, const char *range)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno == EINVAL)
		die_usage("%s '%s': not a number", opt, arg);
	if (errno || !isfinite(v) || v < min || v > max)
		die_usage("%s '%s': %s", opt, arg, range);
	return v;
}

/* MAX_WHY, when set, says where MAX comes from in the too-large message. */
static int parse_num(const char *opt, const char *arg, long long min, long long max,
		     const char *max_why, long long *out)
{
	char *end;
	long long v;

	if (!arg || !*arg)
		return error("%s '': not a number", opt);
	errno = 0;
	v = strtoll(arg, &end, 0);
	if (end == arg || *end)
		return error("%s '%s': not a number", opt, arg);
	if ((errno == ERANGE && v == LLONG_MIN) || v < min)
		return error("%s '%s': too small (at least %lld)", opt, arg, min);
	if (errno == ERANGE || v > max)
		return error("%s '%s': too large (at most %lld%s%s)", opt, arg, max,
			     max_why ? ", " : "", max_why ? max_why : "");
	*out = v;
	return 0;
}

int cli_try_parse_num(const char *opt, const char *arg, long long min, long long max,
		      long long *out)
{
	return parse_num(opt, arg, min, max, NULL, out);
}

long long cli_parse_num_why(const char *opt, const char *arg, long long min, long long max,
			    const char *max_why)
{
	long long v = 0; /* -O3 cannot see that parse_num() sets it on success */
	if (parse_num(opt, arg, min, max, max_why, &v) < 0) {
		fprintf(stderr, "%s: try '%s --help'\n", prefix, prefix);
		exit(EXIT_USAGE);
	}
	return v;
}

long long cli_parse_num(const char *opt, const char *arg, long long min, long long max)
{
	return cli_parse_num_why(opt, arg, min, max, NULL);
}

static void *oom(size_t n)
{
	die("out of memory allocating %zu bytes", n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	return p ? p : oom(nmemb * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

void xgrow(void *v, size_t *cap, size_t need, size_t size)
{
	if (hwprof_grow((void **)v, cap, need, size) < 0)
		die("out of memory growing an array to %zu elements", need);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	return p ? p : oom(strlen(s) + 1);
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void cli_push(const char ***list, size_t *n, size_t *cap, const char *s)
{
	xgrow(list, cap, *n + 1, sizeof(**list));
	(*list)[(*n)++] = s;
}

int cli_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t output_write(void *cookie, const char *buf, size_t len)
{
	struct cli_output *o = cookie;
	int e = cli_write_all(o->fd, buf, len);

	if (!e)
		return (ssize_t)len;
	if (!o->err)
		o->err = e;
	return -1;
}

FILE *cli_output_open(struct cli_output *o, int fd)
{
	cookie_io_functions_t io = {.write = output_write};
	FILE *f;

	o->fd = fd;
	o->err = 0;
	f = fopencookie(o, "w", io);
	if (!f)
		oom(sizeof(*f));
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

int cli_output_close(FILE *f, struct cli_output *o)
{
	int failed = fclose(f) != 0;

	return o->err ? o->err : failed ? EIO : 0;
}

/* Whether PATH is a regular file whose first LEN bytes are MAGIC. */
static bool starts_with(const char *path, const void *magic, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	unsigned char m[16];
	struct stat st;
	bool same;

	if (fd < 0)
		return false;
	same = len <= sizeof(m) && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       read(fd, m, len) == (ssize_t)len && !memcmp(m, magic, len);
	close(fd);
	return same;
}

bool cli_is_elf(const char *path)
{
	return starts_with(path, ELFMAG, SELFMAG);
}

int cli_output_check(const char *opt, const char *path)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (cli_is_elf(path))
		return error("%s %s: an ELF file (a program or library): not replaced (choose "
			     "another file)",
			     opt, path);
	if (starts_with(path, SF_MAGIC, SF_MAGIC_LEN))
		return error("%s %s: a hwprof sample file: not replaced (choose another file)", opt,
			     path);
	if (starts_with(path, "PERFILE2", 8))
		return error("%s %s: a perf.data file: not replaced (choose another file)", opt,
			     path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return error("%s %s: a directory (name a file)", opt, path);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
		return error("%s %s: an executable file (a script or program): not replaced "
			     "(choose another file)",
			     opt, path);
	return 0;
}

int cli_output_create(const char *opt, const char *path)
{
	int fd;

	if (cli_output_check(opt, path) < 0)
		return -1;
	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno(errno, "%s %s: %m (choose a writable path)", opt, path);
	return fd;
}

bool cli_stdout_is_tty(void)
{
	return isatty(STDOUT_FILENO);
}

const char *cli_no_pmu_alternatives(void)
{
	return "what works here: software events (task-clock, page-faults, context-switches), "
	       "page-fault attribution to source lines ('hwprof record -e page-faults -c 1'), "
	       "and simulated cache miss rates ('valgrind --tool=cachegrind PROGRAM')";
}

/* The way out goes inside a message's closing parenthesis, after a question without a ';'
 * ("(did you mean 'cycles'? see 'hwprof list')"), else in parentheses of its own. */
const char *cli_see(const char *msg)
{
	static const char *const way[] = {
	    [HWPROF_SEE_EVENTS] = "see 'hwprof list'",
	    [HWPROF_SEE_PMU_EVENTS] = "see 'hwprof list pmu'",
	    [HWPROF_SEE_RECORDING] = "record one with 'hwprof record -- PROGRAM'",
	    [HWPROF_SEE_VENDOR_EVENTS] = "see 'hwprof list vendor'",
	};
	static char buf[1200];
	enum hwprof_see see = hwprof_see_last();
	size_t n = strlen(msg);

	if (see <= HWPROF_SEE_NONE || (size_t)see >= sizeof(way) / sizeof(way[0]) || !way[see])
		return msg;
	if (n && msg[n - 1] == ')')
		snprintf(buf, sizeof(buf), "%.*s%s%s)", (int)(n - 1), msg,
			 n >= 2 && msg[n - 2] == '?' ? " " : "; ", way[see]);
	else
		snprintf(buf, sizeof(buf), "%s (%s)", msg, way[see]);
	return buf;
}
