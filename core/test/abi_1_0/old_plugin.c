/* A plugin built against the ABI 1.0 header, frozen verbatim beside it
 * (include/ropecheck/kernel_abi.h as of the first release): its table ends
 * before the 1.1 members, and a current host must load it, read nothing past
 * its struct_size, and judge it under its 1.0 policy (every 1.1 field at its
 * default). Plain C, as a kernel written outside C++ would be.
 *
 * The same source built against the frozen 1.3 header (core/test/abi_1_3,
 * the last release before the 1.4 KV-cache write) is the 1.3 plugin: its
 * table has the 1.1 members, abi_minor 3 and no 1.4 kv_policy. Built
 * against the frozen 1.4 headers (core/test/abi_1_4) it is the 1.4 plugin:
 * a table of 1.4's size, abi_minor 4, without 1.5's members; against the
 * frozen 1.5 headers (core/test/abi_1_5), the 1.5 plugin: 1.5's size,
 * abi_minor 5, its 1.5 members (qk-norm policy, max_position) left zero,
 * without 1.6's cos_sin_cache_dtypes; against the frozen 1.6 headers
 * (core/test/abi_1_6), the 1.6 plugin: 1.6's size, abi_minor 6, without
 * 1.7's policy_ext2 (its policy read as POWER frequencies, subnormals
 * kept); against the frozen 1.7 headers (core/test/abi_1_7), the 1.7
 * plugin: 1.7's size, abi_minor 7, without 1.8's quant_policy (never
 * handed a quantized output).
 *
 * The kernel: default frequency scheme, fp32 storage, both layouts,
 * frequencies and angles in double, sin/cos in double rounded to fp32, the
 * rotation in fp32. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ropecheck/kernel_abi.h"

#define MAX_PAIRS 2048

static ropecheck_status_t fail(char* err, size_t n, ropecheck_status_t st, const char* what) {
  if (n) snprintf(err, n, "%s", what);
  return st;
}

static void rotate(const ropecheck_apply_params_t* p, const float* in, float* out, int64_t token_stride,
                   int64_t head_stride, int heads, const float* c, const float* s, int64_t token) {
  const int d = p->rotary_dim, pairs = d / 2;
  for (int h = 0; h < heads; ++h) {
    const int64_t off = token * token_stride + h * head_stride;
    for (int i = 0; i < pairs; ++i) {
      const int a = p->layout == ROPECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
      const int b = p->layout == ROPECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + pairs;
      const float x = in[off + a], y = in[off + b];
      out[off + a] = x * c[i] - y * s[i];
      out[off + b] = x * s[i] + y * c[i];
    }
    if (in != out) memcpy(out + off + d, in + off + d, (size_t)(p->head_dim - d) * sizeof(float));
  }
}

static ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, size_t n) {
  (void)ctx;
  if (!p || p->struct_size < sizeof(ropecheck_apply_params_t) || !p->freq || !p->positions)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "params: null or too small");
  if (p->dtype != ROPECHECK_DTYPE_F32 || p->freq->scheme != ROPECHECK_SCHEME_DEFAULT)
    return fail(err, n, ROPECHECK_UNSUPPORTED, "dtype/scheme: f32 and the default scheme only");
  if (p->rotary_dim < 2 || p->rotary_dim % 2 || p->rotary_dim > p->head_dim || p->rotary_dim / 2 > MAX_PAIRS)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "rotary_dim: must be even and in [2, head_dim]");
  const int d = p->rotary_dim, pairs = d / 2;
  const double sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0 : 1.0;
  float c[MAX_PAIRS], s[MAX_PAIRS];
  for (int64_t t = 0; t < p->num_tokens; ++t) {
    const int64_t pos = p->position_type == ROPECHECK_INDEX_INT32 ? ((const int32_t*)p->positions)[t]
                                                                  : ((const int64_t*)p->positions)[t];
    for (int i = 0; i < pairs; ++i) {
      const double a = (double)pos / pow(p->freq->base, 2.0 * i / d);
      c[i] = (float)cos(a);
      s[i] = (float)(sign * sin(a));
    }
    rotate(p, (const float*)p->q_in, (float*)p->q_out, p->q_token_stride, p->q_head_stride, p->num_q_heads, c, s, t);
    if (p->num_kv_heads > 0)
      rotate(p, (const float*)p->k_in, (float*)p->k_out, p->k_token_stride, p->k_head_stride, p->num_kv_heads, c,
             s, t);
  }
  return ROPECHECK_OK;
}

#if defined(ROPECHECK_ABI_VERSION_MINOR) && ROPECHECK_ABI_VERSION_MINOR == 7u /* the 1.7 headers */
#define PLUGIN_NAME "abi_1_7_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.7 headers"
#elif defined(ROPECHECK_ABI_VERSION_MINOR) && ROPECHECK_ABI_VERSION_MINOR == 6u /* the 1.6 headers */
#define PLUGIN_NAME "abi_1_6_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.6 headers"
#elif defined(ROPECHECK_ABI_VERSION_MINOR) && ROPECHECK_ABI_VERSION_MINOR == 5u /* the 1.5 headers */
#define PLUGIN_NAME "abi_1_5_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.5 headers"
#elif defined(ROPECHECK_ABI_VERSION_MINOR) && ROPECHECK_ABI_VERSION_MINOR == 4u /* the 1.4 headers */
#define PLUGIN_NAME "abi_1_4_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.4 headers"
#elif defined(ROPECHECK_ABI_VERSION_MINOR) /* the 1.3 header (1.0's has no minor version) */
#define PLUGIN_NAME "abi_1_3_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.3 header"
#else
#define PLUGIN_NAME "abi_1_0_plugin"
#define PLUGIN_HEADER "built against the frozen ABI 1.0 header"
#endif

static const ropecheck_impl_t kImpl = {
    sizeof(ropecheck_impl_t), /* the 1.0 size: ends before abi_minor (1.3: the 1.1 size; 1.4-1.7: theirs) */
    ROPECHECK_ABI_VERSION,
    PLUGIN_NAME,
    PLUGIN_HEADER ": default scheme, f32, angles in double",
    {sizeof(ropecheck_caps_t), (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT),
     1u << ROPECHECK_DTYPE_F32, 1u << ROPECHECK_SCHEME_DEFAULT, 4096,
     ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE | ROPECHECK_CAP_PARTIAL_ROTARY |
         ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_NEGATIVE_POSITIONS},
    {sizeof(ropecheck_policy_t), ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_SINCOS_LIBM, 0.0,
     ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32},
    NULL,
    apply,
    NULL,
    NULL,
#ifdef ROPECHECK_ABI_VERSION_MINOR
    ROPECHECK_ABI_VERSION_MINOR, /* 3 to 7 (what follows left zero: no cache write, no qk-norm, no caller cache) */
    0u,
    {0}, /* no policy extension: the 1.0 defaults */
#endif
};
static const ropecheck_impl_t* const kTable[] = {&kImpl};

__attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(uint32_t host_abi_version,
                                                                                         uint32_t* count) {
  if (host_abi_version != ROPECHECK_ABI_VERSION) return NULL;
  *count = 1;
  return kTable;
}
