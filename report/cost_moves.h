// Cost moves (issue 25): where one function's drop and another's rise cancel
// within noise and the two share a direct caller, the cost most likely moved
// (a function inlined, split or renamed between builds) rather than changed:
// one pair, not two findings. Needs -g (the callers come from the stacks).
// Pure function over a finished diff; diff_profiles() fills
// DiffResult::moves and the text diff prints them under the matched diff.
#pragma once

#include <string>
#include <vector>

namespace kprof {

struct DiffSide;
struct DiffResult;

struct CostMove {
  size_t side = 0;                // compared with the base
  std::string from, to;           // canonical function names (kernel or user)
  std::string caller;             // a direct caller of `from` on the base and of `to` on the side
  double from_pp = 0, to_pp = 0;  // their changes, in percentage points
};

// Pairs of changed rows, one shrinking and one growing against the base,
// whose changes sum to within the larger of their interval half-widths and
// that share a direct caller; each row in one pair at most (the closest
// cancellation first).
std::vector<CostMove> find_cost_moves(const std::vector<DiffSide>& sides, const DiffResult& r);

}  // namespace kprof
