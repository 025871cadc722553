# SPDX-License-Identifier: MIT
"""The Python door for fused kernels (check's ``fused``, ABI 1.4's KV-cache
write): a NumPy function that rotates q and k as HF does and writes k and v
into a paged cache through the slot mapping, as vLLM's reshape_and_cache
does (``round(x / scale)`` in fp32 of the k it returns), passes the cache
properties; the same function caching k before its rotation fails them, and
its reproduce line reruns exactly the failing case."""
import functools

import numpy as np

import ropecheck
from hf_rope_numpy import hf_rope

# The 16- and 32-bit caches (scales of 1): numpy stores them itself, bf16 as
# float32 holding the value, rounded to nearest even when read back. The k it
# caches is its fp32 rotation (numpy has no bf16: a bf16 case's k is rounded
# only when ropecheck reads the output back), so it declares via_storage
# False; declaring True was admitted only while E9 charged a rounding that
# the bf16 step need not have (issue #48's exact budgets). numpy's astype
# overflows to infinity: saturate False (the write's boundary values, #48,
# reach past 65504).
FUSED = ropecheck.KvCacheWrite(cache_dtypes=["f32", "f16", "bf16"], scale_kinds=["per_tensor", "per_head"],
                               via_storage=False, saturate=False)
OPTIONS = dict(layouts=["half_split", "interleaved"], dtypes=["f32", "bf16"], policy="f32_angle_product",
               fused=FUSED, cases=40)
CACHE_PROPERTIES = ["CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged", "PermutingSlotsPermutesTheCache"]
CACHE_NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32}


def store(cache, kv, slot, values, scale):
    """values [kv_heads, head_dim] into the entry of `slot` (vLLM's reshape_and_cache, 16/32-bit caches)."""
    block, entry = divmod(int(slot), kv.block_size)
    scaled = (values.astype(np.float32) / scale[:, None]).astype(CACHE_NUMPY[kv.cache_dtype])
    if kv.layout == "NHD":
        cache[block, entry] = scaled
    else:
        cache[block, :, entry] = scaled


def fused_rope(q, k, positions, rope, kv, cache_unrotated_k=False):
    q_out, k_out = hf_rope(q, k, positions, rope)
    if kv is None:  # a call without a cache write (no k, or a long prefill)
        return q_out, k_out
    heads = k.shape[1]
    k_scale = np.broadcast_to(kv.k_scale, (heads,)).astype(np.float32)
    v_scale = np.broadcast_to(kv.v_scale, (heads,)).astype(np.float32)
    cached = k if cache_unrotated_k else k_out
    for t, slot in enumerate(kv.slot_mapping):
        if slot < 0:
            continue  # padding: nothing written
        store(kv.k_cache, kv, slot, cached[t], k_scale)
        store(kv.v_cache, kv, slot, kv.v[t], v_scale)
    return q_out, k_out


def test_a_fused_numpy_kernel_passes_with_its_cache_writes_judged():
    r = ropecheck.check(fused_rope, properties=["ConformsToReference"] + CACHE_PROPERTIES, **OPTIONS)
    assert r.passed, r.failure_report()
    for p in CACHE_PROPERTIES:
        assert r.properties[p]["passed"] >= 10, r.tables  # judged on cases, not skipped
    assert "### Fused operations" in r.tables and "bf16" in r.tables, r.tables


def test_caching_the_unrotated_k_fails_and_its_reproduce_line_reruns_it(capsys):
    unrotated = functools.partial(fused_rope, cache_unrotated_k=True)
    unrotated.__name__ = "fused_rope_unrotated"
    r = ropecheck.check(unrotated, properties=["CachesTheRotatedKAndV"], **OPTIONS)
    assert not r.passed
    assert {f.property for f in r.failures} == {"CachesTheRotatedKAndV"}, r.failure_report()
    f = r.failures[0]
    print(r.failure_report(limit=1))
    printed = capsys.readouterr().out
    assert "reproduce: ropecheck.check(fused_rope_unrotated, " in printed, printed
    assert "fused=ropecheck.KvCacheWrite(" in f.reproduce and f"case={f.case}" in f.reproduce, f.reproduce
    again = eval(f.reproduce, {"ropecheck": ropecheck, "fused_rope_unrotated": unrotated})
    assert not again.passed and again.cases == 1, again.tables
    assert again.failures[0].message == f.message
