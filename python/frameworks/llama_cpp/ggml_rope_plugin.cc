// SPDX-License-Identifier: MIT
// llama.cpp's ggml CPU rope as ropecheck plugins (docs/FRAMEWORKS.md): each
// call builds a one-node ggml graph, ggml_rope_ext / ggml_rope_multi (or their
// _back, the transpose) over tensors whose data are the caller's own buffers
// with the caller's strides, and runs it with ggml's CPU backend on one
// thread. Nothing is copied: ggml reads q_in and writes q_out where the
// harness put them, so a read or write outside them is the harness's to see.
// Built from the sources of llama-cpp-python 0.3.36's sdist by build.sh; line
// numbers are those of its vendor/llama.cpp.
//
// The arithmetic (ggml/src/ggml-cpu/ops.cpp:6180-6218 rope_yarn and
// ggml_rope_cache_init, 6290-6307 rotate_pairs): theta_0 = (float) p, theta
// *= powf(freq_base, -2/n_dims) pair after pair, theta / freq_factor, YaRN's
// fp32 ramp mix, cosf / sinf times the attention factor, x0*cos - x1*sin in
// float, the result converted to the storage type: ROPECHECK_ANGLE_F32_RUNNING
// _PRODUCT with fp32 math (docs/ERROR_MODEL.md, "The running product").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ggml-cpu.h"
#include "ggml.h"
#include "python/frameworks/llama_cpp/ggml_params.h"
#include "python/frameworks/llama_cpp/vision_rope.h"
#include "ropecheck/kernel_abi.h"

