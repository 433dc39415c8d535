#include "collector/period_dither.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/error.h"

namespace kprof::collector {

namespace {

int ioctl_period(int fd, uint64_t period) {
  return ::ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) == 0 ? 0 : errno;
}

// Bytes [off, off + n) of the two parts read as one.
bool read_at(std::span<const uint8_t> a, std::span<const uint8_t> b, size_t off, size_t n,
             void* out) {
  if (off + n > a.size() + b.size()) return false;
  auto* dst = static_cast<uint8_t*>(out);
  for (size_t i = 0; i < n; ++i) {
    const size_t at = off + i;
    dst[i] = at < a.size() ? a[at] : b[at - a.size()];
  }
  return true;
}

}  // namespace

PeriodDither::PeriodDither(const std::vector<DitherTarget>& targets, uint64_t period_ns,
                           const perfabi::SampleLayout& layout, uint64_t seed, SetPeriod set)
    : period_ns_(period_ns), sample_type_(layout.sample_type), rng_(seed), set_(std::move(set)) {
  if (!set_) set_ = ioctl_period;
  for (const perfabi::EventId& e : layout.kinds) other_ids_.push_back(e.id);
  std::sort(other_ids_.begin(), other_ids_.end());
  for (const DitherTarget& t : targets) {
    if (t.ring >= rings_.size()) rings_.resize(t.ring + 1);
    rings_[t.ring].emplace_back(t.pid, states_.size());
    states_.push_back({t, 0});
  }
  for (auto& here : rings_) std::sort(here.begin(), here.end());
}

std::string PeriodDither::probe() {
  for (State& s : states_) {
    const int err = set_(s.target.fd, period_ns_);
    if (err != 0) {
      failure_ = errno_message("PERF_EVENT_IOC_PERIOD", err);
      return failure_;
    }
  }
  return "";
}

void PeriodDither::saw(size_t ring, std::span<const uint8_t> first,
                       std::span<const uint8_t> second) {
  if (ring >= rings_.size() || rings_[ring].empty()) return;
  const std::vector<std::pair<pid_t, size_t>>& here = rings_[ring];  // by pid
  const bool any_task = here.front().first == -1;
  const uint64_t st = sample_type_;
  // A sample's body: [IDENTIFIER] [IP] pid, tid, ... (the collector's
  // layouts always carry IP and TID).
  if (!(st & PERF_SAMPLE_TID)) return;
  const size_t id_bytes = (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
  const bool ids = id_bytes != 0 && !other_ids_.empty();
  const size_t tid_off = sizeof(perf_event_header) + id_bytes + ((st & PERF_SAMPLE_IP) ? 8 : 0) + 4;
  const size_t total = first.size() + second.size();
  for (size_t at = 0; at + sizeof(perf_event_header) <= total;) {
    perf_event_header h{};
    // ring_records hands whole records; stop at nonsense.
    if (!read_at(first, second, at, sizeof h, &h) || h.size < sizeof h || h.size > total - at) {
      return;
    }
    if (h.type == PERF_RECORD_SAMPLE && tid_off + 4 <= h.size) {
      // Mostly the record lies in the first part: read it there directly.
      const bool whole = at + h.size <= first.size();
      const auto get = [&](size_t off, size_t n, void* out) {
        if (whole) {
          std::memcpy(out, first.data() + at + off, n);
        } else {
          read_at(first, second, at + off, n, out);
        }
      };
      uint32_t tid = 0;
      get(tid_off, 4, &tid);
      bool other_event = false;
      if (ids) {
        uint64_t id = 0;
        get(sizeof h, 8, &id);
        other_event = std::binary_search(other_ids_.begin(), other_ids_.end(), id);
      }
      if (!other_event) {
        if (any_task) {
          ++states_[here.front().second].seen;
        } else {
          const auto it = std::lower_bound(here.begin(), here.end(),
                                           std::pair<pid_t, size_t>(static_cast<pid_t>(tid), 0));
          if (it != here.end() && it->first == static_cast<pid_t>(tid)) ++states_[it->second].seen;
        }
      }
    }
    at += h.size;
  }
}

size_t PeriodDither::restart_due() {
  if (!failure_.empty()) return 0;
  size_t n = 0;
  for (State& s : states_) {
    if (s.seen < s.window) continue;
    const Draw d = draw();
    const int err = set_(s.target.fd, d.period_ns);
    // A task that has exited (ESRCH) takes no more samples; leave it be.
    if (err != 0 && err != ESRCH) {
      failure_ = errno_message("PERF_EVENT_IOC_PERIOD", err);
      return n;
    }
    window_samples_ += s.seen;
    s.seen = 0;
    s.window = d.window;
    ++n;
    ++restarts_;
  }
  return n;
}

PeriodDither::Draw PeriodDither::draw() {
  std::uniform_real_distribution<double> u(1.0 - kSpread, 1.0 + kSpread);
  const double factor = u(rng_);
  // Half a sample dropped a window: raise the rate by that share of the
  // windows taken so far (of a look's worth before the first restart).
  const double mean_window =
      restarts_ == 0 ? static_cast<double>(2 * kMinWindow)
                     : static_cast<double>(window_samples_) / static_cast<double>(restarts_);
  const double rate = factor * (1.0 + std::min(kMaxRaise, 0.5 / std::max(1.0, mean_window)));
  Draw d;
  d.period_ns = std::max<uint64_t>(kMinPeriodNs,
                                   static_cast<uint64_t>(static_cast<double>(period_ns_) / rate));
  d.window = std::max<uint64_t>(1, static_cast<uint64_t>(std::lround(factor * kMinWindow)));
  return d;
}

int PeriodDither::poll_ms() const {
  const uint64_t window_ms = period_ns_ * 2 * kMinWindow / 1'000'000;
  return static_cast<int>(std::clamp<uint64_t>(window_ms, 10, 100));
}

}  // namespace kprof::collector
