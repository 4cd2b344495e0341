"""Shared by annotate's script tests: paths, HOT: markers.

Hot lines are found by their "HOT: name" marker in the workload's source, never by number.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import hwprof_test  # noqa: E402


def hot_line(name, src="annotate_work.c"):
    """The workload's "HOT: NAME" line (hwprof_test.hot_line on a file of this folder)."""
    return hwprof_test.hot_line(os.path.join(HERE, src), name)


def text_line(text, src="annotate_work.c"):
    with open(os.path.join(HERE, src)) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    sys.exit(f"annotate test: no '{text}' in {src}")
