/* cli.h - the one place the hwprof command line reports errors and parses numbers.
 *
 * The library (common/) never prints; the subcommands do, and only through these helpers, so
 * every message has the same shape:  "hwprof CMD: WHAT: WHY (WHAT TO DO)".
 *
 * Exit codes (documented for users in docs/exit-codes.md):
 *   0  success
 *   1  partial: the job finished but something is missing (lost samples, truncated file, ...)
 *   2  fatal error
 *   64 usage error (bad option, bad number, unknown subcommand)
 *   127 the command record or stat was to run could not be executed (EXIT_NOT_EXECUTED)
 *   record and stat pass the target's own exit status through (128+N when killed by signal N).
 */
#ifndef HWPROF_CLI_H
#define HWPROF_CLI_H

#include <stdarg.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Hidden: not in the executable's dynamic symbol table, where they would take the calls the
 * shared libraries make to functions of the same names (libdw's to glibc's error(3)). */
#pragma GCC visibility push(hidden)

enum {
	EXIT_OK = 0,
	EXIT_PARTIAL = 1,
	EXIT_FATAL = 2,
	EXIT_USAGE = 64,
	EXIT_NOT_EXECUTED = 127, /* as a shell says of a command it cannot run */
};

/* MSG, a message of libhwprof (which names no command), with hwprof's way out for the kind
 * hwprof_see_last() gives added: "see 'hwprof list'" (HWPROF_SEE_EVENTS), "see 'hwprof list
 * pmu'" (HWPROF_SEE_PMU_EVENTS), "record one with 'hwprof record -- PROGRAM'"
 * (HWPROF_SEE_RECORDING), "see 'hwprof list vendor'" (HWPROF_SEE_VENDOR_EVENTS). Call it right
 * after the library call that wrote MSG. Returns MSG itself for HWPROF_SEE_NONE, else a buffer of
 * cli.c's that the next call overwrites. */
const char *cli_see(const char *msg);

/* What still works on a host without a hardware PMU, as one phrase for a note naming hwprof's
 * commands: software events, page-fault attribution, simulated miss rates (valgrind's
 * cachegrind). A static string. */
const char *cli_no_pmu_alternatives(void);

/* Sets the prefix of every message, e.g. "hwprof record", the libraries' error(3) messages
 * included: those print "PREFIX: fatal: " before their text, and their exit status 1 becomes
 * EXIT_FATAL. The string is not copied. */
void cli_set_prefix(const char *prefix);

/* Marks STATUS as the command's own, returned by main: an exit after a library's error(3)
 * message keeps it (a warning, error(0, ...), does not make a later partial exit fatal).
 * Returns STATUS. */
int cli_finish(int status);

/* The prefix set by cli_set_prefix() ("hwprof" before), to name the command in a message. */
const char *cli_prefix(void);

/* Holds every later note() and warning() in memory instead of printing it, for a command
 * whose machine-readable output shares stderr (stat -f json): the output then carries them.
 * An error or fatal message prints what is held first, then itself, and ends holding. */
void cli_hold_messages(void);

/* The messages held so far, in order: KINDS[i] "note" or "warning", TEXTS[i] the message
 * without prefix; both point into cli.c's copies, valid until cli_drop_messages() or
 * cli_release_messages(). Fills at most MAX; returns how many are held. */
size_t cli_held_messages(const char **kinds, const char **texts, size_t max);

/* Frees the held messages unprinted (the output carried them) and ends holding. */
void cli_drop_messages(void);

/* Prints the held messages as they would have been printed, frees them, ends holding. */
void cli_release_messages(void);

/* Prints "PREFIX: error: MSG\n" to stderr and returns -1, so callers write `return error(...)`.
 * As in glibc's printf, %m in FMT stands for strerror(errno); errno is kept. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like error(), with %m in FMT standing for strerror(ERR): ERR is an errno value, or the
 * -errno a library call returned (its sign is dropped). Returns -1; errno is kept. */
int error_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like error() but returns STATUS (an EXIT_* code), so a command writes
 * `return error_status(EXIT_FATAL, ...)`. */
