/* tui.c - annotate's ncurses view, the only file that includes <curses.h>.
 *
 * Screens are states on a small stack, each with exactly a draw and a key function (tig's and
 * ncdu's shape): the source view of one function (the bottom of the stack), the function list,
 * the help, and the search prompt. The model (lines.h) gives the rows; this file only lays
 * them out and moves a cursor.
 *
 * The terminal is given back on every way out: q, a fatal signal (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT: endwin() in the handler, then the default action) and exit() (an atexit handler),
 * which is what die() calls.
 */
#include "header.h"
#include "textfmt.h"
#include "views.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

struct tui;

/* A screen: how it looks and what its keys do. */
struct screen {
	void (*draw)(struct tui *t);
	void (*key)(struct tui *t, int ch);
};

static const struct screen source_screen, list_screen, help_screen, search_screen;

struct tui {
	const struct ann_model *m;
	struct source_cache *src;
	struct ann_code *code;	 /* the instructions' files */
	enum ann_view_mode mode; /* the view asked for ('v' cycles; the built one may differ) */
	struct ann_header hdr;	 /* wrapped to the current width */
	int rows, cols;
	bool color;
	bool quit;
	bool share_total; /* 's': share of the whole profile instead of the function */
	const struct screen *stack[4];
	int depth;
	/* The source view; HSHIFT columns of source text scrolled off to the left. */
	struct ann_view *view;
	size_t cur, top;
	int hshift;
	/* The function list. */
	size_t lcur, ltop;
	/* The help: its first line shown, when it is longer than the screen. */
	size_t htop;
	/* Search: the pattern that n / N repeat, and the prompt being edited. */
	char pattern[128];
	char input[128];
	size_t ninput;
	char msg[200]; /* shown in the status line until the next key */
};

enum {
	PAIR_LOW = 1,
	PAIR_WARM,
	PAIR_HOT,
	PAIR_HOTTEST,
	PAIR_TITLE,
	PAIR_WARN,
};

/* ---- the terminal: set up, given back on every way out ---------------------------------- */

static volatile sig_atomic_t tui_on;
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction saved_actions[sizeof(fatal_signals) / sizeof(fatal_signals[0])];

static void tui_restore(void)
{
	if (tui_on) {
		tui_on = 0;
		endwin();
	}
}

/* endwin() is not on the async-signal-safe list, but it only writes the terminal's reset
 * strings and restores the saved termios; leaving the terminal raw is the worse outcome. */
static void on_fatal_signal(int sig)
{
	tui_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static bool registered;
	struct sigaction sa = {.sa_handler = on_fatal_signal};

	if (!registered) {
		atexit(tui_restore);
		registered = true;
	}
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, &saved_actions[i]);
}

static void release_signals(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &saved_actions[i], NULL);
}

/* ---- drawing helpers --------------------------------------------------------------------- */

/* The character at S + *I (LEN bytes in all): its bytes, and its display width in *W, or -1
 * when it shows as '?' (an invalid byte, or one wcwidth() cannot place; a '?' is one column
 * wide). Advances *I past it. */
static size_t next_char(const char *s, size_t len, size_t *i, mbstate_t *st, int *w)
{
	wchar_t wc;
	size_t n = mbrtowc(&wc, s + *i, len - *i, st);

	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		memset(st, 0, sizeof(*st));
		*w = -1;
		n = 1;
	} else {
		*w = wcwidth(wc);
		*w = *w < 0 ? -1 : *w;
	}
	*i += n;
	return n;
}

/* S past its first COLS display columns (a wide character cut in two is skipped whole). */
static const char *skip_columns(const char *s, int cols)
{
	mbstate_t st;
	size_t len = strlen(s), i = 0;
	int used = 0, w;

	memset(&st, 0, sizeof(st));
	while (i < len && used < cols) {
		next_char(s, len, &i, &st, &w);
		used += w < 0 ? 1 : w;
	}
	return s + i;
}

/* Writes S at (Y, X), at most COLS columns: multi-byte characters by their width, invalid
 * bytes as '?'. Returns the columns used. */
static int put_clipped(int y, int x, const char *s, int cols)
{
	mbstate_t st;
	size_t len = strlen(s), i = 0, at, n;
	int used = 0, w;

	memset(&st, 0, sizeof(st));
	move(y, x);
	while (i < len && used < cols) {
		at = i;
		n = next_char(s, len, &i, &st, &w);
		if (w < 0) {
			addch('?');
			used++;
			continue;
		}
		if (used + w > cols)
			break;
		addnstr(s + at, (int)n);
		used += w;
	}
	return used;
}

static attr_t heat_attr(const struct tui *t, enum ann_heat h)
{
	static const short pairs[] = {0, PAIR_LOW, PAIR_WARM, PAIR_HOT, PAIR_HOTTEST};
	attr_t a = h >= ANN_HEAT_HOT ? A_BOLD : A_NORMAL;

	if (t->color && h > ANN_HEAT_NONE)
		a |= COLOR_PAIR(pairs[h]);
	return a;
}

static attr_t title_attr(const struct tui *t)
{
	return A_BOLD | (t->color ? COLOR_PAIR(PAIR_TITLE) : A_UNDERLINE);
}

static attr_t warn_attr(const struct tui *t)
{
	return t->color ? COLOR_PAIR(PAIR_WARN) | A_BOLD : A_BOLD;
}

static int hdr_rows(const struct tui *t)
{
	int max = t->rows / 3;

	return (int)t->hdr.n < max ? (int)t->hdr.n : max;
}

