// The general reader of memory failures (rules/signatures/generic.json): real OOMs of
// runtimes no family signature knows (testdata/logs/runtimes/, MANIFEST.json says what
// each must yield) are incidents with their figures, and look-alikes are not.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const std::string kRuntimes = std::string(OOMLENS_SOURCE_DIR) + "/testdata/logs/runtimes/";
const std::set<std::string> kGeneralSignatures = {"unrecognized_oom", "memory_failure", "oom_statement",
                                                  "memory_kill", "killed_by_signal"};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class GeneralReader : public ScanFixture {};

TEST_F(GeneralReader, ReadsEveryRuntimeOfTheManifest) {
  nlohmann::json manifest = nlohmann::json::parse(Slurp(kRuntimes + "MANIFEST.json"));
  ASSERT_GE(manifest.size(), 5u);
  for (const auto& entry : manifest) {
    const std::string file = entry["file"];
    Report report = Scan(Slurp(kRuntimes + file));
    const Incident* found = nullptr;
    for (const auto& incident : report.incidents)
      if (incident.kind == entry["kind"]) found = &incident;
    ASSERT_NE(found, nullptr) << file << ": no incident of kind " << entry["kind"] << " ("
                              << report.incidents.size() << " incidents)";
    EXPECT_TRUE(kGeneralSignatures.count(found->signature))
        << file << " was read by the family signature " << found->signature << ", not the general reader";
    EXPECT_LT(found->match, 1.0) << file << ": a structural match says so";
    for (const auto& [name, bytes] : entry["facts"].items()) {
      auto fact = found->facts.find(name);
      ASSERT_NE(fact, found->facts.end()) << file << ": " << name << " not read";
      EXPECT_EQ(fact->second.integer, bytes.get<int64_t>()) << file << ": " << name;
    }
    if (entry.contains("occurrences")) {
      EXPECT_EQ(found->occurrences, entry["occurrences"].get<uint64_t>()) << file;
    }
    if (entry.contains("cause")) {
      EXPECT_EQ(found->diagnosis.best.cause, entry["cause"]) << file;
    }
  }
}

TEST_F(GeneralReader, LookAlikesAreNoOom) {
  Report report =
      Scan(Slurp(std::string(OOMLENS_SOURCE_DIR) + "/testdata/logs/negative/general_reader_lookalikes.log"));
  for (const auto& incident : report.incidents) ADD_FAILURE() << "false alarm: " << incident.excerpt.front();
}

// One statement in many runtimes' words: each is read, with the request it names.
TEST_F(GeneralReader, AllocationFailuresInOtherWords) {
  const std::pair<const char*, int64_t> cases[] = {
      {"RuntimeError: Failed to allocate 1073741824 bytes of device memory", 1073741824},
      {"error: could not allocate 512.00 MiB of VRAM for the vertex buffer", 512ll << 20},
      {"Memory allocation of 4096 bytes failed", 4096},
      {"MyRuntimeError: unable to reserve 2.00 GiB of HBM", 2ll << 30},
  };
  for (const auto& [text, requested] : cases) {
    Report report = Scan(std::string(text) + "\n");
    ASSERT_EQ(report.incidents.size(), 1u) << text;
    auto fact = report.incidents[0].facts.find("requested_bytes");
    ASSERT_NE(fact, report.incidents[0].facts.end()) << text;
    EXPECT_EQ(fact->second.integer, requested) << text;
  }
}

// An OOM that prints no figure is still an incident: of cause unknown on a device
// (nothing tells the causes apart), host memory where the words say host.
TEST_F(GeneralReader, AnOomWithoutFiguresIsStillAnIncident) {
  const std::pair<const char*, const char*> cases[] = {
      {"vkQueueSubmit failed: VK_ERROR_OUT_OF_DEVICE_MEMORY", "unknown"},
      {"clEnqueueNDRangeKernel returned CL_MEM_OBJECT_ALLOCATION_FAILURE", "unknown"},
      {"Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space", "host_memory"},
  };
  for (const auto& [text, cause] : cases) {
    Report report = Scan(std::string(text) + "\n");
    ASSERT_EQ(report.incidents.size(), 1u) << text;
    EXPECT_EQ(report.incidents[0].diagnosis.best.cause, cause) << text;
  }
}

