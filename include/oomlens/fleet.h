// A fleet's view of many jobs' logs: the report of all of them merged (per-file
// reports combined by MergeReports, in any grouping), summarised by failure.
//
//   oomlens::Report merged = oomlens::MergeReports(std::move(per_file), rules, "");
//   oomlens::FleetReport fleet = oomlens::SummarizeFleet(merged);
//   oomlens::RenderFleet(fleet, oomlens::Format::kText, std::cout);  // oomlens/render.h
//
// Each input (file) of the merged report is one job.
#ifndef OOMLENS_FLEET_H_
#define OOMLENS_FLEET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

/// The spread of one figure over every occurrence of a failure.
struct FleetFigure {
  std::string name;  ///< a size fact: requested_bytes, free_bytes ...
  int64_t min = 0, max = 0;
};

/// Incidents of every job that are the same failure: the same kind, program,
/// cause, memory space and message once its numbers are masked.
struct FleetFailure {
  static constexpr size_t kMaxJobsNamed = 20;
  std::string fingerprint;  ///< 16 hex digits of the five fields: stable across runs and fleets
  std::string kind, code, title, program, cause, memory_space, chip;
  std::string message;                 ///< the first occurrence's message, numbers masked ("#")
  uint64_t incidents = 0;              ///< incidents of the merged report it groups (other figures)
  uint64_t occurrences = 0;            ///< messages read
  uint64_t jobs = 0;                   ///< inputs it occurred in
  std::vector<std::string> some_jobs;  ///< the first kMaxJobsNamed of them, in input order
  std::string first_time, last_time;   ///< ISO 8601, "" when no occurrence was timed
  std::vector<FleetFigure> figures;
  std::string summary;  ///< the diagnosis of its first incident
  std::vector<std::string> advice;
};

/// Jobs, failures and occurrences under one key (a cause, kind, chip, day or program).
struct FleetTotal {
  std::string key;
  uint64_t failures = 0, jobs = 0, occurrences = 0;
};

struct FleetReport {
  uint64_t jobs = 0;                     ///< inputs
  uint64_t jobs_with_oom = 0;            ///< inputs with an incident
  uint64_t jobs_unreadable = 0;          ///< inputs not read whole
  uint64_t occurrences = 0;              ///< every OOM message, those not grouped too
  uint64_t occurrences_not_grouped = 0;  ///< of incidents past those a report keeps: in no failure or total
  std::vector<FleetFailure> failures;    ///< most jobs first
  std::vector<FleetTotal> by_cause, by_kind, by_chip, by_day, top_programs;
  std::vector<std::string> unreadable;  ///< names of the inputs not read whole
  std::vector<Problem> problems;        ///< errors first: why they could not be read
  bool interrupted = false;
};

/// Groups the merged report's incidents into failures and counts them.
FleetReport SummarizeFleet(const Report& merged);

/// The message of an incident as a fleet compares it: its excerpt without log
/// prefixes and exception class names, lines joined, digits masked ("#"), at most
/// 160 bytes.
std::string MaskedMessage(const Incident& incident);

}  // namespace oomlens

#endif  // OOMLENS_FLEET_H_
