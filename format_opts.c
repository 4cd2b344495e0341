/* format_opts.c - the -f/-o option group and the output formats' names. */
#include "format_opts.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Each format's -f name and its note in the -f help (NULL: none). */
static const struct {
	const char *name, *note;
} formats[CLI_NFORMATS] = {
    [CLI_FORMAT_TEXT] = {"text", "default"},
    [CLI_FORMAT_CSV] = {"csv", NULL},
    [CLI_FORMAT_JSON] = {"json", NULL},
    [CLI_FORMAT_FOLDED] = {"folded",
			   "one line per distinct stack, 'main;work;memcpy 123', for flame graphs"},
    [CLI_FORMAT_SVG] = {"svg", "a flame graph in one self-contained file: open it in a "
			       "browser, hover, click to zoom, search"},
    [CLI_FORMAT_PPROF] = {"pprof", "pprof's profile.proto, gzipped, for go tool pprof, "
				   "Pyroscope, Parca; binary: give -o FILE.pb.gz"},
};

#define FORMAT_ROW CLI_VALUE(FORMAT_OPT_FORMAT, "format", "FMT", cli_help_formats)

const struct cli_option format_opts_table[] = {
    FORMAT_ROW,
    CLI_VALUE(FORMAT_OPT_FILE, "output", "FILE", "write to FILE instead of standard output"),
    CLI_OPT_END,
};

const struct cli_option format_only_table[] = {
    FORMAT_ROW,
    CLI_OPT_END,
};

const char *cli_format_name(enum cli_format fmt)
{
	return fmt < CLI_NFORMATS ? formats[fmt].name : "?";
}

/* FORMATS' names as "text, csv or json" (with their notes when NOTES) into BUF. */
static char *names(unsigned formats_mask, bool notes, char *buf, size_t size)
{
	size_t o = 0, left = (size_t)__builtin_popcount(formats_mask);

	buf[0] = '\0';
	for (int i = 0; i < CLI_NFORMATS && o < size; i++) {
		if (!(formats_mask & (1u << i)))
			continue;
		left--;
		o += (size_t)snprintf(buf + o, size - o, "%s%s%s%s%s", formats[i].name,
				      notes && formats[i].note ? " (" : "",
				      notes && formats[i].note ? formats[i].note : "",
				      notes && formats[i].note ? ")" : "",
				      !left	  ? ""
				      : left == 1 ? " or "
						  : ", ");
	}
	return buf;
}

/* The format FILE's name says (report.json, flame.svg, cpu.pb.gz), when CMD writes it; else
 * text. */
static enum cli_format format_of_name(const struct cli_command *cmd, const char *file)
{
	static const struct {
		const char *suffix;
		enum cli_format format;
	} by_suffix[] = {
	    {".json", CLI_FORMAT_JSON},	    {".csv", CLI_FORMAT_CSV},
	    {".folded", CLI_FORMAT_FOLDED}, {".svg", CLI_FORMAT_SVG},
	    {".pb.gz", CLI_FORMAT_PPROF},   {".pb", CLI_FORMAT_PPROF},
	};
	size_t n = strlen(file);

	for (size_t i = 0; i < sizeof(by_suffix) / sizeof(by_suffix[0]); i++) {
		size_t k = strlen(by_suffix[i].suffix);
		if (n > k && !strcmp(file + n - k, by_suffix[i].suffix) &&
		    (cmd->formats & (1u << by_suffix[i].format)))
			return by_suffix[i].format;
	}
	return CLI_FORMAT_TEXT;
}

char *cli_formats_help(unsigned formats_mask, char *buf, size_t size)
{
	return names(formats_mask, true, buf, size);
}

bool format_opts_parse(struct format_opts *o, const struct cli_command *cmd, int c)
{
	char list[128];

	if (c == FORMAT_OPT_FILE) {
		o->file = optarg;
		if (!o->format_given)
			o->format = format_of_name(cmd, optarg);
		return true;
	}
	if (c != FORMAT_OPT_FORMAT)
		return false;
	for (int i = 0; i < CLI_NFORMATS; i++) {
		if (strcmp(optarg, formats[i].name))
			continue;
		if (!(cmd->formats & (1u << i)))
			die_usage("--format '%s': %s writes %s", optarg, cli_prefix(),
				  names(cmd->formats, false, list, sizeof(list)));
		o->format = (enum cli_format)i;
		o->format_given = true;
		return true;
	}
	die_usage("--format '%s': not a format (%s)", optarg,
		  names(cmd->formats, false, list, sizeof(list)));
}
