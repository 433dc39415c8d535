// libkprof_proglib.so: CPU work that lives in a shared library.
#pragma once

// Spins on arithmetic for `seconds`; returns the number of iterations.
extern "C" long kprof_lib_spin(double seconds);
