#include "properties/property.h"

namespace ropecheck::prop {

const QkBuffers& CaseContext::inputs() {
  if (!in_) in_ = make_inputs(c_);
  return *in_;
}

const ReferenceResult& CaseContext::reference() {
  if (!ref_) ref_ = compute_reference(c_, inputs());
  return *ref_;
}

}  // namespace ropecheck::prop
