/* report.c - stub */
#include "builtin.h"
#include "cli.h"
int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("not implemented yet"), EXIT_FATAL;
}
