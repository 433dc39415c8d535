#include "export/environment_json.h"

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

}  // namespace kprof
