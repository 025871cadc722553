// SPDX-License-Identifier: MIT
// Work in parallel, results in order: produce(i) runs on worker threads for
// i = 0 .. n-1, consume(i, result) on the calling thread strictly in index
// order, so whatever consume builds (a report, files) is the same for any
// number of threads. The gate (--jobs) and the golden exporter use it.
#ifndef ROPECHECK_CORE_PARALLEL_ORDERED_PARALLEL_H_
#define ROPECHECK_CORE_PARALLEL_ORDERED_PARALLEL_H_

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ropecheck {

// Releases what the calling thread's MPFR keeps (constant caches, sin/cos
// tables): MPFR frees them only at process exit otherwise.
void release_thread_caches();

// With jobs <= 1 everything runs on the calling thread. Workers run at most
// 16 * jobs items ahead of consume, which bounds the results held: with 4 *
// jobs, the other thread ran out of items while one worked on a long case
// (the quick gate has a dozen of 1-2 s among 120), and the gate kept 1.84 of
// 2 cores busy, about 1.9 now. consume
// returns false to stop early (items already started are finished and
// dropped). The first exception thrown by produce or consume is rethrown
// here after every worker has stopped.
template <class T, class Produce, class Consume>
void ordered_parallel(int n, int jobs, Produce produce, Consume consume) {
  if (jobs <= 1) {
    for (int i = 0; i < n; ++i)
      if (!consume(i, produce(i))) return;
    return;
  }
  std::vector<std::optional<T>> slots(static_cast<std::size_t>(n));
  std::mutex mu;
  std::condition_variable cv;
  int next = 0, consumed = 0;
  bool stop = false;
  std::exception_ptr error;
  const int window = 16 * jobs;
  auto work = [&] {
    for (;;) {
      int i;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || next >= n || next < consumed + window; });
        if (stop || next >= n) break;
        i = next++;
      }
      try {
        T t = produce(i);
        std::lock_guard<std::mutex> lock(mu);
        slots[static_cast<std::size_t>(i)] = std::move(t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
      }
      cv.notify_all();
    }
    release_thread_caches();
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < jobs; ++t) pool.emplace_back(work);
  for (int i = 0; i < n; ++i) {
    std::optional<T> t;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return stop || slots[static_cast<std::size_t>(i)].has_value(); });
      if (!slots[static_cast<std::size_t>(i)]) break;  // stopped by an error
      t = std::move(slots[static_cast<std::size_t>(i)]);
      slots[static_cast<std::size_t>(i)].reset();
      consumed = i + 1;
    }
    cv.notify_all();
    bool go_on = false;
    try {
      go_on = consume(i, std::move(*t));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
    if (!go_on) break;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv.notify_all();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_PARALLEL_ORDERED_PARALLEL_H_
