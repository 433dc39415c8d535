#include "export/environment_export.h"

#include "export/csv.h"

namespace kprof {

nlohmann::json environment_json(const EnvironmentDiff& e) {
  using nlohmann::json;
  json env = {{"recorded", e.recorded},
              {"same", e.same},
              {"same_facts", e.same_facts},
              {"unknown_facts", e.unknown_facts},
              {"config_recorded", e.config_recorded},
              {"config_options", e.config_options}};
  json facts = json::array();
  for (const EnvDifference& f : e.facts) {
    facts.push_back({{"key", f.key}, {"values", f.values}, {"cost", f.cost}});
  }
  env["facts"] = std::move(facts);
  json options = json::array();
  for (const ConfigDifference& c : e.config) {
    options.push_back({{"option", c.option}, {"values", c.values}, {"cost", c.cost}});
  }
  env["config"] = std::move(options);
  return env;
}

void write_environment_csv(std::ostream& out, const EnvironmentDiff& e,
                           const std::vector<std::string>& labels) {
  std::vector<std::string> head = {"kind", "name"};
  head.insert(head.end(), labels.begin(), labels.end());
  head.push_back("cost");
  write_csv_row(out, head);
  auto row = [&](const char* kind, const std::string& name, const std::vector<std::string>& values,
                 const std::string& cost) {
    std::vector<std::string> f = {kind, name};
    for (size_t s = 0; s < labels.size(); ++s) f.push_back(s < values.size() ? values[s] : "");
    f.push_back(cost);
    write_csv_row(out, f);
  };
  for (const EnvDifference& f : e.facts) row("fact", f.key, f.values, f.cost);
  for (const ConfigDifference& c : e.config) row("option", c.option, c.values, c.cost);
  row("alike", "facts", {std::to_string(e.same_facts)}, "");
  row("alike", "options", {std::to_string(e.config_options - e.config.size())}, "");
}

}  // namespace kprof
