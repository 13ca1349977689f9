#!/usr/bin/python3
"""Writes the synthetic JAX device memory profiles of testdata/records/.

A device memory profile (jax.profiler.save_device_memory_profile) is a gzipped
pprof protobuf (google/pprof's proto/profile.proto) with two sample types,
("allocations", "count") and ("space", "bytes"); each sample is one live buffer
(label kind=buffer, label device=the device) or one loaded executable
(kind=executable), aggregated by identical stack, size and device, with the Python
stack that made it, innermost frame first. That is how XLA's HeapProfile writes it
(xla/python/py_client.cc). The messages are encoded by Debian's python3-protobuf
from a descriptor of profile.proto's fields built here, so the bytes are
protobuf's own, not oomlens's.

    /usr/bin/python3 tests/gen/jax_profiles.py testdata/records
"""
import gzip
import os
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def profile_classes():
    """profile.proto's messages (the fields a device memory profile uses)."""
    file = descriptor_pb2.FileDescriptorProto(name="profile.proto", package="perftools.profiles",
                                              syntax="proto3")

    def message(name, *fields):
        m = file.message_type.add(name=name)
        for number, field_name, kind, repeated, type_name in fields:
            f = m.field.add(name=field_name, number=number, type=kind,
                            label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
            if type_name:
                f.type_name = ".perftools.profiles." + type_name

    message("Profile", (1, "sample_type", F.TYPE_MESSAGE, True, "ValueType"),
            (2, "sample", F.TYPE_MESSAGE, True, "Sample"), (4, "location", F.TYPE_MESSAGE, True, "Location"),
            (5, "function", F.TYPE_MESSAGE, True, "Function"), (6, "string_table", F.TYPE_STRING, True, None),
            (9, "time_nanos", F.TYPE_INT64, False, None))
    message("ValueType", (1, "type", F.TYPE_INT64, False, None), (2, "unit", F.TYPE_INT64, False, None))
    message("Sample", (1, "location_id", F.TYPE_UINT64, True, None), (2, "value", F.TYPE_INT64, True, None),
            (3, "label", F.TYPE_MESSAGE, True, "Label"))
    message("Label", (1, "key", F.TYPE_INT64, False, None), (2, "str", F.TYPE_INT64, False, None),
            (3, "num", F.TYPE_INT64, False, None))
    message("Location", (1, "id", F.TYPE_UINT64, False, None), (4, "line", F.TYPE_MESSAGE, True, "Line"))
    message("Line", (1, "function_id", F.TYPE_UINT64, False, None), (2, "line", F.TYPE_INT64, False, None))
    message("Function", (1, "id", F.TYPE_UINT64, False, None), (2, "name", F.TYPE_INT64, False, None),
            (4, "filename", F.TYPE_INT64, False, None))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    descriptor = pool.FindMessageTypeByName("perftools.profiles.Profile")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf 4.x; Debian 12 has 3.21's API
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


class Builder:
    """Strings, functions and locations interned as XLA's PprofProfileBuilder does."""

    def __init__(self, Profile):
        self.profile = Profile()
        self.strings = {}
        self.functions = {}
        self.locations = {}
        self.string("")  # index 0 is always ""
        for kind, unit in (("allocations", "count"), ("space", "bytes")):
            t = self.profile.sample_type.add()
            t.type, t.unit = self.string(kind), self.string(unit)

    def string(self, s):
        if s not in self.strings:
            self.strings[s] = len(self.strings)
            self.profile.string_table.append(s)
        return self.strings[s]

    def location(self, filename, name, line):
        key = (filename, name, line)
        if key not in self.locations:
            fkey = (filename, name)
            if fkey not in self.functions:
                f = self.profile.function.add(id=len(self.functions) + 1)
                f.name, f.filename = self.string(name), self.string(filename)
                self.functions[fkey] = f.id
            loc = self.profile.location.add(id=len(self.locations) + 1)
            loc.line.add(function_id=self.functions[fkey], line=line)
            self.locations[key] = loc.id
        return self.locations[key]

    def sample(self, stack, size, count=1, device=None):
        s = self.profile.sample.add()
        s.location_id.extend(self.location(*frame) for frame in stack)
        s.value.extend([count, size * count])
        kind = s.label.add(key=self.string("kind"))
        if device is None:
            kind.str = self.string("executable")
        else:
            kind.str = self.string("buffer")
            s.label.add(key=self.string("device"), str=self.string(device))


JAX = "/usr/lib/python3/dist-packages/jax/_src/"
MiB = 1 << 20
GiB = 1 << 30


def stack(*own):
    """Innermost first: JAX's own frames, then the program's."""
    return [(JAX + "numpy/lax_numpy.py", "zeros", 4012), (JAX + "api.py", "cache_miss", 250), *own]


def sharded_training(Profile, later=False):
    """Four TPU devices; device 3 holds more (a skewed sharding), the KV cache is the
    largest holder. later: the same server an hour on, when every device also keeps
    the outputs of requests it answered (a leak: references kept in a Python list)."""
    b = Builder(Profile)
    cache = stack(("/srv/app/model.py", "init_cache", 77), ("/srv/app/serve.py", "main", 12))
    params = stack(("/srv/app/model.py", "init_params", 31), ("/srv/app/serve.py", "main", 10))
    for d in range(4):
        device = f"TPU_{d}(host=0,(0,0,0,{d}))"
        b.sample(cache, (6 if d == 3 else 3) * GiB, 1, device)
        b.sample(params, 512 * MiB, 8, device)
    if later:
        kept = stack(("/srv/app/model.py", "decode", 120), ("/srv/app/serve.py", "handle_request", 44))
        for d in range(4):
            b.sample(kept, 128 * MiB, 6, f"TPU_{d}(host=0,(0,0,0,{d}))")
    b.sample([("/srv/app/serve.py", "main", 20)], 96 * MiB)  # one executable
    return b.profile


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    Profile = profile_classes()
    for name, later in (("sharded-serving.prof", False), ("sharded-serving-later.prof", True)):
        with gzip.GzipFile(os.path.join(out_dir, name), "wb", mtime=0) as f:
            f.write(sharded_training(Profile, later).SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/records")
