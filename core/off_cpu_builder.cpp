#include "core/off_cpu_builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace kprof {

void OffCpuBuilder::seen(uint64_t time) {
  if (time == 0) return;
  if (first_ == 0 || time < first_) first_ = time;
  last_ = std::max(last_, time);
}

bool OffCpuBuilder::followed(uint32_t pid, uint32_t tid) const {
  // The kernel writes -1 for a task already released (a switch away from
  // an exiting task, seen with -a): no thread to follow.
  constexpr uint32_t kGone = UINT32_MAX;
  return tid != 0 && pid != 0 && tid != kGone && pid != kGone &&
         (leave_out_ == 0 || pid != leave_out_);
}

OffCpuBuilder::Thread* OffCpuBuilder::follow(uint32_t pid, uint32_t tid, uint64_t time, bool on) {
  if (!followed(pid, tid)) return nullptr;
  auto [th, first_seen] = threads_.get(tid);
  if (!first_seen) return th.exited ? nullptr : &th;
  th.t.pid = pid;
  th.t.tid = tid;
  if (auto c = comms_.find(tid); c != comms_.end()) th.t.comm = c->second;
  // On a CPU now: since the first record (it was running or about to);
  // coming on now: followed from now.
  th.t.start_ns = on && first_ != 0 ? first_ : time;
  th.since = th.t.start_ns;
  th.on = true;
  return &th;
}

void OffCpuBuilder::add(AddressAggregator& agg, const Thread& th, Sample& s, uint64_t ns,
                        uint64_t time, const Sample* waker) {
  if (ns == 0) return;
  const size_t own = s.callchain.size();
  const bool kernel_frames_known = s.kernel_frames_known;
  if (waker != nullptr) {
    // Two tasks' frames in one chain: each is told kernel or user by its
    // address, and the joint stands between them.
    s.callchain.push_back(kStackJoint);
    s.callchain.insert(s.callchain.end(), waker->callchain.begin(), waker->callchain.end());
    s.kernel_frames_known = false;
  }
  s.kind = SampleKind::Cpu;
  s.pid = th.t.pid;
  s.tid = th.t.tid;
  s.time = time;
  s.period = ns;
  agg.on_sample(s);
  s.callchain.resize(own);  // the thread's stack as it was, for the interval's other part
  s.kernel_frames_known = kernel_frames_known;
}

Sample& OffCpuBuilder::unknown() {
  scratch_ = Sample{};
  scratch_.mode = Mode::Kernel;  // "[unknown]"
  return scratch_;
}

void OffCpuBuilder::settle_unstacked(Thread& th, bool represented, uint64_t time) {
  if (!represented) {
    add(blocked_, th, unknown(), th.unstacked_blocked, time);
    add(runq_, th, unknown(), th.unstacked_runq, time);
  }
  th.unstacked_blocked = th.unstacked_runq = 0;
}

namespace {
// part * num / den, rounded (den > 0), without overflowing 64 bits.
uint64_t share_of(uint64_t part, uint64_t num, uint64_t den) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(part) * static_cast<double>(num) /
                                            static_cast<double>(den)));
}
}  // namespace

void OffCpuBuilder::charge(Thread& th, uint64_t end, bool open) {
  if (end < th.since) end = th.since;
  // Preempted: all of it waiting to run. Blocked: until the wakeup, then
  // waiting to run (after the waker, where its stack is known).
  uint64_t blocked = 0, runq = end - th.since;
  const Sample* waker = nullptr;
  if (!th.preempted) {
    const bool woken_here = th.woken >= th.since && th.woken != 0 && th.woken <= end;
    const uint64_t woken = woken_here ? th.woken : end;
    blocked = woken - th.since;
    runq = end - woken;
    if (th.has_waker && woken < end) waker = &th.waker;
    if (woken_here) {
      th.woken_blocked += blocked;
      th.woken_runq += runq;
    } else if (!open) {
      th.unwoken += blocked;
      if (wakeups_sampled_ && th.woken_blocked + th.woken_runq != 0) {
        runq = share_of(blocked, th.woken_runq, th.woken_blocked + th.woken_runq);
        blocked -= runq;
        th.unwoken_runq += runq;
      }
    }
  }
  th.t.blocked_ns += blocked;
  th.t.runq_ns += runq;
  if (th.has_stack) {
    // The thread's own stack sample, made one in place (no copy per
    // interval), standing for `weight` switches.
    add(blocked_, th, th.stack, blocked * th.weight, end);
    add(runq_, th, th.stack, runq * th.weight, end, waker);
  } else {
    th.unstacked_blocked += blocked;
    th.unstacked_runq += runq;
  }
  th.since = end;
  th.has_stack = false;
  th.has_waker = false;
  th.woken = 0;
}

