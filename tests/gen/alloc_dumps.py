"""Writes the synthetic allocation dumps in testdata/logs/tpu_dumps/ (deterministic).

The layout of tpu_log_allocations_on_oom dumps is not published: these model a
best-fit allocator's block map (offset, size, state, owner, shape, label) in the
three layouts rules/signatures/tpu_dumps.json reads. Usage: python3 tests/gen/alloc_dumps.py
"""
import random
random.seed(7)
G=1<<30; M=1<<20
def fmt(b):
    if b>=G: return "%.2fG"%(b/G)
    return "%.2fM"%(b/M)
import os
out=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "logs", "tpu_dumps") + "/"
# 1: key=value, leak by identical buffers (metrics kept alive)
L=[]
L.append("I1130 09:59:58.000000 4242 train.py:88] step 118: loss=2.113")
L.append("E1130 10:00:00.000100 4242 pjrt_client.cc:410] RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.00G. That was not possible. There are 736.00M free.; (0x0x0_HBM0)")
L.append("E1130 10:00:00.000200 4242 tpu_allocator.cc:901] Live allocations at OOM (tpu_log_allocations_on_oom): 52 blocks")
off=0
blocks=[("allocated",4*G,"jit_train_step","bf16[32768,65536]","params"),("allocated",4*G,"jit_train_step","bf16[32768,65536]","opt_state")]
for i in range(44): blocks.append(("allocated",128*M,"jit_train_step","f32[8192,4096]","metrics"))
for i in range(6): blocks.append(("free",int(736*M/6),"","",""))
random.shuffle(blocks)
for k,(st,size,own,shape,label) in enumerate(blocks):
    parts=["offset=0x%09x"%off,"size=%s"%fmt(size),"state=%s"%st]
    if own: parts+=["owner=%s"%own,"shape=%s"%shape,"label=%s"%label,"id=%d"%(k+1)]
    L.append("E1130 10:00:00.%06d 4242 tpu_allocator.cc:905]   "%(300+k)+" ".join(parts))
    off+=size
L.append("I1130 10:00:00.100000 4242 train.py:95] Traceback (most recent call last):")
open(out+"dump_kv_identical_buffers.log","w").write("\n".join(L)+"\n")
# 2: table, fragmentation (free 2.25G in many blocks, largest 256M)
L=[]
L.append("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_decode_step': Attempting to reserve 1.50G at the bottom of memory. That was not possible. There are 2.25G free, 0B reserved, and 256.00M reservable.")
L.append("      OFFSET        SIZE  STATE      OWNER              SHAPE                LABEL")
owners=["jit_prefill","kv_cache","jit_decode_step","jit_sample"]
off=0
shapes={"bf16[8,2048,8192]":256*M,"bf16[16,1024,16384]":512*M,"f32[4096,16384]":256*M}
for k in range(27):
    if k%3==1:
        size=256*M
        L.append(" 0x%09x  %9s  FREE"%(off,fmt(size)))
    else:
        o=owners[k%4]; shape=random.choice(sorted(shapes)); size=shapes[shape]
        L.append(" 0x%09x  %9s  ALLOCATED  %-18s %-20s %%%s.%d"%(off,fmt(size),o,shape,"fusion" if k%2 else "param",k))
    off+=size
L.append("largest free block: 256.00M")
open(out+"dump_table_fragmentation.log","w").write("\n".join(L)+"\n")
# 3: sentences, program eviction scenario: the program ran before, buffers grew
L=[]
L.append("I1130 11:00:00.000000 77 pxla.py:1912] Compiling train_step with global shapes and types [ShapedArray(float32[8,1024])].")
for s in range(1,4):
    L.append("I1130 11:0%d:00.000000 77 train.py:52] completed step: %d, seconds: 1.204, loss: %.3f"%(s,s,3.0-0.1*s))
L.append("E1130 11:05:00.000000 77 tpu_allocator.cc:200] XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': Attempting to reserve 6.00G at the bottom of memory. That was not possible. There are 4.10G free, 0B reserved, and 4.10G reservable.")
L.append("E1130 11:05:00.000001 77 tpu_allocator.cc:210] Dumping all live allocations:")
sizes=[2*G,G+512*M,G,768*M,512*M,512*M,384*M,256*M,256*M,128*M]
own=["jit_eval_step","jit_train_step","jit_eval_step","jit_embed","jit_eval_step","jit_train_step","jit_embed","jit_eval_step","jit_train_step","jit_embed"]
off=0
for k,(s,o) in enumerate(zip(sizes,own)):
    L.append("E1130 11:05:00.%06d 77 tpu_allocator.cc:212] Live allocation %d: %s of program %s, shape f32[%d,1024], at 0x%09x"%(2+k,k+1,fmt(s),o,s//4096,off))
    off+=s
L.append("E1130 11:05:00.000020 77 tpu_allocator.cc:212] Free block of 4.10G at 0x%09x"%off)
open(out+"dump_prose_owners.log","w").write("\n".join(L)+"\n")
