#include "core/cpu_time_weights.h"

namespace kprof {

uint64_t CpuTimeWeights::period_of(const Sample& s) {
  if (s.tid == 0) return s.period;  // the idle tasks: one tid 0 per CPU, not one thread
  Thread& th = threads_.get(s.tid).first;
  uint64_t period = s.period;
  if (th.known && th.on && th.since != 0) {
    period = th.carry + (s.time > th.since ? s.time - th.since : 0);
    ++weighted_;
  }
  // Running now, whatever was believed: the next sample's time starts here.
  th.on = true;
  th.since = s.time;
  th.carry = 0;
  return period;
}

void CpuTimeWeights::on_switch(const Switch& w) {
  if (w.tid == 0) return;
  Thread& th = threads_.get(w.tid).first;
  if (w.out) {
    if (th.on && th.since != 0 && w.time > th.since) th.carry += w.time - th.since;
    th.on = false;
  } else if (!th.known || !th.on) {
    th.on = true;
  }
  // A switch in while believed on (its switch out was lost): the time since
  // is not known to be on-CPU, so it is not counted.
  th.since = w.time;
  th.known = true;
}

}  // namespace kprof
