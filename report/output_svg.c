/* output_svg.c - the recording as one self-contained SVG flame graph (or icicle).
 *
 * Everything is inline: CSS, and a small script for hover details, zoom on click and search;
 * no URL is loaded, so the file opens offline. Frames narrower than MIN_PX are left out, as
 * flamegraph.pl does, which keeps a profile of 100k stacks a few MB. Each frame carries its
 * place as fractions of the whole (data-x, data-w) and its depth (data-d): the script lays
 * out a zoom from those alone. */
#include "flame.h"
#include "fnv.h"
#include "output.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH	1200 /* px */
#define PAD	10   /* px left and right */
#define FRAME_H 16   /* px per level */
#define TOP	56   /* px above the frames: title, subtitle, search */
#define BOTTOM	40   /* px below: details, legend */
#define MIN_PX	0.1  /* narrower frames are left out */
#define CHAR_PX 7.0  /* the average width of a 12 px character */

enum kind { K_PROGRAM, K_LIBRARY, K_LIBC, K_KERNEL, K_JIT, K_UNKNOWN, K_INLINED, K_GROUP };

static const struct {
	const char *name;
	int r, g, b;	/* base colour */
	int dr, dg, db; /* spread by the frame name's hash */
} palette[] = {
    [K_PROGRAM] = {"program", 210, 60, 30, 40, 50, 25},
    [K_LIBRARY] = {"library", 205, 190, 60, 40, 40, 40},
    [K_LIBC] = {"libc, ld.so", 190, 160, 120, 40, 40, 40},
    [K_KERNEL] = {"kernel", 170, 120, 210, 30, 30, 30},
    [K_JIT] = {"JIT", 60, 170, 60, 60, 60, 60},
    [K_UNKNOWN] = {"unknown", 170, 170, 170, 40, 40, 40},
    [K_INLINED] = {"inlined", 70, 190, 200, 40, 40, 40},
    [K_GROUP] = {"DSO, file", 140, 170, 215, 40, 40, 30},
};

/* What kind of code D is: the program (its base name is the command's), the kernel, JIT
 * code (anonymous memory, perf's /tmp/perf-PID.map), libc and the dynamic loader, or
 * another library. */
static enum kind dso_kind(const char *dso, const char *program)
{
	const char *base = path_base(dso);

	if (!dso || !*dso || !strcmp(dso, "[unknown]"))
		return K_UNKNOWN;
	if (!strcmp(dso, "[kernel]") || !strncmp(dso, "[kernel", 7) || !strcmp(dso, "[vdso]"))
		return K_KERNEL;
	if (!strncmp(dso, "//anon", 6) || !strncmp(dso, "[anon", 5) ||
	    !strncmp(dso, "/memfd:", 7) || !strncmp(dso, "/tmp/perf-", 10) ||
	    !strncmp(dso, "[jit", 4))
		return K_JIT;
	if (program && *program && !strcmp(base, program))
		return K_PROGRAM;
	if (!strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) ||
	    !strncmp(base, "ld-linux", 8) || !strncmp(base, "libm.so", 7) ||
	    !strncmp(base, "libpthread", 10))
		return K_LIBC;
	return K_LIBRARY;
}

static enum kind node_kind(const struct flame_node *n, const char *program)
{
	if (n->group)
		return K_GROUP;
	if (!n->dso || (n->name && !strcmp(n->name, "[truncated]")))
		return K_UNKNOWN;
	if (n->inlined)
		return K_INLINED;
	return dso_kind(n->dso, program);
}

/* A stable number in 0..1 from NAME, so a function keeps its colour between runs. */
static double name_hash(const char *name)
{
	return (double)(hwprof_fnv1a_str(HWPROF_FNV_BASIS, name ? name : "") % 1000) / 1000.0;
}

/* S as XML character data or an attribute value: markup escaped, and control bytes and
 * bytes that are not well-formed UTF-8 shown as '?' (hwprof_text_tame(): XML 1.0 allows
 * neither). Names longer than 4 KiB are cut. */
