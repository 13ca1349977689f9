// Internal: a memory snapshot's segments drawn as an SVG for the HTML report.
#ifndef OOMLENS_CORE_RENDER_SEGMENT_MAP_H_
#define OOMLENS_CORE_RENDER_SEGMENT_MAP_H_

#include <string>

#include "oomlens/report.h"

namespace oomlens {

/// The segments of the incident's listing (entries with a `segment` field, as a
/// PyTorch snapshot's blocks have), the largest first, each a bar of its blocks by
/// state at their place in the segment (blocks the report did not keep are grey),
/// then the request beside the largest free block. "" when the listing has no
/// segments.
std::string SegmentMap(const Incident& incident);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_SEGMENT_MAP_H_
