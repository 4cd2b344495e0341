/* views.h - the two ways annotate shows its model (lines.h): plain text and the ncurses TUI.
 * Only tui.c includes <curses.h>.
 */
#ifndef HWPROF_ANNOTATE_VIEWS_H
#define HWPROF_ANNOTATE_VIEWS_H

#include <stdio.h>

#include "lines.h"

/* The marker column for a heat level (ann_heat_levels[].marker; past the last level, its). */
char ann_heat_marker(enum ann_heat heat);

/* Prints to OUT the header of M's profile, then functions FUNCS (NFUNCS indexes into
 * M->funcs, in the order given) with their rows; MORE functions left out by --limit are
 * mentioned at the end. Returns 0, or -errno when writing OUT failed (EPIPE, ENOSPC, ...). */
int ann_stdio(FILE *out, const struct ann_model *m, struct source_cache *src, const size_t *funcs,
	      size_t nfuncs, size_t more);

/* ann_stdio() in view MODE (lines.h), the instructions read through CODE (NULL for
 * ANN_VIEW_SOURCE). Each function says which view it shows, and why when it is not MODE. */
int ann_stdio_view(FILE *out, const struct ann_model *m, struct source_cache *src,
		   struct ann_code *code, enum ann_view_mode mode, const size_t *funcs,
		   size_t nfuncs, size_t more);

/* The same as JSON (one object: the event, the samples and the functions, each with its view
 * and rows; an instruction row has its address, symbol + offset, text, marks and line).
 * Returns 0 or -errno as ann_stdio(). */
int ann_json(FILE *out, const struct ann_model *m, struct source_cache *src, struct ann_code *code,
	     enum ann_view_mode mode, const size_t *funcs, size_t nfuncs, size_t more);

/* Smallest terminal the TUI draws in; smaller ones fall back to --stdio at start. */
#define ANN_TUI_MIN_COLS 40
#define ANN_TUI_MIN_ROWS 12

/* Writes the terminal view's keys to F, for annotate's usage text: each action's keys
 * from the view's key table, in the order of the help screen. */
void ann_tui_keys_usage(FILE *f);

/* Runs the TUI on stdin/stdout, opening on function FUNC of M, until the user quits.
 * Returns 0 after a normal quit, or -1 without having drawn anything when the terminal cannot
 * be used: WHY (WHYLEN bytes) then says why ("TERM 'dumb' has no cursor addressing", "the
 * terminal is 30x10, smaller than 40x12"), and the caller falls back to ann_stdio(). The
 * terminal is restored on every way out: q, SIGINT, SIGTERM, SIGHUP, SIGQUIT, exit(). The view
 * opens in MODE (lines.h; a key cycles source, mixed, instructions), reading code through
 * CODE. */
int ann_tui(const struct ann_model *m, struct source_cache *src, struct ann_code *code,
	    enum ann_view_mode mode, size_t func, char *why, size_t whylen);

#endif
