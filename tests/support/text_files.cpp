#include "tests/support/text_files.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kprof::test {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string golden_mismatch(const std::string& golden_dir, const std::string& actual_dir,
                            const std::string& name, const std::string& actual) {
  const std::string golden = golden_dir + "/" + name;
  if (const char* u = std::getenv("KPROF_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    write_text(golden, actual);
    return "";
  }
  const bool exists = std::filesystem::exists(golden);
  if (exists && read_text(golden) == actual) return "";
  const std::string actual_path = actual_dir + "/" + name + ".actual";
  write_text(actual_path, actual);
  std::string out = "golden " + name + (exists ? " differs" : " is missing") +
                    "; actual output in " + actual_path + " (KPROF_UPDATE_GOLDEN=1 accepts it)\n";
  const std::string cmd = "diff -u '" + golden + "' '" + actual_path + "' 2>&1";
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

}  // namespace kprof::test
