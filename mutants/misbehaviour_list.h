// SPDX-License-Identifier: MIT
// Misbehaving kernels: the control kernel (Bug::none, correct results)
// with one way of attacking the harness rather than the mathematics. Each
// row is a plugin (mutants/CMakeLists.txt reads the names from here) that
// mutants/plugin_isolation_test.sh runs through the CLI, asserting the exact
// exit code and message; docs/RELIABILITY.md lists them by threat class.
// Rows that act on "big" cases do so when a call has more than 3 tokens, so
// some cases of a run pass and the run must go on past the others. The
// rows from stale_results to leaks_address_space attack a persistent worker
// (core/isolation/worker.h): state one call leaves for a later call in the same
// process. The last three game a timer (`ropecheck bench`, issue #35;
// speed/test/bench_test.sh): with stale_results (kept by address) and
// late_writer (finished in a thread after the return), the classes of timer
// gaming a benchmark of machine-written kernels meets; extra_passes is a
// correct kernel slowed on purpose, what `bench compare` must call a
// regression.
#ifndef ROPECHECK_MUTANTS_MISBEHAVIOUR_LIST_H_
#define ROPECHECK_MUTANTS_MISBEHAVIOUR_LIST_H_

namespace ropecheck::mutant {

// X(name, what the kernel does)
#define ROPECHECK_MISBEHAVIOURS(X)                                                                               \
  X(crash, "a wild write near address 0 on big cases")                                                          \
  X(hang, "an endless loop on big cases")                                                                       \
  X(unwritten, "the last rotated channel of every q head never written (out of place)")                        \
  X(wrong_abi, "the table claims ABI version 99")                                                               \
  X(bad_caps, "declares a cos/sin cache but exports no build_cache")                                            \
  X(no_entry, "the library exports no ropecheck_get_impls (plugin_entry.cc)")                                  \
  X(declines_everything, "declares only head_dim <= 2 with fp16 LongRoPE: no case of the quick or smoke suite")\
  X(writes_positions, "correct results, then writes into the position ids it was given")                      \
  X(writes_q_in, "correct results, then writes into q_in when out of place")                                  \
  X(writes_freq, "correct results, then writes into the frequency spec (rope_theta)")                        \
  X(writes_cache, "a cos/sin cache kernel: results correct inside its cache, then writes into the cache")   \
  X(restores_caller_cache, "reads the caller's cos/sin cache (ABI 1.6): correct results, after writing into the " \
    "row of its first position and putting the byte back before returning")                                  \
  X(restores_own_cache, "a cos/sin cache kernel (its own, from its build_cache): correct results, after writing "  \
    "into the row of its first position and putting the byte back before returning")                           \
  X(reads_output, "reads each output element before writing it and rounds differently by what it held")       \
  X(background_thread, "correct results, and a detached thread that overwrites q_out 50 ms later, forever")   \
  X(forked_writer, "correct results, and a forked child that overwrites q_out 50 ms later, forever")          \
  X(daemon, "correct results, and a daemon (double fork, setsid) that overwrites q_out 50 ms later")          \
  X(sleeping_child, "correct results, and a child holding every inherited descriptor that sleeps 1000 s")     \
  X(stops_ropecheck, "correct results, and on big cases a daemon (double fork, setsid) that sends SIGSTOP to "  \
    "each of its ancestors named ropecheck, then sleeps 3 s")                                                  \
  X(kills_ropecheck, "correct results, and on big cases a daemon that sends SIGKILL to each of its ancestors "  \
    "named ropecheck, then sleeps 3 s")                                                                         \
  X(exit_in_apply, "calls exit(0) on big cases")                                                                \
  X(stack_overflow, "recurses without end on big cases")                                                        \
  X(null_after_alloc, "mallocs 128 GiB on big cases and writes through the pointer unchecked")                 \
  X(overrun, "writes one element past the end of q_out on big cases")                                          \
  X(underrun, "writes one element before the start of q_out on big cases")                                     \
  X(stale_results, "returns the output it computed before for the same q_in address, without computing")     \
  X(timer_left_armed, "its process's first call arms SIGALRM for 50 ms later; later calls take 100 ms")       \
  X(handler_left_installed, "first call: a SIGSEGV handler that exits 0; second: writes past the end of q_out")\
  X(leaks_address_space, "leaks 256 MiB of address space per call and needs 512 MiB more (refused: an error)") \
  X(late_writer, "returns at once; a detached thread writes the correct results 1 ms later and ends")       \
  X(fp_rounding_left, "correct results, then leaves the rounding mode upward (fesetround)")                  \
  X(ftz_left, "correct results, then leaves flush-to-zero and denormals-are-zero set (x86 MXCSR)")          \
  X(raw_exit, "calls _exit(0) on big cases: no exit handler runs")                                            \
  X(closes_stdout, "closes its standard output on big cases; correct results")                               \
  X(closes_stdout_and_stderr, "closes its standard output and standard error on big cases; correct results")   \
  X(poison_sniffer, "correct results when its output arrives all NaN, a copy of its input otherwise")        \
  X(prints_stdout, "correct results; prints a line with printf and one with write(1) on every call")         \
  X(exit_at_load, "calls exit(0) in a constructor when the library is loaded (plugin_entry.cc)")              \
  X(crash_at_load, "dereferences NULL inside ropecheck_get_impls (plugin_entry.cc)")                            \
  X(hash_cache, "keeps each result by a hash of 64 input elements and the shape; a match returns it uncomputed")\
  X(first_call_only, "computes on its process's first call; later calls return that call's result uncomputed") \
  X(extra_passes, "correct results after three extra rotations into scratch: slowed on purpose, 4x the work")  \
  X(diff_cache, "keeps its last call's inputs and outputs and recomputes only the tokens whose q, k or position " \
    "changed: correct results (timing_gamers.h)")                                                                \
  X(computes_every_fourth_call, "computes on every fourth call of its process and returns at once otherwise, its " \
    "outputs as they arrived (timing_gamers.h)")

#define ROPECHECK_MISBEHAVIOUR_ENUM(name, text) name,
enum class Misbehaviour { ROPECHECK_MISBEHAVIOURS(ROPECHECK_MISBEHAVIOUR_ENUM) };
#undef ROPECHECK_MISBEHAVIOUR_ENUM

struct MisbehaviourInfo {
  Misbehaviour kind;
  const char* name;  // implementation name: misbehaving_<kind>
  const char* description;
};

#define ROPECHECK_MISBEHAVIOUR_INFO(n, text) {Misbehaviour::n, "misbehaving_" #n, text},
inline constexpr MisbehaviourInfo kMisbehaviours[] = {ROPECHECK_MISBEHAVIOURS(ROPECHECK_MISBEHAVIOUR_INFO)};
#undef ROPECHECK_MISBEHAVIOUR_INFO

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_MISBEHAVIOUR_LIST_H_
