// SPDX-License-Identifier: MIT
// ABI 1.4's KV-cache write between the C ABI and a fused Python kernel: the
// KvCacheCall it is handed (python/module/python_kernel.h) built from a
// call's ropecheck_kv_write_t, and after the call the caches copied back
// into the write's buffers and its inputs (v, the slot mapping, the scales)
// proven unchanged. The caches are the dense NHD or HND layouts of vLLM and
// FlashInfer; f32 and f16 as such, bf16 as q and k are (numpy: float32
// holding bf16 values, rounded to nearest even when read back; torch:
// torch.bfloat16), fp8 as uint8 codes (vLLM keeps an fp8 cache as uint8).
#ifndef ROPECHECK_PYTHON_MODULE_KV_CACHE_BRIDGE_H_
#define ROPECHECK_PYTHON_MODULE_KV_CACHE_BRIDGE_H_

#include <string>

#include "python/module/array_bridge.h"
#include "python/module/python_kernel.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::python {

// A write handed to a kernel, with what its inputs were.
struct KvHandOff {
  KvCacheCall call;
  py::array v, slots, k_scale, v_scale;  // the inputs as handed over
};

// Empty when the door can hand this write over (K and V caches, dense NHD
// or HND), else why not, naming the field.
std::string kv_door_refusal(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w);

KvHandOff hand_over(const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w, const ArrayKind& kind);

// After the call: empty when the kernel left v, the slot mapping and the
// scales as they were, else which it changed.
std::string changed_kv_input(const KvHandOff& h, const ropecheck_apply_params_t& p, const ArrayKind& kind);

// Copies the caches the kernel wrote into back into the write's buffers
// (KernelContractError when one no longer has its shape and dtype).
void take_back_caches(const KvHandOff& h, const ropecheck_apply_params_t& p, const ropecheck_kv_write_t& w,
                      const ArrayKind& kind);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_KV_CACHE_BRIDGE_H_