static void xml_str(FILE *f, const char *s)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", s ? s : "");
	hwprof_text_tame(buf);
	for (const char *c = buf; *c; c++) {
		switch (*c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*c, f);
		}
	}
}

/* The box's name: the function, "[libc.so.6]" when only the DSO is known, "[data:g.b]" for
 * a data object (--sort data, as the folded output names it). */
static void node_name(const struct flame_node *n, char *buf, size_t len)
{
	snprintf(buf, len,
		 n->data      ? "[data:%s]"
		 : n->unknown ? "[%s]"
			      : "%s",
		 n->name ? n->name : "[unknown]");
}

/* What the box shows: as much of NAME as fits in W px, ".." marking a cut. */
static void fitted(const char *name, double w, char *buf, size_t len)
{
	size_t fit = w > 6 ? (size_t)((w - 6) / CHAR_PX) : 0, n = strlen(name);

	if (fit < 3) {
		buf[0] = '\0';
		return;
	}
	if (fit >= n || fit + 1 >= len) {
		snprintf(buf, len, "%s", name);
		return;
	}
	/* Cut on a UTF-8 character boundary. */
	size_t cut = fit - 2;
	while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
		cut--;
	snprintf(buf, len, "%.*s..", (int)cut, name);
}

static void frame(FILE *f, const struct profile *p, const struct flame *fl, size_t i, bool inverted,
		  const char *program)
{
	const struct flame_node *n = &fl->v[i];
	double total = fl->v[0].period, fw = WIDTH - 2 * PAD;
	double x = PAD + n->x / total * fw, w = n->period / total * fw;
	double y = inverted ? TOP + (double)n->depth * FRAME_H
			    : TOP + (double)(fl->max_depth - n->depth) * FRAME_H;
	double share = n->period / total, lo, hi;
	enum kind k = i ? node_kind(n, program) : K_UNKNOWN;
	double v = name_hash(n->name);
	char name[1024], label[1024];

	profile_wilson95(share * (double)p->samples, (double)p->samples, &lo, &hi);
	node_name(n, name, sizeof(name));
	fitted(name, w, label, sizeof(label));
	fprintf(f, "<g class=\"f%s\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-n=\"",
		n->inlined ? " inl" : "", n->x / total, share, n->depth);
	xml_str(f, name);
	fputs("\"><title>", f);
	xml_str(f, name);
	if (n->dso && !n->group) {
		fputs(" [", f);
		xml_str(f, path_base(n->dso));
		fputc(']', f);
	}
	if (n->inlined)
		fputs(" (inlined)", f);
	if (n->file) {
		fputc(' ', f);
		xml_str(f, n->file);
		if (n->line)
			fprintf(f, ":%d", n->line);
	}
	fprintf(f, "\n%" PRIu64 " samples, %.2f%% (95%% interval %.2f-%.2f%%)</title>", n->samples,
		share * 100, lo * 100, hi * 100);
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
		"fill=\"rgb(%d,%d,%d)\"/>",
		x, y, w, FRAME_H - 1, palette[k].r + (int)(palette[k].dr * v),
		palette[k].g + (int)(palette[k].dg * v), palette[k].b + (int)(palette[k].db * v));
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4);
	xml_str(f, label);
	fputs("</text></g>\n", f);
}

/* The script: hover details, zoom (click), unzoom, search. Frames are laid out from their
 * data-x / data-w fractions, so a zoom needs nothing from the C side. */