/* Rows between the header + title line and the status line. */
static int body_rows(const struct tui *t)
{
	int n = t->rows - hdr_rows(t) - 2;

	return n > 1 ? n : 1;
}

static void draw_header(const struct tui *t)
{
	for (int i = 0; i < hdr_rows(t); i++) {
		attr_t a = t->hdr.lines[i].warn ? warn_attr(t) : A_NORMAL;

		attron(a);
		put_clipped(i, 0, t->hdr.lines[i].text, t->cols);
		attroff(a);
	}
}

/* The status line: LEFT, or the pending message, and the key hints on the right. */
static void draw_status(const struct tui *t, const char *left, const char *hints)
{
	int y = t->rows - 1, hw = (int)strlen(hints), used;

	attron(A_REVERSE);
	mvhline(y, 0, ' ', t->cols);
	used = put_clipped(y, 0, t->msg[0] ? t->msg : left, t->cols);
	if (used + 1 + hw <= t->cols)
		put_clipped(y, t->cols - hw, hints, hw);
	attroff(A_REVERSE);
}

/* Keeps CUR inside the window [TOP, TOP + N); JUMP centres it when it was outside. */
static void follow(size_t cur, size_t *top, size_t total, int n, bool jump)
{
	size_t rows = (size_t)n;

	if (cur >= *top && cur < *top + rows)
		return;
	if (jump)
		*top = cur > rows / 2 ? cur - rows / 2 : 0;
	else if (cur < *top)
		*top = cur;
	else
		*top = cur - rows + 1;
	if (total > rows && *top > total - rows)
		*top = total - rows;
	if (total <= rows)
		*top = 0;
}

/* ---- the source view --------------------------------------------------------------------- */

static void open_function(struct tui *t, size_t func)
{
	ann_view_free(t->view);
	t->view = ann_view_build_mode(t->m, func, t->src, t->code, t->mode);
	t->cur = t->view->nrows ? t->view->hottest : 0;
	t->top = 0;
	follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
	t->lcur = func;
}

static void draw_row(struct tui *t, int y, const struct ann_row *r, int sw, int lw)
{
	char share[16] = "", samples[32] = "", line[16] = "";
	int x = 0, textw;

	if (r->samples) {
		snprintf(share, sizeof(share), "%5.1f%%",
			 100 * (t->share_total ? r->share_total : r->share_func));
		snprintf(samples, sizeof(samples), "%llu", (unsigned long long)r->samples);
	}
	if (r->kind == ANN_ROW_LINE && r->line > 0)
		snprintf(line, sizeof(line), "%d", r->line);
	if (r->kind == ANN_ROW_NOTE) {
		attron(warn_attr(t));
		put_clipped(y, 2, r->text, t->cols - 2);
		attroff(warn_attr(t));
		return;
	}
	attron(heat_attr(t, r->heat));
	mvprintw(y, 0, "%c %6s %*s", ann_heat_marker(r->heat), share, sw, samples);
	attroff(heat_attr(t, r->heat));
	x = 2 + 6 + 1 + sw + 1;
	mvprintw(y, x, "%*s ", lw, line);
	x += lw + 1;
	textw = t->cols - x;
	if (textw <= 0)
		return;
	switch (r->kind) {
	case ANN_ROW_LINE:
		if (r->heat >= ANN_HEAT_HOT)
			attron(A_BOLD);
		put_clipped(y, x, skip_columns(r->text ? r->text : "", t->hshift), textw);
		attroff(A_BOLD);
		break;
	case ANN_ROW_INSN:
		/* Under its source line, indented; dim when cold, so the lines stand out. */
		if (t->view->mode == ANN_VIEW_MIXED && textw > 4)
			x += 4, textw -= 4;
		attron(r->heat >= ANN_HEAT_HOT ? A_BOLD : r->samples ? A_NORMAL : A_DIM);
		put_clipped(y, x, skip_columns(r->text, t->hshift), textw);
		attroff(A_BOLD | A_DIM);
		break;
	case ANN_ROW_TITLE:
		attron(title_attr(t));
		put_clipped(y, x, "-- ", textw);
		put_clipped(y, x + 3, r->text, textw - 3);
		attroff(title_attr(t));
		break;
	case ANN_ROW_GAP:
		attron(A_DIM);
		put_clipped(y, x, r->text, textw);
		attroff(A_DIM);
		break;
	case ANN_ROW_NOTE:
		break;
	}
}

