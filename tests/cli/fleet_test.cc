// --fleet: a report of many jobs summarised by failure (docs/fleet.md).
#include "oomlens/fleet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_harness.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

// A TPU program load failure as a job's log prints it, with its own numbers and prefix.
std::string ProgramLoad(const std::string& stamp, const std::string& wrapper, const std::string& program,
                        const std::string& requested, const std::string& free) {
  return "E" + stamp + "  77 pjrt.cc:1] " + wrapper + "RESOURCE_EXHAUSTED: Error loading program '" +
         program + "': Attempting to reserve " + requested +
         " at the bottom of memory. That was not possible. There are " + free + " free, 0B reserved, and " +
         free + " reservable.\n";
}

std::string CudaOom(const std::string& gib) {
  return "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate " + gib +
         " GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. Of the allocated memory "
         "70.00 GiB "
         "is allocated by PyTorch, and 2.00 GiB is reserved by PyTorch but unallocated.\n";
}

class FleetTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& content) {
    return scratch_.Write(name, content);
  }
  CliResult Run(std::vector<std::string> args) { return RunOomlens(std::move(args)); }

  // Five jobs: one failure in three of them (other numbers, other wrappers, one
  // job twice), a CUDA OOM in one, nothing in one.
  std::vector<std::string> Jobs() {
    return {
        Write("job-0.log", ProgramLoad("1128 10:00:00.000000", "", "jit_step", "29.49G", "147.64M")),
        Write("job-1.log", "step 1\n" +
                               ProgramLoad("1129 11:00:00.000000", "jax.errors.JaxRuntimeError: ", "jit_step",
                                           "31.00G", "1.00G") +
                               ProgramLoad("1129 11:00:05.000000", "", "jit_step", "31.00G", "1.00G")),
        Write("job-2.log", "all good\n"),
        Write("job-3.log", CudaOom("20.00")),
        Write("job-4.log",
              ProgramLoad("1130 09:00:00.000000", "ValueError: ", "jit_step", "30.00G", "2.00G")),
    };
  }

  json Fleet(std::vector<std::string> args) {
    args.insert(args.begin(), {"--fleet", "--format", "json", "-q"});
    CliResult r = Run(args);
    EXPECT_EQ(r.code, kExitOomFound) << r.err;
    return json::parse(r.out);
  }

  ScratchDir scratch_;
};

TEST_F(FleetTest, OneFailureAcrossJobsWhateverItsNumbersAndWrappers) {
  json fleet = Fleet(Jobs());
  EXPECT_EQ(fleet["fleet_schema_version"], 1);
  EXPECT_EQ(fleet["jobs"], 5);
  EXPECT_EQ(fleet["jobs_with_oom"], 4);
  EXPECT_EQ(fleet["occurrences"], 5);
  ASSERT_EQ(fleet["failures"].size(), 2u) << fleet.dump(2);
  const json& load = fleet["failures"][0];  // most jobs first
  EXPECT_EQ(load["kind"], "tpu_program_load");
  EXPECT_EQ(load["program"], "jit_step");
  EXPECT_EQ(load["jobs"], 3);
  EXPECT_EQ(load["occurrences"], 4);
  EXPECT_EQ(load["incidents"], 3) << "three requested sizes: three incidents of the merged report";
  EXPECT_EQ(load["first_time"], "--11-28T10:00:00");
  EXPECT_EQ(load["last_time"], "--11-30T09:00:00");
  EXPECT_EQ(load["message"].get<std::string>().substr(0, 143),
            "RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve # at the bottom of "
            "memory. "
            "That was not possible. There are # free,")
      << "prefix and exception class dropped, sizes masked whatever their unit";
  EXPECT_EQ(load["figures"]["requested_bytes"]["min"], 31664646390);  // 29.49G
  EXPECT_EQ(load["figures"]["requested_bytes"]["max"], 33285996544);  // 31.00G
  EXPECT_EQ(load["some_jobs"].size(), 3u);
  EXPECT_EQ(fleet["by_day"].size(), 3u);  // 11-28, 11-29, 11-30; the CUDA OOM is untimed
  EXPECT_EQ(fleet["by_day"][1]["key"], "--11-29");
  EXPECT_EQ(fleet["by_day"][1]["occurrences"], 2);
  EXPECT_FALSE(fleet["by_day"][1].contains("jobs")) << "messages are counted by day, not jobs";
  EXPECT_EQ(fleet["by_cause"][0]["key"], "oversize");  // both failures
  EXPECT_EQ(fleet["by_cause"][0]["jobs"], 4);
  EXPECT_EQ(fleet["by_cause"][0]["failures"], 2);
  EXPECT_EQ(fleet["by_kind"][0]["key"], "tpu_program_load");
  EXPECT_EQ(fleet["by_kind"][0]["jobs"], 3);
}