namespace ggml_adapter {
namespace {

// Which ggml entry point a table calls.
enum class Entry {
  kExt,     // ggml_rope_ext, NORMAL (interleaved) or NEOX (half split)
  kMrope,   // ggml_rope_multi GGML_ROPE_TYPE_MROPE: Qwen2-VL's sections
  kImrope,  // ggml_rope_multi GGML_ROPE_TYPE_IMROPE: Qwen3-VL's interleaving
  kVision,  // ggml_rope_multi GGML_ROPE_TYPE_VISION: Qwen2-VL's vision encoder (vision_rope.h)
};

// A refusal the runner counts apart (run_frameworks.py): a case ggml has no
// way to take, never a wrong value.
constexpr const char* kRefusal = "CaseOutsideFramework: ";

ropecheck_status_t fail(char* err, std::size_t n, ropecheck_status_t st, const std::string& why) {
  if (n) std::snprintf(err, n, "%s", why.c_str());
  return st;
}

// The 4 position rows ggml_rope_multi reads, [4 * tokens] (ops.cpp:6418-6421):
// the case's axes, and a 4th of zeros as llama.cpp fills it for a text token
// (src/llama-graph.cpp:131-141) and mtmd for an image token, whose z is
// "unused for now" (tools/mtmd/mtmd.h:274-279, set_position_mrope_2d). A 1D
// call is a text token: its position on the first three rows.
std::vector<int32_t> mrope_rows(const ropecheck_apply_params_t& p) {
  const int64_t t = p.num_tokens;
  std::vector<int32_t> rows(static_cast<std::size_t>(4 * t), 0);
  const auto* pos = static_cast<const int32_t*>(p.positions);
  const int axes = p.num_axes;
  for (int a = 0; a < 3; ++a)
    for (int64_t i = 0; i < t; ++i)
      rows[static_cast<std::size_t>(a * t + i)] = axes == 0 ? pos[i] : a < axes ? pos[a * p.position_axis_stride + i] : 0;
  return rows;
}

// ggml's 4 sections of a call: the case's (ABI axis_sections, pairs per
// axis), or for a 1D call one section of every pair (MROPE) or Qwen3-VL's
// proportions, mrope_section 24/20/20 of 64 (IMROPE; a text token's axes are
// equal, so only the pairs no section covers depend on them).
std::string sections_of(const ropecheck_apply_params_t& p, Entry e, int out[4]) {
  const int pairs = p.rotary_dim / 2;
  std::fill(out, out + 4, 0);
  if (p.num_axes == 0) {
    if (e == Entry::kMrope) {
      out[0] = pairs;
    } else {
      out[1] = out[2] = pairs * 20 / 64;
      out[0] = pairs - out[1] - out[2];
    }
    return "";
  }
  if (p.axis_frequencies != ROPECHECK_AXIS_FREQ_SHARED) return "per-axis frequencies (M-RoPE shares them)";
  if (p.num_axes > 3) return std::to_string(p.num_axes) + " axes (llama.cpp's M-RoPE models fill 3)";
  if (e == Entry::kImrope && p.num_axes != 3) return "interleaving over " + std::to_string(p.num_axes) + " axes (IMROPE: 3)";
  for (int a = 0; a < p.num_axes; ++a) out[a] = p.axis_sections[a];
  if (out[0] <= 0 && out[1] <= 0 && out[2] <= 0) return "no pair on the first three sections (ops.cpp:6381-6383 asserts)";
  return "";
}

struct Tensors {
  ggml_context* ctx = nullptr;
  ~Tensors() {
    if (ctx) ggml_free(ctx);
  }
};

// A [head_dim, heads, tokens] tensor of the caller's buffer at `data` with its
// element strides (ggml's nb are bytes; ne0 contiguous, as the ABI's channels).
ggml_tensor* view_of(ggml_context* ctx, ggml_type type, const ropecheck_apply_params_t& p, int heads, int64_t token_stride,
                     int64_t head_stride, const void* data) {
  ggml_tensor* t = ggml_new_tensor_3d(ctx, type, p.head_dim, heads, p.num_tokens);
  const std::size_t es = ggml_type_size(type);
  t->nb[1] = static_cast<std::size_t>(head_stride) * es;
  t->nb[2] = static_cast<std::size_t>(token_stride) * es;
  t->nb[3] = t->nb[2] * static_cast<std::size_t>(p.num_tokens);
  t->data = const_cast<void*>(data);  // ggml's rope only reads its source
  return t;
}

// Rotates one of q / k: the graph of one rope node, computed on one thread.
std::string rotate(Entry e, const ropecheck_apply_params_t& p, const GgmlRopeArgs& a, int heads, const void* in, void* out,
                   int64_t token_stride, int64_t head_stride) {
  const ggml_type type = p.dtype == ROPECHECK_DTYPE_F16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
  Tensors ts;
  ggml_init_params ip{ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, /*no_alloc=*/true};
  ts.ctx = ggml_init(ip);
  if (!ts.ctx) return "ggml_init failed";
  ggml_tensor* x = view_of(ts.ctx, type, p, heads, token_stride, head_stride, in);
  std::vector<int32_t> rows;
  ggml_tensor* pos;
  if (e == Entry::kExt) {
    pos = ggml_new_tensor_1d(ts.ctx, GGML_TYPE_I32, p.num_tokens);
    pos->data = const_cast<void*>(p.positions);  // int32 ids, read only
  } else {
    rows = e == Entry::kVision ? vision_rows(p) : mrope_rows(p);
    pos = ggml_new_tensor_1d(ts.ctx, GGML_TYPE_I32, 4 * p.num_tokens);
    pos->data = rows.data();
  }
  ggml_tensor* ff = nullptr;
  if (!a.freq_factors.empty()) {
    ff = ggml_new_tensor_1d(ts.ctx, GGML_TYPE_F32, static_cast<int64_t>(a.freq_factors.size()));
    ff->data = const_cast<float*>(a.freq_factors.data());
  }
  const bool back = p.direction == ROPECHECK_DIRECTION_INVERSE;
  ggml_tensor* r;
  if (e == Entry::kExt) {
    const int mode = p.layout == ROPECHECK_LAYOUT_HALF_SPLIT ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_NORMAL;
    r = (back ? ggml_rope_ext_back : ggml_rope_ext)(ts.ctx, x, pos, ff, p.rotary_dim, mode, a.n_ctx_orig, a.freq_base,
                                                    a.freq_scale, a.ext_factor, a.attn_factor, a.beta_fast, a.beta_slow);
  } else {
    int sections[4];
    int n_dims = p.rotary_dim;
    if (e == Entry::kVision) {
      vision_sections(p, sections);
      n_dims = vision_n_dims(p);
    } else if (std::string why = sections_of(p, e, sections); !why.empty()) {
      return kRefusal + why;
    }
    const int mode = e == Entry::kMrope    ? GGML_ROPE_TYPE_MROPE
                     : e == Entry::kImrope ? GGML_ROPE_TYPE_IMROPE
                                           : GGML_ROPE_TYPE_VISION;
    r = (back ? ggml_rope_multi_back : ggml_rope_multi)(ts.ctx, x, pos, ff, n_dims, sections, mode, a.n_ctx_orig,
                                                        a.freq_base, a.freq_scale, a.ext_factor, a.attn_factor,
                                                        a.beta_fast, a.beta_slow);
  }
  // The result is the caller's output buffer, with the same strides (ops.cpp addresses dst by its nb).
  r->data = out;
  std::copy(x->nb, x->nb + 4, r->nb);
  ggml_cgraph* g = ggml_new_graph(ts.ctx);
  ggml_build_forward_expand(g, r);
  ggml_cplan plan = ggml_graph_plan(g, /*n_threads=*/1, nullptr);
  std::vector<uint8_t> work(plan.work_size);
  plan.work_data = work.data();
  if (ggml_graph_compute(g, &plan) != GGML_STATUS_SUCCESS) return "ggml_graph_compute failed";
  return "";
}

struct Table {
  Entry entry;
  // Refuse an odd head_dim (finding G1): ggml's pass-through loop copies channel pairs (i0, i0 + 1) up to
  // ne0 (ops.cpp:6453-6463), so for an odd ne0 it reads and writes one element past every row, the last
  // row's past the tensor. The table that does not refuse shows it.
  bool refuse_odd_head_dim;
  ropecheck_impl_t impl;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Table& table = *static_cast<const Table*>(ctx);
  const Entry e = table.entry;
  if (!p || p->struct_size < ROPECHECK_APPLY_PARAMS_SIZE_1_3 || !p->freq || !p->positions || !p->q_in || !p->q_out)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "params: a 1.3 call with freq, positions, q_in and q_out");
  if (p->dtype != ROPECHECK_DTYPE_F32 && p->dtype != ROPECHECK_DTYPE_F16)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "dtype: ggml's CPU rope takes F32 and F16 (ops.cpp:6325)");
  if (p->position_type != ROPECHECK_INDEX_INT32)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "position_type: ggml positions are I32 (ops.cpp:6326)");
  if (p->rotary_dim <= 0 || p->rotary_dim % 2 || p->rotary_dim > p->head_dim)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "rotary_dim: even, in (0, head_dim]");
  if (e != Entry::kExt && p->layout != ROPECHECK_LAYOUT_HALF_SPLIT)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "layout: M-RoPE is NEOX-ordered (ggml.h:1919-1921)");
  if (p->seq_len > 0) return fail(err, n, ROPECHECK_UNSUPPORTED, "seq_len: not declared (SEQ_STRIDES)");
  if (table.refuse_odd_head_dim && p->head_dim % 2)
    return fail(err, n, ROPECHECK_UNSUPPORTED,
                std::string(kRefusal) + "an odd head_dim: ggml reads and writes one element past each row (G1)");
  if (e == Entry::kVision)
    if (std::string why = vision_outside(*p); !why.empty()) return fail(err, n, ROPECHECK_UNSUPPORTED, kRefusal + why);
  GgmlRopeArgs a;
  if (std::string why = ggml_rope_args(*p->freq, p->rotary_dim, &a); !why.empty())
    return fail(err, n, ROPECHECK_UNSUPPORTED, kRefusal + why);
  std::string why = rotate(e, *p, a, p->num_q_heads, p->q_in, p->q_out, p->q_token_stride, p->q_head_stride);
  if (why.empty() && p->num_kv_heads > 0 && p->k_in && p->k_out)
    why = rotate(e, *p, a, p->num_kv_heads, p->k_in, p->k_out, p->k_token_stride, p->k_head_stride);
  if (why.empty()) return ROPECHECK_OK;
  return fail(err, n, why.rfind(kRefusal, 0) == 0 ? ROPECHECK_UNSUPPORTED : ROPECHECK_INTERNAL_ERROR, why);
}

