// Reading a whole input: a file by path, or standard input ("-").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

// The whole file; throws kprof::Error naming it when it cannot be read
// (missing: "no such file", a directory, no permission). "-" reads standard
// input (refused when it is a terminal: a profile is piped in).
std::vector<uint8_t> read_file_bytes(const std::string& path);
// What `fd` yields from where it is, up to `limit` bytes or its end; throws
// kprof::Error "cannot read NAME: ..." on a read error.
std::vector<uint8_t> read_fd(int fd, const std::string& name, size_t limit = SIZE_MAX);
// Whether `path` can be read twice: a regular file (not "-", a pipe or FIFO).
bool rereadable_input(const std::string& path);
// Throws the one refusal of a terminal as standard input ("-" names a pipe).
void refuse_terminal_stdin();

}  // namespace kprof