static const char script[] =
    "var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
    "function fit(g) {\n"
    "  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
    "  var w = parseFloat(r.getAttribute('width')), n = g.getAttribute('data-n');\n"
    "  var c = Math.floor((w - 6) / CH);\n"
    "  t.textContent = c < 3 ? '' : (n.length <= c ? n : n.substr(0, c - 2) + '..');\n"
    "  t.setAttribute('x', parseFloat(r.getAttribute('x')) + 3);\n"
    "}\n"
    "function place(g, x, w) {\n"
    "  var r = g.querySelector('rect');\n"
    "  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
    "  g.style.display = w < 0.1 ? 'none' : ''; fit(g);\n"
    "}\n"
    "function zoom(z) {\n"
    "  var x0 = num(z, 'data-x'), w0 = num(z, 'data-w'), d0 = num(z, 'data-d'), e = EPS;\n"
    "  frames.forEach(function (g) {\n"
    "    var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
    "    g.classList.remove('above');\n"
    "    if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e)\n"
    "      place(g, PAD + (x - x0) / w0 * FW, w / w0 * FW);\n"
    "    else if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) {\n"
    "      place(g, PAD, FW); g.classList.add('above');\n"
    "    } else g.style.display = 'none';\n"
    "  });\n"
    "  document.getElementById('unzoom').style.display = '';\n"
    "  document.documentElement.setAttribute('data-zoomed', z.getAttribute('data-n'));\n"
    "}\n"
    "function unzoom() {\n"
    "  frames.forEach(function (g) {\n"
    "    g.classList.remove('above');\n"
    "    place(g, PAD + num(g, 'data-x') * FW, num(g, 'data-w') * FW);\n"
    "  });\n"
    "  document.getElementById('unzoom').style.display = 'none';\n"
    "  document.documentElement.removeAttribute('data-zoomed');\n"
    "}\n"
    "function search(term) {\n"
    "  var re = null, hits = [], total = 0, end = -1;\n"
    "  try { re = term ? new RegExp(term) : null; } catch (err) { re = null; }\n"
    "  frames.forEach(function (g) {\n"
    "    var n = g.getAttribute('data-n');\n"
    "    var hit = !!term && (re ? re.test(n) : n.indexOf(term) >= 0);\n"
    "    g.classList.toggle('hit', hit);\n"
    "    if (hit) hits.push(g);\n"
    "  });\n"
    "  /* A match inside another match is counted once. */\n"
    "  hits.sort(function (a, b) {\n"
    "    return num(a, 'data-x') - num(b, 'data-x') || num(a, 'data-d') - num(b, 'data-d');\n"
    "  });\n"
    "  hits.forEach(function (g) {\n"
    "    var x = num(g, 'data-x'), w = num(g, 'data-w');\n"
    "    if (x >= end - EPS) { total += w; end = x + w; }\n"
    "  });\n"
    "  document.getElementById('matched').textContent = term ?\n"
    "    'matched: ' + (total * 100).toFixed(2) + '% of all samples (' + hits.length +\n"
    "    ' frames)' : '';\n"
    "}\n"
    "frames.forEach(function (g) {\n"
    "  g.addEventListener('click', function () { zoom(g); });\n"
    "  g.addEventListener('mouseover', function () {\n"
    "    document.getElementById('details').textContent =\n"
    "      g.querySelector('title').textContent.replace('\\n', ': ');\n"
    "  });\n"
    "});\n"
    "document.getElementById('unzoom').addEventListener('click', unzoom);\n"
    "var box = document.getElementById('search');\n"
    "box.addEventListener('input', function () { search(box.value); });\n"
    "document.addEventListener('keydown', function (e) {\n"
    "  if (e.key === 'Escape') { unzoom(); box.value = ''; search(''); }\n"
    "});\n";

static void legend(FILE *f, const struct flame *fl, const char *program, int y)
{
	bool used[sizeof(palette) / sizeof(palette[0])] = {false};
	double x = PAD;

	for (size_t i = 1; i < fl->n; i++)
		used[node_kind(&fl->v[i], program)] = true;
	for (size_t k = 0; k < sizeof(palette) / sizeof(palette[0]); k++) {
		if (!used[k])
			continue;
		fprintf(
		    f,
		    "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" "
		    "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.0f\" y=\"%d\" class=\"small\">%s</text>\n",
		    x, y - 9, palette[k].r, palette[k].g, palette[k].b, x + 14, y, palette[k].name);
		x += 14 + CHAR_PX * (double)strlen(palette[k].name) + 16;
	}
}