void OffCpuBuilder::settle_unwoken(Thread& th) {
  const uint64_t woken = th.woken_blocked + th.woken_runq;
  if (woken == 0 || th.unwoken == 0) return;
  const uint64_t runq = share_of(th.unwoken, th.woken_runq, woken);
  // Moves the difference from blocked to the run queue (or back): both stay
  // >= 0, as blocked_ns holds unwoken - unwoken_runq and runq <= unwoken.
  th.t.blocked_ns = th.t.blocked_ns + th.unwoken_runq - runq;
  th.t.runq_ns = th.t.runq_ns - th.unwoken_runq + runq;
  th.unwoken_runq = runq;
}

void OffCpuBuilder::go_off(Thread& th, uint64_t time, bool preempted) {
  time = std::max(time, th.since);  // chunks meet out of order by a little at most
  if (th.on) {
    th.t.on_ns += time - std::min(time, th.since);
  } else {
    const bool has_stack = th.has_stack;
    const Sample stack = has_stack ? th.stack : Sample{};
    charge(th, time);  // a switch in was missed: the interval ends here
    th.has_stack = has_stack;
    th.stack = stack;
  }
  if (!th.has_stack) ++th.unstacked_switches;  // its stack, if any, is still to come
  th.on = false;
  th.since = time;
  th.preempted = preempted;
  th.woken = 0;
  th.has_waker = false;
  ++th.t.switches;
  ++switches_;
}

void OffCpuBuilder::go_on(Thread& th, uint64_t time) {
  time = std::max(time, th.since);
  if (th.on) {
    th.t.on_ns += time - std::min(time, th.since);  // a switch out was missed
  } else {
    charge(th, time);
  }
  th.on = true;
  th.since = time;
}

void OffCpuBuilder::on_sample(const Sample& s) {
  // A wakeup is seen system-wide, and in workload mode from before the
  // exec: it must not move the start of the recorded tasks' time back
  // into kprof's own set-up (a thread first seen leaving a CPU is charged
  // on-CPU time from the first record), only its end.
  if (s.kind == SampleKind::Wakeup) {
    last_ = std::max(last_, s.time);
    wakeups_sampled_ |= s.period > 1;
  } else {
    seen(s.time);
  }
  switch (s.kind) {
    case SampleKind::Cpu:
      if (Thread* th = follow(s.pid, s.tid, s.time, true)) {
        th->t.sampled += s.period;
        if (!th->on) go_on(*th, s.time);  // running, so a switch in was missed
      }
      break;
    case SampleKind::SwitchOut:
      // Comes just before its PERF_RECORD_SWITCH: the stack of the interval
      // that begins there (or, if that came first, of the one just begun).
      if (Thread* th = follow(s.pid, s.tid, s.time, true)) {
        ++stack_samples_;
        stacks_sampled_ |= s.period > 1;
        if (th->on || !th->has_stack) {
          // It stands for its thread's switches since its last stack (this
          // one's own among them): the intervals without one are left to it.
          th->weight = std::max<uint64_t>(1, th->unstacked_switches + (th->on ? 1 : 0));
          th->unstacked_switches = 0;
          settle_unstacked(*th, true, s.time);
          th->stack = s;
          th->has_stack = true;
        }
      }
      break;
    case SampleKind::Wakeup: {
      if (Thread* woken = threads_.find(s.wakee)) {
        ++wakeups_;
        Thread& th = *woken;
        if (!th.on && !th.exited && !th.preempted && th.woken == 0) {
          th.woken = s.time;
          th.has_waker = !s.callchain.empty();
          if (th.has_waker) th.waker = s;
        }
      }
      break;
    }
    case SampleKind::Event:  // another event's sample (-e A,B): a count, not a time
      break;
  }
}

