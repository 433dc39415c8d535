#include "core/environment.h"

#include "core/bytes.h"
#include "core/error.h"

namespace kprof {

const EnvFact* Environment::find(std::string_view key) const {
  for (const EnvFact& f : facts) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::map<std::string, std::string> parse_kernel_config(std::string_view text) {
  std::map<std::string, std::string> out;
  bool any = false;  // an option line, set or not
  constexpr std::string_view kPrefix = "CONFIG_", kUnset = " is not set";
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("# ") && line.ends_with(kUnset)) {
      std::string_view name = line.substr(2, line.size() - 2 - kUnset.size());
      any |= name.starts_with(kPrefix) && name.find(' ') == std::string_view::npos &&
             name.size() > kPrefix.size();
      continue;
    }
    if (!line.starts_with(kPrefix)) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == kPrefix.size()) continue;
    const std::string_view name = line.substr(kPrefix.size(), eq - kPrefix.size());
    if (name.find_first_of(" \t") != std::string_view::npos) continue;
    out[std::string(name)] = std::string(line.substr(eq + 1));
    any = true;
  }
  if (!any) throw Error("not a Linux kernel configuration (no CONFIG_ option in it)");
  return out;
}

std::vector<uint8_t> encode_environment(const Environment& env) {
  FieldWriter f;
  ByteWriter& facts = f.field();
  facts.varint(env.facts.size());
  for (const EnvFact& fact : env.facts) {
    FieldWriter e;
    e.str(fact.key);
    e.str(fact.value);
    e.str(fact.source);
    e.u8(fact.available ? 1 : 0);
    FieldWriter::write_blob(facts, e.take());
  }
  std::string config;
  for (const auto& [name, value] : env.config) config += name + "=" + value + "\n";
  f.str(config);
  f.str(env.config_source);
  return f.take();
}

Environment decode_environment(std::span<const uint8_t> data) {
  Environment env;
  FieldReader f(data, "profile chunk 'environment'");
  if (f.next()) {
    env.facts.resize(f.r.count(2));
    for (EnvFact& fact : env.facts) {
      FieldReader e(f.blob(), "profile chunk 'environment' fact");
      if (e.next()) fact.key = e.r.str();
      if (e.next()) fact.value = e.r.str();
      if (e.next()) fact.source = e.r.str();
      if (e.next()) {
        const uint8_t a = e.r.u8();
        if (a > 1) e.r.fail("a fact's availability " + std::to_string(a));
        fact.available = a == 1;
      }
    }
  }
  if (f.next()) {
    const std::string_view text = f.r.str();
    // Written by encode_environment: one "NAME=value" a line, names unique.
    std::string_view rest = text;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) f.r.fail("a configuration line without its end");
      const std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl + 1);
      const size_t eq = line.find('=');
      if (eq == std::string_view::npos || eq == 0) f.r.fail("a configuration line without NAME=");
      if (!env.config.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)))
               .second) {
        f.r.fail("a configuration option twice");
      }
    }
  }
  if (f.next()) env.config_source = f.r.str();
  return env;
}

}  // namespace kprof