TEST_F(FleetTest, MergeOfPerJobReportsInShardsGivesTheSameFleet) {
  std::vector<std::string> jobs = Jobs();
  std::string whole =
      Run({"--fleet", "--format", "json", "-q", jobs[0], jobs[1], jobs[2], jobs[3], jobs[4]}).out;
  std::vector<std::string> parts;
  for (size_t k = 0; k < jobs.size(); ++k)
    parts.push_back(
        Write("part-" + std::to_string(k) + ".json", Run({"--format", "json", "-q", jobs[k]}).out));
  std::string shard_a =
      Write("a.json", Run({"--format", "json", "-q", "merge", parts[0], parts[1], parts[2]}).out);
  std::string shard_b = Write("b.json", Run({"--format", "json", "-q", "merge", parts[3], parts[4]}).out);
  EXPECT_EQ(
      Run({"--fleet", "--format", "json", "-q", "merge", parts[0], parts[1], parts[2], parts[3], parts[4]})
          .out,
      whole);
  EXPECT_EQ(Run({"--fleet", "--format", "json", "-q", "merge", shard_a, shard_b}).out, whole);
}

// Past the 10,000 distinct incidents a report keeps, the fleet still counts every
// job and message (attack review W1: 20,000 jobs with an OOM were "10,000 with an
// OOM"), in one run and through reports merged as a Dask reduction merges them.
TEST_F(FleetTest, JobsWhoseOomsWereNotKeptStillCount) {
  std::string many;
  for (int k = 0; k < 10000; ++k)
    many += ProgramLoad("1130 09:00:00.000000", "", "jit_step", std::to_string(20000 + k) + "M", "147.64M");
  std::string big = Write("big.log", many);
  std::string small_a =
      Write("small-a.log", ProgramLoad("1130 10:00:00.000000", "", "jit_step", "1.00G", "1M"));
  std::string small_b =
      Write("small-b.log", ProgramLoad("1130 11:00:00.000000", "", "jit_step", "2.00G", "1M"));
  json fleet = Fleet({big, small_a, small_b});
  EXPECT_EQ(fleet["jobs_with_oom"], 3);
  EXPECT_EQ(fleet["occurrences"], 10002);
  EXPECT_EQ(fleet["occurrences_not_grouped"], 2);

  // A report that could not keep one of its inputs' OOMs says so in its JSON, and a
  // merge of it carries the count on.
  std::string part_a = Write("a.json", Run({"--format", "json", "-q", small_a}).out);
  CliResult folded = Run({"--format", "json", "-q", big, small_b});
  json folded_report = json::parse(folded.out);
  EXPECT_EQ(folded_report["not_kept"]["events"], 1);
  EXPECT_EQ(folded_report["not_kept"]["inputs"], json::array({1})) << "small-b.log";
  std::string part_b = Write("b.json", folded.out);
  json merged = Fleet({"merge", part_a, part_b});
  EXPECT_EQ(merged["jobs"], 3);
  EXPECT_EQ(merged["jobs_with_oom"], 3);
  EXPECT_EQ(merged["occurrences"], 10002);
  EXPECT_EQ(merged["occurrences_not_grouped"], 2);
  CliResult text = Run({"--fleet", "-q", "merge", part_a, part_b});
  EXPECT_NE(text.out.find("3 jobs, 3 with an OOM; 10,002 OOM messages, 10,000 of them in 1 distinct failure "
                          "and 2 in none (past the distinct incidents a report keeps"),
            std::string::npos)
      << text.out.substr(0, 300);
}

TEST_F(FleetTest, UnreadableJobsAreListedAndTheRunFails) {
  std::vector<std::string> jobs = Jobs();
  jobs.push_back(Write("broken.log.gz", std::string("\x1f\x8b\x08\x00garbage", 12)));
  CliResult r = Run({"--fleet", "--format", "json", "-q", jobs[0], jobs[5]});
  EXPECT_EQ(r.code, kExitError);
  json fleet = json::parse(r.out);
  EXPECT_EQ(fleet["jobs_unreadable"], 1);
  EXPECT_EQ(fleet["unreadable"][0], jobs[5]);
  ASSERT_FALSE(fleet["problems"].empty());
  EXPECT_EQ(fleet["problems"][0]["severity"], "error");
}

TEST_F(FleetTest, EveryFormatNamesTheFailureAndHtmlStaysInert) {
  std::string xss =
      Write("x.log", ProgramLoad("1130 09:00:00.000000", "", "<script>alert(1)</script>", "9.00G", "1.00G"));
  for (const char* format : {"text", "markdown", "html"}) {
    CliResult r = Run({"--fleet", "--format", format, "-q", xss, Jobs()[3]});
    EXPECT_EQ(r.code, kExitOomFound) << format << r.err;
    EXPECT_NE(r.out.find("2 jobs, 2 with an OOM"), std::string::npos) << format << r.out;
    if (std::string(format) != "text") {
      EXPECT_EQ(r.out.find("<script>"), std::string::npos) << format;
    }
  }
  CliResult html = Run({"--fleet", "--format", "html", xss});
  EXPECT_NE(html.out.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.out.find("<svg"), std::string::npos) << "the totals as charts";
  CliResult sarif = Run({"--fleet", "--format", "sarif", xss});
  EXPECT_EQ(sarif.code, kExitError);
  EXPECT_NE(sarif.err.find("--fleet writes text, json, markdown or html"), std::string::npos);
}