void OffCpuBuilder::on_switch(const Switch& w) {
  seen(w.time);
  switches_seen_ = true;
  Thread* th = follow(w.pid, w.tid, w.time, w.out);
  if (th == nullptr) return;
  if (w.out) {
    go_off(*th, w.time, w.preempted);
  } else {
    go_on(*th, w.time);
  }
}

void OffCpuBuilder::on_mmap(const Mmap& m) {
  seen(m.time);
  blocked_.on_mmap(m);
  runq_.on_mmap(m);
}

void OffCpuBuilder::on_comm(const Comm& c) {
  seen(c.time);
  blocked_.on_comm(c);
  runq_.on_comm(c);
  // An exec runs on a CPU; a comm read from /proc at the start (-a, -p) says
  // nothing of whether the thread runs.
  if (!c.exec) {
    if (Thread* th = threads_.find(c.tid)) th->t.comm = c.comm;
    comms_[c.tid] = c.comm;
    return;
  }
  if (Thread* th = follow(c.pid, c.tid, c.time, true)) th->t.comm = c.comm;
}

void OffCpuBuilder::on_fork(const Fork& f) {
  seen(f.time);
  blocked_.on_fork(f);
  runq_.on_fork(f);
  if (!followed(f.pid, f.tid)) return;
  auto [th, made] = threads_.get(f.tid);
  if (!made) return;
  // A new task is runnable from its fork until it first runs.
  th.t.pid = f.pid;
  th.t.tid = f.tid;
  th.t.start_ns = th.since = f.time;
  th.on = false;
  th.preempted = true;
  if (const Thread* parent = threads_.find(f.ptid)) th.t.comm = parent->t.comm;
}

void OffCpuBuilder::on_exit(const Fork& f) {
  seen(f.time);
  if (Thread* found = threads_.find(f.tid); found != nullptr && !found->exited) {
    Thread& th = *found;
    const uint64_t end = std::max(f.time, th.since);
    if (th.on) {
      th.t.on_ns += end - th.since;
    } else {
      charge(th, end);
    }
    settle_unstacked(th, false, end);
    th.t.end_ns = end;
    th.exited = true;
  }
  blocked_.on_exit(f);
  runq_.on_exit(f);
}

void OffCpuBuilder::on_lost(const Lost& l) {
  lost_ += l.count;
}

OffCpuCounts OffCpuBuilder::finish() && {
  std::vector<OffCpuThread> threads;
  for (auto& [tid, th] : threads_) {
    if (!th.exited) {
      // Charged before the counts are taken: the wait the recording ends
      // in is its stack's too.
      const uint64_t end = std::max(last_, th.since);
      if (th.on) {
        th.t.on_ns += end - th.since;
      } else {
        charge(th, end, true);
      }
      settle_unstacked(th, false, end);
      th.t.end_ns = std::max(end, th.t.start_ns);
    }
    if (wakeups_sampled_) settle_unwoken(th);
    // The identity holds by construction; a thread that began before its
    // start was known (exit before anything else) ends where it began.
    threads.push_back(th.t);
  }
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) {
    return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid);
  });
  // Built in place: the counts are moved in, never assigned.
  return OffCpuCounts{.blocked = std::move(blocked_).take_counts(),
                      .runq = std::move(runq_).take_counts(),
                      .threads = std::move(threads),
                      .switches = switches_,
                      .wakeups = wakeups_,
                      .lost = lost_,
                      .stack_samples = stacks_sampled_ ? stack_samples_ : 0,
                      .wakeups_sampled = wakeups_sampled_};
}

