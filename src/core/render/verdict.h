// Internal: the first line of a report (text, Markdown, HTML), in one place, so the
// formats agree on what was found and what was read.
#ifndef OOMLENS_CORE_RENDER_VERDICT_H_
#define OOMLENS_CORE_RENDER_VERDICT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

/// "1 OOM incident", "no OOM found", "74 OOM incidents (the first 1 shown:
/// --max-incidents)" when the list was cut from `total`; "no verdict" when no input
/// could be read at all (a missing file, a directory without -r). Raw: callers escape.
std::string VerdictFound(const Report& report, size_t total);

/// " in a.log (1,260 lines)", " in 3 inputs (9,120 lines); 1 input could not be
/// read", or ": nothing was read (help could not be read)". Raw.
std::string VerdictRead(const Report& report);

/// Some incident of the report was survived: the job did work after it.
bool AnyWentOn(const Report& report);

/// "the job went on after this: 1,200 steps, 3 compiles over 3,400 lines (2h 13m)",
/// or, when some other incident was survived, "ended the job: no work after it";
/// empty otherwise. Raw: callers escape.
std::string AftermathText(const Aftermath& after, bool any_went_on);

/// "weights 12.55G · non torch 0.16G · activation peak 2.38G · kv cache 56.18G · usable
/// 71.27G (serve.log:3-4)": the budget its input printed before it; empty when none. Raw.
std::string BudgetText(const std::vector<BudgetEntry>& budget);

/// "1.58G of the 79.19G device is outside the engine's share (gpu_memory_utilization
/// 0.98); its parts fill 77.61G of the 77.61G share; the KV cache holds 491,520 tokens":
/// what the budget leaves, from its own figures; empty when they say nothing of it. Raw.
std::string HeadroomText(const std::vector<BudgetEntry>& budget);

/// The parts of a budget that hold memory (weights, activations, KV cache, a
/// program's arguments and temporaries ...), as opposed to its totals and shares.
/// The KV cache's share is a part only where the budget lacks its K and V halves.
bool BudgetPart(const std::vector<BudgetEntry>& budget, const std::string& name);

/// "eval: train.log:37: File \"trainer.py\", line 3680, in evaluation_loop", "compile:
/// its message family (tpu_compile_hbm)"; empty when the phase is unknown. Raw.
std::string PhaseText(const Phase& phase);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_VERDICT_H_
