// Helpers shared by the known-profile programs. Kept out of the hot loops:
// each program's named functions do their own work so samples land in them.
#pragma once

// Seconds on CLOCK_MONOTONIC.
extern "C" double kprof_prog_now();
// argv[i] as a positive number of seconds (or `fallback` when absent);
// exits 2 with a usage line on nonsense.
extern "C" double kprof_prog_arg_seconds(int argc, char** argv, int i, double fallback,
                                         const char* usage);
// Spins for `seconds` of wall time (the crash and exit programs' work before
// they end; the profile programs keep their own named loops).
extern "C" void kprof_prog_busy(double seconds);
// No core files: a crash test must not wait for a core dump handler.
extern "C" void kprof_prog_no_core();