// A usage table printed beside a failure, before or after it, gives the failure
// its figures, and the cause follows from them; a table far from any failure, or
// alone, gives nothing.
TEST_F(GeneralReader, AUsageTableBesideAFailureGivesItsFigures) {
  const char* const kTableThenFailure =
      "Memory Stats:\n"
      "Limit:      1490198528\n"
      "InUse:      1477023232\n"
      "MaxInUse:   1477423360\n"
      "Error: failed to allocate 29.91MiB on device 0.\n";
  const char* const kFailureThenDump =
      "Arena ran out of memory while allocating 29.91MiB.  Current allocation summary follows.\n"
      "Bin (256): Total Chunks: 4, Chunks in use: 4. 1.0KiB allocated for chunks.\n"
      "free block at 0x9063ac500 of size 13174784\n"
      "free block at 0x90a618600 of size 1228800\n"
      "Memory Stats:\n"
      "Limit: 1490198528\n"
      "In use: 1477023232\n";
  for (const char* text : {kTableThenFailure, kFailureThenDump}) {
    Report report = Scan(text);
    ASSERT_EQ(report.incidents.size(), 1u) << text;
    const Incident& incident = report.incidents[0];
    EXPECT_EQ(incident.facts.at("limit_bytes").integer, 1490198528) << text;
    EXPECT_EQ(incident.facts.at("in_use_bytes").integer, 1477023232) << text;
    EXPECT_EQ(incident.diagnosis.best.cause, "aggregate_usage") << text;
  }
  Report dump = Scan(kFailureThenDump);
  EXPECT_EQ(dump.incidents[0].facts.at("largest_free_bytes").integer, 13174784);

  Report far = Scan(std::string("Memory Stats:\nLimit: 1490198528\nInUse: 1477023232\n") +
                    "step 1\nstep 2\nstep 3\nstep 4\nError: failed to allocate 29.91MiB on device 0.\n");
  ASSERT_EQ(far.incidents.size(), 1u);
  EXPECT_EQ(far.incidents[0].facts.count("limit_bytes"), 0u)
      << "a table five lines away is not the failure's";
  EXPECT_TRUE(Scan("Memory Stats:\nLimit: 1490198528\nInUse: 1477023232\n").incidents.empty());
}

// A dump that follows a failure ends at the next failure: an OOM printed right
// under another one is an incident of its own, never a line of the first one's dump.
TEST_F(GeneralReader, AListingEndsAtTheNextFailure) {
  Report report = Scan(
      "Arena ran out of memory while allocating 29.91MiB.  Current allocation summary follows.\n"
      "Memory Stats:\n"
      "Limit: 1490198528\n"
      "RuntimeError: failed to allocate 2.00GiB on device 1.\n"
      "Limit: 3490198528\n");
  ASSERT_EQ(report.incidents.size(), 2u);
  EXPECT_EQ(report.incidents[0].facts.at("limit_bytes").integer, 1490198528);
  EXPECT_EQ(report.incidents[1].facts.at("requested_bytes").integer, 2ll << 30);
}

// A job kill's continuation takes figure lines; a line that fails a request of its
// own, read by its own signature, is another OOM (found by the seeded triples).
TEST_F(GeneralReader, AnOomUnderAJobKillIsAnIncidentOfItsOwn) {
  Report report = Scan(
      "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.\n"
      "Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 12.00 MiB is free.\n");
  ASSERT_EQ(report.incidents.size(), 2u);
  EXPECT_EQ(report.incidents[0].kind, "container_oom_killed");
  EXPECT_EQ(report.incidents[0].facts.count("requested_bytes"), 0u);
  EXPECT_EQ(report.incidents[1].kind, "pytorch_cuda");
  EXPECT_EQ(report.incidents[1].facts.at("requested_bytes").text, "20.00 MiB");
}

// The general reader's continuation takes figure lines, not another family's own
// wording: a TPU sentence under a generic kill line is an E0101 of its own (found by
// the seeded-triples test when the budget signatures changed its draw).
TEST_F(GeneralReader, AnotherFamilysSentenceUnderAGenericKillIsItsOwn) {
  Report report = Scan(
      "systemd-oomd[612]: Killed /user.slice/app.slice/app-gnome-code.scope due to memory pressure for "
      "/user.slice being 71.32% > 50.00% for > 20s with reclaim activity\n"
      "There are 147.64M free, 0B reserved, and 147.64M reservable.\n");
  ASSERT_EQ(report.incidents.size(), 2u);
  EXPECT_EQ(report.incidents[0].kind, "host_oom_killer");
  EXPECT_EQ(report.incidents[0].facts.count("free_bytes"), 0u);
  EXPECT_EQ(report.incidents[1].kind, "tpu_program_load");
  EXPECT_EQ(report.incidents[1].facts.at("free_bytes").text, "147.64M");
}

