#include "oomlens/facts.h"

#include <algorithm>
#include <cctype>

#include "core/model/from_chars.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

std::vector<FactInfo> BuildRegistry() {
  using T = FactType;
  std::vector<FactInfo> r = {
      // Read from logs.
      {"program", T::kText, false, "the XLA program (executable) that failed"},
      {"memory_space", T::kText, false, "hbm, vmem, smem, host ..."},
      {"chip", T::kText, false, "accelerator generation, from the log or --chip"},
      {"requested_bytes", T::kSize, false, "the allocation or reservation that failed"},
      {"free_bytes", T::kSize, false, "free memory in total when it failed"},
      {"reserved_bytes", T::kSize, false, "memory reserved (TPU program load: 'N reserved')"},
      {"reservable_bytes", T::kSize, false, "contiguous room at the bottom of HBM for programs"},
      {"largest_free_bytes", T::kSize, false, "largest contiguous free block"},
      {"limit_bytes", T::kSize, false, "the limit the failing allocator or compiler enforced"},
      {"capacity_bytes", T::kSize, false, "the device's whole memory"},
      {"used_bytes", T::kSize, false, "memory in use (allocated) when it failed"},
      {"exceeded_by_bytes", T::kSize, false, "how far usage exceeded the limit"},
      {"top_of_memory_reserved_bytes", T::kSize, false, "HBM reserved at the top (XRT breakdown)"},
      {"available_after_request_bytes", T::kSize, false, "free minus request (negative: short)", true},
      {"total_usage_bytes", T::kSize, false, "'Total hbm usage >= N'"},
      {"program_bytes", T::kSize, false, "memory the program itself needs"},
      {"arguments_bytes", T::kSize, false, "program arguments held in memory"},
      {"output_bytes", T::kSize, false, "program outputs held in memory"},
      {"hlo_temp_bytes", T::kSize, false, "temporaries of the program (activations)"},
      {"hlo_temp_utilization_percent", T::kRatio, false, "HLO temp utilization printed by the compiler"},
      {"unpadded_bytes", T::kSize, false, "HLO temp before layout padding"},
      {"padded_bytes", T::kSize, false, "HLO temp after layout padding"},
      {"global_bytes", T::kSize, false, "global memory of the program"},
      {"scoped_bytes", T::kSize, false, "scoped memory of the program (VMEM/SMEM scratch)"},
      {"output_shared_bytes", T::kSize, false, "output bytes shared with arguments"},
      {"tensorcore_usage_bytes", T::kSize, false, "TensorCore HBM usage (SparseCore report)"},
      {"sparsecore_usage_bytes", T::kSize, false, "SparseCore HBM usage (embeddings)"},
      {"early_abort", T::kText, false, "set when the compiler aborted early, before a full report"},
      {"shape", T::kText, false, "shape of the allocation that failed"},
      {"remat_target_bytes", T::kSize, false, "memory rematerialization tried to get below"},
      {"remat_reduced_to_bytes", T::kSize, false, "memory rematerialization could reach"},
      {"remat_original_bytes", T::kSize, false, "memory before rematerialization"},
      {"label", T::kText, false, "tag, label or instruction of the allocation that failed"},
      // GPU, framework and host.
      {"allocated_bytes", T::kSize, false, "allocated by the framework (PyTorch 'allocated')"},
      {"reserved_unallocated_bytes", T::kSize, false, "reserved by the caching allocator but unallocated"},
      {"process_used_bytes", T::kSize, false, "memory in use by the failing process, non-framework included"},
      {"in_use_bytes", T::kSize, false, "in use in the allocator (BFC InUse)"},
      {"max_in_use_bytes", T::kSize, false, "peak in use in the allocator (BFC MaxInUse)"},
      {"pool_bytes", T::kSize, false, "memory the allocator holds from the device (regions, pool)"},
      {"available_bytes", T::kSize, false, "what the allocator says it can still get"},
      {"reported_largest_free_bytes", T::kSize, false, "BFC LargestFreeBlock as printed (0 is not trusted)"},
      {"free_chunks_bytes", T::kSize, false, "free chunks inside the allocator's regions, summed"},
      {"free_chunk_count", T::kCount, false, "free chunks in the dump"},
      {"in_use_chunk_count", T::kCount, false, "chunks in use in the dump"},
      {"device_free_at_start_bytes", T::kSize, false, "free device memory when the framework started"},
      {"constant_bytes", T::kSize, false, "constants of the program (XLA buffer assignment)"},
      {"temp_fragmentation_bytes", T::kSize, false, "fragmentation of preallocated temporaries"},
      {"total_fragmentation_bytes", T::kSize, false, "fragmentation of the buffer assignment"},
      {"listed_process_bytes", T::kSize, false, "memory of the processes the message lists, summed"},
      {"largest_process_bytes", T::kSize, false, "the largest of the listed processes"},
      {"process_count", T::kCount, false, "processes the message lists"},
      {"awaiting_free_bytes", T::kSize, false,
       "blocks freed but still in use by another stream (memory snapshot: active_awaiting_free)"},
      {"graph_pool_bytes", T::kSize, false, "segments of CUDA-graph private pools (memory snapshot)"},
      {"segment_count", T::kCount, false, "segments the caching allocator holds (memory snapshot)"},
      {"buffer_assignment_bytes", T::kSize, false,
       "a compiled program's buffers in all (XLA memory-usage-report)"},
      {"trace_allocs", T::kCount, false, "allocations the allocator's trace recorded (memory snapshot)"},
      {"trace_frees", T::kCount, false, "of those, the ones the trace saw freed"},
      {"never_freed_count", T::kCount, false,
       "allocations made in the trace and never freed (live at the snapshot)"},
      {"never_freed_bytes", T::kSize, false, "what they hold"},
      {"never_freed_owner", T::kText, false, "the frame that made most of them (file:line function)"},
      {"never_freed_owner_bytes", T::kSize, false, "what that frame's never-freed allocations hold"},
      {"never_freed_owner_count", T::kCount, false, "how many they are"},
      {"live_buffer_bytes", T::kSize, false, "live device arrays, summed (JAX device memory profile)"},
      {"live_buffer_count", T::kCount, false, "live device arrays (JAX device memory profile)"},
      {"executable_bytes", T::kSize, false, "loaded programs (executables) in device memory (JAX profile)"},
      {"device_count", T::kCount, false, "devices a memory record describes"},
      {"largest_device_bytes", T::kSize, false, "what the fullest device holds (JAX profile)"},
      {"smallest_device_bytes", T::kSize, false, "what the emptiest device holds (JAX profile)"},
      {"trace_oom_count", T::kCount, false, "OOMs the allocator's trace recorded on the device"},
      {"expandable_segments", T::kText, false,
       "set when the caching allocator's expandable segments were on"},
      {"alloc_conf", T::kText, false, "PYTORCH_CUDA_ALLOC_CONF in force (memory snapshot)"},
      {"dtype", T::kText, false, "element type of the tensor"},
      {"allocator", T::kText, false, "allocator name (GPU_0_bfc ...)"},
      {"non_releasable_bytes", T::kSize, false,
       "free pieces of split blocks the caching allocator cannot release (memory summary)"},
      {"alloc_retries", T::kCount, false,
       "cudaMalloc calls retried after the cache was freed (memory summary)"},
      {"unlisted_count", T::kCount, false,
       "entries a listing summed without listing them ('Remaining N nodes')"},
      {"unlisted_bytes", T::kSize, false, "what those unlisted entries hold"},
      {"autotuning", T::kText, false, "set when the allocation was made by the XLA autotuner"},
      {"sparsecore_program", T::kText, false, "set when a SparseCore program's buffer did not fit (E3000)"},
      {"process", T::kText, false, "process name (host OOM kills)"},
      {"pid", T::kCount, false, "process id"},
      {"signal", T::kText, false, "signal that killed a worker (Killed, Bus error)"},
      {"exit_code", T::kCount, false, "exit code of a killed process or container"},
      {"constraint", T::kText, false, "OOM-killer constraint (CONSTRAINT_NONE, CONSTRAINT_MEMCG ...)"},
      {"total_vm_bytes", T::kSize, false, "virtual memory of the killed process"},
      {"anon_rss_bytes", T::kSize, false, "anonymous resident memory of the killed process"},
      {"file_rss_bytes", T::kSize, false, "file-backed resident memory"},
      {"shmem_rss_bytes", T::kSize, false, "shared-memory resident memory"},
      {"mem_fraction", T::kRatio, false, "XLA_PYTHON_CLIENT_MEM_FRACTION"},
      {"max_seq_len", T::kCount, false, "a serving engine's maximum sequence length (tokens)"},
      {"kv_cache_tokens", T::kCount, false, "tokens the serving engine's KV cache can hold"},
      {"weights_bytes", T::kSize, false, "the model's weights, as the engine measured them after loading"},
      {"non_torch_bytes", T::kSize, false, "device memory outside PyTorch's allocator (NCCL, CUDA context)"},
      {"activation_peak_bytes", T::kSize, false, "the peak of activations in the engine's profile run"},
      {"kv_cache_bytes", T::kSize, false, "memory the engine gives its KV cache"},
      {"kv_cache_k_bytes", T::kSize, false, "the K half of a KV cache (SGLang)"},
      {"kv_cache_v_bytes", T::kSize, false, "the V half of a KV cache (SGLang)"},
      {"free_after_kv_cache_bytes", T::kSize, false,
       "free once the KV cache is allocated, what activations and CUDA graphs share (SGLang)"},
      {"usable_bytes", T::kSize, false,
       "what the engine may use: the device's memory x gpu_memory_utilization"},
      {"gpu_memory_utilization", T::kRatio, false, "the share of the device a serving engine may use"},
      {"generated_code_bytes", T::kSize, false, "a compiled program's code (CompiledMemoryStats)"},
      {"alias_bytes", T::kSize, false, "outputs that reuse argument buffers (CompiledMemoryStats)"},
      {"temp_bytes", T::kSize, false, "a compiled program's temporaries (CompiledMemoryStats)"},
      {"parameter_count", T::kCount, false, "the model's parameters, as the log counted them"},
      {"trainable_parameter_count", T::kCount, false, "the parameters that train (the rest are frozen)"},
      {"num_layers", T::kCount, false, "the model's layers (its config's num_hidden_layers)"},
      {"num_attention_heads", T::kCount, false, "attention heads per layer (its config)"},
      {"num_kv_heads", T::kCount, false,
       "key/value heads per layer (its config; fewer under grouped-query attention)"},
      {"head_dim", T::kCount, false, "the size of one attention head (its config)"},
      {"hidden_size", T::kCount, false, "the model's hidden size (its config)"},
      {"model_dtype", T::kText, false,
       "the dtype the model's weights load in (its config: bfloat16, float32 ...)"},
      {"duplicate_group_bytes", T::kSize, false,
       "the largest group of 4 or more identical in-use chunks (fewer copies are parameters and optimizer "
       "state)"},
      {"context_creation", T::kText, false, "set when the OOM happened while creating a device context"},
      {"cgroup", T::kText, false, "set when a cgroup / container limit did the kill"},
      {"oom_killed", T::kText, false, "set when the container runtime reported OOMKilled"},
      {"evicted", T::kText, false, "set when Kubernetes evicted the pod for node memory pressure"},
      {"memory_pressure", T::kText, false,
       "set when a memory watcher killed the work for the machine's memory pressure"},
      {"shared_memory", T::kText, false, "set when shared memory (/dev/shm) ran out"},
      // Who printed the event.
      {"sample_used_bytes", T::kSize, false, "one figure of a memory series (in use at that time)"},
      {"sample_limit_bytes", T::kSize, false, "the limit printed beside a memory figure"},
      {"sample_key", T::kText, false, "the device or label a memory figure is for"},
      {"replica", T::kIdentity, false, "replica index"},
      {"partition", T::kIdentity, false, "partition index"},
      {"host", T::kIdentity, false, "host, worker or pod"},
      {"device", T::kIdentity, false, "device id, e.g. 0x0x0_HBM0 or device ordinal 0"},
      {"rank", T::kIdentity, false, "process rank"},
      // Derived by oomlens.
      {"shortfall_bytes", T::kSize, true, "requested - free"},
      {"largest_contiguous_bytes", T::kSize, true,
       "largest_free_bytes, or reservable_bytes for program loads"},
      {"request_to_free_ratio", T::kRatio, true, "requested / free"},
      {"request_to_capacity_ratio", T::kRatio, true, "requested / capacity"},
      {"fragmentation_ratio", T::kRatio, true, "(free - largest contiguous) / free"},
      {"overflow_ratio", T::kRatio, true, "exceeded_by / used: the share of usage to cut"},
      {"usage_to_limit_ratio", T::kRatio, true, "used / limit"},
      {"arguments_ratio", T::kRatio, true, "arguments / limit"},
      {"hlo_temp_ratio", T::kRatio, true, "HLO temp / used (or / total usage)"},
      {"dtype_bytes", T::kSize, true,
       "bytes per element of model_dtype (bfloat16: 2, float32: 4, float8: 1)"},
      {"allocation_count", T::kCount, true, "allocations listed"},
      {"largest_allocation_bytes", T::kSize, true, "the largest listed allocation"},
      {"largest_allocation_ratio", T::kRatio, true, "largest allocation / limit"},
      {"largest_allocation_shape", T::kText, true, "its shape"},
      {"largest_allocation_operator", T::kText, true, "its operator (op_name)"},
      {"largest_allocation_source", T::kText, true, "its source file:line"},
      {"largest_allocation_label", T::kText, true, "its XLA label"},
      {"series_samples", T::kCount, true, "memory figures printed before the incident (one series)"},
      {"series_first_bytes", T::kSize, true, "the first figure of the series"},
      {"series_last_bytes", T::kSize, true, "the last figure of the series"},
      {"series_peak_bytes", T::kSize, true, "the largest figure of the series"},
      {"series_growth_bytes", T::kSize, true, "last - first figure"},
      {"series_growth_ratio", T::kRatio, true, "last / first figure"},
      {"series_slope_bytes", T::kSize, true, "growth per figure (least-squares trend)"},
      {"series_rising_share", T::kRatio, true, "share of steps between figures that did not go down"},
      {"series_late_growth_share", T::kRatio, true,
       "share of the growth made in the second half of the series"},
      {"series_limit_bytes", T::kSize, true, "the limit printed with the series"},
      {"series_samples_to_limit", T::kCount, true, "figures until the trend reaches the limit"},
      {"series_name", T::kText, true, "what the series measures"},
      {"series_minutes", T::kRatio, true, "minutes between the first and last timed figure"},
      {"series_slope_per_minute_bytes", T::kSize, true, "growth per minute (last - first over the minutes)"},
      {"series_minutes_to_limit", T::kRatio, true, "minutes until the growth reaches the limit"},
      {"program_compiles_before", T::kCount, true,
       "lines before the incident naming its program being compiled"},
      {"program_first_compile_line", T::kCount, true, "the first of those lines"},
      {"steps_before", T::kCount, true, "completed steps logged before the incident (its input)"},
      {"phase", T::kText, true,
       "when it ran out: load, compile, warmup, step, eval, checkpoint, graph_capture or kv_cache (absent: "
       "unknown); rules test it with phase(...)"},
      {"allocated_total_bytes", T::kSize, true, "live allocations of a listing, summed"},
      {"free_total_bytes", T::kSize, true, "free blocks of a listing, summed"},
      {"free_block_count", T::kCount, true, "free blocks in a listing"},
      {"largest_free_block_bytes", T::kSize, true, "the largest free block of a listing"},
      {"top_owner", T::kText, true, "the owner (program, process) holding most listed bytes"},
      {"top_owner_bytes", T::kSize, true, "what the top owner holds"},
      {"top_owner_share", T::kRatio, true, "top owner / allocated total"},
      {"identical_buffers_count", T::kCount, true, "live buffers in the largest group of one shape and size"},
      {"identical_buffers_bytes", T::kSize, true, "what that group holds"},
      {"identical_buffers_share", T::kRatio, true, "that group / allocated total"},
      {"identical_buffers_shape", T::kText, true, "the group's shape (or size when no shape is printed)"},
      {"padding_total_bytes", T::kSize, true, "extra memory due to padding, summed over the listing"},
      {"largest_padding_bytes", T::kSize, true, "the largest padding of one allocation"},
      {"max_expansion", T::kRatio, true, "the worst padding expansion factor"},
      {"padding_shape", T::kText, true,
       "the shape of the most padded allocation, with its TPU layout and tile"},
      {"padding_minor_dim", T::kCount, true, "its minor (fastest-varying) dimension"},
      {"padding_minor_padded", T::kCount, true, "that dimension rounded up to the tile"},
      {"padding_second_minor_dim", T::kCount, true, "its second-minor dimension"},
      {"padding_second_minor_padded", T::kCount, true, "that dimension rounded up to the tile"},
      {"padding_largest_dim", T::kCount, true, "its largest dimension"},
      {"tensor_bytes", T::kSize, true, "size of the tensor from its shape and dtype"},
      {"allocator_free_bytes", T::kSize, true, "limit - in use (what the allocator had left)"},
      {"other_use_bytes", T::kSize, true, "capacity - free - this process: memory held by others"},
      {"cached_unallocated_bytes", T::kSize, true,
       "reserved by the caching allocator but not allocated (read, or reserved - allocated)"},
  };
  std::sort(r.begin(), r.end(), [](const FactInfo& a, const FactInfo& b) { return a.name < b.name; });
  return r;
}