uint64_t off_cpu_tick_ns(const EventInfo& event) {
  const bool clock = is_clock_event(event);
  if (event.rate == 0) return 1'000'000;
  if (!event.use_freq) return clock ? event.rate : 1'000'000;
  return std::max<uint64_t>(1, 1'000'000'000 / event.rate);
}

bool is_scheduler_frame(const std::string& function) {
  static constexpr std::array<std::string_view, 22> kNames = {
      "__schedule",
      "schedule",
      "schedule_idle",
      "schedule_preempt_disabled",
      "schedule_rtlock",
      "schedule_timeout",
      "schedule_hrtimeout",
      "schedule_hrtimeout_range",
      "schedule_hrtimeout_range_clock",
      "io_schedule",
      "io_schedule_timeout",
      "preempt_schedule",
      "preempt_schedule_common",
      "preempt_schedule_irq",
      "preempt_schedule_notrace",
      "preempt_schedule_thunk",
      "preempt_schedule_notrace_thunk",
      "__cond_resched",
      "_cond_resched",
      "__perf_event_task_sched_out",
      "perf_event_task_sched_out",
      "__traceiter_sched_switch",
  };
  const std::string_view base = std::string_view(function).substr(0, function.find('.'));
  return std::find(kNames.begin(), kNames.end(), base) != kNames.end();
}

bool is_wakeup_frame(const std::string& function) {
  static constexpr std::array<std::string_view, 13> kNames = {
      "try_to_wake_up",
      "wake_up_process",
      "wake_up_state",
      "wake_up_q",
      "default_wake_function",
      "autoremove_wake_function",
      "woken_wake_function",
      "pollwake",
      "ep_autoremove_wake_function",
      "__traceiter_sched_wakeup",
      "perf_trace_sched_wakeup_template",
      "trace_event_raw_event_sched_wakeup_template",
      "perf_trace_buf_submit",
  };
  const std::string_view base = std::string_view(function).substr(0, function.find('.'));
  return base.starts_with("ttwu_") || base.starts_with("__wake_up") ||
         std::find(kNames.begin(), kNames.end(), base) != kNames.end();
}

namespace {

// Per process, what its stacks in `from` are scaled by so that they sum to
// its threads' `time` (blocked or run queue): 1 where every interval was
// counted at its length; where stacks were sampled, the ratio of the exact
// time to its estimate (a ratio estimator: the sampled intervals of a storm
// that shares its CPU came out half as long as the rest, their stacks then
// summing to half the time). A process with no stack keeps 1.
std::unordered_map<uint32_t, double> scale_to_threads(const Stacks& from,
                                                      const std::vector<OffCpuThread>& threads,
                                                      uint64_t OffCpuThread::*time) {
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> sums;  // pid: exact, counted
  for (const OffCpuThread& t : threads) sums[t.pid].first += t.*time;
  for (const Stack& s : from.stacks) {
    if (s.process < from.processes.size()) sums[from.processes[s.process].pid].second += s.period;
  }
  std::unordered_map<uint32_t, double> scale;
  for (const auto& [pid, sum] : sums) {
    if (sum.second != 0 && sum.first != sum.second) {
      scale[pid] = static_cast<double>(sum.first) / static_cast<double>(sum.second);
    }
  }
  return scale;
}

// Adds `from`'s stacks, each under an outermost frame `root`, to `into`
// (whose tables grow as needed), dropping `from`'s leading scheduler frames
// and a waker's leading wakeup frames (after the joint), each process's
// periods times its `scale` (scale_to_threads).
void add_stacks(Stacks& into, const Stacks& from, const char* root,
                const std::unordered_map<uint32_t, double>& scale,
                std::map<std::pair<uint32_t, std::vector<uint32_t>>, size_t>& index) {
  auto image_id = [&](const Image& image) {
    auto it = std::find(into.images.begin(), into.images.end(), image);
    if (it != into.images.end()) return static_cast<uint32_t>(it - into.images.begin());
    into.images.push_back(image);
    return static_cast<uint32_t>(into.images.size() - 1);
  };
  std::map<Frame, uint32_t> frame_ids;
  for (size_t i = 0; i < into.frames.size(); ++i) {
    frame_ids.emplace(into.frames[i], static_cast<uint32_t>(i));
  }
  auto frame_id = [&](const Frame& f) {
    auto [it, inserted] = frame_ids.try_emplace(f, static_cast<uint32_t>(into.frames.size()));
    if (inserted) into.frames.push_back(f);
    return it->second;
  };
  const uint32_t root_id = frame_id(Frame{image_id(Image{kOffCpuImage, ""}), root, Mode::Unknown});
  std::vector<uint32_t> frame_map(from.frames.size());
  for (size_t i = 0; i < from.frames.size(); ++i) {
    Frame f = from.frames[i];
    f.image = f.image < from.images.size() ? image_id(from.images[f.image])
                                           : image_id(Image{"[unknown]", ""});
    frame_map[i] = frame_id(f);
  }
  for (const Stack& s : from.stacks) {
    size_t first = 0;
    while (first + 1 < s.frames.size() && s.frames[first] < from.frames.size() &&
           from.frames[s.frames[first]].mode == Mode::Kernel &&
           is_scheduler_frame(from.frames[s.frames[first]].function)) {
      ++first;
    }
    std::vector<uint32_t> frames;
    bool after_joint = false;
    for (size_t i = first; i < s.frames.size(); ++i) {
      if (s.frames[i] >= frame_map.size()) continue;
      const Frame& f = from.frames[s.frames[i]];
      if (after_joint && i + 1 < s.frames.size() && f.mode == Mode::Kernel &&
          is_wakeup_frame(f.function)) {
        continue;
      }
      after_joint = f.mode == Mode::Unknown && f.function == kStackJointFrame &&
                    f.image < from.images.size() && from.images[f.image].name == kStackJointImage;
      frames.push_back(frame_map[s.frames[i]]);
    }
    frames.push_back(root_id);
    uint32_t process = 0;
    const StackProcess proc =
        s.process < from.processes.size() ? from.processes[s.process] : StackProcess{};
    auto p = std::find(into.processes.begin(), into.processes.end(), proc);
    if (p == into.processes.end()) {
      into.processes.push_back(proc);
      process = static_cast<uint32_t>(into.processes.size() - 1);
    } else {
      process = static_cast<uint32_t>(p - into.processes.begin());
    }
    auto [it, inserted] = index.try_emplace({process, frames}, into.stacks.size());
    if (inserted) into.stacks.push_back(Stack{process, std::move(frames), 0, 0});
    Stack& dst = into.stacks[it->second];
    // ns; samples are set from the total below
    const auto by = scale.find(proc.pid);
    dst.period +=
        by == scale.end()
            ? s.period
            : static_cast<uint64_t>(std::llround(static_cast<double>(s.period) * by->second));
  }
}

}  // namespace

OffCpu off_cpu_from_stacks(const Stacks& blocked, const Stacks& runq, OffCpuCounts counts,
                           uint64_t tick_ns, bool sampled_is_ns) {
  OffCpu out;
  out.tick_ns = std::max<uint64_t>(1, tick_ns);
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, size_t> index;
  add_stacks(out.stacks, blocked, kBlockedFrame,
             scale_to_threads(blocked, counts.threads, &OffCpuThread::blocked_ns), index);
  add_stacks(out.stacks, runq, kRunQueueFrame,
             scale_to_threads(runq, counts.threads, &OffCpuThread::runq_ns), index);
  for (Stack& s : out.stacks.stacks) {
    s.samples = static_cast<uint64_t>(
        std::llround(static_cast<double>(s.period) / static_cast<double>(out.tick_ns)));
  }
  // Under half a tick in all: below what a sampler at the same rate would see.
  std::erase_if(out.stacks.stacks, [](const Stack& s) { return s.samples == 0; });
  std::sort(out.stacks.stacks.begin(), out.stacks.stacks.end(),
            [](const Stack& a, const Stack& b) { return a.samples > b.samples; });
  out.threads = std::move(counts.threads);
  out.switches = counts.switches;
  out.wakeups = counts.wakeups;
  out.lost = counts.lost;
  out.stack_samples = counts.stack_samples;
  out.wakeups_sampled = counts.wakeups_sampled;
  out.sampled_is_ns = sampled_is_ns;
  return out;
}

}  // namespace kprof
