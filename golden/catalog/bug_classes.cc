// SPDX-License-Identifier: MIT
// The definitions of golden/catalog/bug_classes.h.
#include "golden/catalog/bug_classes.h"

namespace ropecheck::golden {
namespace {

constexpr BugClassInfo kClasses[] = {
    {"Pairing", "channels paired wrongly: the other layout's pairs (on every call, or on one code path chosen by "
                "position or head size), or half-split partners taken across head_dim/2 under partial rotary"},
    {"Direction", "the rotation by the opposite angle"},
    {"FrequencyFormula", "w_i = b^(-2i/d) with the wrong d: head_dim for rotary_dim, or a denominator one pair off"},
    {"ScalingFormula",
     "a frequency scaling scheme misread: YaRN's ramp or correction bounds, Llama 3.1's bands, dynamic NTK as "
     "static, LongRoPE's factor list"},
    {"AttentionFactor", "the attention factor (YaRN mscale, an explicit attention_factor) missing, applied twice, "
                        "ignored for another, or applied to channels it must not touch"},
    {"Unrotated", "elements left as they were: a loop bound one pair short, the pairs past a vector width, the rows "
                  "past the last full block, or k passed through"},
    {"AnglePrecision", "the angle p * w_i formed in less precision than declared: rounded to bf16 or fp16, fp32 "
                       "positions, a running product"},
    {"TrigPrecision", "cos/sin in less precision than declared: rounded to bf16 or the activation dtype, a fast "
                      "sin/cos past its range"},
    {"RotationRounding", "the rotation x cos - y sin rounded more often than declared (every op in the activation "
                         "dtype declared as fp32 math, a fused product rounded first)"},
    {"Positions", "the wrong position per token: the cache or chunk offset ignored, one sequence's position for "
                  "every sequence of a batch"},
    {"Addressing", "memory addressed wrongly: a stride taken from the other tensor or ignored, writes past a view, "
                   "reads past the cos/sin cache"},
    {"MultiAxis", "a multi-axis call's pairs given the wrong axis or frequencies: one axis for every pair, sections "
                  "reversed, interleaved read as sections, per-axis frequencies shared, the axis stride ignored"},
    {"KvCacheWrite", "a fused KV-cache write gone wrong: the wrong slot, scale or entry layout, or the unrotated k "
                     "cached"},
    {"QkNorm", "a fused per-head qk-norm gone wrong: applied after the rotation, the wrong weight form, eps or "
               "statistic"},
    {"QuantizedOutput", "a quantized (fp8) rotated output gone wrong: the scale applied the wrong way, the "
                        "input quantized before the rotation, the other fp8 format's bits"},
};

}  // namespace

std::span<const BugClassInfo> bug_class_catalog() { return kClasses; }

const BugClassInfo* find_bug_class(std::string_view name) {
  for (const auto& c : kClasses)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace ropecheck::golden
