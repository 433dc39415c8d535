// Output: a file descriptor behind a std::ostream whose every write is
// checked, so the first errno is kept and reported at close().
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>
#include <streambuf>
#include <vector>

#include "core/error.h"
#include "core/fd.h"
#include "export/export.h"

namespace kprof {

namespace {

// Buffers in user space and writes with write(2); after the first failure it
// keeps that errno and refuses further output (the stream goes bad).
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(1 << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }
  int fd() const { return fd_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* p = pbase();
    size_t left = static_cast<size_t>(pptr() - pbase());
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }

  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

std::string write_error(const std::string& name, int err) {
  std::string m = errno_message("cannot write " + name, err);
  if (err == ENOSPC) m += " (disk full)";
  return m;
}

}  // namespace

struct Output::Impl {
  std::string path;
  int fd = -1;
  bool owns_fd = false;
  Fd owned;  // the file's fd until close(); none for stdout
  FdBuf buf;
  std::ostream stream;
  bool closed = false;

  Impl(std::string p, int f, bool owns)
      : path(std::move(p)), fd(f), owns_fd(owns), owned(owns ? f : -1), buf(f), stream(&buf) {}
};

Output::Output(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Output::Output(Output&&) noexcept = default;
Output& Output::operator=(Output&&) noexcept = default;
Output::~Output() = default;

std::ostream& Output::stream() {
  return impl_->stream;
}
const std::string& Output::path() const {
  return impl_->path;
}
bool Output::is_stdout() const {
  return !impl_->owns_fd;
}
std::string Output::name() const {
  return is_stdout() ? "stdout" : "'" + impl_->path + "'";
}
bool Output::is_terminal() const {
  return ::isatty(impl_->fd) == 1;
}

void Output::close() {
  Impl& o = *impl_;
  if (o.closed) return;
  o.stream.flush();
  int err = o.buf.error();
  if (err == 0 && !o.stream) err = EIO;  // a formatter failed without a write error
  o.closed = true;
  if (o.owned) {
    if (::close(o.owned.release()) != 0 && err == 0) err = errno;  // NFS and friends report here
  }
  if (err != 0) throw Error(write_error(name(), err));
}

Output open_output(const std::string& path) {
  if (path.empty()) throw Error("no output path given (use '-' for stdout)", 2);
  if (path == "-") return Output(std::make_unique<Output::Impl>(path, STDOUT_FILENO, false));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(errno_message("cannot create '" + path + "'", errno));
  return Output(std::make_unique<Output::Impl>(path, fd, true));
}

}  // namespace kprof
