// What a clock event's sample stands for when the thread's context switches
// are known (--off-cpu records them).
//
// cpu-clock and task-clock sample from an hrtimer, which cannot fire while
// interrupts are off: the sample comes late, where they are switched back on,
// and when it comes a whole period late or more the periods missed are
// dropped, not counted (the kernel forwards the timer past them). Where
// interrupts stay off for long (under emulation, or a long irq-off section)
// the samples' fixed periods then add up to less CPU time than the threads
// used: in a TCG guest, 57% of it on one kernel and 84% on another, so their
// CPU ns per call or per unit of work do not compare.
//
// CpuTimeWeights gives each sample instead the time its thread spent on a
// CPU since its previous sample (or since it was first seen running): the
// time the late sample stands for lands where it was taken, as its skid
// already does for the samples that came. A thread's weights then sum to its
// on-CPU time up to its last sample. A thread whose state is not known (no
// switch of it seen yet, or one missed: a sample while it is off CPU) keeps
// the sample's own period for that sample, as do the idle tasks (tid 0: one
// per CPU, so not one thread to follow).
#pragma once

#include <cstdint>

#include "core/model.h"
#include "core/thread_map.h"

namespace kprof {

class CpuTimeWeights {
 public:
  // The period `s` (a Cpu sample) stands for; updates the thread's state.
  uint64_t period_of(const Sample& s);
  void on_switch(const Switch& w);
  void on_exit(uint32_t tid) { threads_.erase(tid); }
  // Samples whose period came from the switches (the rest kept their own).
  uint64_t weighted() const { return weighted_; }

 private:
  struct Thread {
    bool known = false;  // a switch of it was seen: `on` is its state
    bool on = true;
    uint64_t since = 0;  // when its current on interval, or its last sample, began; 0: unknown
    uint64_t carry = 0;  // on-CPU ns since its last sample, in intervals already ended
  };
  ThreadMap<Thread> threads_;
  uint64_t weighted_ = 0;
};

}  // namespace kprof