std::vector<FactInfo> BuildAllocationFields() {
  using T = FactType;
  std::vector<FactInfo> r = {
      {"rank", T::kCount, false, "position in the listing (1 = largest)"},
      {"pid", T::kCount, false, "process id of a memory holder"},
      {"owner", T::kText, false, "who holds the memory (process, program)"},
      {"size_bytes", T::kSize, false, "size of the allocation"},
      {"unpadded_bytes", T::kSize, false, "size before layout padding"},
      {"padding_bytes", T::kSize, false, "extra memory due to padding"},
      {"expansion", T::kRatio, false, "padded / unpadded"},
      {"shape", T::kText, false, "shape and layout"},
      {"operator", T::kText, false, "op_name of the operator"},
      {"op_type", T::kText, false, "op_type of the operator"},
      {"source_file", T::kText, false, "source file of the operator"},
      {"source_line", T::kCount, false, "source line of the operator"},
      {"label", T::kText, false, "XLA label (instruction)"},
      {"type", T::kText, false, "allocation type: HLO temp, parameter, output ..."},
      {"offset", T::kText, false, "address or offset of the block"},
      {"segment", T::kText, false, "the segment the block is part of (memory snapshot: its address)"},
      {"segment_bytes", T::kSize, false, "that segment's size"},
      {"state", T::kText, false, "allocated, free or reserved (a block map); absent: allocated"},
      {"dtype", T::kText, false, "element type"},
      {"id", T::kText, false, "allocation id"},
  };
  std::sort(r.begin(), r.end(), [](const FactInfo& a, const FactInfo& b) { return a.name < b.name; });
  return r;
}