// A device's memory report without its failure (a log tail, a cut paste) is an
// incident: a total given as a lower bound, or a ranking of the largest allocations
// in a device memory, is printed when the memory did not fit. An exact total, or a
// host profiler's ranking, is no failure.
TEST_F(GeneralReader, AMemoryReportWithoutItsFailureIsAnIncident) {
  Report report = Scan(
      "Total sram usage >= 8.74G:\n"
      "    reserved         18.00M\n"
      "    program           1.68G\n"
      "    arguments         7.04G\n"
      "  Largest program allocations in sram:\n"
      "  1. Size: 570.00M\n"
      "     Shape: f32[29184,2,2560]\n"
      "  2. Size: 300.00M\n"
      "     Shape: f32[29184,1,2560]\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& incident = report.incidents[0];
  EXPECT_EQ(incident.kind, "device_alloc");
  EXPECT_LT(incident.match, 1.0);
  EXPECT_EQ(incident.facts.at("total_usage_bytes").text, "8.74G");
  EXPECT_EQ(incident.facts.at("arguments_bytes").text, "7.04G");
  ASSERT_EQ(incident.allocations.size(), 2u);
  EXPECT_EQ(incident.diagnosis.best.cause, "aggregate_usage") << "its largest allocation is 7% of the total";

  for (const char* healthy :
       {"Total sram usage: 8.74G of 16.00G\n", "Total memory usage: 12.5 GiB\n",
        "Top 5 largest allocating locations (by size):\n\t- forward:/m.py:42 -> 2.000GB\n",
        "Largest allocations in file order:\n"})
    EXPECT_TRUE(Scan(healthy).incidents.empty()) << healthy;
}

// A bare count that says what it counts, and it is not bytes (words, elements,
// tokens, bits), is never read as a byte size. Words are bytes only where the
// message names their width: an MLIR memref of 32-bit elements.
TEST_F(GeneralReader, ACountOfOtherUnitsIsNoByteSize) {
  Report elements =
      Scan("error: failed to allocate 512 bytes of scratch memory: the kernel needs 4096 elements\n");
  ASSERT_EQ(elements.incidents.size(), 1u);
  EXPECT_EQ(elements.incidents[0].facts.at("requested_bytes").integer, 512);

  Report words = Scan(
      "error: failed to allocate: 'memref.alloca' op allocation offset (140704 words) exceeds the "
      "allocatable "
      "upper bound (131071 words) in memory space 3 when allocating 23440 words: memref<23440xf32, 3>\n");
  ASSERT_EQ(words.incidents.size(), 1u);
  EXPECT_EQ(words.incidents[0].facts.at("used_bytes").integer, 140704 * 4);
  EXPECT_EQ(words.incidents[0].facts.at("limit_bytes").integer, 131071 * 4);
  EXPECT_EQ(words.incidents[0].facts.at("requested_bytes").integer, 23440 * 4);
  EXPECT_TRUE(words.problems.empty()) << "a count read in its unit is no warning";

  Report unknown_width = Scan("error: failed to allocate scratch memory of 23440 words on device 0\n");
  ASSERT_EQ(unknown_width.incidents.size(), 1u);
  EXPECT_EQ(unknown_width.incidents[0].facts.count("requested_bytes"), 0u) << "no width, no bytes";
}

// A dump, its statistics block (an annotation of its own), then the failure: the
// statistics do not part the dump from the failure it belongs to.
TEST_F(GeneralReader, AStatisticsBlockDoesNotPartADumpFromItsFailure) {
  Report report = Scan(
      "I0731 20:22:43.042783 1 bfc_allocator.cc:990] free block at 0x9063ac500 of size 13174784\n"
      "I0731 20:22:43.042783 1 bfc_allocator.cc:990] free block at 0x90a618600 of size 1228800\n"
      "I0731 20:22:43.043019 1 bfc_allocator.cc:1010] Stats: \n"
      "Limit:      1490198528\n"
      "InUse:      1477023232\n"
      "MaxInUse:   1477423360\n"
      "NumAllocs:  455\n"
      "\n"
      "E0731 20:22:43.043072 1 op_kernel.cc:1753] Error: failed to allocate 29.91MiB on device 0.\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].facts.at("largest_free_bytes").integer, 13174784);
  EXPECT_EQ(report.incidents[0].facts.at("limit_bytes").integer, 1490198528);
}

// A handler prints PyTorch's memory summary, then re-raises: the traceback between
// the table and the failure does not part them; other lines past the gap do.
TEST_F(GeneralReader, ATracebackDoesNotPartAListingFromItsFailure) {
  const std::string table =
      "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
      "|            CUDA OOMs: 1            |        cudaMalloc retries: 3         |\n"
      "| Non-releasable memory |    2048 MiB |    2048 MiB |   4096 MiB |   2048 MiB |\n";
  const std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 88, in <module>\n"
      "    loss = model(batch).sum()\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1190, in _call_impl\n"
      "    return forward_call(*input, **kwargs)\n"
      "  File \"model.py\", line 41, in forward\n"
      "    h = self.attn(x)\n";
  const std::string oom =
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total "
      "capacity; 1.04 GiB already allocated; 1.12 GiB free; 12.13 GiB reserved in total by PyTorch)\n";
  Report joined = Scan(table + traceback + oom);
  ASSERT_EQ(joined.incidents.size(), 1u);
  EXPECT_EQ(joined.incidents[0].facts.at("alloc_retries").integer, 3);
  EXPECT_EQ(joined.incidents[0].facts.at("non_releasable_bytes").integer, int64_t{2048} << 20);

  Report apart = Scan(table + "step 10\nstep 11\nstep 12\nstep 13\nstep 14\n" + traceback + oom);
  ASSERT_EQ(apart.incidents.size(), 1u);
  EXPECT_EQ(apart.incidents[0].facts.count("alloc_retries"), 0u) << "a table five lines before is not its";
}

}  // namespace
}  // namespace oomlens
