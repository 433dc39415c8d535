#include "report/cost_moves.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/canonical.h"
#include "report/diff.h"

namespace kprof {
namespace {

// Per canonical leaf function, its direct callers (canonical) over the runs.
std::map<std::string, std::set<std::string>> callers_of(const DiffSide& side) {
  std::map<std::string, std::set<std::string>> out;
  for (const DiffRun& run : side.runs) {
    if (!run.stacks) continue;
    const Stacks& st = *run.stacks;
    for (const Stack& s : st.stacks) {
      if (s.frames.size() < 2 || s.frames[0] >= st.frames.size() ||
          s.frames[1] >= st.frames.size()) {
        continue;
      }
      out[canonical_name(st.frames[s.frames[0]].function)].insert(
          canonical_name(st.frames[s.frames[1]].function));
    }
  }
  return out;
}

double half_width(const DiffCompare& c) {
  return (c.change.hi_pp - c.change.lo_pp) / 2;
}

}  // namespace

std::vector<CostMove> find_cost_moves(const std::vector<DiffSide>& sides, const DiffResult& r) {
  std::vector<CostMove> moves;
  if (r.options.by != DiffBy::Function || !r.options.view.empty() || sides.empty()) return moves;
  const auto base_callers = callers_of(sides[0]);
  if (base_callers.empty()) return moves;
  for (size_t s = 1; s < sides.size(); ++s) {
    const auto side_callers = callers_of(sides[s]);
    std::vector<const DiffRow*> down, up;
    for (const DiffRow& row : r.rows) {
      const DiffCompare& c = row.vs_base[s];
      if (c.within_noise || c.untested || !std::isfinite(c.change.lo_pp) ||
          !std::isfinite(c.change.hi_pp)) {
        continue;
      }
      (c.change.delta_pp < 0 ? down : up).push_back(&row);
    }
    struct Candidate {
      double gap;
      const DiffRow *from, *to;
      std::string caller;
    };
    std::vector<Candidate> candidates;
    for (const DiffRow* a : down) {
      const auto ca = base_callers.find(a->name);
      if (ca == base_callers.end()) continue;
      for (const DiffRow* b : up) {
        const auto cb = side_callers.find(b->name);
        if (cb == side_callers.end()) continue;
        const DiffCompare &x = a->vs_base[s], &y = b->vs_base[s];
        const double gap = std::fabs(x.change.delta_pp + y.change.delta_pp);
        if (gap > std::max(half_width(x), half_width(y))) continue;
        for (const std::string& caller : ca->second) {
          if (cb->second.count(caller) && caller != a->name && caller != b->name) {
            candidates.push_back({gap, a, b, caller});
            break;
          }
        }
      }
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.gap < b.gap; });
    std::set<const DiffRow*> used;
    for (const Candidate& c : candidates) {
      if (used.count(c.from) || used.count(c.to)) continue;
      used.insert(c.from);
      used.insert(c.to);
      moves.push_back({s, c.from->name, c.to->name, c.caller, c.from->vs_base[s].change.delta_pp,
                       c.to->vs_base[s].change.delta_pp});
    }
  }
  return moves;
}

}  // namespace kprof
