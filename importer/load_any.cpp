// load_any (import.h): an input opened once (a file, a FIFO or device, or
// standard input), its format told from its first kSniffBytes, and that one
// fd handed to the reader the format needs:
//   kprof profile  ProfileReader, chunk by chunk (a file by offset, a stream once);
//   perf.data      a file mapped in place; a stream read whole (the reader
//                  needs every byte, and a pipe-mode stream has no size);
//   listing        read whole as text.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string_view>

#include "core/error.h"
#include "core/input.h"
#include "core/mapped_file.h"
#include "importer/import.h"
#include "perfabi/load.h"

namespace kprof::importer {

namespace {

// An input opened once: a file (owned) or standard input.
struct Input {
  std::optional<InputFile> file;
  int fd = STDIN_FILENO;
  std::string name;
  bool regular = false;  // read by offset or mapped; standard input is always a stream
  uint64_t size = 0;     // a regular file's
};

Input open_input(const std::string& path) {
  Input in;
  if (path == "-") {
    refuse_terminal_stdin();
    in.name = "stdin";
    return in;
  }
  in.file.emplace(InputFile::open(path, "record one with kprof record -o " + path));
  in.fd = in.file->fd();
  in.name = path;
  in.regular = in.file->regular();
  in.size = in.file->size();
  return in;
}

// Reads the input on from where it is to its end, appending to `bytes`.
void read_rest(const Input& in, std::vector<uint8_t>& bytes) {
  constexpr size_t kBlock = 1 << 16;
  if (in.regular) bytes.reserve(in.size + kBlock);
  while (true) {
    const size_t at = bytes.size();
    bytes.resize(at + kBlock);
    const ssize_t n = ::read(in.fd, bytes.data() + at, kBlock);
    bytes.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_message("cannot read " + in.name, errno));
    }
    if (n == 0) break;
  }
}

Profile load_kprof(Input& in, std::vector<uint8_t> head) {
  if (!in.file) {
    ProfileReader reader = ProfileReader::stream(in.fd, std::move(head), in.name);
    return perfabi::load_profile(reader);
  }
  ProfileReader reader = ProfileReader::open(std::move(*in.file), in.name, std::move(head));
  return perfabi::load_profile(reader);
}

Profile load_perf_data(const Input& in, std::vector<uint8_t> head, const ImportOptions& options) {
  if (in.regular) {  // may be large: read in place, not copied
    const MappedFile file = MappedFile::map(*in.file, in.name);
    return import_perf_data(file.bytes(), in.name, options);
  }
  std::vector<uint8_t> bytes = std::move(head);
  read_rest(in, bytes);
  return import_perf_data(bytes, in.name, options);
}

Profile load_listing(const Input& in, std::vector<uint8_t> head) {
  std::vector<uint8_t> bytes = std::move(head);
  read_rest(in, bytes);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return listing_profile(parse_listing(text, in.name), in.name);
}

}  // namespace

Profile load_any(const std::string& path, const ImportOptions& options) {
  Input in = open_input(path);
  std::vector<uint8_t> head = read_fd(in.fd, in.name, kSniffBytes);
  switch (sniff_format(head)) {
    case InputFormat::Kprof:
      return load_kprof(in, std::move(head));
    case InputFormat::PerfData:
      return load_perf_data(in, std::move(head), options);
    case InputFormat::Listing:
      return load_listing(in, std::move(head));
    case InputFormat::Unknown:
      break;
  }
  read_rest(in, head);
  if (head.empty()) {
    throw Error(in.name +
                " is empty: not a kprof profile (was the recording killed before it started?)");
  }
  throw Error(in.name +
              " is not a kprof profile, a perf.data file, or an opreport / perf report listing");
}

}  // namespace kprof::importer
