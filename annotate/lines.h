/* lines.h - annotate's per-line model, free of curses and of output formats.
 *
 * Built on the function list (funcs.h):
 *   - one function's rows (struct ann_view): sections of source lines, each row with its
 *     samples, its share of the function and of the whole profile, a heat level and the text.
 *     The function's own lines come first (one section per file), then one section per inline
 *     function (titled with where it was called), then samples without line information.
 *     Sampled lines are shown with their surroundings: the whole function when its first and
 *     last line can be found in the source, otherwise a few lines of context; long stretches
 *     without samples fold into one gap row.
 *
 * Three views of one function (enum ann_view_mode): its source lines; each source line
 * followed by its instructions (asm.h), each with its samples; its instructions alone, named
 * by symbol + offset (the fallback without line information: a stripped binary, libc).
 *
 * Shares use the sample period (events), as report does. Both TUI and --stdio draw these rows.
 * The model only reads the profile; the profile and the source cache must outlive it.
 */
#ifndef HWPROF_ANNOTATE_LINES_H
#define HWPROF_ANNOTATE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "asm.h"
#include "calls.h"
#include "funcs.h"
#include "profile.h"
#include "source.h"

/* Heat levels from a line's share of its function; their bounds are ann_heat_levels[]. */
enum ann_heat {
	ANN_HEAT_NONE,
	ANN_HEAT_LOW,
	ANN_HEAT_WARM, /* from here a line counts as a hot line (TAB stops on it) */
	ANN_HEAT_HOT,
	ANN_HEAT_HOTTEST,
};

/* One heat level: a share of the function below LIMIT (and not below the previous level's
 * limit) has it; MARKER is its character in the marker column, so that heat reads without
 * colour; NAME its word in docs and help. */
struct ann_heat_level {
	double limit; /* 0..1; the last level's is above any share */
	char marker;
	const char *name;
};

/* The levels, indexed by enum ann_heat: none (a share of 0), low (< 0.5%), warm (< 5%),
 * hot (< 20%), hottest. */
extern const struct ann_heat_level ann_heat_levels[ANN_HEAT_HOTTEST + 1];

/* The share of its function from which a line is a hot line: where ANN_HEAT_WARM begins. */
#define ANN_HOT_LINE_SHARE 0.005

/* The heat level of SHARE (0..1 of the function). */
enum ann_heat ann_heat_of(double share);

/* The marker column's legend, ". under 0.5%  : under 5%  + under 20%  # 20% or more", into
 * BUF (LEN bytes); returns BUF. */
char *ann_heat_legend(char *buf, size_t len);

enum ann_row_kind {
	ANN_ROW_LINE,  /* a source line (text NULL when the source was not found) */
	ANN_ROW_TITLE, /* a section title: the file, or the inline function and its caller */
	ANN_ROW_GAP,   /* source lines without samples, left out ("... 42 lines ...") */
	ANN_ROW_NOTE,  /* one line of explanation: what was looked for, a stale source */
	ANN_ROW_INSN,  /* an instruction (ann_row.insn): text is its label and disassembly */
};

enum ann_view_mode {
	ANN_VIEW_SOURCE, /* source lines */
	ANN_VIEW_MIXED,	 /* each source line followed by its instructions */
	ANN_VIEW_ASM,	 /* instructions only, in address order */
};

/* The view's name for headers and JSON: "source", "source+instructions", "instructions". */
const char *ann_view_mode_name(enum ann_view_mode mode);

struct ann_row {
	enum ann_row_kind kind;
	int line;		 /* LINE: 1-based line number; 0 for samples without line info */
	uint64_t samples;	 /* LINE: samples on this line */
	double period;		 /* LINE: events */
	double share_func;	 /* LINE: of the function's period, 0..1 */
	double share_total;	 /* LINE: of the profile's period, 0..1 */
	enum ann_heat heat;	 /* LINE: from share_func */
	bool hot;		 /* LINE: heat >= ANN_HEAT_WARM */
	const char *text;	 /* LINE: the source text (owned by the source cache) or NULL;
				  * other kinds: what to show (owned by the view) */
	uint64_t call_samples;	 /* LINE of the function's own code: samples whose stack
				  * has a call made on this line (inclusive cost of its
				  * calls, calls.h); 0 without stacks */
	double call_share_total; /* their period, of the profile's period, 0..1 */
	const char *callee;	 /* the function called there (calls.h), or NULL */
	const char *callee_dso;
	const struct ann_insn *insn; /* INSN: the instruction (owned by the view's asm) */
	const char *file;	     /* LINE, INSN: the source file (as in DWARF), or NULL */
};

struct ann_view {
	const struct ann_model *model;
	size_t func; /* index into model->funcs */
	struct ann_row *rows;
	size_t nrows;
	size_t hottest; /* index of the row with the most samples */
	size_t *hot;	/* indexes of the hot rows, in row order */
	size_t nhot;
	int max_line;	      /* largest line number shown (for the column width) */
	uint64_t max_samples; /* largest samples of a row (for the column width) */
	char **owned;	      /* strings of TITLE/GAP/NOTE rows */
	size_t nowned;
	struct ann_calls calls;	 /* the function's callers and line call costs */
	enum ann_view_mode mode; /* the view built: MIXED without line information is ASM,
				  * an instruction view without code SOURCE (a note says why) */
	struct ann_asm insns;	 /* the instructions, when MODE is not SOURCE */
	size_t *hot_insn;	 /* indexes of the hot INSN rows, in row order */
	size_t nhot_insn;
};

/* Builds the rows of function FUNC of M, reading sources through SRC. Never fails (allocation
 * failures die). Time linear in the function's locations and shown lines. */
struct ann_view *ann_view_build(const struct ann_model *m, size_t func, struct source_cache *src);

/* The view MODE of function FUNC of M, its instructions read through CODE (NULL only for
 * ANN_VIEW_SOURCE). The cursor's first row, HOTTEST, is the hottest instruction in the
 * instruction views. Never fails. */
struct ann_view *ann_view_build_mode(const struct ann_model *m, size_t func,
				     struct source_cache *src, struct ann_code *code,
				     enum ann_view_mode mode);

/* The next (DIR > 0) or previous hot instruction row after / before FROM, wrapping around;
 * FROM when there is none. */
size_t ann_view_next_hot_insn(const struct ann_view *v, size_t from, int dir);

/* Frees V. Accepts NULL. */
void ann_view_free(struct ann_view *v);

/* The next (DIR > 0) or previous (DIR < 0) hot row after / before row FROM, wrapping around.
 * Returns the row index, or FROM when the view has no hot row. */
size_t ann_view_next_hot(const struct ann_view *v, size_t from, int dir);

/* The next (DIR > 0) or previous row after / before FROM whose text contains PATTERN
 * (ann_text_matches()), wrapping around. Returns the
 * row index, or (size_t)-1 when no row matches. */
size_t ann_view_search(const struct ann_view *v, size_t from, int dir, const char *pattern);

/* Lines of context shown around sampled lines when the function's bounds are not found. */
#define ANN_CONTEXT 3
/* Runs of more than this many unsampled lines fold into a gap row. */
#define ANN_GAP_FOLD 12

#endif