constexpr uint32_t kSchemes = ((1u << ROPECHECK_SCHEME_COUNT) - 1) & ~(1u << ROPECHECK_SCHEME_EXPLICIT);

// What ggml takes, and what llama.cpp cannot express declared away by name:
// YaRN's correction range is always floored/ceiled (ggml.c:4482-4490); an
// explicit attention factor is replaced (YaRN, llama-context.cpp:198-203) or
// derived again by the converter (LongRoPE, conversion/phi.py:195-202); the
// LongRoPE list is chosen once, at load (llama-model.cpp:2337-2350), and
// there is no dynamic NTK; DeepSeek's mscale has no key the generic converter
// writes (conversion/base.py:1483).
constexpr uint32_t kFlags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE |
                            ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 |
                            ROPECHECK_CAP_NEGATIVE_POSITIONS | ROPECHECK_CAP_YARN_TRUNCATED_ONLY |
                            ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR | ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN
#ifdef ROPECHECK_CAP_NO_YARN_MSCALE
                            | ROPECHECK_CAP_NO_YARN_MSCALE
#endif
    ;

ropecheck_impl_t table(const char* name, const char* description, uint32_t layouts, uint32_t extra_flags, void* ctx) {
  ropecheck_impl_t t{};
  t.struct_size = sizeof(ropecheck_impl_t);
  t.abi_version = ROPECHECK_ABI_VERSION;
  t.abi_minor = ROPECHECK_ABI_VERSION_MINOR;
  t.name = name;
  t.description = description;
  t.caps = ropecheck_caps_t{sizeof(ropecheck_caps_t), layouts,
                            (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16), kSchemes, 4096,
                            kFlags | extra_flags};
  // fp32 frequencies, the running product, glibc's cosf/sinf (1 ulp), fp32 rotation, fp32 cos/sin
  t.policy = ropecheck_policy_t{sizeof(ropecheck_policy_t), ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_RUNNING_PRODUCT,
                                ROPECHECK_SINCOS_LIBM, 0.0, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32};
  t.policy_ext.struct_size = sizeof(ropecheck_policy_ext_t);
  t.policy_ext.rotation_form = ROPECHECK_ROTATION_SEPARATE;
  t.ctx = ctx;
  t.apply = apply;
  return t;
}