std::vector<std::string> Days(const json& fleet) {
  std::vector<std::string> days;
  for (const auto& day : fleet["by_day"]) days.push_back(day["key"]);
  return days;
}

TEST_F(FleetTest, TimestampsWithoutAYearAreDatedNearTheFleets) {
  std::string iso = Write("iso.log", "2027-01-02 10:00:00,000 ERROR " + CudaOom("3.00"));
  std::string iso_too = Write("iso2.log", "2027-01-02 11:00:00,000 ERROR " + CudaOom("3.01"));
  std::string december = Write("dec.log", ProgramLoad("1231 23:00:00.000000", "", "jit_a", "9.00G", "1.00G"));
  std::string january = Write("jan.log", ProgramLoad("0101 01:00:00.000000", "", "jit_b", "9.00G", "1.00G"));
  json fleet = Fleet({iso, iso_too, december, january});
  EXPECT_EQ(Days(fleet), (std::vector<std::string>{"2026-12-31", "2027-01-01", "2027-01-02"}))
      << fleet["by_day"].dump();
  json alone = Fleet({december, january});  // no full timestamp: as the logs say
  EXPECT_EQ(alone["by_day"][0]["key"], "--01-01");
}

// One job with a wrong clock does not re-date the fleet's yearless timestamps
// (attack review W11: one 2099 timestamp put three glog jobs in 2098); a job's own
// full timestamps date its yearless ones, whatever the other jobs say.
TEST_F(FleetTest, OneWrongClockDoesNotReDateTheFleet) {
  std::vector<std::string> jobs;
  for (const char* stamp : {"1201 12:00:01.000000", "1201 12:00:02.000000", "1201 12:00:03.000000"})
    jobs.push_back(Write(std::string("glog-") + stamp[11] + ".log",
                         ProgramLoad(stamp, "", "jit_step", "9.00G", "1.00G")));
  std::string wrong = Write("wrong.log", "2099-06-01 00:00:00,000 ERROR " + CudaOom("4.00"));
  std::vector<std::string> one_source = jobs;
  one_source.push_back(wrong);
  EXPECT_EQ(Days(Fleet(one_source)), (std::vector<std::string>{"--12-01", "2099-06-01"}))
      << "one job's clock is no reference for the others";

  std::vector<std::string> outvoted = jobs;
  for (int k = 0; k < 3; ++k)
    outvoted.push_back(Write("iso-" + std::to_string(k) + ".log",
                             "2026-11-30 08:00:00,000 ERROR " + CudaOom("5.0" + std::to_string(k))));
  outvoted.push_back(wrong);
  EXPECT_EQ(Days(Fleet(outvoted)), (std::vector<std::string>{"2026-11-30", "2026-12-01", "2099-06-01"}));

  std::string mixed =
      Write("mixed.log", "2031-11-30 08:00:00,000 ERROR " + CudaOom("3.00") +
                             ProgramLoad("1201 12:00:09.000000", "", "jit_x", "9.00G", "1.00G"));
  outvoted.push_back(mixed);
  std::vector<std::string> days = Days(Fleet(outvoted));
  EXPECT_NE(std::find(days.begin(), days.end(), "2031-12-01"), days.end()) << "its own clock: 2031";
}

TEST(MaskedMessage, SizesAreMaskedWithTheirUnits) {
  Incident i;
  i.excerpt = {"Tried to allocate 20.00 GiB; 1.2G of 0x0x1_HBM0, 33554432B, 3 TPUs, 4 Mbps, 5 K."};
  EXPECT_EQ(MaskedMessage(i), "Tried to allocate #; # of #x#x#_HBM#, #, # TPUs, # Mbps, #.");
}

TEST(MaskedMessage, CutsAtACharacterAndMasksEveryNumber) {
  Incident i;
  i.excerpt = {
      "I1130 12:00:00.1 1 x.cc:1] RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: 12 of 1,024",
      std::string(150, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9"};
  std::string masked = MaskedMessage(i);
  EXPECT_EQ(masked.rfind("Bad StatusOr access: RESOURCE_EXHAUSTED: # of # aaa", 0), 0u) << masked;
  EXPECT_LE(masked.size(), 160u);
  EXPECT_NE(static_cast<unsigned char>(masked.back()) & 0xC0, 0xC0u) << "no cut character";
  EXPECT_TRUE(json::accept("\"" + masked + "\"")) << "valid UTF-8";
}

}  // namespace
}  // namespace oomlens
