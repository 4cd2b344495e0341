/* sqlite_driver.c - the large real workload of the benchmark: our own small program driving the
 * sqlite amalgamation (fetched by bench/run, built -O2 -g; never committed).
 *
 * usage: sqlite_driver [ROWS [QUERIES]]   (defaults 200000 and 175000)
 *
 * One in-memory database (no disk I/O, so the profile is all CPU in sqlite's code): ROWS
 * inserts into a table with a secondary index, inside one transaction, then QUERIES range
 * queries through the index, an aggregate with GROUP BY, and an ORDER BY over a computed
 * column. Prints one checksum line so the work cannot be optimised away and two runs can be
 * compared, and the elapsed and CPU time from the start of main to the end of the work, so
 * that the benchmark can compare the target's own run time under different profilers without
 * counting their start-up and write-out. Exits 0, or 2 with sqlite's message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sqlite3.h"

static sqlite3 *db;

static void fail(const char *what)
{
	fprintf(stderr, "sqlite_driver: %s: %s\n", what, sqlite3_errmsg(db));
	exit(2);
}

static void exec(const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail(sql);
}

static sqlite3_stmt *prepare(const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail(sql);
	return st;
}

/* xorshift64: the same pseudo-random keys on every run, without libc's rand() state. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* CLOCK_MONOTONIC for the elapsed time, CLOCK_PROCESS_CPUTIME_ID for the CPU time (user +
 * system, which includes the sampling interrupts the kernel handles on our behalf). */
static double clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long parse_arg(const char *s, const char *name)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0 || v > 100000000) {
		fprintf(stderr, "sqlite_driver: %s '%s': not a positive number\n", name, s);
		exit(64);
	}
	return v;
}

static void insert_rows(long rows, uint64_t *seed)
{
	sqlite3_stmt *ins = prepare("INSERT INTO t(k, grp, name, val) VALUES (?1, ?2, ?3, ?4)");
	char name[32];

	exec("BEGIN");
	for (long i = 0; i < rows; i++) {
		uint64_t r = next_rand(seed);
		int n = snprintf(name, sizeof(name), "name-%016llx", (unsigned long long)r);

		sqlite3_bind_int64(ins, 1, (sqlite3_int64)(r >> 16));
		sqlite3_bind_int(ins, 2, (int)(r % 97));
		sqlite3_bind_text(ins, 3, name, n, SQLITE_TRANSIENT);
		sqlite3_bind_double(ins, 4, (double)(r % 100000) / 7.0);
		if (sqlite3_step(ins) != SQLITE_DONE)
			fail("insert");
		sqlite3_reset(ins);
	}
	exec("COMMIT");
	sqlite3_finalize(ins);
}

static double range_queries(long queries, long rows, uint64_t *seed)
{
	sqlite3_stmt *q = prepare("SELECT count(*), sum(val) FROM t WHERE k BETWEEN ?1 AND ?2");
	/* Keys are uniform over [0, 2^48): this width selects about 50 rows per query. */
	sqlite3_int64 width = (sqlite3_int64)((1ULL << 48) / (uint64_t)rows * 50);
	double sum = 0;

	for (long i = 0; i < queries; i++) {
		sqlite3_int64 lo = (sqlite3_int64)(next_rand(seed) >> 16);

		sqlite3_bind_int64(q, 1, lo);
		sqlite3_bind_int64(q, 2, lo + width);
		if (sqlite3_step(q) != SQLITE_ROW)
			fail("range query");
		sum += (double)sqlite3_column_int64(q, 0) + sqlite3_column_double(q, 1);
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return sum;
}

static double step_all(const char *sql, int col)
{
	sqlite3_stmt *q = prepare(sql);
	double sum = 0;
	int rc;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		sum += sqlite3_column_double(q, col);
	if (rc != SQLITE_DONE)
		fail(sql);
	sqlite3_finalize(q);
	return sum;
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? parse_arg(argv[1], "ROWS") : 200000;
	long queries = argc > 2 ? parse_arg(argv[2], "QUERIES") : 175000;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	double sum = 0, t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		fail("open");
	exec("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, grp INTEGER, name TEXT, val REAL)");
	exec("CREATE INDEX t_k ON t(k)");
	insert_rows(rows, &seed);
	exec("CREATE INDEX t_grp_name ON t(grp, name)");
	sum += range_queries(queries, rows, &seed);
	sum += step_all("SELECT grp, count(*), avg(val), max(name) FROM t GROUP BY grp", 2);
	sum += step_all("SELECT val * 3 % 1000 AS v FROM t ORDER BY v DESC LIMIT 1000", 0);
	sum += step_all("SELECT sum(length(name)) FROM t WHERE name LIKE '%ab%'", 0);
	sqlite3_close(db);
	printf(
	    "sqlite_driver: %ld rows, %ld queries, checksum %.3f, elapsed_ms %.1f, cpu_ms %.1f\n",
	    rows, queries, sum, clock_ms(CLOCK_MONOTONIC) - t0,
	    clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