constexpr uint32_t kBothLayouts = (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT);
constexpr uint32_t kHalfSplit = 1u << ROPECHECK_LAYOUT_HALF_SPLIT;

constexpr int kTables = 5;
Table g_tables[kTables];
const ropecheck_impl_t* g_pointers[kTables];

void init_tables() {
  ggml_cpu_init();  // ggml's fp16 tables (ggml-cpu.c); once, before any fork
  for (int i = 0; i < kTables; ++i) g_tables[i].refuse_odd_head_dim = i != 3;
  g_tables[0].entry = Entry::kExt;
  g_tables[0].impl = table("llama_cpp_rope_ext",
                           "llama.cpp ggml CPU ggml_rope_ext (NORMAL / NEOX; _back for the inverse), arguments as "
                           "llama.cpp's converter and context form them",
                           kBothLayouts, 0, &g_tables[0]);
  g_tables[1].entry = Entry::kMrope;
  g_tables[1].impl = table("llama_cpp_rope_multi_mrope",
                           "llama.cpp ggml CPU ggml_rope_multi GGML_ROPE_TYPE_MROPE (Qwen2-VL sections), position "
                           "rows as llama.cpp fills them",
                           kHalfSplit, ROPECHECK_CAP_AXES_SECTIONS, &g_tables[1]);
  g_tables[2].entry = Entry::kImrope;
  g_tables[2].impl = table("llama_cpp_rope_multi_imrope",
                           "llama.cpp ggml CPU ggml_rope_multi GGML_ROPE_TYPE_IMROPE (Qwen3-VL interleaved), position "
                           "rows as llama.cpp fills them",
                           kHalfSplit, ROPECHECK_CAP_AXES_INTERLEAVED, &g_tables[2]);
  g_tables[3].entry = Entry::kExt;
  g_tables[3].impl = table("llama_cpp_rope_ext_odd_head_dim",
                           "llama_cpp_rope_ext without refusing an odd head_dim: ggml as it is (finding G1)",
                           kBothLayouts, 0, &g_tables[3]);
  // VISION: Qwen2-VL's vision encoder takes the default frequencies (qwen2vl.cpp:132); linear is its
  // freq_scale, the one other scheme per-axis frequencies have. No partial rotary (vision_rope.cc).
  g_tables[4].entry = Entry::kVision;
  g_tables[4].impl = table("llama_cpp_rope_multi_vision",
                           "llama.cpp ggml CPU ggml_rope_multi GGML_ROPE_TYPE_VISION (Qwen2-VL's vision encoder: "
                           "2 axes, each restarting its frequencies), arguments as mtmd passes them",
                           kHalfSplit, ROPECHECK_CAP_AXES_SECTIONS | ROPECHECK_CAP_AXIS_FREQUENCIES, &g_tables[4]);
  g_tables[4].impl.caps.schemes = (1u << ROPECHECK_SCHEME_DEFAULT) | (1u << ROPECHECK_SCHEME_LINEAR);
  g_tables[4].impl.caps.flags &= ~ROPECHECK_CAP_PARTIAL_ROTARY;
  for (int i = 0; i < kTables; ++i) g_pointers[i] = &g_tables[i].impl;
}

}  // namespace
}  // namespace ggml_adapter

extern "C" __attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(
    uint32_t host_abi_version, uint32_t* count) {
  if (host_abi_version != ROPECHECK_ABI_VERSION) return nullptr;
  static std::once_flag once;
  std::call_once(once, ggml_adapter::init_tables);
  *count = ggml_adapter::kTables;
  return ggml_adapter::g_pointers;
}