static void source_draw(struct tui *t)
{
	const struct ann_view *v = t->view;
	const struct ann_func *fn = &t->m->funcs[v->func];
	int y0 = hdr_rows(t), n = body_rows(t);
	int sw = ann_digits(v->max_samples), lw = ann_digits((unsigned long long)v->max_line);
	const char *slash = strrchr(fn->dso, '/');
	char title[512], left[256], num[32];
	size_t hotpos = 0;

	sw = sw < 7 ? 7 : sw;
	lw = lw < 4 ? 4 : lw;
	draw_header(t);
	/* The view before the figures: a long name must not push it off a narrow screen. */
	snprintf(title, sizeof(title), "%s [%s]  [view: %s]  %.1f%% of all samples, %s sample%s%s",
		 fn->name, slash ? slash + 1 : fn->dso, ann_view_mode_name(v->mode),
		 100 * fn->share, hwprof_group_digits(fn->samples, num, sizeof(num)),
		 fn->samples == 1 ? "" : "s", fn->ninlined ? ", with inlined code" : "");
	attron(A_BOLD | A_UNDERLINE);
	mvhline(y0, 0, ' ', t->cols);
	put_clipped(y0, 0, title, t->cols);
	attroff(A_BOLD | A_UNDERLINE);
	for (int i = 0; i < n && t->top + (size_t)i < v->nrows; i++) {
		size_t ri = t->top + (size_t)i;

		draw_row(t, y0 + 1 + i, &v->rows[ri], sw, lw);
		if (ri == t->cur)
			mvchgat(y0 + 1 + i, 0, -1, A_REVERSE, 0, NULL);
	}
	for (size_t i = 0; i < v->nhot; i++)
		if (v->hot[i] <= t->cur)
			hotpos = i + 1;
	if (v->nrows && v->rows[t->cur].kind == ANN_ROW_INSN)
		snprintf(left, sizeof(left), " %s+0x%llx  hot %zu/%zu  share of %s",
			 v->rows[t->cur].insn->sym ? v->rows[t->cur].insn->sym : "?",
			 (unsigned long long)v->rows[t->cur].insn->off, hotpos, v->nhot,
			 t->share_total ? "total" : "function");
	else if (v->nrows && v->rows[t->cur].kind == ANN_ROW_LINE && v->rows[t->cur].line > 0)
		snprintf(left, sizeof(left), " line %d  hot %zu/%zu  share of %s",
			 v->rows[t->cur].line, hotpos, v->nhot,
			 t->share_total ? "total" : "function");
	else
		snprintf(left, sizeof(left), " row %zu/%zu  hot %zu/%zu  share of %s", t->cur + 1,
			 v->nrows, hotpos, v->nhot, t->share_total ? "total" : "function");
	if (t->hshift) {
		size_t len = strlen(left);

		snprintf(left + len, sizeof(left) - len, "  cols %d+", t->hshift + 1);
	}
	draw_status(t, left, "TAB:hot v:view f:functions ?:help q:quit ");
}

static void move_cursor(size_t *cur, size_t *top, size_t total, int n, long delta, bool page)
{
	long c = (long)*cur + delta;

	if (!total)
		return;
	if (c < 0)
		c = 0;
	if (c >= (long)total)
		c = (long)total - 1;
	*cur = (size_t)c;
	if (page) {
		long tp = (long)*top + delta;

		if (tp > (long)total - n)
			tp = (long)total - n;
		*top = tp < 0 ? 0 : (size_t)tp;
	}
	follow(*cur, top, total, n, false);
}

static void push(struct tui *t, const struct screen *s)
{
	if (t->depth < (int)(sizeof(t->stack) / sizeof(t->stack[0])))
		t->stack[t->depth++] = s;
}

static void pop(struct tui *t)
{
	if (t->depth > 1)
		t->depth--;
	else
		t->quit = true;
}

static void source_search(struct tui *t, int dir)
{
	size_t at = ann_view_search(t->view, t->cur, dir, t->pattern);

	if (at == (size_t)-1) {
		snprintf(t->msg, sizeof(t->msg), " not found: %s", t->pattern);
		return;
	}
	t->cur = at;
	follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
}

static void source_hot(struct tui *t, int dir)
{
	if (!t->view->nhot) {
		snprintf(t->msg, sizeof(t->msg), " no hot line in this function");
		return;
	}
	t->cur = ann_view_next_hot(t->view, t->cur, dir);
	follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
}

/* ---- keys as actions (tig's way): each screen maps keys to actions in one table, and the
 * help and annotate's usage are made from the tables. A new key is a row in a table (and,
 * for a new action, a line in actions[] and a case in the screen's do function). */

enum action {
	ACT_NONE,
	ACT_UP,
	ACT_DOWN,
	ACT_PAGE_UP,
	ACT_PAGE_DOWN,
	ACT_FIRST,
	ACT_LAST,
	ACT_NEXT_HOT,
	ACT_PREV_HOT,
	ACT_NEXT_MATCH,
	ACT_PREV_MATCH,
	ACT_SEARCH,
	ACT_FUNCTIONS,
	ACT_OPEN,
	ACT_SHARE,
	ACT_CALLEE,
	ACT_VIEW,
	ACT_NEXT_HOT_INSN,
	ACT_PREV_HOT_INSN,
	ACT_ENTER,
	ACT_SCROLL_RIGHT,
	ACT_SCROLL_LEFT,
	ACT_HELP,
	ACT_CLEAR,
	ACT_BACK,
	ACT_COUNT,
};

/* What each action does, for the help screen; NULL: not listed there (or listed with the
 * action it is paired with). */
static const char *const actions[ACT_COUNT] = {
    [ACT_UP] = "move up one line",
    [ACT_DOWN] = "move down one line",
    [ACT_PAGE_UP] = "move up one page",
    [ACT_PAGE_DOWN] = "move down one page",
    [ACT_FIRST] = "first line",
    [ACT_LAST] = "last line",
    [ACT_NEXT_HOT] = "next hot line (>= %g%% of the function)",
    [ACT_PREV_HOT] = "previous hot line",
    [ACT_NEXT_MATCH] = "next / previous search match, else hot line",
    [ACT_SEARCH] = "search the source text (or names in the list)",
    [ACT_FUNCTIONS] = "function list; Enter on a call / jump: its callee / target",
    [ACT_VIEW] = "view: source -> source+instructions -> instructions",
    [ACT_NEXT_HOT_INSN] = "next / previous hot instruction",
    [ACT_SHARE] = "share of the function <-> share of all samples",
    /* ACT_CALLEE is not listed: the help fills 80x24 already; docs/annotate.md has it. */
    [ACT_SCROLL_RIGHT] = "scroll long lines right / left",
    [ACT_HELP] = "this help",
    [ACT_CLEAR] = "forget the search pattern",
    [ACT_BACK] = "back; quit from the source view",
};

