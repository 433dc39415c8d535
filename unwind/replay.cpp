#include "unwind/replay.h"

#include <algorithm>

#include "perfabi/spool.h"

namespace kprof::unwind {

Sample without_copy(const Sample& s) {
  Sample out = s;
  out.user_stack = {};
  out.user_regs = {};
  out.user_regs_mask = 0;
  return out;
}

void set_user_frames(Sample& s, const std::vector<uint64_t>& frames) {
  s.callchain.resize(std::min<size_t>(s.kernel_frames, s.callchain.size()));
  s.callchain.insert(s.callchain.end(), frames.begin(), frames.end());
}

namespace {

class ReplaySink final : public ForwardingSink {
 public:
  ReplaySink(RecordSink& next, std::deque<UnwoundStack>& unwound)
      : ForwardingSink(next), unwound_(unwound) {}
  void on_sample(const Sample& s) override {
    if (s.user_regs.empty() && s.user_stack.empty()) {
      next_.on_sample(s);
      return;
    }
    Sample out = without_copy(s);
    if (!unwound_.empty() && unwound_.front().time == s.time && unwound_.front().tid == s.tid) {
      set_user_frames(out, unwound_.front().frames);
      unwound_.pop_front();
    }
    next_.on_sample(out);
  }

 private:
  std::deque<UnwoundStack>& unwound_;
};

}  // namespace

void Replay::decode(std::span<const uint8_t> payload, RecordSink& sink) const {
  ReplaySink replay(sink, unwound_);
  perfabi::decode_spool(payload, replay);
}

}  // namespace kprof::unwind