int output_svg(FILE *f, const struct profile *p, const struct profile_row *rows, size_t n,
	       const struct output_opts *o)
{
	const struct hwprof_file_event *ev = profile_sampling_event(p);
	const char *program = profile_program(p) ? path_base(profile_program(p)) : NULL;
	struct flame fl;
	int height;

	(void)rows;
	(void)n;
	if ((output_has_key(o, PROFILE_KEY_DATA) ? flame_build_data : flame_build)(
		p, o->inverted ? FLAME_LEAVES_OUT : FLAME_ROOTS_OUT, o->inline_frames, &fl) < 0)
		return -ENOMEM;
	height = TOP + (int)(fl.max_depth + 1) * FRAME_H + BOTTOM;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		WIDTH, height, WIDTH, height);
	fputs("<style>\n"
	      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	      "text.title { font-size: 17px; } text.small { font-size: 11px; }\n"
	      "g.f { cursor: pointer; } g.f text { pointer-events: none; }\n"
	      "g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	      "g.inl rect { stroke: #246; stroke-dasharray: 2 1; stroke-width: 0.8; }\n"
	      "g.above rect { opacity: 0.5; }\n"
	      "g.hit rect { fill: rgb(230, 0, 230); }\n"
	      "#unzoom { cursor: pointer; fill: #036; }\n"
	      "</style>\n",
	      f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n", WIDTH,
		height);
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"22\">%s: ", PAD,
		o->inverted ? "Icicle graph" : "Flame graph");
	xml_str(f, ev ? ev->name : "samples");
	fprintf(f, ", %" PRIu64 " samples, ", p->samples);
	xml_str(f, program ? program : "");
	fputs("</text>\n", f);
	fprintf(f, "<text class=\"small\" x=\"%d\" y=\"42\">%s</text>\n", PAD,
		fl.no_stacks ? "no call stacks in this recording (record with -g or --call-graph): "
			       "functions grouped by DSO and file"
		: fl.data && o->inverted
		    ? "the data objects touched at the top ([data:NAME], --sort data), the "
		      "instructions' functions below; click to zoom, Esc to reset"
		: fl.data     ? "the instructions' functions below, the data objects they touched "
				"above ([data:NAME], --sort data); click to zoom, Esc to reset"
		: o->inverted ? "the sampled functions at the top, their callers below; "
				"width = share of samples; click to zoom, Esc to reset"
			      : "callers below, the functions they call above; width = share of "
				"samples; click to zoom, Esc to reset");
	fprintf(f,
		"<text id=\"unzoom\" x=\"%d\" y=\"42\" text-anchor=\"end\" "
		"style=\"display:none\">[reset zoom]</text>\n",
		WIDTH - PAD);
	fprintf(f,
		"<foreignObject x=\"%d\" y=\"4\" width=\"260\" height=\"26\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
		"placeholder=\"search functions (regex)\" style=\"width:250px\"/>"
		"</foreignObject>\n",
		WIDTH - PAD - 260);
	for (size_t i = 0; i < fl.n && fl.v[0].period > 0; i++)
		if (fl.v[i].period / fl.v[0].period * (WIDTH - 2 * PAD) >= MIN_PX)
			frame(f, p, &fl, i, o->inverted, program);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 24);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		WIDTH - PAD, height - 24);
	legend(f, &fl, program, height - 6);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", f);
	/* data-x and data-w are printed to 9 decimals, so a frame's x can fall up to ~1.5e-9
	 * short of its left neighbour's x + w: the script compares with EPS, far above that
	 * rounding and far below a visible frame (0.1 px of 1180 is 8.5e-5). */
	fprintf(f, "var FW = %d, PAD = %d, CH = %.1f, EPS = 1e-7;\n", WIDTH - 2 * PAD, PAD,
		CHAR_PX);
	fputs(script, f);
	fputs("]]></script>\n</svg>\n", f);
	flame_release(&fl);
	return ferror(f) ? -EIO : 0;
}
