// Helpers every test suite shares: whole-file text I/O and golden-file
// comparison.
#pragma once

#include <string>

namespace kprof::test {

// The whole file, or "" when it cannot be read (e.g. a /proc entry that vanished).
std::string read_text(const std::string& path);
// Throws std::runtime_error when the file cannot be written.
void write_text(const std::string& path, const std::string& text);

// Compares `actual` with <golden_dir>/<name>. With KPROF_UPDATE_GOLDEN=1 it
// rewrites the golden file instead. On mismatch writes <actual_dir>/<name>.actual
// and returns a message with `diff -u golden actual`; "" when equal.
std::string golden_mismatch(const std::string& golden_dir, const std::string& actual_dir,
                            const std::string& name, const std::string& actual);

}  // namespace kprof::test