const FactInfo* FindIn(const std::vector<FactInfo>& r, std::string_view name) {
  auto it = std::lower_bound(r.begin(), r.end(), name,
                             [](const FactInfo& f, std::string_view n) { return f.name < n; });
  return it != r.end() && it->name == name ? &*it : nullptr;
}

}  // namespace

const std::vector<FactInfo>& AllocationFields() {
  static const std::vector<FactInfo> fields = BuildAllocationFields();
  return fields;
}

const FactInfo* FindAllocationField(std::string_view name) { return FindIn(AllocationFields(), name); }

const std::vector<FactInfo>& FactRegistry() {
  static const std::vector<FactInfo> registry = BuildRegistry();
  return registry;
}

const FactInfo* FindFact(std::string_view name) { return FindIn(FactRegistry(), name); }

namespace {

// "2,042,016" -> "2042016" when the commas group thousands exactly; "" otherwise.
std::string WithoutThousandsCommas(std::string_view text) {
  size_t first = text.find(',');
  if (first == std::string_view::npos || first == 0 || first > 3) return "";
  std::string digits;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool comma_place = i >= first && (i - first) % 4 == 0;
    if (comma_place != (c == ',')) return "";
    if (c != ',' && !std::isdigit(static_cast<unsigned char>(c))) return "";
    if (c != ',') digits += c;
  }
  return (text.size() - first) % 4 == 0 ? digits : "";
}

}  // namespace

