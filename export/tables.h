// Table exports: every row of a report, call-graph view or diff as RFC 4180
// CSV or JSON. With the folded and pprof writers (export.h) these are all of
// kprof's outputs for other tools; the CLI opens each output with
// open_output() (a path or "-"), so errors and stdout behave alike.
#pragma once

#include <ostream>

#include "core/model.h"
#include "core/stacks.h"
#include "report/callgraph.h"
#include "report/diff.h"
#include "report/per_call.h"
#include "report/report.h"

namespace kprof {

// All rows for `key` as RFC 4180 CSV: samples,percent,image,function,mode
// (image by full path, names never cut, no top-N or percent limit).
void write_report_csv(std::ostream& out, const Histogram& h, SortKey key,
                      const std::string& image_header = "image");

// Every row as RFC 4180 CSV:
// self_samples,self_percent,total_samples,total_percent,image,function,mode
// (image by full path, names never cut, no top-N or percent limit).
void write_children_csv(std::ostream& out, const Stacks& stacks);

// Every node, depth first in tree order, as RFC 4180 CSV:
// depth,path,samples,percent_of_function,image,function,mode
// (depth 0 is the root; path: the functions from the root down to the node
// joined by ';'; image by full path; no top-N or percent limit).
void write_call_tree_csv(std::ostream& out, const CallTree& tree);

// Cost per system call (report/per_call.h), RFC 4180:
// system_call,calls,calls_per_s,samples,cost_per_call,entry_exit_per_call,
// counting_per_call,unit,top_function
void write_per_call_csv(std::ostream& out, const PerCallProfile& p);
// A row per (call, side), then per function under a changed call (function
// set): system_call,function,side,base_label,calls,base_cost,cost,delta,
// ci_lo,ci_hi,q,verdict,unit (costs per call; the interval on delta).
void write_per_call_diff_csv(std::ostream& out, const PerCallDiff& d);
// The same as JSON: {"unit", "labels", "noise", "alpha", "interval_level", "entry_exit",
// "counting", "calls": [{"name", "calls", "cost", "sides": [null, {"base", "cost", "delta",
// "ci_lo", "ci_hi", "q", "verdict", "accounted_pct", "functions": [...]}]}]}.
void write_per_call_diff_json(std::ostream& out, const PerCallDiff& d);

// Every row and column, RFC 4180. One line per row; raw names joined by "; ".
void write_diff_csv(std::ostream& out, const DiffResult& result);
// Every row and column, warnings included (pretty-printed, 2-space indent).
void write_diff_json(std::ostream& out, const DiffResult& result);

}  // namespace kprof
