// kprof record --score-from [NAME=]REGEX: the run's work score read from the
// workload's own output (pgbench's "tps = 123.4", a benchmark's "ops/s"
// line), so a diff can judge cost per unit of work without a second step.
// The workload's stdout passes through kprof unchanged (Recorder pipes it);
// each complete line is matched, and the LAST matching line's number wins:
// the regex's first capture group when it has one, else the first number
// in the match. Stored in the Summary (Summary::scores, NAME, default
// "score") and read back as RunInfo::scores; `kprof diff --score` still
// overrides.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace kprof::collector {

class ScoreFrom {
 public:
  // Throws kprof::Error (exit 2) when the regex is not valid, naming why.
  // "NAME=" is taken as the score's name only when what comes before the
  // first '=' is a plain identifier ("tps=..."; not "tps = ([0-9.]+)").
  explicit ScoreFrom(const std::string& spec);

  void feed(std::string_view bytes);  // output as it comes; lines split here
  void finish();                      // the last line, when it has no newline

  const std::string& name() const { return name_; }
  const std::string& pattern() const { return pattern_; }
  std::optional<double> value() const { return value_; }

 private:
  void line(std::string_view text);
  std::string name_ = "score", pattern_;
  std::regex regex_;
  std::string partial_;  // the current line so far (at most kMaxLine bytes)
  std::optional<double> value_;
};

}  // namespace kprof::collector