int error_status(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* error_errno() that returns STATUS. */
int error_errno_status(int status, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints "PREFIX: warning: MSG\n" to stderr. %m as in error(). */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* warning() with %m standing for strerror(ERR), ERR as in error_errno(). */
void warning_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "PREFIX: note: MSG\n" to stderr (information the user should see once). */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "PREFIX: fatal: MSG\n" and exits with EXIT_FATAL. For the CLI only, never the
 * library. %m as in error(). */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* die() with %m standing for strerror(ERR), ERR as in error_errno(). */
_Noreturn void die_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "PREFIX: error: MSG\n" plus "try 'hwprof CMD --help'" and exits with EXIT_USAGE. */
_Noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For getopt_long's '?' answer, given by cli_next_option() (cli_options.h) for every
 * command (hwprof.c sets opterr = 0, so getopt itself prints nothing):
 * prints "PREFIX: error: '--bogus': unknown option" (or "'--sort': missing its value",
 * "'-e': missing its value", "'--no-count': takes no value") plus the --help hint, and exits
 * with EXIT_USAGE. ARGV is the subcommand's argv (uses optind/optopt); SHORT_OPTIONS the
 * optstring it gave getopt_long, which tells a short option missing its value from an
 * unknown one; LONG_OPTIONS its table, for a "did you mean '--help'?" on a mistyped one. */
_Noreturn void cli_bad_option(char **argv, const char *short_options,
			      const struct option *long_options);

/* Parses ARG as a decimal (or 0x hex) integer in [MIN, MAX] for option OPT (e.g. "-F").
 * On failure exits with EXIT_USAGE and a message naming the option and the reason:
 *   "hwprof record: -F 'abc': not a number". */
long long cli_parse_num(const char *opt, const char *arg, long long min, long long max);

/* Like cli_parse_num, and a value above MAX says where MAX comes from (MAX_WHY, may be NULL):
 *   "hwprof record: -F '999999': too large (at most 100000, the kernel's limit ...)". */
long long cli_parse_num_why(const char *opt, const char *arg, long long min, long long max,
			    const char *max_why);

/* Parses ARG as a finite decimal number in [MIN, MAX] for option OPT. On failure exits with
 * EXIT_USAGE: "OPT 'ARG': not a number", or "OPT 'ARG': RANGE" (e.g. "not a percentage in
 * 0..100") when it is one outside [MIN, MAX]. */
double cli_parse_real(const char *opt, const char *arg, double min, double max, const char *range);

/* Like cli_parse_num but returns 0 and stores *out, or -1 after printing the error. */
int cli_try_parse_num(const char *opt, const char *arg, long long min, long long max,
		      long long *out);

/* Allocation wrappers that die with a message on ENOMEM (CLI only; the library returns -ENOMEM). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* hwprof_grow() (grow.h) on the array *(void **)V: room for NEED elements of SIZE bytes. */
void xgrow(void *v, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
/* The printf-formatted string FMT, malloc'd (the caller frees it); dies on ENOMEM. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* xasprintf() with the arguments in AP. */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Appends S (not copied) to the array *LIST of *N strings with room for *CAP, grown by
 * xgrow(): the lists of repeatable options (-i FILE, --debug-dir DIR). The caller frees
 * *LIST. */
void cli_push(const char ***list, size_t *n, size_t *cap, const char *s);

/* Writes LEN bytes of BUF to FD whole, over short writes and EINTR. Returns 0, or the errno
 * of the write(2) that failed (EIO when one wrote nothing): the cause a full disk or a closed
 * pipe should be reported with. */
int cli_write_all(int fd, const void *buf, size_t len);

/* Output whose failure is reported with its real cause: stdio says only that a write failed,
 * and errno may have moved on by the time it says so. */
struct cli_output {
	int fd;	 /* written to, not closed */
	int err; /* errno of the first write that failed, 0 */
};

/* A fully buffered stdio stream on FD that records the first failed write in O->err. Dies
 * like the x* allocators when the stream cannot be made. Close it with cli_output_close(). */
FILE *cli_output_open(struct cli_output *o, int fd);

/* Flushes and closes F (not O->fd). Returns 0, or the errno of the first failed write (EIO
 * when stdio failed without one). */
int cli_output_close(FILE *f, struct cli_output *o);

/* Whether PATH is a regular file that starts with the ELF magic (a program or library). */
bool cli_is_elf(const char *path);

/* Opens PATH for writing OPT's output ("-o"), created 0644 or truncated; "-" is standard
 * output (STDOUT_FILENO is returned, not to be closed). Refuses what an output must never
 * replace: a program or library (ELF), an executable script, a hwprof sample file, a
 * perf.data file; and a directory. Returns the descriptor, or -1 after one error line. */
int cli_output_create(const char *opt, const char *path);

/* cli_output_create()'s refusals alone, nothing opened: to fail before a long job whose
 * output would be refused. Returns 0, or -1 after one error line. */
int cli_output_check(const char *opt, const char *path);

/* Whether stdout is a terminal; used to choose colours and the TUI. */
bool cli_stdout_is_tty(void);

#pragma GCC visibility pop

#endif
