// SPDX-License-Identifier: MIT
// The plugin's device staging (included once, by flashinfer_rope_plugin.cu):
// a call's host buffers copied to the device and its outputs back, as the
// ABI speaks host pointers; errors as the ABI's status and message.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "ropecheck/kernel_abi.h"

namespace flashinfer_adapter {
namespace {

ropecheck_status_t fail(char* err, std::size_t n, ropecheck_status_t st, const std::string& why) {
  if (n) std::snprintf(err, n, "%s", why.c_str());
  return st;
}

// The device: "" when the CUDA runtime finds one, else why not.
std::string device_missing() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  return count > 0 ? "" : "cudaGetDeviceCount: no CUDA device";
}

struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  // bytes from the host (or none: left as cudaMalloc gives it)
  cudaError_t stage(std::size_t bytes, const void* host) {
    if (bytes == 0) return cudaSuccess;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaSuccess && host) e = cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
    return e;
  }
};

// Elements spanned by a [tokens, heads, head_dim] tensor (strides >= 0).
std::size_t extent(int64_t tokens, int heads, int head_dim, int64_t ts, int64_t hs) {
  if (tokens == 0 || heads == 0) return 0;
  return static_cast<std::size_t>((tokens - 1) * ts + static_cast<int64_t>(heads - 1) * hs + head_dim);
}

// One of q / k on the device: the input, and the output (the input's buffer
// in place; else a copy of the caller's output, so the elements between its
// heads come back as they were).
struct Tensor {
  DeviceBuffer in, out_own;
  void* d_in = nullptr;
  void* d_out = nullptr;
  std::size_t bytes = 0;
  cudaError_t stage(const void* host_in, void* host_out, std::size_t elems) {
    bytes = elems * 2;  // fp16 / bf16
    if (bytes == 0) return cudaSuccess;
    cudaError_t e = in.stage(bytes, host_in);
    d_in = d_out = in.p;
    if (e == cudaSuccess && host_out != host_in) {
      e = out_own.stage(bytes, host_out);
      d_out = out_own.p;
    }
    return e;
  }
  cudaError_t fetch(void* host_out) const {
    return bytes ? cudaMemcpy(host_out, d_out, bytes, cudaMemcpyDeviceToHost) : cudaSuccess;
  }
};

std::string cuda_error(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

}  // namespace
}  // namespace flashinfer_adapter
