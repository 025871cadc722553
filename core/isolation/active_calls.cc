// SPDX-License-Identifier: MIT
// The board of active_calls.h: a shared page of slots, one per call under way.
#include "core/isolation/active_calls.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

namespace ropecheck {
namespace {

constexpr int kBoardSlots = 31;
constexpr std::size_t kBoardName = 120;
struct BoardSlot {
  std::atomic<int> used;
  char name[kBoardName];
};
static_assert(sizeof(BoardSlot) * kBoardSlots <= 4096, "one page");

BoardSlot* g_board = nullptr;

}  // namespace

void open_active_calls_board() {
  if (g_board) return;
  void* m = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) g_board = static_cast<BoardSlot*>(m);  // zero-filled: every slot free
}

void keep_active_calls_board_from_children() {
  if (g_board) ::madvise(g_board, 4096, MADV_DONTFORK);
}

std::string active_calls_now() {
  std::string out;
  if (!g_board) return out;
  for (int i = 0; i < kBoardSlots; ++i) {
    if (g_board[i].used.load() != 1) continue;
    char name[kBoardName];
    std::memcpy(name, g_board[i].name, kBoardName);  // a racing writer: at worst a name cut short
    name[kBoardName - 1] = '\0';
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

ActiveCall::ActiveCall(const char* kernel) {
  if (!g_board || !kernel) return;
  for (int i = 0; i < kBoardSlots; ++i) {
    int expected = 0;
    if (!g_board[i].used.compare_exchange_strong(expected, 2)) continue;  // 2: being written
    std::strncpy(g_board[i].name, kernel, kBoardName - 1);
    g_board[i].name[kBoardName - 1] = '\0';
    g_board[i].used.store(1);
    slot_ = i;
    return;
  }
}

ActiveCall::~ActiveCall() {
  if (slot_ >= 0) g_board[slot_].used.store(0);
}

}  // namespace ropecheck
