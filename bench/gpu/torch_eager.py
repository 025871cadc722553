#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch eager HF apply_rotary_pos_emb (rotate_half form, written here from
the formula) on the same shape as rope_gpu_bench, timed with CUDA events,
beside a device-to-device copy of the same bytes."""
import torch

T, QH, KVH, D, REPS = 16384, 32, 8, 128, 50


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def timed(fn):
    fn()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(REPS):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / REPS


print("| torch eager | dtype | GB/s (q,k read+written) | d2d copy GB/s | vs copy | us |")
print("|---|---|---:|---:|---:|---:|")
for dtype in (torch.float32, torch.bfloat16):
    q = torch.randn(T, QH, D, device="cuda", dtype=dtype)
    k = torch.randn(T, KVH, D, device="cuda", dtype=dtype)
    inv = 1.0 / (500000.0 ** (torch.arange(0, D, 2, device="cuda").float() / D))
    freqs = torch.outer(torch.arange(T, device="cuda").float(), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(dtype)[:, None, :], emb.sin().to(dtype)[:, None, :]
    ms = timed(lambda: apply_rotary_pos_emb(q, k, cos, sin))
    nbytes = 2 * (q.numel() + k.numel()) * q.element_size()
    src = torch.empty(q.numel() + k.numel(), device="cuda", dtype=dtype)
    dst = torch.empty_like(src)
    copy_ms = timed(lambda: dst.copy_(src))
    name = "fp32" if dtype == torch.float32 else "bf16"
    print(f"| apply_rotary_pos_emb | {name} | {nbytes / ms / 1e6:.1f} | {nbytes / copy_ms / 1e6:.1f} | "
          f"{copy_ms / ms:.2f} | {ms * 1e3:.1f} |")
