#!/usr/bin/env python3
"""The shared helpers' own checks, fed text the product really printed (no hwprof run)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hwprof_test import check, report_rows, run_cases

# `report --sort function,dso` as CI printed it: one row holds every sample, so its share
# (100.00%) fills the column and the row starts with no space.
WHOLE = """\
# 2158 samples of cpu-clock:u (1 event), hwprof.data
   share  95% CI        samples  file    function  dso
 100.00%  [99.8, 100.0]    2158  spin.c  main      record_spin
"""
SPLIT = """\
   share  95% CI        samples  file    function  dso
  60.00%  [55.0, 65.0]      600  a.c     f         prog
100.00%  [99.8, 100.0]   2158  spin.c  main      record_spin
   0.10%  [0.0, 0.5]          1  b.c     g         prog
# 3 rows
"""


def test_report_rows():
    rows = report_rows(WHOLE)
    check("a 100.00% row is a row", len(rows) == 1 and rows[0].split()[-2:] ==
          ["main", "record_spin"], rows)
    rows = report_rows(SPLIT)
    check("rows in order, header and notes left out",
          [r.split()[0] for r in rows] == ["60.00%", "100.00%", "0.10%"], rows)
    check("no rows in a text without a table", report_rows("no samples\n") == [])


if __name__ == "__main__":
    run_cases(globals())
