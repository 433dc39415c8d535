// load_any (import.h): an input opened once (a file, a FIFO or device, or
// standard input), its format told from its first kSniffBytes, and that one
// fd handed to the reader the format needs:
//   kprof profile  ProfileReader, chunk by chunk (a file by offset, a stream once);
//   perf.data      a file mapped in place; a stream read whole (the reader
//                  needs every byte, and a pipe-mode stream has no size);
//   listing        read whole as text: refused at its first NUL byte, or
//                  once it passes kMaxListingBytes;
//   anything else  refused at once, having read only its first bytes, so
//                  `kprof report /dev/zero` ends as soon as it starts.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

[[noreturn]] void listing_too_large(const std::string& name) {
  const std::string cap = std::to_string(kMaxListingBytes >> 20) + " MiB";
  throw Error(name + " is over " + cap + ": too large for an opreport / perf report listing " +
              "(kprof reads listings of up to " + cap + ")");
}

// Reads the input on from where it is to its end, appending to `bytes`.
// `text`: as a listing, refused at its first NUL byte (binary data) and
// once it passes kMaxListingBytes, each as soon as it is read; its buffer is
// reserved once (address space only until read into), so the memory it
// costs is what was read, never a reallocation's copy.
void read_rest(const Input& in, std::vector<uint8_t>& bytes, bool text) {
  constexpr size_t kBlock = 1 << 16;
  auto check = [&](size_t from) {
    const void* nul = std::memchr(bytes.data() + from, 0, bytes.size() - from);
    if (nul != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(nul) - bytes.data());
      throw Error(in.name + " holds a NUL byte at offset " + std::to_string(at) +
                  ": binary data, not an opreport / perf report listing");
    }
    if (bytes.size() > kMaxListingBytes) listing_too_large(in.name);
  };
  if (text) {
    check(0);
    bytes.reserve(in.regular ? in.size + kBlock : kMaxListingBytes + 1);
  }
  while (true) {
    const size_t at = bytes.size();
    const size_t want = text ? std::min(kBlock, kMaxListingBytes + 1 - at) : kBlock;
    bytes.resize(at + want);
    const ssize_t n = ::read(in.fd, bytes.data() + at, want);
    bytes.resize(at + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(errno_message("cannot read " + in.name, errno));
    }
    if (n == 0) break;
    if (text) check(at);
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
  read_rest(in, bytes, false);
  return import_perf_data(bytes, in.name, options);
}

Profile load_listing(const Input& in, std::vector<uint8_t> head) {
  if (in.regular && in.size > kMaxListingBytes) listing_too_large(in.name);
  std::vector<uint8_t> bytes = std::move(head);
  read_rest(in, bytes, true);
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
  if (head.empty()) {
    throw Error(in.name +
                " is empty: not a kprof profile (was the recording killed before it started?)");
  }
  throw Error(in.name +
              " is not a kprof profile, a perf.data file, or an opreport / perf report listing");
}

}  // namespace kprof::importer
