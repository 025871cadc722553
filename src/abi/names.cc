#include <string_view>

#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {
constexpr std::string_view kDtypes[] = {"f32", "f16", "bf16", "f64"};
constexpr std::string_view kLayouts[] = {"interleaved", "half_split"};
constexpr std::string_view kSchemes[] = {"default", "linear",   "ntk",      "dynamic_ntk",
                                         "yarn",    "llama3",   "longrope", "explicit"};

template <class E, std::size_t N>
bool parse(std::string_view s, const std::string_view (&names)[N], E* out) {
  for (std::size_t i = 0; i < N; ++i)
    if (s == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  return false;
}
}  // namespace

std::string_view dtype_name(ropecheck_dtype_t t) {
  return static_cast<unsigned>(t) < std::size(kDtypes) ? kDtypes[t] : "?";
}
std::string_view layout_name(ropecheck_layout_t l) {
  return static_cast<unsigned>(l) < std::size(kLayouts) ? kLayouts[l] : "?";
}
std::string_view scheme_name(ropecheck_scheme_t s) {
  return static_cast<unsigned>(s) < std::size(kSchemes) ? kSchemes[s] : "?";
}
bool parse_dtype(std::string_view s, ropecheck_dtype_t* out) { return parse(s, kDtypes, out); }
bool parse_layout(std::string_view s, ropecheck_layout_t* out) { return parse(s, kLayouts, out); }
bool parse_scheme(std::string_view s, ropecheck_scheme_t* out) { return parse(s, kSchemes, out); }

}  // namespace ropecheck