/* An action whose keys the help shows on the line of another (ACT_NONE: none), so that
 * the help fits 80x24. */
static const enum action paired[ACT_COUNT] = {
    [ACT_NEXT_MATCH] = ACT_PREV_MATCH,
    [ACT_FUNCTIONS] = ACT_ENTER,
    [ACT_NEXT_HOT_INSN] = ACT_PREV_HOT_INSN,
    [ACT_SCROLL_RIGHT] = ACT_SCROLL_LEFT,
};

struct keybinding {
	int key;
	enum action action;
};

#define MOTION_KEYS                                                                                \
	{KEY_UP, ACT_UP}, {'k', ACT_UP}, {KEY_DOWN, ACT_DOWN}, {'j', ACT_DOWN},                    \
	    {KEY_PPAGE, ACT_PAGE_UP}, {'b', ACT_PAGE_UP}, {KEY_NPAGE, ACT_PAGE_DOWN},              \
	    {' ', ACT_PAGE_DOWN}, {'g', ACT_FIRST}, {KEY_HOME, ACT_FIRST}, {'G', ACT_LAST},        \
	{                                                                                          \
		KEY_END, ACT_LAST                                                                  \
	}

static const struct keybinding source_keys[] = {
    MOTION_KEYS,
    {'\t', ACT_NEXT_HOT},
    {KEY_BTAB, ACT_PREV_HOT},
    {'n', ACT_NEXT_MATCH},
    {'N', ACT_PREV_MATCH},
    {'/', ACT_SEARCH},
    {'f', ACT_FUNCTIONS},
    {'\n', ACT_ENTER},
    {'\r', ACT_ENTER},
    {KEY_ENTER, ACT_ENTER},
    {'v', ACT_VIEW},
    {'i', ACT_NEXT_HOT_INSN},
    {'I', ACT_PREV_HOT_INSN},
    {'s', ACT_SHARE},
    {'c', ACT_CALLEE},
    {KEY_RIGHT, ACT_SCROLL_RIGHT},
    {'>', ACT_SCROLL_RIGHT},
    {KEY_LEFT, ACT_SCROLL_LEFT},
    {'<', ACT_SCROLL_LEFT},
    {'?', ACT_HELP},
    {'h', ACT_HELP},
    {KEY_F(1), ACT_HELP},
    {27, ACT_CLEAR},
    {'q', ACT_BACK},
};

static const struct keybinding list_keys[] = {
    MOTION_KEYS,	   {'\n', ACT_OPEN}, {'\r', ACT_OPEN},	   {KEY_ENTER, ACT_OPEN},
    {KEY_RIGHT, ACT_OPEN}, {'l', ACT_OPEN},  {'/', ACT_SEARCH},	   {'n', ACT_NEXT_MATCH},
    {'N', ACT_PREV_MATCH}, {'?', ACT_HELP},  {KEY_F(1), ACT_HELP}, {'q', ACT_BACK},
    {'f', ACT_BACK},	   {27, ACT_BACK},   {KEY_LEFT, ACT_BACK},
};

static const struct keybinding help_keys[] = {
    {KEY_DOWN, ACT_DOWN}, {'j', ACT_DOWN}, {KEY_NPAGE, ACT_PAGE_DOWN}, {' ', ACT_PAGE_DOWN},
    {KEY_UP, ACT_UP},	  {'k', ACT_UP},   {KEY_PPAGE, ACT_PAGE_UP},   {'b', ACT_PAGE_UP},
};

#define NKEYS(table) (sizeof(table) / sizeof((table)[0]))

/* The action of key CH in TABLE (N rows), ACT_NONE when it has none. */
static enum action action_of(const struct keybinding *table, size_t n, int ch)
{
	for (size_t i = 0; i < n; i++)
		if (table[i].key == ch)
			return table[i].action;
	return ACT_NONE;
}

/* A key as the help spells it: "Up", "PgDn", "TAB", "Enter", "SPC", "F1", "q". */
static const char *key_label(int key, char *buf, size_t len)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
	    {KEY_UP, "Up"},	  {KEY_DOWN, "Down"},  {KEY_LEFT, "Left"},
	    {KEY_RIGHT, "Right"}, {KEY_PPAGE, "PgUp"}, {KEY_NPAGE, "PgDn"},
	    {KEY_HOME, "Home"},	  {KEY_END, "End"},    {KEY_BTAB, "Shift-TAB"},
	    {KEY_ENTER, NULL},	  {'\t', "TAB"},       {'\n', "Enter"},
	    {'\r', NULL},	  {' ', "SPC"},	       {27, "Esc"},
	    {KEY_F(1), "F1"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].key == key)
			return names[i].name; /* NULL: a second code of a key already named */
	snprintf(buf, len, "%c", key);
	return buf;
}

/* The keys TABLE binds to action A, spelled for people and joined by spaces, into BUF. */
static char *keys_of(const struct keybinding *table, size_t n, enum action a, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++) {
		char one[8];
		const char *name =
		    table[i].action == a ? key_label(table[i].key, one, sizeof(one)) : NULL;

		if (name)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", name);
	}
	return buf;
}

/* The keys of action A and of the action paired with it (paired[]), into BUF. */
static char *help_keys_of(enum action a, char *buf, size_t len)
{
	size_t o;

	keys_of(source_keys, NKEYS(source_keys), a, buf, len);
	o = strlen(buf);
	if (paired[a] != ACT_NONE && o + 1 < len) {
		buf[o++] = ' ';
		keys_of(source_keys, NKEYS(source_keys), paired[a], buf + o, len - o);
	}
	return buf;
}

