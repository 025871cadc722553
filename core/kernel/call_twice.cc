// SPDX-License-Identifier: MIT
// Conformance's pair of calls on the same case, whose bits must agree.
#include "core/kernel/call_twice.h"

#include <sstream>
#include <string>
#include <vector>

#include "core/cases/kv_write_case.h"
#include "core/kernel/poison_key.h"
#include "ropecheck/dtype.h"

namespace ropecheck {

namespace {
constexpr std::uint64_t kTwiceSalt = 0x74776963ull;  // "twic": no single call's salt (0 .. kPoisonKinds)
}  // namespace

KernelRun call_kernel_twice(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const QkNormCase* norm,
                            const KvRun* kv_given) {
  CallOptions o;
  o.norm = norm;
  o.kv_given = kv_given;
  seed_poison(poison_key(c, impl.name, kTwiceSalt));  // the pair's kinds follow from the call too
  const PoisonKind kind = draw_poison_kind();
  o.poison = kind;
  KernelRun first = call_kernel(impl, c, in, o);
  if (!first.ok()) return first;
  // first's buffers are alive: other addresses, another kind of poison
  o.poison = draw_poison_kind(&kind);
  KernelRun second = call_kernel(impl, c, in, o);
  if (!second.ok()) return second;
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h) {
        const auto head = static_cast<std::size_t>(g.offset(w, t, h, 0)) * g.esize;
        const int j = first_differing_channel(first.out.bytes[w].data() + head, second.out.bytes[w].data() + head,
                                              g.head_dim, g.esize);
        if (j < 0) continue;
        const auto at = static_cast<std::size_t>(g.offset(w, t, h, j)) * g.esize;
        std::ostringstream os;
        os.precision(9);
        os << "two calls on the same case differ at " << (w ? "k" : "q") << "[token " << t << ", head " << h
           << ", channel " << j << "] (" << load_as_double(first.out.bytes[w].data(), at / g.esize, c.dtype)
           << ", then " << load_as_double(second.out.bytes[w].data(), at / g.esize, c.dtype) << "): "
           << (c.in_place ? std::string("it is not deterministic")
                          : std::string("its output arrived holding ") + poison_kind_name(kind) + ", then " +
                                poison_kind_name(*o.poison) +
                                ": it reads its output before writing it, leaves it unwritten, or is not "
                                "deterministic");
        first.misbehaviour = os.str();
        return first;
      }
  // The entries a cache write made: the same bytes from both calls (each
  // call's caches arrived holding other random bytes, which a correct write
  // neither reads nor keeps in its entries).
  if (first.kv && second.kv)
    for (int which = 0; which < 2; ++which) {
      const ByteBuffer& a = which == 0 ? first.kv->k_cache : first.kv->v_cache;
      const ByteBuffer& b = which == 0 ? second.kv->k_cache : second.kv->v_cache;
      const std::vector<bool> written = written_bytes(first.kv->spec, which);
      for (std::size_t i = 0; i < a.size() && i < b.size() && i < written.size(); ++i)
        if (written[i] && a[i] != b[i]) {
          first.misbehaviour = "two calls on the same case wrote other bytes into the " +
                               std::string(which == 0 ? "K" : "V") + " cache's entries, first at byte " +
                               std::to_string(i) + " (" + std::to_string(a[i]) + ", then " + std::to_string(b[i]) +
                               "): the write is not deterministic, or reads what the cache held";
          return first;
        }
    }
  return first;
}

}  // namespace ropecheck
