# SPDX-License-Identifier: MIT
"""Golden vectors from Python: read an export of ``ropecheck golden export``.

    import ropecheck.golden as rg
    export = rg.load("golden/vectors/smoke/safetensors")    # or npy / json
    for case in export.cases:
        case.tensor("q")                    # float64 array [tokens, q_heads, head_dim]
        case.tensor("q_expected_f64")       # the exact result
        case.budget("q", "f32_angle_product")
        case.torch("q")                     # the stored values as a torch tensor (bf16 as torch.bfloat16)
        case.pair_positions()               # [tokens, rotary_dim/2]: the position each pair rotates with

The reading is ropecheck's own C++ reader (the one ``golden verify`` uses):
SHA256SUMS is required and may be pinned (``expect_sha256``, how CI detects
a replaced export: checksums alone detect corruption, not tampering);
manifest.json is checked against it, and each case file's size and SHA-256
against the manifest before it is parsed. Any refusal raises GoldenError
naming the file and the field.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from . import _core

GoldenError = _core.GoldenError

__all__ = ["GoldenError", "Case", "Export", "load", "bf16_bits_to_f64"]


def bf16_bits_to_f64(bits: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (uint16) to their exact float64 values."""
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


class Case:
    """One case of an export: its manifest entry and its tensors."""

    def __init__(self, entry: Dict[str, Any], arrays: Dict[str, Tuple[np.ndarray, str]]):
        self.entry = entry
        self.id: int = entry["id"]
        self.name: str = entry["name"]
        self.flags = set(entry["flags"])
        self.config: Dict[str, Any] = entry["config"]
        self.dtype: str = entry["dtype"]
        self.layout: str = self.config["layout"]
        self.inverse: bool = entry["direction"] == "inverse"
        self.attention_factor: float = float.fromhex(entry["attentionFactorHex"])
        self.head_dim: int = self.config["head_dim"]
        self.rotary_dim: int = self.config["rotary_dim"]
        # Multi-axis RoPE (manifest schema 2): numAxes, assignment, frequencies,
        # sections or table; None for 1D cases, whose positions are [tokens].
        self.axes: Optional[Dict[str, Any]] = entry.get("axes")
        self.num_axes: int = self.axes["numAxes"] if self.axes else 0
        self._arrays = arrays

    @property
    def names(self) -> List[str]:
        return sorted(self._arrays)

    def raw(self, name: str) -> np.ndarray:
        """The stored values (bf16 as its uint16 bit patterns)."""
        return self._arrays[name][0]

    def tensor(self, name: str) -> np.ndarray:
        """The values as float64 (exact for every stored float dtype)."""
        a, dtype = self._arrays[name]
        if dtype == "bf16":
            return bf16_bits_to_f64(a)
        return a.astype(np.float64)

    def pair_positions(self) -> np.ndarray:
        """The position id each pair rotates with, int64 [tokens, rotary_dim/2]: positions[pair_axis[i], t]
        for a multi-axis case (positions [num_axes, tokens]), positions[t] for every pair of a 1D case."""
        positions = self.raw("positions")
        pairs = self.rotary_dim // 2
        if not self.axes:
            return np.repeat(positions[:, None], pairs, axis=1)
        return positions[self.raw("pair_axis"), :].T.copy()

    def budget(self, which: str, policy: str) -> np.ndarray:
        """Per element, the error budget of `policy` for tensor `which` ('q' or 'k')."""
        return self.tensor(f"{which}_budget_{policy}")

    def torch(self, name: str, device: str = "cpu") -> Any:
        """The stored values as a torch tensor on `device` (bf16 as torch.bfloat16)."""
        import torch

        a, dtype = self._arrays[name]
        if dtype == "bf16":  # torch has no uint16: the same bits as int16, then bfloat16
            t = torch.from_numpy(np.array(a, copy=True).view(np.int16)).view(torch.bfloat16)
        else:
            t = torch.from_numpy(np.array(a, copy=True))
        return t.to(device)


class Export:
    """A golden export directory, validated on opening."""

    def __init__(self, directory: str | os.PathLike, expect_sha256: Optional[str] = None):
        self.directory = os.fspath(directory)
        self._export = _core.GoldenExport(self.directory, expect_sha256 or "")
        self.manifest: Dict[str, Any] = json.loads(self._export.manifest_json)
        self.format: str = self.manifest["format"]
        self.policies: List[str] = list(self.manifest["policies"])

    def __len__(self) -> int:
        return self._export.case_count

    def case(self, index: int) -> Case:
        """Case `index` (in manifest order), its files verified as it is read."""
        return Case(self.manifest["cases"][index], self._export.case_tensors(index))

    @property
    def cases(self) -> Iterator[Case]:
        for i in range(len(self)):
            yield self.case(i)


def load(directory: str | os.PathLike, expect_sha256: Optional[str] = None) -> Export:
    """Opens an export: SHA256SUMS (pinned to `expect_sha256` when given) and the manifest are verified."""
    return Export(directory, expect_sha256)