/* The cursor moves shared by the source view and the function list: moves *CUR (and *TOP)
 * over TOTAL rows and returns true when A is one of them. */
static bool motion_do(struct tui *t, enum action a, size_t *cur, size_t *top, size_t total)
{
	int n = body_rows(t);
	long step;

	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
		move_cursor(cur, top, total, n, a == ACT_UP ? -1 : 1, false);
		return true;
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		move_cursor(cur, top, total, n, a == ACT_PAGE_UP ? -n : n, true);
		return true;
	case ACT_FIRST:
	case ACT_LAST:
		step = a == ACT_FIRST ? -(long)total : (long)total;
		move_cursor(cur, top, total, n, step, true);
		return true;
	default:
		return false;
	}
}

/* On a line that makes a call: into the function it calls (recordings with stacks). */
static void source_callee(struct tui *t)
{
	const struct ann_row *r = t->view->nrows ? &t->view->rows[t->cur] : NULL;

	if (!r || !r->callee) {
		snprintf(t->msg, sizeof(t->msg), " %s",
			 t->m->profile->nstacks ? "no call on this line"
						: "no stacks recorded (record -g)");
		return;
	}
	for (size_t i = 0; i < t->m->nfuncs; i++)
		if (!strcmp(t->m->funcs[i].name, r->callee) &&
		    !strcmp(t->m->funcs[i].dso, r->callee_dso ? r->callee_dso : "")) {
			open_function(t, i);
			return;
		}
	snprintf(t->msg, sizeof(t->msg), " %s: no samples of its own", r->callee);
}

/* The row of the new view V that shows what row R of the old one showed: the same
 * instruction, else the same line, else V's hottest. */
static size_t same_place(const struct ann_view *v, const struct ann_row *r)
{
	for (size_t i = 0; r && i < v->nrows; i++) {
		const struct ann_row *n = &v->rows[i];

		if (r->kind == ANN_ROW_INSN && n->kind == ANN_ROW_INSN &&
		    n->insn->addr == r->insn->addr)
			return i;
	}
	for (size_t i = 0; r && r->line > 0 && i < v->nrows; i++) {
		const struct ann_row *n = &v->rows[i];

		if (n->kind == ANN_ROW_LINE && n->line == r->line && n->file && r->file &&
		    !strcmp(n->file, r->file))
			return i;
	}
	return v->nrows ? v->hottest : 0;
}

static void source_view(struct tui *t)
{
	struct ann_view *old = t->view;
	const struct ann_row *r = old->nrows ? &old->rows[t->cur] : NULL;

	t->mode = (enum ann_view_mode)((old->mode + 1) % (ANN_VIEW_ASM + 1));
	/* A function without line information has no mixed view: straight to the next. */
	t->view = ann_view_build_mode(t->m, old->func, t->src, t->code, t->mode);
	if (t->view->mode == old->mode && t->mode != old->mode) {
		ann_view_free(t->view);
		t->mode = (enum ann_view_mode)((t->mode + 1) % (ANN_VIEW_ASM + 1));
		t->view = ann_view_build_mode(t->m, old->func, t->src, t->code, t->mode);
	}
	t->cur = same_place(t->view, r);
	ann_view_free(old);
	follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
	snprintf(t->msg, sizeof(t->msg), " view: %s%s", ann_view_mode_name(t->view->mode),
		 t->view->mode != t->mode ? " (no other view of this function)" : "");
}

static void source_hot_insn(struct tui *t, int dir)
{
	if (!t->view->nhot_insn) {
		snprintf(t->msg, sizeof(t->msg), " %s",
			 t->view->mode == ANN_VIEW_SOURCE ? "no instructions in this view (v: view)"
							  : "no hot instruction in this function");
		return;
	}
	t->cur = ann_view_next_hot_insn(t->view, t->cur, dir);
	follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
}

/* The function a call instruction calls, by its symbol's name: in the caller's DSO, else
 * (a call through the PLT, "memcpy@plt") the function of that name anywhere. */
static bool open_callee(struct tui *t, const char *callee)
{
	const char *dso = t->m->funcs[t->view->func].dso;
	size_t n = strlen(callee);

	if (n > 4 && !strcmp(callee + n - 4, "@plt"))
		n -= 4;
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < t->m->nfuncs; i++) {
			const struct ann_func *f = &t->m->funcs[i];
			bool name = pass < 2 ? !strcmp(f->name, callee)
					     : !strncmp(f->name, callee, n) && !f->name[n];

			if (name && (pass || !strcmp(f->dso, dso))) {
				open_function(t, i);
				return true;
			}
		}
	return false;
}

/* On a jump within the function: the cursor to the instruction it lands on. */
static void follow_jump(struct tui *t, const struct ann_insn *in)
{
	const struct ann_insn *to = &t->view->insns.v[in->jump_to];

	for (size_t i = 0; i < t->view->nrows; i++)
		if (t->view->rows[i].kind == ANN_ROW_INSN && t->view->rows[i].insn == to) {
			t->cur = i;
			follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
			snprintf(t->msg, sizeof(t->msg), " jumped to %s+0x%llx",
				 to->sym ? to->sym : "?", (unsigned long long)to->off);
			return;
		}
}