bool MakeFact(const FactInfo& info, std::string_view text, FactValue* value, std::string* error,
              bool decimal_units) {
  value->type = info.type;
  if (text.data() != value->text.data() || text.size() != value->text.size()) {
    value->text.assign(text.data(), text.size());
    text = value->text;  // text may have been a part of value->text
  }
  switch (info.type) {
    case FactType::kSize: {
      auto size = ParseSize(text, error, decimal_units);
      if (!size) return false;
      if (size->bytes < 0 && !info.derived && !info.signed_size) {  // "There are -7.00E free"
        *error = "'" + std::string(text) + "' is a negative amount of memory: " + info.name +
                 " cannot be below 0, so it is not read";
        return false;
      }
      value->integer = size->bytes;
      value->number = static_cast<double>(size->bytes);
      value->tolerance = size->tolerance;
      return true;
    }
    case FactType::kCount: {
      std::string digits = WithoutThousandsCommas(text);  // "2,042,016" tokens
      std::optional<int64_t> n = ParseInt64(digits.empty() ? text : digits);
      if (!n) {
        *error = "'" + std::string(text) + "' is not a whole number";
        return false;
      }
      value->integer = *n;
      value->number = static_cast<double>(*n);
      return true;
    }
    case FactType::kRatio: {
      std::optional<double> n = ParseDouble(text);
      if (!n) {
        *error = "'" + std::string(text) + "' is not a number";
        return false;
      }
      value->number = *n;
      return true;
    }
    case FactType::kText:
    case FactType::kIdentity: return true;
  }
  return true;
}

}  // namespace oomlens