static void source_enter(struct tui *t)
{
	const struct ann_row *r = t->view->nrows ? &t->view->rows[t->cur] : NULL;

	if (r && r->kind == ANN_ROW_INSN && r->insn->jump_to != (size_t)-1) {
		follow_jump(t, r->insn);
		return;
	}
	if (r && r->kind == ANN_ROW_INSN && (r->insn->flags & DISASM_CALL)) {
		if (!r->insn->callee)
			snprintf(t->msg, sizeof(t->msg),
				 " an indirect call: its callee is unknown");
		else if (!open_callee(t, r->insn->callee))
			snprintf(t->msg, sizeof(t->msg), " %s: no samples of its own",
				 r->insn->callee);
		return;
	}
	t->ltop = 0;
	follow(t->lcur, &t->ltop, t->m->nfuncs, body_rows(t), true);
	push(t, &list_screen);
}

static void source_do(struct tui *t, enum action a)
{
	size_t total = t->view->nrows;

	if (motion_do(t, a, &t->cur, &t->top, total))
		return;
	switch (a) {
	case ACT_NEXT_HOT:
		source_hot(t, 1);
		break;
	case ACT_PREV_HOT:
		source_hot(t, -1);
		break;
	case ACT_NEXT_MATCH:
	case ACT_PREV_MATCH:
		if (t->pattern[0])
			source_search(t, a == ACT_NEXT_MATCH ? 1 : -1);
		else
			source_hot(t, a == ACT_NEXT_MATCH ? 1 : -1);
		break;
	case ACT_SEARCH:
		t->ninput = 0;
		t->input[0] = '\0';
		push(t, &search_screen);
		break;
	case ACT_FUNCTIONS:
		t->ltop = 0;
		follow(t->lcur, &t->ltop, t->m->nfuncs, body_rows(t), true);
		push(t, &list_screen);
		break;
	case ACT_SHARE:
		t->share_total = !t->share_total;
		break;
	case ACT_CALLEE:
		source_callee(t);
		break;
	case ACT_VIEW:
		source_view(t);
		break;
	case ACT_NEXT_HOT_INSN:
	case ACT_PREV_HOT_INSN:
		source_hot_insn(t, a == ACT_NEXT_HOT_INSN ? 1 : -1);
		break;
	case ACT_ENTER:
		source_enter(t);
		break;
	/* Long lines: the source text scrolls sideways, eight columns a key. */
	case ACT_SCROLL_RIGHT:
		t->hshift += 8;
		break;
	case ACT_SCROLL_LEFT:
		t->hshift = t->hshift > 8 ? t->hshift - 8 : 0;
		break;
	case ACT_HELP:
		push(t, &help_screen);
		break;
	case ACT_CLEAR:
		t->pattern[0] = '\0';
		break;
	case ACT_BACK:
		pop(t);
		break;
	default:
		break;
	}
}

static void source_key(struct tui *t, int ch)
{
	source_do(t, action_of(source_keys, NKEYS(source_keys), ch));
}

static const struct screen source_screen = {source_draw, source_key};

/* ---- the function list ------------------------------------------------------------------- */

static void list_draw(struct tui *t)
{
	const struct ann_model *m = t->m;
	int y0 = hdr_rows(t), n = body_rows(t);
	int sw = ann_digits(m->nfuncs ? m->funcs[0].samples : 0);
	char title[128];

	sw = sw < 7 ? 7 : sw;
	draw_header(t);
	snprintf(title, sizeof(title), "functions: %zu, hottest first (share of all samples)",
		 m->nfuncs);
	attron(A_BOLD | A_UNDERLINE);
	mvhline(y0, 0, ' ', t->cols);
	put_clipped(y0, 0, title, t->cols);
	attroff(A_BOLD | A_UNDERLINE);
	for (int i = 0; i < n && t->ltop + (size_t)i < m->nfuncs; i++) {
		size_t fi = t->ltop + (size_t)i;
		const struct ann_func *f = &m->funcs[fi];
		const char *slash = strrchr(f->dso, '/');
		enum ann_heat h = ann_heat_of(f->share);
		/* Its "+inlined" needs its inline frames: read for the rows shown. */
		ann_model_resolve(m, fi);
		char name[512];
		int x = 2 + 6 + 1 + sw + 2;

		attron(heat_attr(t, h));
		mvprintw(y0 + 1 + i, 0, "%c %5.1f%% %*llu", ann_heat_marker(h), 100 * f->share, sw,
			 (unsigned long long)f->samples);
		attroff(heat_attr(t, h));
		snprintf(name, sizeof(name), "%s  [%s]%s", f->name, slash ? slash + 1 : f->dso,
			 f->ninlined ? "  +inlined" : "");
		if (x < t->cols)
			put_clipped(y0 + 1 + i, x, name, t->cols - x);
		if (fi == t->lcur)
			mvchgat(y0 + 1 + i, 0, -1, A_REVERSE, 0, NULL);
	}
	draw_status(t, " Enter:open  /:search", "q:back  ?:help ");
}

static void list_search(struct tui *t, int dir)
{
	size_t n = t->m->nfuncs;

	for (size_t step = 1; step <= n; step++) {
		size_t i = dir > 0 ? (t->lcur + step) % n : (t->lcur + n - step % n) % n;

		if (ann_text_matches(t->m->funcs[i].name, t->pattern)) {
			t->lcur = i;
			follow(t->lcur, &t->ltop, n, body_rows(t), true);
			return;
		}
	}
	snprintf(t->msg, sizeof(t->msg), " no function matches: %s", t->pattern);
}

static void list_do(struct tui *t, enum action a)
{
	size_t total = t->m->nfuncs;

	if (motion_do(t, a, &t->lcur, &t->ltop, total))
		return;
	switch (a) {
	case ACT_OPEN:
		open_function(t, t->lcur);
		pop(t);
		break;
	case ACT_SEARCH:
		t->ninput = 0;
		t->input[0] = '\0';
		push(t, &search_screen);
		break;
	case ACT_NEXT_MATCH:
	case ACT_PREV_MATCH:
		if (t->pattern[0])
			list_search(t, a == ACT_NEXT_MATCH ? 1 : -1);
		break;
	case ACT_HELP:
		push(t, &help_screen);
		break;
	case ACT_BACK:
		t->lcur = t->view->func;
		pop(t);
		break;
	default:
		break;
	}
}

static void list_key(struct tui *t, int ch)
{
	list_do(t, action_of(list_keys, NKEYS(list_keys), ch));
}

static const struct screen list_screen = {list_draw, list_key};

/* ---- help -------------------------------------------------------------------------------- */

/* The help, made from source_keys[] and actions[] (one line per action, in the table's
 * order) and the heat table, at its first showing. */
static char help_lines[ACT_COUNT + 8][160];
static size_t help_n;

static void help_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void help_add(const char *fmt, ...)
{
	va_list ap;

	if (help_n >= sizeof(help_lines) / sizeof(help_lines[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(help_lines[help_n++], sizeof(help_lines[0]), fmt, ap);
	va_end(ap);
}

static void help_lines_fill(void)
{
	bool listed[ACT_COUNT] = {false};
	char keys[64], what[128], legend[100];

	help_add("hwprof annotate: keys");
	help_add("%s", "");
	for (size_t i = 0; i < NKEYS(source_keys); i++) {
		enum action a = source_keys[i].action;

		if (listed[a] || !actions[a])
			continue;
		listed[a] = true;
		snprintf(what, sizeof(what), actions[a], 100 * ANN_HOT_LINE_SHARE);
		help_add("  %-18s %s", help_keys_of(a, keys, sizeof(keys)), what);
	}
	help_add("  %-18s %s", keys_of(list_keys, NKEYS(list_keys), ACT_OPEN, keys, sizeof(keys)),
		 "in the function list: open the function");
	help_add("%s", "");
	help_add("Marker column: %s", ann_heat_legend(legend, sizeof(legend)));
	help_add("of the function's samples. Colours follow the same levels.");
	help_add("%s", "");
	help_add("Press any key to go back.");
}

void ann_tui_keys_usage(FILE *f)
{
	bool listed[ACT_COUNT] = {false};
	char keys[64];
	int col = 0;

	fputs("Keys in the terminal view:", f);
	col = 26;
	for (size_t i = 0; i < NKEYS(source_keys); i++) {
		enum action a = source_keys[i].action;
		char item[160];
		int len;

		if (listed[a] || !actions[a])
			continue;
		listed[a] = true;
		len = snprintf(item, sizeof(item), " %s", help_keys_of(a, keys, sizeof(keys)));
		if (col + len > 78) {
			fputs("\n ", f);
			col = 1;
		}
		fputs(item, f);
		col += len;
	}
	fputs("\n('?' in the view says what each does.)\n", f);
}

/* The help's lines that the screen holds below its status line. */
static size_t help_rows(const struct tui *t)
{
	return t->rows > 1 ? (size_t)(t->rows - 1) : 1;
}

static void help_draw(struct tui *t)
{
	size_t n, rows = help_rows(t);

	if (!help_n)
		help_lines_fill();
	n = help_n;
	if (t->htop + rows > n)
		t->htop = n > rows ? n - rows : 0;
	for (size_t i = t->htop; i < n && i - t->htop < rows; i++) {
		if (!i)
			attron(A_BOLD);
		put_clipped((int)(i - t->htop), 0, help_lines[i], t->cols);
		attroff(A_BOLD);
	}
	/* Too short a screen for all of it: the arrows scroll, as in the source view. */
	if (n > rows)
		draw_status(t, " help (j k PgDn PgUp scroll)", "other keys: back ");
	else
		draw_status(t, " help", "any key: back ");
}

static void help_key(struct tui *t, int ch)
{
	size_t n = help_n, rows = help_rows(t);

	if (n > rows) {
		switch (action_of(help_keys, NKEYS(help_keys), ch)) {
		case ACT_DOWN:
			t->htop += t->htop + rows < n;
			return;
		case ACT_PAGE_DOWN:
			t->htop = t->htop + 2 * rows < n ? t->htop + rows : n - rows;
			return;
		case ACT_UP:
			t->htop -= t->htop > 0;
			return;
		case ACT_PAGE_UP:
			t->htop = t->htop > rows ? t->htop - rows : 0;
			return;
		default:
			break;
		}
	}
	t->htop = 0;
	pop(t);
}

static const struct screen help_screen = {help_draw, help_key};

/* ---- the search prompt (over the screen below it) ---------------------------------------- */

static void search_draw(struct tui *t)
{
	int y = t->rows - 1;

	t->stack[t->depth - 2]->draw(t);
	move(y, 0);
	clrtoeol();
	mvaddch(y, 0, '/');
	put_clipped(y, 1, t->input, t->cols - 2);
	curs_set(1);
}

static void search_key(struct tui *t, int ch)
{
	const struct screen *below = t->stack[t->depth - 2];

	switch (ch) {
	case 27:
		pop(t);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		pop(t);
		if (!t->ninput)
			break;
		snprintf(t->pattern, sizeof(t->pattern), "%s", t->input);
		if (below == &list_screen)
			list_search(t, 1);
		else
			source_search(t, 1);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (!t->ninput) {
			pop(t);
			break;
		}
		t->input[--t->ninput] = '\0';
		break;
	default:
		if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && t->ninput + 1 < sizeof(t->input)) {
			t->input[t->ninput++] = (char)ch;
			t->input[t->ninput] = '\0';
		}
		break;
	}
}

static const struct screen search_screen = {search_draw, search_key};

/* ---- the loop ---------------------------------------------------------------------------- */

static void relayout(struct tui *t)
{
	getmaxyx(stdscr, t->rows, t->cols);
	ann_header_release(&t->hdr);
	ann_header_build(&t->hdr, t->m->profile, t->cols);
	/* The cursor row goes to the middle: the same screen as a fresh start at this size. */
	if (t->view) {
		t->top = t->view->nrows;
		follow(t->cur, &t->top, t->view->nrows, body_rows(t), true);
	}
	t->ltop = t->m->nfuncs;
	follow(t->lcur, &t->ltop, t->m->nfuncs, body_rows(t), true);
}

static void draw(struct tui *t)
{
	erase();
	curs_set(0);
	if (t->cols < ANN_TUI_MIN_COLS || t->rows < ANN_TUI_MIN_ROWS) {
		char msg[128];

		/* The longest wording that fits: the notice must not be cut itself. */
		snprintf(msg, sizeof(msg), "terminal %dx%d is too small (need %dx%d); q quits",
			 t->cols, t->rows, ANN_TUI_MIN_COLS, ANN_TUI_MIN_ROWS);
		if ((int)strlen(msg) > t->cols)
			snprintf(msg, sizeof(msg), "too small, need %dx%d; q quits",
				 ANN_TUI_MIN_COLS, ANN_TUI_MIN_ROWS);
		if ((int)strlen(msg) > t->cols)
			snprintf(msg, sizeof(msg), "too small; q");
		put_clipped(0, 0, msg, t->cols);
	} else {
		t->stack[t->depth - 1]->draw(t);
	}
	refresh();
}

/* Whether the terminal on stdout can show the TUI, its keys read from *KEYS (stdin, or the
 * controlling terminal when the sample file came through stdin, as less(1) does: the caller
 * fcloses a *KEYS other than stdin); if not, WHY says why. */
static bool usable(FILE **keys, char *why, size_t whylen)
{
	struct winsize ws;
	const char *term = getenv("TERM");

	*keys = stdin;
	if (isatty(STDOUT_FILENO) && !isatty(STDIN_FILENO))
		*keys = fopen("/dev/tty", "re");
	if (!*keys || !isatty(fileno(*keys)) || !isatty(STDOUT_FILENO)) {
		if (*keys && *keys != stdin)
			fclose(*keys);
		*keys = NULL;
		snprintf(why, whylen, "not a terminal");
		return false;
	}
	if (!term || !*term || !strcmp(term, "dumb")) {
		snprintf(why, whylen, "TERM is %s%s%s: no cursor addressing", term ? "'" : "unset",
			 term ? term : "", term ? "'" : "");
		return false;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row &&
	    (ws.ws_col < ANN_TUI_MIN_COLS || ws.ws_row < ANN_TUI_MIN_ROWS)) {
		snprintf(why, whylen, "the terminal is %ux%u, smaller than %dx%d", ws.ws_col,
			 ws.ws_row, ANN_TUI_MIN_COLS, ANN_TUI_MIN_ROWS);
		return false;
	}
	return true;
}

static void close_keys(FILE *keys)
{
	if (keys && keys != stdin)
		fclose(keys);
}

static void start_colors(struct tui *t)
{
	if (!has_colors() || start_color() == ERR)
		return;
	use_default_colors();
	init_pair(PAIR_LOW, COLOR_GREEN, -1);
	init_pair(PAIR_WARM, COLOR_YELLOW, -1);
	init_pair(PAIR_HOT, COLOR_RED, -1);
	init_pair(PAIR_HOTTEST, COLOR_WHITE, COLOR_RED);
	init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
	t->color = true;
}

int ann_tui(const struct ann_model *m, struct source_cache *src, struct ann_code *code,
	    enum ann_view_mode mode, size_t func, char *why, size_t whylen)
{
	struct tui t = {
	    .m = m, .src = src, .code = code, .mode = mode, .stack = {&source_screen}, .depth = 1};
	SCREEN *scr;
	FILE *keys;
	int errs = 0;

	if (!usable(&keys, why, whylen)) {
		close_keys(keys);
		return -1;
	}
	setlocale(LC_CTYPE, "");
	scr = newterm(NULL, stdout, keys);
	if (!scr) {
		close_keys(keys);
		snprintf(why, whylen, "ncurses cannot drive TERM '%s'", getenv("TERM"));
		return -1;
	}
	tui_on = 1;
	catch_signals();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	start_colors(&t);
	relayout(&t);
	open_function(&t, func);

	while (!t.quit) {
		int ch;

		draw(&t);
		ch = getch();
		if (ch == ERR) {
			/* EINTR from a signal we do not handle is harmless; a closed input is not.
			 */
			if (++errs > 100)
				break;
			continue;
		}
		errs = 0;
		if (ch == KEY_RESIZE) {
			relayout(&t);
			clearok(curscr, TRUE);
			continue;
		}
		t.msg[0] = '\0';
		if (t.cols < ANN_TUI_MIN_COLS || t.rows < ANN_TUI_MIN_ROWS) {
			t.quit = ch == 'q';
			continue;
		}
		t.stack[t.depth - 1]->key(&t, ch);
	}

	tui_restore();
	release_signals();
	delscreen(scr);
	close_keys(keys);
	ann_view_free(t.view);
	ann_header_release(&t.hdr);
	return 0;
}
